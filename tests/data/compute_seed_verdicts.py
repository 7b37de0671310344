"""Write tests/data/seed_verdicts.toml: the verdict of every printed claim.

Run by hand (``python tests/data/compute_seed_verdicts.py``) after a claim in a
bundled example changes. This script is independent of symattn on purpose: it
reads the spec files with ``tomllib`` and redoes attention with mpmath at 50
digits, straight from the formulas, so the data can judge symattn's checker.

What is computed (exactly, to 50 digits): X (given, or the embeddings of the
``sequence``: column t of the d_model x V matrix W_vocab, or row t with
``layout = "rows"``), Q, K, V, scores, scaled, mask, masked, exp, exp_sum,
weights, output; then, for an ``[ffn]`` with one matrix W (no residual, no
LayerNorm; anything else is refused), ffn = output W_FFN on every row; for a
``[readout]``, h = the row of the last step (ffn, else output) at the readout
position (default: the last), logits = h W_vocab (tied: the d_model x V matrix;
or the given unembedding U), probs = softmax(logits / T).

Verdicts (half-up rounding: halves away from zero):

* ``ok``: the exact value, rounded to the printed places, is the printed number
  (a percentage: 100 x value, places as printed).
* ``propagated``: not ok, but it is the rounding of the value recomputed from
  the document's own printed numbers, always the most recent printing (claims
  are written in document order) of each operand; an operand never printed is
  recomputed the same way from its own operands, down to the exact inputs.
  The layer's document path: ffn from the printed output (and the exact
  W_FFN), h from the printed ffn, logits from the printed h, probs from the
  printed logits.
* ``wrong``: neither.
* ``tie`` (a flag): the exact value, or (for a number that is not ``ok``) the
  value recomputed from the document's numbers, is exactly halfway between two
  printable numbers at the printed places, so half-up decides (e.g. ffn[3,2]
  from the printed output: 0.73 x 1.0 + 0.25 x 0.5 = 0.855, printed 0.86).
  Exactly: a value reached by sums, products and quotients of printed decimals
  and rational inputs is recomputed in Fractions (``Document(rational=True)``)
  and rounded exactly; a value through exp or sqrt is rounded at 50 digits
  and the script stops if it is within 10^-35 of a halfway point.
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
from fractions import Fraction
from math import isqrt
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

    def fraction(self):
        """The printed value as an exact Fraction (percent divided by 100)."""
        if self.is_neg_inf:
            return NEG_INF
        v = Fraction(Decimal(self.digits))
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
    """x rounded half away from zero to `places`, as an integer count of 10^-places.

    A Fraction is rounded exactly; an mpf close to a tie is refused."""
    if isinstance(x, Fraction):
        y = abs(x) * 10 ** places
        sign = -1 if x < 0 else 1
        return sign * int(y + Fraction(1, 2))      # int() truncates: floor for y >= 0
    y = x * mpf(10) ** places
    sign = -1 if y < 0 else 1
    y = abs(y)
    frac = y - mpmath.floor(y)
    if abs(frac - mpf("0.5")) < TIE_GUARD:
        raise ArithmeticError(f"{x} is too close to a rounding tie at {places} places")
    return sign * int(mpmath.floor(y + mpf("0.5")))


def is_tie(x, p: "Printed") -> bool:
    """Is x exactly halfway between two numbers printable like p? (x a Fraction)"""
    if not isinstance(x, Fraction) or p.is_neg_inf:
        return False
    y = x * (100 if p.percent else 1) * 10 ** p.places
    return (y - Fraction(1, 2)).denominator == 1


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

class NotRational(ArithmeticError):
    """A rational recomputation met exp or an irrational square root."""


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


def fraction(x):
    """The exact rational value of a spec entry (decimal, integer, a/b), else NEG_INF / None."""
    s = str(x).strip().replace("−", "-")
    if s in ("-inf", "-∞"):
        return NEG_INF
    s = s.replace(",", ".") if "." not in s else s.replace(",", "")
    try:
        if "/" in s:
            a, b = s.split("/")
            return Fraction(Decimal(a.strip())) / Fraction(Decimal(b.strip()))
        return Fraction(Decimal(s))
    except (ArithmeticError, ValueError):
        return None


def to_mpf(x):
    """An mpf from a Fraction (exactly rounded at 50 digits), or x itself."""
    if isinstance(x, Fraction):
        return mpf(x.numerator) / mpf(x.denominator)
    return x


def matrix(raw):
    if isinstance(raw, list) and raw and not isinstance(raw[0], list):
        raw = [raw]
    return [[number(x) for x in row] for row in raw]


def rational_matrix(raw):
    if isinstance(raw, list) and raw and not isinstance(raw[0], list):
        raw = [raw]
    return [[fraction(x) for x in row] for row in raw]


def identity(d, one):
    return [[one if i == j else 0 * one for j in range(d)] for i in range(d)]


def matmul(a, b):
    return [[mpmath.fsum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))]
            for i in range(len(a))]


def transpose(a):
    return [list(column) for column in zip(*a)]


class Model:
    """Every step of one spec, exactly (to 50 digits), with 1-based positions.

    ``q`` holds the input matrices as exact Fractions (None for an entry that is
    not rational), for the rational recomputations that decide ties.
    """

    INPUTS = ("X", "W_Q", "W_K", "W_V", "mask", "divisor", "W_vocab", "W_FFN", "U")

    def __init__(self, spec: dict):
        inputs, options = spec.get("inputs", {}), spec.get("options", {})
        self.given = set(inputs)
        m, q = {}, {}
        vocabulary = spec.get("vocabulary")
        if vocabulary is not None:
            layout = vocabulary.get("layout", "columns")
            if layout not in ("columns", "rows"):
                raise NotImplementedError(f"vocabulary layout {layout!r}")
            # W_vocab as written (for claims on it) and as d_model x V columns (for logits)
            m["W_vocab"], q["W_vocab"] = matrix(vocabulary["W_vocab"]), \
                rational_matrix(vocabulary["W_vocab"])
            columns = {k: (v if layout == "columns" else transpose(v))
                       for k, v in (("m", m["W_vocab"]), ("q", q["W_vocab"]))}
            self.vocabulary_columns = columns
            self.vocabulary_tokens = list(vocabulary["tokens"])
        if "sequence" in inputs:
            if vocabulary is None:
                raise ValueError("sequence without a vocabulary")
            ids = [t if isinstance(t, int) else self.vocabulary_tokens.index(t)
                   for t in inputs["sequence"]]
            # X: row t is the embedding (column t of the d_model x V matrix) of token t
            m["X"] = [[row[t] for row in self.vocabulary_columns["m"]] for t in ids]
            q["X"] = [[row[t] for row in self.vocabulary_columns["q"]] for t in ids]
        elif "X" in inputs:
            m["X"], q["X"] = matrix(inputs["X"]), rational_matrix(inputs["X"])
        if "X" in m:
            d = len(m["X"][0])
            for w in ("W_Q", "W_K", "W_V"):
                if w in inputs:
                    if inputs[w] == "identity":
                        m[w], q[w] = identity(d, mpf(1)), identity(d, Fraction(1))
                    else:
                        m[w], q[w] = matrix(inputs[w]), rational_matrix(inputs[w])
        for name, w in (("Q", "W_Q"), ("K", "W_K"), ("V", "W_V")):
            if name in inputs:
                m[name], q[name] = matrix(inputs[name]), rational_matrix(inputs[name])
            elif w in m:
                m[name] = matmul(m["X"], m[w])
        self.d_k = None
        self.temperature = fraction(options.get("temperature", 1))
        if "scaled" in inputs:
            m["scaled"], q["scaled"] = matrix(inputs["scaled"]), rational_matrix(inputs["scaled"])
            self.divisor = mpf(1)
        else:
            m["scores"] = [[mpmath.fsum(q_[k] * kk[k] for k in range(len(q_))) for kk in m["K"]]
                           for q_ in m["Q"]]
            self.d_k = int(options.get("d_k", len(m["K"][0])))
            self.divisor = mpmath.sqrt(self.d_k) * to_mpf(self.temperature)
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
        q["mask"] = [[Fraction(0) if kp else NEG_INF for kp in row] for row in keep]
        m["masked"] = [[s if kp else NEG_INF for s, kp in zip(row, krow)]
                       for row, krow in zip(m["scaled"], keep)]
        m["exp"] = [[mpf(0) if z == NEG_INF else mpmath.exp(z) for z in row] for row in m["masked"]]
        m["exp_sum"] = [[mpmath.fsum(row)] for row in m["exp"]]
        m["weights"] = [[e / s[0] for e in row] for row, s in zip(m["exp"], m["exp_sum"])]
        if "V" in m:
            m["output"] = matmul(m["weights"], m["V"])
        self.query_steps = {"scores", "scaled", "mask", "masked", "exp", "exp_sum", "weights",
                            "output", "ffn"} | ({"Q"} if "query_positions" in options else set())
        # the layer after attention: FFN(x) = x W_FFN on every output row, then the readout
        self.last = "output"
        ffn = spec.get("ffn")
        if ffn is not None:
            unsupported = set(ffn) - {"W", "residual", "layernorm"}
            if unsupported or ffn.get("residual", False) or ffn.get("layernorm", False):
                raise NotImplementedError(f"ffn beyond one linear map: {sorted(ffn)}")
            m["W_FFN"], q["W_FFN"] = matrix(ffn["W"]), rational_matrix(ffn["W"])
            m["ffn"] = matmul(m["output"], m["W_FFN"])
            self.last = "ffn"
        readout = spec.get("readout")
        self.readout_row = None
        if readout is not None:
            unsupported = set(readout) - {"position", "unembedding", "temperature"}
            if unsupported:
                raise NotImplementedError(f"readout keys {sorted(unsupported)}")
            position = int(readout.get("position", self.positions[-1]))
            self.readout_row = self.positions.index(position)       # 0-based row of `last`
            m["h"] = [list(m[self.last][self.readout_row])]
            unembedding = readout.get("unembedding", "tied")
            if isinstance(unembedding, str) and unembedding.strip().lower() == "tied":
                self.unembedding = "W_vocab"
                self.unembedding_columns = self.vocabulary_columns
            else:
                self.unembedding = "U"
                m["U"], q["U"] = matrix(unembedding), rational_matrix(unembedding)
                self.unembedding_columns = {"m": m["U"], "q": q["U"]}
            self.readout_temperature = fraction(readout.get("temperature", 1))
            m["logits"] = matmul(m["h"], self.unembedding_columns["m"])
            t = to_mpf(self.readout_temperature)
            exps = [mpmath.exp(z / t) for z in m["logits"][0]]
            m["probs"] = [[e / mpmath.fsum(exps) for e in exps]]
        self.m, self.q = m, q

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

    def rational_input(self, step, pos):
        """An input entry as an exact Fraction (NotRational when it is not rational)."""
        if step == "divisor":
            if self.d_k is None:
                return Fraction(1)
            root = isqrt(self.d_k)
            if root * root != self.d_k or self.temperature is None:
                raise NotRational("sqrt(d_k)")
            return root * self.temperature
        value = self.q[step][self.row(step, pos[0])][pos[1] - 1]
        if value is None:
            raise NotRational(step)
        return value


class Document:
    """The document's own numbers: the most recent printing of each quantity.

    With ``rational=True`` every value is an exact Fraction (printed numbers as
    printed, inputs exactly) and a recomputation through exp or an irrational
    root raises NotRational: this decides whether a recomputed value is exactly
    halfway between two printable numbers. Without printings noted, the
    rational recomputation is the exact value itself (where it is rational).
    """

    def __init__(self, model: Model, rational: bool = False):
        self.model = model
        self.rational = rational
        self.printed: dict = {}        # (step, pos, suffix, term) -> value

    def note(self, step, pos, suffix, term, value):
        self.printed[(step, pos, suffix, term)] = value

    def fsum(self, values):
        return sum(values, Fraction(0)) if self.rational else mpmath.fsum(values)

    def exp(self, z):
        if z == NEG_INF:
            return Fraction(0) if self.rational else mpf(0)
        if self.rational:
            raise NotRational("exp")
        return mpmath.exp(z)

    def P(self, step, pos):
        """An operand: its most recent printing, else recomputed from printed operands."""
        key = (step, pos, None, None)
        if key in self.printed:
            return self.printed[key]
        return self.recompute(step, pos)

    def recompute(self, step, pos, suffix=None, term=None):
        md = self.model
        m = md.m
        if step in md.given or step in Model.INPUTS:
            if self.rational:
                if suffix is not None or term is not None:
                    raise NotRational(f"{step}{suffix}")
                return md.rational_input(step, pos)
            return md.exact(step, pos, suffix, term)
        if step in ("Q", "K", "V"):
            w = {"Q": "W_Q", "K": "W_K", "V": "W_V"}[step]
            i, j = pos
            return self.fsum(self.P("X", (i, c + 1)) * self.P(w, (c + 1, j))
                             for c in range(len(m["X"][0])))
        if suffix == ".sum":
            (i,) = pos
            return self.fsum(self.P(step, (i, j + 1)) for j in range(len(m[step][0])))
        if step == "scores":
            i, j = pos
            d = len(m["Q"][0])
            if term is not None:
                return self.P("Q", (i, term)) * self.P("K", (j, term))
            terms = [self.printed.get((step, pos, ".terms", t + 1)) for t in range(d)]
            if all(t is not None for t in terms):
                return self.fsum(terms)
            return self.fsum(self.P("Q", (i, c + 1)) * self.P("K", (j, c + 1)) for c in range(d))
        if step == "scaled":
            div = self.printed.get(("divisor", (), None, None))
            if div is None:
                div = md.rational_input("divisor", ()) if self.rational else md.divisor
            return self.P("scores", pos) / div
        if step == "masked":
            if md.exact("mask", pos) == NEG_INF:
                return NEG_INF
            return self.P("scaled", pos)
        if step == "exp":
            return self.exp(self.P("masked", pos))
        if step == "exp_sum":
            (i,) = pos
            k = len(m["exp"][0])
            if term is not None:
                return self.P("exp", (i, term))
            terms = [self.printed.get((step, pos, ".terms", t + 1)) for t in range(k)]
            if all(t is not None for t in terms):
                return self.fsum(terms)
            return self.fsum(self.P("exp", (i, j + 1)) for j in range(k))
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
                return self.fsum(terms)
            return self.fsum(self.P("weights", (i, j + 1)) * self.P("V", (j + 1, k))
                             for j in range(n))
        if step == "ffn":
            # ffn[i, j] = sum_k output[i, k] W_FFN[k, j], from the printed output
            i, j = pos
            return self.fsum(self.P("output", (i, c + 1)) * self.P("W_FFN", (c + 1, j))
                             for c in range(len(m["W_FFN"])))
        if step == "h":
            # h is the readout row of the last step before it, as printed there
            _, j = pos
            return self.P(md.last, (md.positions[md.readout_row], j))
        if step == "logits":
            # logits[1, j] = sum_k h[k] U[k, j] (U = W_vocab as d_model x V, or the given U)
            _, j = pos
            columns = md.unembedding_columns["q" if self.rational else "m"]
            if any(row[j - 1] is None for row in columns):
                raise NotRational("unembedding")
            return self.fsum(self.P("h", (1, c + 1)) * columns[c][j - 1]
                             for c in range(len(columns)))
        if step == "probs":
            # softmax(logits / T) of the printed logits
            _, j = pos
            size = len(m["logits"][0])
            logits = [self.P("logits", (1, c + 1)) for c in range(size)]
            if self.rational:
                raise NotRational("exp")
            t = to_mpf(md.readout_temperature)
            exps = [mpmath.exp(z / t) for z in logits]
            return exps[j - 1] / mpmath.fsum(exps)
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
        if isinstance(value, list) and value and not isinstance(value[0], list) \
                and step != "exp_sum":
            # a flat list is one row (h, logits, probs)
            for c, text in enumerate(value):
                entries.append(((c + 1,), (row_pos[0], c + 1), None, str(text)))
            return step, label, suffix, entries
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
    x = to_mpf(x)
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
    exact_q = Document(model, rational=True)      # no printings: the exact value, if rational
    doc_q = Document(model, rational=True)        # the document's path in Fractions
    rows = []

    def rational(document, *where):
        try:
            return document.recompute(*where)
        except NotRational:
            return None
    for key, value in spec.get("claims", {}).items():
        step, label, suffix, entries = expand(key, value, model)
        judged = []
        for at, pos, term, text in entries:
            if text.strip() in ("?", ""):
                continue
            p = Printed(text)
            exact = model.exact(step, pos, suffix, term)
            again = doc.recompute(step, pos, suffix, term)
            # where the value is rational, round the Fraction: exact ties are decided exactly
            for approx, document in ((exact, exact_q), (again, doc_q)):
                q = rational(document, step, pos, suffix, term)
                if q is not None and q != NEG_INF:
                    assert abs(to_mpf(q) - approx) <= mpf(10) ** -40 * (1 + abs(approx)), \
                        (name, key, pos, q, approx)
                if document is exact_q:
                    exact = exact if q is None else q
                else:
                    again = again if q is None else q
            if p.rounds_to_me(exact):
                verdict = "ok"
            elif p.rounds_to_me(again):
                verdict = "propagated"
            else:
                verdict = "wrong"
            tie = is_tie(exact, p) or (verdict != "ok" and is_tie(again, p))
            judged.append((at, pos, term, p, exact, again, verdict, tie))
        # the claim's own numbers become the document's, for later claims
        for _at, pos, term, p, _exact, _again, _verdict, _tie in judged:
            doc.note(step, pos, suffix, term, p.value())
            doc_q.note(step, pos, suffix, term, p.fraction())
        for _at, pos, term, p, _exact, _again, _verdict, _tie in judged:
            rows.append(dict(example=name, key=key, step=step, label=label or "",
                             suffix=(suffix or "").lstrip("."), position=list(pos), term=term,
                             at=list(at), printed=p.text, approximate=p.approximate,
                             percent=p.percent, exact=fmt(exact), recomputed=fmt(again),
                             verdict=verdict, tie=tie, _p=p))
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
    "propagated": ("not the rounding of the exact value; follows from the document's own "
                   "printed numbers"),
    "wrong": ("neither the rounding of the exact value nor of the value recomputed from the "
              "printed numbers"),
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
           "#   recomputed (from the document's own printed numbers), verdict, inconsistent,",
           "#   tie (the exact value, or for a number not ok the recomputed one, is exactly",
           "#   halfway at the printed places: half-up decided), approximate.",
           ""]
    for name in SEED_EXAMPLES:
        rows = judge(name)
        out.append(f"# ---- {name}: {len(rows)} printed numbers")
        out.append("")
        for r in rows:
            out.append("[[claim]]")
            for field in ("example", "key", "position", "term", "at", "printed", "exact",
                          "recomputed", "verdict", "inconsistent", "tie", "approximate",
                          "note"):
                if field == "term" and r["term"] is None:
                    continue
                if field == "note":
                    note = NOTES.get(r["verdict"])
                    if r["inconsistent"]:
                        note = ((note + "; ") if note else "") + \
                            "printed elsewhere with a different value"
                    if r["tie"]:
                        note = ((note + "; ") if note else "") + \
                            "exactly halfway: half-up decides"
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
