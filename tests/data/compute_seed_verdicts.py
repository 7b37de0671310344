"""Write tests/data/seed_verdicts.toml: the verdict of every printed claim.

Run by hand (``python tests/data/compute_seed_verdicts.py``) after a claim in a
bundled example changes. This script is independent of symattn on purpose: it
reads the spec files with ``tomllib`` and redoes attention with mpmath at 50
digits, straight from the formulas, so the data can judge symattn's checker.

Verdicts (half-up rounding: halves away from zero):

* ``ok``: the exact value, rounded to the printed places, is the printed number
  (a percentage: 100 x value, places as printed).
* ``propagated``: not ok, but it is the rounding of the value recomputed from
  the document's own printed numbers, always the most recent printing (claims
  are written in document order) of each operand; an operand never printed is
  recomputed the same way from its own operands, down to the exact inputs.
* ``wrong``: neither.
* ``inconsistent`` (a flag on a printing): the same quantity is printed again
  elsewhere with a value this printing cannot share, i.e. the two cannot be
  roundings of one number (the sets of values that
  round to each are disjoint: 0.394 and 0.395 are, 0.395 and 39 % are not).
"""

from __future__ import annotations

import re
import sys
import tomllib
from decimal import Decimal
from pathlib import Path

import mpmath
from mpmath import mp, mpf

mp.dps = 50

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "symattn" / "examples"
OUT = Path(__file__).resolve().parent / "seed_verdicts.toml"
SEED_EXAMPLES = ["000-cat-chases-mouse", "001-kocka-spi-venku", "001-scores-times-10",
                 "001-softmax-10-2-1", "004-cat-eats-fish", "004-softmax-row",
                 "004-softmax-180-210-95"]
NEG_INF = mpmath.ninf
TIE_GUARD = mpf(10) ** -35

KEY = re.compile(r"^\s*(?P<step>[A-Za-z_]+)(?:\[(?P<index>[^\]]*)\])?(?P<suffix>\.terms|\.sum)?"
                 r"\s*(?:@\s*(?P<label>.+?))?\s*$")


# --------------------------------------------------------------------------- printed numbers

class Printed:
    """One printed number: its text, value, decimal places, % and ~ marks."""

    def __init__(self, text: str):
        self.text = text
        s = text.strip()
        self.approximate = s[:1] in ("~", "≈")
        if self.approximate:
            s = s[1:].strip()
        self.percent = s.endswith("%")
        if self.percent:
            s = s[:-1].strip()
        s = s.replace("−", "-").replace(" ", "")
        self.is_neg_inf = s in ("-inf", "-∞")
        if self.is_neg_inf:
            self.places = None
            self.digits = None
            return
        if "," in s and "." in s:
            s = s.replace(",", "")          # digit grouping
        else:
            s = s.replace(",", ".")         # decimal comma
        if not re.fullmatch(r"-?\d+(\.\d+)?", s):
            raise ValueError(f"unsupported printed number {text!r}")
        self.digits = s                      # as printed, in the printed unit (% stays %)
        self.places = len(s.split(".")[1]) if "." in s else 0

    def value(self):
        """The printed value as a number (percent divided by 100)."""
        if self.is_neg_inf:
            return NEG_INF
        v = mpf(self.digits)
        return v / 100 if self.percent else v

    def rounds_to_me(self, x) -> bool:
        """Does x, rounded half-up to the printed places, give this printing?"""
        if self.is_neg_inf or x == NEG_INF:
            return self.is_neg_inf and x == NEG_INF
        return round_half_up(x * 100 if self.percent else x, self.places) == self.digits_int()

    def digits_int(self) -> int:
        """The printed number as an integer count of units of its last place."""
        sign = -1 if self.digits.startswith("-") else 1
        return sign * int(self.digits.lstrip("-").replace(".", ""))


def round_half_up(x, places: int) -> int:
    """x rounded half away from zero to `places`, as an integer count of 10^-places."""
    y = x * mpf(10) ** places
    sign = -1 if y < 0 else 1
    y = abs(y)
    frac = y - mpmath.floor(y)
    if abs(frac - mpf("0.5")) < TIE_GUARD:
        raise ArithmeticError(f"{x} is too close to a rounding tie at {places} places")
    return sign * int(mpmath.floor(y + mpf("0.5")))


def interval(p: Printed):
    """The exact values that round half-up to printing p: [lo, hi) (as Decimals)."""
    v = Decimal(p.digits).scaleb(-2 if p.percent else 0)
    h = Decimal(5).scaleb(-(p.places + (2 if p.percent else 0)) - 1)
    return v - h, v + h


def consistent(a: Printed, b: Printed) -> bool:
    """Can two printings be roundings of the same number? (their intervals meet)"""
    if a.is_neg_inf or b.is_neg_inf:
        return a.is_neg_inf == b.is_neg_inf
    (lo1, hi1), (lo2, hi2) = interval(a), interval(b)
    return max(lo1, lo2) < min(hi1, hi2)


# --------------------------------------------------------------------------- exact attention

def number(x):
    if isinstance(x, (int, float)):
        return mpf(str(x))
    s = str(x).strip().replace("−", "-")
    if s in ("-inf", "-∞"):
        return NEG_INF
    if "/" in s:
        a, b = s.split("/")
        return mpf(a) / mpf(b)
    return mpf(s.replace(",", ".") if "." not in s else s.replace(",", ""))


def matrix(raw):
    if isinstance(raw, list) and raw and not isinstance(raw[0], list):
        raw = [raw]
    return [[number(x) for x in row] for row in raw]


def matmul(a, b):
    return [[mpmath.fsum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))]
            for i in range(len(a))]


class Model:
    """Every step of one spec, exactly (to 50 digits), with 1-based positions."""

    def __init__(self, spec: dict):
        inputs, options = spec.get("inputs", {}), spec.get("options", {})
        self.given = set(inputs)
        m = {}
        if "X" in inputs:
            m["X"] = matrix(inputs["X"])
            d = len(m["X"][0])
            for w in ("W_Q", "W_K", "W_V"):
                if w in inputs:
                    m[w] = ([[mpf(int(i == j)) for j in range(d)] for i in range(d)]
                            if inputs[w] == "identity" else matrix(inputs[w]))
        for name, w in (("Q", "W_Q"), ("K", "W_K"), ("V", "W_V")):
            if name in inputs:
                m[name] = matrix(inputs[name])
            elif w in m:
                m[name] = matmul(m["X"], m[w])
        if "scaled" in inputs:
            m["scaled"] = matrix(inputs["scaled"])
            self.divisor = mpf(1)
        else:
            m["scores"] = [[mpmath.fsum(q[k] * kk[k] for k in range(len(q))) for kk in m["K"]]
                           for q in m["Q"]]
            d_k = int(options.get("d_k", len(m["K"][0])))
            self.divisor = mpmath.sqrt(d_k) * number(options.get("temperature", 1))
            m["scaled"] = [[s / self.divisor for s in row] for row in m["scores"]]
        n, k = len(m["scaled"]), len(m["scaled"][0])
        self.positions = list(options.get("query_positions", range(1, n + 1)))
        mask = options.get("mask", "none")
        if mask == "causal":
            keep = [[j + 1 <= p for j in range(k)] for p in self.positions]
        elif mask == "none":
            keep = [[True] * k for _ in range(n)]
        else:
            raise NotImplementedError(f"mask {mask!r}")
        m["mask"] = [[mpf(0) if kp else NEG_INF for kp in row] for row in keep]
        m["masked"] = [[s if kp else NEG_INF for s, kp in zip(row, krow)]
                       for row, krow in zip(m["scaled"], keep)]
        m["exp"] = [[mpf(0) if z == NEG_INF else mpmath.exp(z) for z in row] for row in m["masked"]]
        m["exp_sum"] = [[mpmath.fsum(row)] for row in m["exp"]]
        m["weights"] = [[e / s[0] for e in row] for row, s in zip(m["exp"], m["exp_sum"])]
        if "V" in m:
            m["output"] = matmul(m["weights"], m["V"])
        self.m = m
        self.query_steps = {"scores", "scaled", "mask", "masked", "exp", "exp_sum", "weights",
                            "output"} | ({"Q"} if "query_positions" in options else set())

    def row(self, step, i):
        """0-based row of a 1-based position i."""
        return self.positions.index(i) if step in self.query_steps else i - 1

    def exact(self, step, pos, suffix=None, term=None):
        if step == "divisor":
            return self.divisor
        m = self.m
        i = self.row(step, pos[0])
        if suffix == ".sum":
            return mpmath.fsum(m[step][i])
        if step == "exp_sum":
            return m["exp_sum"][i][0] if term is None else m["exp"][i][term - 1]
        j = pos[1] - 1
        if term is None:
            return m[step][i][j]
        t = term - 1
        if step == "scores":
            return m["Q"][i][t] * m["K"][j][t]
        if step == "output":
            return m["weights"][i][t] * m["V"][t][j]
        raise ValueError(f"no terms for {step}")


class Document:
    """The document's own numbers: the most recent printing of each quantity."""

    def __init__(self, model: Model):
        self.model = model
        self.printed: dict = {}        # (step, pos, suffix, term) -> value

    def note(self, step, pos, suffix, term, value):
        self.printed[(step, pos, suffix, term)] = value

    def P(self, step, pos):
        """An operand: its most recent printing, else recomputed from printed operands."""
        key = (step, pos, None, None)
        if key in self.printed:
            return self.printed[key]
        return self.recompute(step, pos)

    def recompute(self, step, pos, suffix=None, term=None):
        md = self.model
        m = md.m
        if step in md.given or step in ("X", "W_Q", "W_K", "W_V", "mask", "divisor"):
            return md.exact(step, pos, suffix, term)
        if step in ("Q", "K", "V"):
            w = {"Q": "W_Q", "K": "W_K", "V": "W_V"}[step]
            i, j = pos
            return mpmath.fsum(self.P("X", (i, c + 1)) * self.P(w, (c + 1, j))
                               for c in range(len(m["X"][0])))
        if suffix == ".sum":
            (i,) = pos
            return mpmath.fsum(self.P(step, (i, j + 1)) for j in range(len(m[step][0])))
        if step == "scores":
            i, j = pos
            d = len(m["Q"][0])
            if term is not None:
                return self.P("Q", (i, term)) * self.P("K", (j, term))
            terms = [self.printed.get((step, pos, ".terms", t + 1)) for t in range(d)]
            if all(t is not None for t in terms):
                return mpmath.fsum(terms)
            return mpmath.fsum(self.P("Q", (i, c + 1)) * self.P("K", (j, c + 1)) for c in range(d))
        if step == "scaled":
            div = self.printed.get(("divisor", (), None, None), md.divisor)
            return self.P("scores", pos) / div
        if step == "masked":
            if md.exact("mask", pos) == NEG_INF:
                return NEG_INF
            return self.P("scaled", pos)
        if step == "exp":
            z = self.P("masked", pos)
            return mpf(0) if z == NEG_INF else mpmath.exp(z)
        if step == "exp_sum":
            (i,) = pos
            k = len(m["exp"][0])
            if term is not None:
                return self.P("exp", (i, term))
            terms = [self.printed.get((step, pos, ".terms", t + 1)) for t in range(k)]
            if all(t is not None for t in terms):
                return mpmath.fsum(terms)
            return mpmath.fsum(self.P("exp", (i, j + 1)) for j in range(k))
        if step == "weights":
            i, j = pos
            return self.P("exp", pos) / self.P("exp_sum", (i,))
        if step == "output":
            i, k = pos
            n = len(m["V"])
            if term is not None:
                return self.P("weights", (i, term)) * self.P("V", (term, k))
            terms = [self.printed.get((step, pos, ".terms", t + 1)) for t in range(n)]
            if all(t is not None for t in terms):
                return mpmath.fsum(terms)
            return mpmath.fsum(self.P("weights", (i, j + 1)) * self.P("V", (j + 1, k))
                               for j in range(n))
        raise ValueError(f"cannot recompute {step}")


# --------------------------------------------------------------------------- claims

def expand(key: str, value, model: Model):
    """(step, label, suffix, [(at, pos, term, text)]) for one claim."""
    match = KEY.match(key)
    if not match:
        raise ValueError(f"bad claim key {key!r}")
    step, index, suffix, label = match.group("step", "index", "suffix", "label")
    entries = []
    if step == "divisor":
        return step, label, None, [((), (), None, str(value))]
    n_rows = len(model.m[step])
    row_pos = (model.positions if step in model.query_steps else list(range(1, n_rows + 1)))
    if index is None:
        for r, row in enumerate(value):
            if not isinstance(row, list):
                row = [row]
            for c, text in enumerate(row):
                pos = (row_pos[r],) if step == "exp_sum" else (row_pos[r], c + 1)
                entries.append(((r + 1, c + 1), pos, None, str(text)))
        return step, label, suffix, entries
    parts = [p.strip() for p in index.split(",")]
    if len(parts) == 1:
        i = int(parts[0])
        if step == "exp_sum" or suffix == ".sum":
            if suffix == ".terms":
                for t, text in enumerate(value):
                    entries.append(((t + 1,), (i,), t + 1, str(text)))
            else:
                entries.append(((), (i,), None, str(value)))
        else:
            for c, text in enumerate(value):
                entries.append(((c + 1,), (i, c + 1), None, str(text)))
    elif parts[0] == ":":
        j = int(parts[1])
        for r, text in enumerate(value):
            entries.append(((r + 1,), (row_pos[r], j), None, str(text)))
    else:
        i, j = int(parts[0]), int(parts[1])
        if suffix == ".terms":
            for t, text in enumerate(value):
                entries.append(((t + 1,), (i, j), t + 1, str(text)))
        else:
            entries.append(((), (i, j), None, str(value)))
    return step, label, suffix, entries


def fmt(x) -> str:
    if x == NEG_INF:
        return "-inf"
    if x == 0:
        return "0"
    return mpmath.nstr(x, 20, strip_zeros=False, min_fixed=-30, max_fixed=30)


def judge(name: str) -> list[dict]:
    spec = tomllib.loads((EXAMPLES / f"{name}.toml").read_text(encoding="utf-8"),
                         parse_float=str)
    model = Model(spec)
    doc = Document(model)
    rows = []
    for key, value in spec.get("claims", {}).items():
        step, label, suffix, entries = expand(key, value, model)
        judged = []
        for at, pos, term, text in entries:
            if text.strip() in ("?", ""):
                continue
            p = Printed(text)
            exact = model.exact(step, pos, suffix, term)
            again = doc.recompute(step, pos, suffix, term)
            if p.rounds_to_me(exact):
                verdict = "ok"
            elif p.rounds_to_me(again):
                verdict = "propagated"
            else:
                verdict = "wrong"
            judged.append((at, pos, term, p, exact, again, verdict))
        # the claim's own numbers become the document's, for later claims
        for at, pos, term, p, exact, again, verdict in judged:
            doc.note(step, pos, suffix, term, p.value())
        for at, pos, term, p, exact, again, verdict in judged:
            rows.append(dict(example=name, key=key, step=step, label=label or "",
                             suffix=(suffix or "").lstrip("."), position=list(pos), term=term,
                             at=list(at), printed=p.text, approximate=p.approximate,
                             percent=p.percent, exact=fmt(exact), recomputed=fmt(again),
                             verdict=verdict, _p=p))
    # inconsistent: two printings of one quantity that cannot round from one number
    groups: dict = {}
    for r in rows:
        groups.setdefault((r["step"], tuple(r["position"]), r["suffix"], r["term"]), []).append(r)
    for group in groups.values():
        for r in group:
            r["inconsistent"] = any(not consistent(r["_p"], b["_p"]) for b in group)
    return rows


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


NOTES = {
    "propagated": "not the rounding of the exact value; follows from the document's own printed numbers",
    "wrong": "neither the rounding of the exact value nor of the value recomputed from the printed numbers",
}


def main() -> int:
    out = ["# Independent verdicts of every printed claim in the bundled seed examples.",
           "# Written by tests/data/compute_seed_verdicts.py (mpmath, 50 digits, no symattn);",
           "# the rules are in that script's docstring. One [[claim]] per printed number:",
           "#   example, key (the [claims] key as written, with its @ label),",
           "#   position (1-based [row, column] of the quantity, rows are query positions;",
           "#   [i] for exp_sum and row sums; [] for the divisor), term (1-based, .terms only),",
           "#   at (1-based index of the entry inside the claim's value; [] for a scalar),",
           "#   printed (text as in the spec), exact (20 significant digits),",
           "#   recomputed (from the document's own printed numbers), verdict, inconsistent.",
           ""]
    for name in SEED_EXAMPLES:
        rows = judge(name)
        out.append(f"# ---- {name}: {len(rows)} printed numbers")
        out.append("")
        for r in rows:
            out.append("[[claim]]")
            for field in ("example", "key", "position", "term", "at", "printed", "exact",
                          "recomputed", "verdict", "inconsistent", "approximate", "note"):
                if field == "term" and r["term"] is None:
                    continue
                if field == "note":
                    note = NOTES.get(r["verdict"])
                    if r["inconsistent"]:
                        note = ((note + "; ") if note else "") + \
                            "printed elsewhere with a different value"
                    if note:
                        out.append(f"note = {toml_value(note)}")
                    continue
                out.append(f"{field} = {toml_value(r[field])}")
            out.append("")
    OUT.write_text("\n".join(out), encoding="utf-8")
    print(f"wrote {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
