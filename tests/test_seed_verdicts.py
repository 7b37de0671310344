"""The verdicts of the seed documents' printed numbers, computed independently.

tests/data/seed_verdicts.toml holds one entry per printed number claimed in
the bundled examples, with its exact value and expected verdict, written by
tests/data/compute_seed_verdicts.py (mpmath, without symattn). Here the data
is checked against the spec files and against itself (with ``decimal`` only),
and, once ``symattn.verify.checker`` exists, against symattn's checker.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter, defaultdict
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

import symattn

DATA = Path(__file__).parent / "data" / "seed_verdicts.toml"
EXAMPLES = Path(symattn.__file__).parent / "examples"
VERDICTS = {"ok", "propagated", "wrong"}
KEY = re.compile(r"^\s*(?P<step>[A-Za-z_]+)(?:\[(?P<index>[^\]]*)\])?(?P<suffix>\.terms|\.sum)?"
                 r"\s*(?:@\s*(?P<label>.+?))?\s*$")


def _entries() -> list[dict]:
    return tomllib.loads(DATA.read_text(encoding="utf-8"))["claim"]


def _claims_of(name: str) -> dict:
    text = (EXAMPLES / f"{name}.toml").read_text(encoding="utf-8")
    return tomllib.loads(text, parse_float=str).get("claims", {})


def _leaves(value, at=()):
    """(at, text) of every entry in a claim value; at is the 1-based index path."""
    if isinstance(value, list):
        for n, item in enumerate(value, start=1):
            yield from _leaves(item, at + (n,))
    else:
        yield at, str(value)


def _skipped(text: str) -> bool:
    return text.strip() in ("?", "")


class Printed:
    """A printed number read with ``decimal``: value in printed units, places, %."""

    def __init__(self, text: str):
        s = text.strip().lstrip("~≈").strip()
        self.percent = s.endswith("%")
        s = s.rstrip("%").strip().replace("−", "-").replace(" ", "")
        self.neg_inf = s in ("-inf", "-∞")
        if self.neg_inf:
            return
        s = s.replace(",", "") if ("," in s and "." in s) else s.replace(",", ".")
        self.digits = Decimal(s)
        self.places = -self.digits.as_tuple().exponent

    def rounds_from(self, exact: str) -> bool:
        if self.neg_inf or exact == "-inf":
            return self.neg_inf and exact == "-inf"
        x = Decimal(exact) * (100 if self.percent else 1)
        return x.quantize(Decimal(1).scaleb(-self.places), ROUND_HALF_UP) == self.digits

    def interval(self):
        unit = Decimal(1).scaleb(-2) if self.percent else Decimal(1)
        half = Decimal(5).scaleb(-self.places - 1)
        return (self.digits - half) * unit, (self.digits + half) * unit


def _meets(a: Printed, b: Printed) -> bool:
    if a.neg_inf or b.neg_inf:
        return a.neg_inf == b.neg_inf
    (lo1, hi1), (lo2, hi2) = a.interval(), b.interval()
    return max(lo1, lo2) < min(hi1, hi2)


def _quantity(entry: dict):
    """What a printing is of, whatever its label: (example, step, suffix, position, term)."""
    match = KEY.match(entry["key"])
    return (entry["example"], match["step"], match["suffix"] or "", tuple(entry["position"]),
            entry.get("term"))


ENTRIES = _entries()


def test_the_data_is_well_formed():
    for e in ENTRIES:
        assert e["verdict"] in VERDICTS, e
        assert isinstance(e["inconsistent"], bool) and isinstance(e["approximate"], bool), e
        assert isinstance(e["tie"], bool), e
        match = KEY.match(e["key"])
        assert match, e
        assert ("term" in e) == (match["suffix"] == ".terms"), e
        want = 0 if match["step"] == "divisor" else (
            1 if match["step"] == "exp_sum" or match["suffix"] == ".sum" else 2)
        assert len(e["position"]) == want, e
        if e["verdict"] != "ok" or e["inconsistent"] or e["tie"]:
            assert e.get("note"), e
    ids = Counter((e["example"], e["key"], tuple(e["position"]), e.get("term")) for e in ENTRIES)
    assert not [k for k, n in ids.items() if n > 1]


def test_every_entry_is_a_printed_claim_of_a_bundled_example():
    missing = []
    for e in ENTRIES:
        assert (EXAMPLES / f"{e['example']}.toml").is_file(), e["example"]
        claims = _claims_of(e["example"])
        if e["key"] not in claims:
            missing.append((e["example"], e["key"]))
            continue
        leaves = dict(_leaves(claims[e["key"]]))
        assert leaves.get(tuple(e["at"])) == e["printed"], e
    assert not missing


def test_every_printed_claim_has_an_entry():
    # Every example transcribed from the seed documents' attention calculations is
    # covered claim by claim. (Size exercises are judged in tests/test_sizes.py; the
    # examples with numbers of our own are checked by their feature's tests.)
    have = Counter((e["example"], e["key"]) for e in ENTRIES)
    transcribed = {e["example"] for e in ENTRIES}
    assert {"000-cat-chases-mouse", "001-kocka-spi-venku", "001-softmax-10-2-1",
            "001-scores-times-10", "004-softmax-row", "004-cat-eats-fish"} <= transcribed
    for path in sorted(EXAMPLES.glob("*.toml")):
        if path.stem not in transcribed:
            continue
        for key, value in _claims_of(path.stem).items():
            printed = [t for _, t in _leaves(value) if not _skipped(t)]
            assert have[(path.stem, key)] == len(printed), (path.stem, key)


def test_the_exact_values_give_the_verdicts():
    for e in ENTRIES:
        p = Printed(e["printed"])
        assert p.rounds_from(e["exact"]) == (e["verdict"] == "ok"), e
        if e["verdict"] != "ok":
            assert p.rounds_from(e["recomputed"]) == (e["verdict"] == "propagated"), e
        assert e["approximate"] == e["printed"].strip().startswith(("~", "≈")), e


def test_the_inconsistent_flags():
    groups = defaultdict(list)
    for e in ENTRIES:
        groups[_quantity(e)].append(e)
    for group in groups.values():
        for e in group:
            clash = any(not _meets(Printed(e["printed"]), Printed(o["printed"])) for o in group)
            assert e["inconsistent"] == clash, e


def _find(example: str, key: str, position, term=None) -> dict:
    [entry] = [e for e in ENTRIES if (e["example"], e["key"], e["position"], e.get("term"))
               == (example, key, list(position), term)]
    return entry


def test_known_facts():
    w33 = _find("001-kocka-spi-venku", "weights[3]", (3, 3))
    assert (w33["printed"], w33["verdict"], w33["inconsistent"]) == ("0.394", "propagated", True)
    assert w33["exact"].startswith("0.394521")
    again = _find("001-kocka-spi-venku", "weights[3,3] @ řešení", (3, 3))
    assert (again["printed"], again["verdict"], again["inconsistent"]) == ("0,395", "ok", True)
    winner = _find("004-softmax-row", "weights[1]", (1, 5))
    assert (winner["printed"], winner["verdict"]) == ("83.83%", "wrong")
    assert winner["exact"].startswith("0.838394")


def test_known_facts_after_attention():
    """Seed 000, Krok 7 and 8: the FFN, h, logits and probabilities."""
    example = "000-cat-chases-mouse"
    f32 = _find(example, "ffn", (3, 2))
    assert (f32["printed"], f32["verdict"], f32["tie"]) == ("0.86", "propagated", True)
    assert f32["exact"].startswith("0.853933")
    assert Decimal(f32["recomputed"]) == Decimal("0.855")      # 0.73 * 1.0 + 0.25 * 0.5
    h2 = _find(example, "h", (1, 2))
    assert (h2["printed"], h2["verdict"], h2["tie"]) == ("0.86", "propagated", False)
    z2 = _find(example, "logits", (1, 2))
    assert (z2["printed"], z2["verdict"]) == ("0.984", "propagated")
    assert Decimal(z2["recomputed"]) == Decimal("0.984")       # 0.62 * 0.2 + 0.86 * 1.0
    assert z2["exact"].startswith("0.977049")
    p5 = _find(example, "probs", (1, 5))
    assert (p5["printed"], p5["verdict"]) == ("0.11", "propagated")
    assert p5["exact"].startswith("0.11525")
    table = _find(example, "probs @ tabela", (1, 5))
    assert (table["printed"], table["verdict"]) == ("11%", "propagated")
    assert _find(example, "probs", (1, 2))["verdict"] == "ok"   # "chases" is the most likely
    ties = [(e["example"], e["key"], e["position"]) for e in ENTRIES if e["tie"]]
    assert ties == [(example, "ffn", [3, 2])]


# ---------------------------------------------------------------------------- the checker
# The three adapters below are the only places that know symattn's report API.

def _judged(report):
    """The judged claims of a check report."""
    return list(getattr(report, "verdicts", report))


def _identity(judged) -> tuple[str, str]:
    """(claim key as written in the spec, 1-based position text) of a judged claim."""
    return str(judged.claim.key), str(judged.position)


def _expected_identity(entry: dict) -> tuple[str, str]:
    """The same identity for a data entry, e.g. ("weights[3]", "weights[3,1]")."""
    step = KEY.match(entry["key"])["step"]
    position, suffix = entry["position"], KEY.match(entry["key"])["suffix"]
    if step == "divisor":
        text = "divisor"
    elif suffix == ".sum":
        text = f"{step}[{position[0]}].sum"
    elif step == "exp_sum":  # a column vector: reported with one index
        text = f"{step}[{position[0]}]" + (f".terms[{entry['term']}]" if "term" in entry else "")
    else:
        i, j = position
        text = f"{step}[{i},{j}]" + (f".terms[{entry['term']}]" if "term" in entry else "")
    return entry["key"], text


def _verdict(judged) -> str:
    verdict = judged.verdict
    return str(getattr(verdict, "value", verdict))


def _inconsistent(judged) -> bool | None:
    if hasattr(judged, "inconsistent"):
        return bool(judged.inconsistent)
    flags = getattr(judged, "flags", None)
    return None if flags is None else "inconsistent" in flags


def _check_against_checker(compare):
    """Run symattn's checker on every example with data; collect compare's complaints."""
    verify = pytest.importorskip("symattn.verify.checker")
    by_example = defaultdict(list)
    for e in ENTRIES:
        by_example[e["example"]].append(e)
    disagreements = []
    for name, entries in sorted(by_example.items()):
        report = verify.check(symattn.derive(symattn.load_example(name)))
        got = {_identity(j): j for j in _judged(report)}
        for e in entries:
            where = f"{name} {e['key']!r} {_expected_identity(e)[1]} ({e['printed']})"
            judged = got.get(_expected_identity(e))
            complaint = "not judged" if judged is None else compare(judged, e)
            if complaint:
                disagreements.append(f"{where}: {complaint}")
    assert not disagreements, "\n".join(disagreements)


def test_checker_agrees_with_independent_verdicts():
    def compare(judged, e):
        if _verdict(judged) != e["verdict"]:
            return f"judged {_verdict(judged)}, expected {e['verdict']}"
        return None
    _check_against_checker(compare)


def test_checker_flags_the_same_ties():
    def compare(judged, e):
        flags = getattr(judged, "flags", None)
        if flags is not None and ("tie" in flags) != e["tie"]:
            return f"tie flag {'tie' in flags}, expected {e['tie']}"
        return None
    _check_against_checker(compare)


def test_checker_flags_the_same_inconsistent_printings():
    def compare(judged, e):
        flag = _inconsistent(judged)
        if flag is not None and flag != e["inconsistent"]:
            return f"inconsistent flag {flag}, expected {e['inconsistent']}"
        return None
    _check_against_checker(compare)
