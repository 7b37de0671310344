"""Large JSON documents: steps of 4,096 entries or more, whose decimals are decided from
the grids' enclosures (``NumberFormat.format_block``, ``values.enclosure_roundings``).

Each ``derive --format json`` document is held to the same derivation written entry by
entry (``NumberFormat.format`` of each exact entry, the path of small blocks) and to
``json.dumps`` of ``derivation_document``; the decimals of the rational steps (scores,
scaled and masked scores, many of them exact ties) are also rounded here, from the input
strings, with ``fractions`` and Python's decimal module.
"""

from __future__ import annotations

import io
import json
import os
import random
import stat
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

import pytest

import symattn
from cli_support import run
from suite_profile import full
from symattn import progress
from symattn.render import files, view
from symattn.render.text import derivation_document, iter_json_steps
from symattn.values import enclosure_roundings
from symattn.values.number_format import NumberFormat

N = 72       # 72 x 72 = 5,184 entries a step: past NumberFormat's ENCLOSURE_MIN_ENTRIES
MODES = {"half-up": ROUND_HALF_UP, "half-even": ROUND_HALF_EVEN, "truncate": ROUND_DOWN}


def _decimal(value: Fraction, fmt: NumberFormat) -> str:
    """``value`` as ``fmt`` prints it, by Python's decimal module (no minus on a zero;
    d.ddde-XX past digits + 7 characters)."""
    mode = MODES[fmt.rounding.value]
    with localcontext() as context:
        context.prec = 100
        exact = Decimal(value.numerator) / Decimal(value.denominator)
        if fmt.places is not None:
            rounded = exact.quantize(Decimal(1).scaleb(-fmt.places), rounding=mode)
        elif value == 0:
            return "0"
        else:
            digits = fmt.digits
            quantum = Decimal(1).scaleb(exact.adjusted() - digits + 1)
            rounded = exact.quantize(quantum, rounding=mode)
            if rounded.copy_abs() >= Decimal(10) ** (exact.adjusted() + 1):   # 9.96 -> 10.0
                rounded = rounded.quantize(quantum.scaleb(1))
    text = f"{rounded:f}"
    if Decimal(text) == 0:
        text = text.lstrip("-")
    if fmt.places is None and len(text.lstrip("-")) > fmt.digits + 7:
        _, figures, _ = rounded.as_tuple()
        shown = "".join(map(str, figures))[:fmt.digits]
        text = f"{'-' if rounded < 0 else ''}{shown[0]}.{shown[1:]}e{rounded.adjusted():+03d}"
    return text.replace(".", fmt.separator)


def test_the_reference_decimals_by_hand():
    up, even = NumberFormat(places=2), NumberFormat(places=2, rounding="half-even")
    assert (_decimal(Fraction(1, 8), up), _decimal(Fraction(1, 8), even)) == ("0.13", "0.12")
    assert _decimal(Fraction(-1, 8), up) == "-0.13"
    assert _decimal(Fraction(-1, 1000), up) == "0.00"
    assert _decimal(Fraction(-199, 100), NumberFormat(digits=1, rounding="truncate")) == "-1"
    assert _decimal(Fraction(99996, 10 ** 7), NumberFormat(digits=3)) == "0.0100"
    assert _decimal(Fraction(95, 10 ** 8), NumberFormat(digits=6)) == "9.50000e-07"
    assert _decimal(Fraction(15, 10 ** 7), NumberFormat(digits=6)) == "0.00000150000"
    assert _decimal(Fraction(-5, 4), NumberFormat(digits=2, locale="pl")) == "-1,3"


def _write(tmp_path, name: str, document: dict) -> tuple:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"title": name, **document}), encoding="utf-8")
    return path


def _qkv(rng: random.Random, pool: list[str], d: int = 3) -> dict[str, list[list[str]]]:
    return {name: [[rng.choice(pool) for _ in range(d)] for _ in range(N)] for name in "QKV"}


def _specs(tmp_path) -> list:
    """Few distinct entries (tied scores, rational rows, exact halves), two-decimal
    entries, a 0/1 mask with fully masked rows, and given scores with -inf holes
    (weights down to 1e-13: scientific notation)."""
    rng = random.Random(12)
    ties = _write(tmp_path, "ties", {"inputs": _qkv(rng, ["-0.5", "0", "0.5", "1"]),
                                     "options": {"mask": "causal", "d_k": 1}})
    wide = _write(tmp_path, "wide", {"inputs": _qkv(rng, [f"{x / 100:.2f}"
                                                          for x in range(-99, 100)]),
                                     "options": {"mask": "causal"}})
    dead = {0, 5, 40, N - 1}
    mask = [[0 if i in dead else int(j <= i or rng.random() < 0.2) for j in range(N)]
            for i in range(N)]
    masked = _write(tmp_path, "masked", {
        "inputs": _qkv(rng, [f"{x / 10:.1f}" for x in range(-9, 10)], 4),
        "options": {"mask": mask, "fully_masked": "nan"}})
    scaled = [["-inf" if rng.random() < 0.3 else f"{rng.randint(-3000, 3000) / 100:.2f}"
               for _ in range(N)] for _ in range(N)]
    for i in range(N):
        scaled[i][i] = f"{rng.randint(-99, 99) / 4}"      # quarters: exact halves at 1 place
    holes = _write(tmp_path, "holes", {"inputs": {"scaled": scaled,
                                                  "V": _qkv(rng, ["1", "-2", "0.25"])["V"]}})
    return [ties, wide, masked, holes]


def _inputs(path) -> dict[str, list[list[Fraction | None]]]:
    document = json.loads(path.read_text(encoding="utf-8"))
    return {name: [[None if x == "-inf" else Fraction(x) for x in row] for row in matrix]
            for name, matrix in document["inputs"].items()}


def _rational_steps(path) -> dict[str, list[list[Fraction | None]]]:
    """The exact scores, scaled and masked scores from the input strings (None: -inf)."""
    document = json.loads(path.read_text(encoding="utf-8"))
    inputs, options = _inputs(path), document.get("options", {})
    if "scaled" in inputs:
        return {"scaled": inputs["scaled"]}
    q, k = inputs["Q"], inputs["K"]
    scores = [[sum((a * b for a, b in zip(q[i], k[j])), Fraction(0)) for j in range(N)]
              for i in range(N)]
    d_k = options.get("d_k", len(q[0]))
    root = {1: Fraction(1), 4: Fraction(2)}.get(d_k)     # the specs' scales are rational
    steps = {"scores": scores}
    if root is not None:
        steps["scaled"] = [[s / root for s in row] for row in scores]
        mask = options.get("mask")
        allowed = [[j <= i if mask == "causal" else bool(mask[i][j]) for j in range(N)]
                   for i in range(N)]
        steps["masked"] = [[s if allowed[i][j] else None for j, s in enumerate(row)]
                           for i, row in enumerate(steps["scaled"])]
    return steps


OPTIONS = {
    "default": ((), NumberFormat()),
    "digits3-half-even": (("--digits", "3", "--rounding", "half-even"),
                          NumberFormat(digits=3, rounding="half-even")),
    "places4": (("--places", "4"), NumberFormat(places=4)),
    "places1-half-even": (("--places", "1", "--rounding", "half-even"),
                          NumberFormat(places=1, rounding="half-even")),
    "places2": (("--places", "2"), NumberFormat(places=2)),
    "max-terms5": (("--max-terms", "5"), NumberFormat()),
    "pl-digits2": (("--locale", "pl", "--digits", "2"), NumberFormat(digits=2, locale="pl")),
    "truncate": (("--rounding", "truncate"), NumberFormat(rounding="truncate")),
    "truncate-places3": (("--rounding", "truncate", "--places", "3"),
                         NumberFormat(places=3, rounding="truncate")),
}


@pytest.fixture(scope="module")
def specs(tmp_path_factory):
    """Each spec with its derivation and its rational steps, made once."""
    return [(path, symattn.derive(symattn.load(str(path))), _rational_steps(path))
            for path in _specs(tmp_path_factory.mktemp("large"))]


@pytest.mark.parametrize("name", list(OPTIONS))
def test_large_json_is_the_entry_by_entry_json(capsys, monkeypatch, specs, name):
    options, fmt = OPTIONS[name]
    decided = []
    real = enclosure_roundings.enclosure_roundings
    monkeypatch.setattr(enclosure_roundings, "enclosure_roundings",
                        lambda *args, **kw: decided.append(1) or real(*args, **kw))
    ties = 0
    for path, derivation, rational in specs:
        decided.clear()
        status, out, err = run(capsys, "derive", str(path), "--format", "json", *options)
        assert status == 0, err
        assert decided, "the large steps were decided from their enclosures"
        document = json.loads(out)
        steps = {step["name"]: step for step in document["steps"]}
        assert [step.name for step in derivation.steps] == list(steps)
        for step in derivation.steps:
            grid, written = step.value, steps[step.name]
            rows, columns = grid.shape
            assert written["shape"] == [rows, columns]
            # entry by entry: each exact value through ``NumberFormat.format`` (the quick
            # profile: every third row, the fully masked ones and the last)
            shown = range(rows) if full() else sorted({*range(0, rows, 3), 5, 40, rows - 1}
                                                      & set(range(rows)))
            assert [written["value"][i] for i in shown] == \
                [[fmt.format(grid.exact(i, j)) for j in range(columns)] for i in shown], \
                step.name
        for step_name, exact in rational.items():
            expected = [["-inf" if x is None else _decimal(x, fmt) for x in row]
                        for row in exact]
            assert steps[step_name]["value"] == expected, step_name
            ties += sum(x is not None and fmt.places is not None and
                        (x * 10 ** fmt.places).denominator == 2 for row in exact for x in row)
        max_terms = {"max-terms5": 5}.get(name, view.MAX_TERMS)
        built = view.build_view(derivation, fmt, limit=None, max_terms=max_terms)
        assert document == json.loads(json.dumps(derivation_document(built)))
    if fmt.places in (1, 2) and fmt.rounding.value != "truncate":
        assert ties > 100, "the rational steps hold many exact halfway cases"
    assert "e-" in "".join(x or "" for row in steps["weights"]["value"] for x in row) or \
        fmt.places is not None


def test_streamed_output_is_all_or_nothing(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("old", encoding="utf-8")
    os.chmod(target, 0o640)

    def pieces():
        yield "new "
        raise RuntimeError("stopped while writing")

    with pytest.raises(RuntimeError):
        files.write_atomically(target, pieces())
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
    files.write_atomically(target, iter(["{", "}\n"]))
    assert target.read_text(encoding="utf-8") == "{}\n"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


# Rows of eight equal scores with one moved by delta: weights within a few ulps of
# 0.125, the 2-digit midpoint, which the enclosure leaves open (the ball path decides).
_NEAR = ["0.00000000000001", "-0.00000000000001", "0.00000000000003", "0"]


def test_the_bar_of_a_large_json_counts_each_row_once(monkeypatch):
    """One bar for the document: every row of every step twice (its closed forms, its
    decimals), whichever path decided them; the entries the enclosure left open are
    part of their row, not rows of their own (the bar reached its end too early)."""
    scaled = [["0"] * 8 + ["-inf"] * (N - 8) for _ in range(N)]
    for i, row in enumerate(scaled):
        row[i % 8] = _NEAR[i % len(_NEAR)]
    problem = symattn.loads(json.dumps({"title": "t", "inputs": {"scaled": scaled}}),
                            kind="json")
    derivation = symattn.derive(problem)
    fmt = NumberFormat(digits=2)
    left = enclosure_roundings.enclosure_roundings(derivation["weights"].value.enclosure(),
                                                   None, 2)
    moved = [i for i in range(N) if _NEAR[i % len(_NEAR)] != "0"]
    assert not left.proved[moved, :8].any(), "the near ties are left open by the enclosure"
    seen: list[tuple[int, int]] = []
    real_clear = progress._Bar.clear
    monkeypatch.setattr(progress._Bar, "clear",
                        lambda bar: seen.append((bar.done, bar.total)) or real_clear(bar))
    made = []
    with progress.enabled(_Terminal()):
        steps = view.iter_step_views(derivation, fmt, None, None)
        for piece in iter_json_steps("t", fmt, steps):
            if piece.startswith(",\n  {"):      # the next step made: the bar so far
                made.append(progress._active.done)
    count = len(derivation.steps)
    rows = [step.value.shape[0] for step in derivation.steps]
    assert rows == [N] * count
    assert made == [2 * N * k for k in range(2, count + 1)]
    assert seen == [(2 * N * count, 2 * N * count)]
    weights = fmt.format_block(derivation["weights"].value, range(N), range(N))
    assert weights[0][:8] == ("0.13",) + ("0.12",) * 7        # delta > 0: above the midpoint
    assert weights[1][:8] == ("0.13", "0.12") + ("0.13",) * 6   # delta < 0: below it
    assert weights[3][:8] == ("0.13",) * 8                    # delta 0: 1/8 exactly, half up
