"""Reference computations for the tests, written without symattn.

Everything here uses only the standard library (``fractions``, ``decimal``),
numpy float64 and mpmath, so the tests compare symattn against values it did
not compute. Inputs are Python ``Fraction`` matrices (lists of rows); a mask is
a list of rows of booleans (True keeps the score).
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Context, Decimal
from fractions import Fraction

import mpmath
import numpy as np

NEG_INF = "-inf"   # marker for a masked score in the mpmath reference
NAN = "nan"


def fractions(rows):
    """A matrix of Fractions from decimal or fraction strings / ints."""
    return [[Fraction(str(x)) for x in row] for row in rows]


def identity(n):
    return [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]


def matmul(a, b):
    return [[sum((a[i][k] * b[k][j] for k in range(len(b))), Fraction(0))
             for j in range(len(b[0]))] for i in range(len(a))]


def transpose(a):
    return [list(col) for col in zip(*a)]


def causal(n, m, positions=None):
    positions = positions or list(range(1, n + 1))
    return [[j + 1 <= positions[i] for j in range(m)] for i in range(n)]


# --------------------------------------------------------------------- numpy
def numpy_attention(Q, K, V=None, *, factor=None, d_k=None, allowed=None):
    """Float64 attention: the steps as a dict of numpy arrays.

    ``factor`` multiplies the scores (default 1/sqrt(d_k), d_k = columns of K).
    exp is not max-shifted (as the 'exp' step); the weights are computed with
    the usual max shift for stability.
    """
    q = np.array([[float(x) for x in row] for row in Q], dtype=np.float64)
    k = np.array([[float(x) for x in row] for row in K], dtype=np.float64)
    scores = q @ k.T
    if factor is None:
        factor = 1.0 / math.sqrt(d_k or k.shape[1])
    scaled = scores * factor
    n, m = scaled.shape
    keep = np.ones((n, m), dtype=bool) if allowed is None else np.array(allowed, dtype=bool)
    masked = np.where(keep, scaled, -np.inf)
    exp = np.exp(masked)
    exp_sum = exp.sum(axis=1, keepdims=True)
    shifted = masked - masked.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    weights = e / e.sum(axis=1, keepdims=True)
    result = {"scores": scores, "scaled": scaled, "masked": masked, "exp": exp,
              "exp_sum": exp_sum, "weights": weights}
    if V is not None:
        v = np.array([[float(x) for x in row] for row in V], dtype=np.float64)
        result["output"] = weights @ v
    return result


# -------------------------------------------------------------------- mpmath
MP_DPS = 50


def mp(x):
    """An mpf from a Fraction / int, exact up to the working precision (an mpf as is)."""
    if isinstance(x, mpmath.mpf):
        return x
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def mp_attention(*, X=None, W_Q=None, W_K=None, W_V=None, Q=None, K=None, V=None,
                 scores=None, scaled=None, factor=None, allowed=None, PE=None, max_shift=None):
    """Every step as a dict name -> matrix of mpf / NEG_INF markers, at 50 digits.

    Give X with the W's, or Q, K (and V), or ``scores`` / ``scaled`` directly
    (where a NEG_INF entry masks). ``factor`` is the exact multiplier of the
    scores as an mpmath number. The dict is in the order the steps are shown.
    ``PE`` (mpf rows, with X) is a positional encoding added to X before the
    projections (steps PE and X_pos). ``max_shift`` None: the shifted steps where a
    row sum of exponentials passes 10^6 (True, False: always, never).
    """
    with mpmath.workdps(MP_DPS):
        to_mp = lambda rows: [[x if x == NEG_INF else mp(x) for x in row] for row in rows]
        steps = {}
        if X is not None:
            steps["X"] = to_mp(X)
            for name, w in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V)):
                if w is not None:
                    steps[name] = to_mp(w)
            if PE is not None:
                steps["PE"] = PE
                X = steps["X_pos"] = [[x + e for x, e in zip(row, pe)]
                                      for row, pe in zip(steps["X"], PE)]
            Q = matmul(X, W_Q)
            K = matmul(X, W_K)
            V = matmul(X, W_V) if W_V is not None else None
        if scores is None and scaled is None:
            steps["Q"] = to_mp(Q)
            steps["K"] = to_mp(K)
        if V is not None:
            steps["V"] = to_mp(V)
        if scaled is None:
            if scores is None:
                scores = matmul(Q, transpose(K))
            steps["scores"] = to_mp(scores)
            # a -inf score stays -inf; the rest are multiplied by the factor
            steps["scaled"] = [[x if x == NEG_INF else factor * x for x in row]
                               for row in steps["scores"]]
        else:
            steps["scaled"] = to_mp(scaled)
        z = steps["scaled"]
        n, m = len(z), len(z[0])
        allowed = allowed or [[True] * m for _ in range(n)]
        allowed = [[allowed[i][j] and z[i][j] != NEG_INF for j in range(m)] for i in range(n)]
        if not all(all(r) for r in allowed):
            steps["mask"] = [[mpmath.mpf(0) if allowed[i][j] else NEG_INF for j in range(m)]
                             for i in range(n)]
            steps["masked"] = [[z[i][j] if allowed[i][j] else NEG_INF for j in range(m)]
                               for i in range(n)]
            z = steps["masked"]
        exp = [[mpmath.mpf(0) if x == NEG_INF else mpmath.exp(x) for x in row] for row in z]
        steps["exp"] = exp
        steps["exp_sum"] = [[mpmath.fsum(row)] for row in exp]
        if max_shift or max_shift is None and max(r[0] for r in steps["exp_sum"]) > 10 ** 6:
            # seed 004's np.exp(z - z.max()): the row maximum, the shifted scores, their exps
            steps["row_max"] = [[max(x for x in row if x != NEG_INF)] for row in z]
            steps["shifted"] = [[x if x == NEG_INF else x - top[0] for x in row]
                                for row, top in zip(z, steps["row_max"])]
            steps["exp_shifted"] = [[mpmath.mpf(0) if x == NEG_INF else mpmath.exp(x)
                                     for x in row] for row in steps["shifted"]]
            steps["exp_shifted_sum"] = [[mpmath.fsum(row)] for row in steps["exp_shifted"]]
        steps["weights"] = [[e / steps["exp_sum"][i][0] for e in row]
                            for i, row in enumerate(exp)]
        if V is not None:
            w = steps["weights"]
            steps["output"] = [[mpmath.fsum(w[i][j] * mp(V[j][k]) for j in range(m))
                                for k in range(len(V[0]))] for i in range(n)]
        return steps


def sinusoidal_encoding(rows, d_model, base=10000):
    """PE[p][2i] = sin(p / base^(2i/d_model)), PE[p][2i+1] = cos(...), p 0-based (mpmath)."""
    with mpmath.workdps(MP_DPS + 10):
        table = []
        for p in range(rows):
            row = []
            for c in range(d_model):
                angle = p / mpmath.power(base, mpmath.mpf(2 * (c // 2)) / d_model)
                row.append(mpmath.sin(angle) if c % 2 == 0 else mpmath.cos(angle))
            table.append(row)
        return table


def _spec_number(raw):
    """A spec entry as a Fraction (or NEG_INF), read here without symattn."""
    if isinstance(raw, bool):
        raise NotImplementedError(raw)
    if isinstance(raw, int):
        return Fraction(raw)
    text = str(raw).strip().replace("\u2212", "-").replace("\u221e", "inf")
    if text.lower() in ("-inf", "-infinity"):
        return NEG_INF
    if "/" in text:
        return Fraction(text)
    return Fraction(Decimal(text.replace(",", ".")))


def _spec_matrix(raw):
    rows = raw if all(isinstance(r, list) for r in raw) else [raw]
    return [[_spec_number(x) for x in row] for row in rows]


def is_attention_spec(path):
    """False for a size spec ([sizes] instead of [inputs]): nothing to derive."""
    import tomllib

    with open(path, "rb") as stream:
        return "inputs" in tomllib.load(stream)


def mp_reference_from_spec(path):
    """The 50-digit reference steps of a spec file, read with tomllib only.

    Supports what the bundled examples use: attention from X and W's, from Q,
    K, V or from scaled scores; causal / padding masks; and the layer after it
    as far as the examples go (a vocabulary with a token sequence, one linear
    FFN map, a tied readout and the next-token softmax). Anything else raises
    NotImplementedError, so a new kind of example cannot pass unchecked.
    """
    import tomllib

    with open(path, "rb") as stream:
        data = tomllib.load(stream, parse_float=str)
    unknown = set(data) - {"title", "description", "language", "tokens", "inputs", "options",
                           "claims", "vocabulary", "ffn", "readout", "diagnostics",
                           "compare",    # compare blocks add no step
                           "inputs_printed"}    # nor does how the inputs were printed
    if unknown:
        raise NotImplementedError(f"reference does not model {sorted(unknown)}")
    raw_inputs, options = dict(data["inputs"]), data.get("options", {})
    known = {"mask", "query_positions", "d_k", "scale", "temperature", "digits", "rounding",
             "heads", "kv_heads", "positions", "position_base", "max_shift",
             "precision"}    # a float format adds no exact step (derivation.precision)
    if set(options) - known:
        raise NotImplementedError(set(options) - known)
    if options.get("positions", "none") not in ("none", "sinusoidal"):
        raise NotImplementedError(f"positions = {options['positions']}")
    if set(raw_inputs) - {"sequence", "X", "W_Q", "W_K", "W_V", "W_O", "Q", "K", "V", "scaled"}:
        raise NotImplementedError(set(raw_inputs))
    diagnostics = data.get("diagnostics", {})
    if set(diagnostics) - {"entropy", "jacobian", "variance"}:
        raise NotImplementedError(f"reference does not model diagnostics {sorted(diagnostics)}")
    if "heads" in options or "W_O" in raw_inputs:
        if diagnostics:
            raise NotImplementedError("diagnostics of several heads")
        return _multi_head_reference(raw_inputs, options)
    first = {}
    vocabulary = data.get("vocabulary")
    if vocabulary is not None:
        if set(vocabulary) - {"tokens", "W_vocab", "layout"}:
            raise NotImplementedError(set(vocabulary))
        w_vocab = _spec_matrix(vocabulary["W_vocab"])
        first["W_vocab"] = w_vocab
        # as (vocabulary size) rows of embeddings
        by_token = transpose(w_vocab) if vocabulary.get("layout", "columns") == "columns" \
            else w_vocab
        tokens = vocabulary["tokens"]
    if "sequence" in raw_inputs:
        raw_inputs["X"] = [list(by_token[t if isinstance(t, int) else tokens.index(t)])
                           for t in raw_inputs.pop("sequence")]
    kwargs = {}
    size = None
    if "X" in raw_inputs:
        kwargs["X"] = [[x if isinstance(x, Fraction) else _spec_number(x) for x in row]
                       for row in (raw_inputs["X"] if isinstance(raw_inputs["X"][0], list)
                                   else [raw_inputs["X"]])]
        size = len(kwargs["X"][0])
    for name, value in raw_inputs.items():
        if name == "X":
            continue
        if isinstance(value, str) and value.strip().lower() == "identity":
            kwargs[name] = identity(size)
        else:
            kwargs[name] = _spec_matrix(value)
    if options.get("positions", "none") == "sinusoidal":
        kwargs["PE"] = sinusoidal_encoding(len(kwargs["X"]), size,
                                           int(options.get("position_base", 10000)))
    if "max_shift" in options and str(options["max_shift"]).lower() != "auto":
        kwargs["max_shift"] = str(options["max_shift"]).lower() in ("true", "on")
    if "scaled" in kwargs:
        n, m = len(kwargs["scaled"]), len(kwargs["scaled"][0])
    else:
        q = kwargs.get("Q") or matmul(kwargs["X"], kwargs["W_Q"])
        k = kwargs.get("K") or matmul(kwargs["X"], kwargs["W_K"])
        n, m = len(q), len(k)
        d_k = int(options.get("d_k", len(k[0])))
        with mpmath.workdps(MP_DPS + 10):
            scale = options.get("scale")
            if scale is None:
                factor = 1 / mpmath.sqrt(d_k)
            elif str(scale).lower() == "none":
                factor = mpmath.mpf(1)
            else:
                factor = mp(_spec_number(scale))
            factor = factor / mp(_spec_number(options.get("temperature", 1)))
        kwargs["factor"] = factor
    mask = options.get("mask", "none")
    positions = options.get("query_positions") or list(range(1, n + 1))
    if mask == "causal":
        kwargs["allowed"] = causal(n, m, positions)
    elif mask == "none":
        pass
    elif isinstance(mask, list) and mask and not isinstance(mask[0], list):
        kwargs["allowed"] = [[j + 1 not in mask for j in range(m)] for _ in range(n)]
    else:
        raise NotImplementedError(mask)
    with mpmath.workdps(MP_DPS):
        steps = {**{name: [[mp(x) for x in row] for row in matrix]
                    for name, matrix in first.items()}, **mp_attention(**kwargs)}
    if "ffn" in data or "readout" in data:
        with mpmath.workdps(MP_DPS):
            _layer_after_attention(steps, data, positions, first.get("W_vocab"))
    if diagnostics:
        with mpmath.workdps(MP_DPS):
            _diagnostics(steps, diagnostics, kwargs)
    if diagnostics.get("variance"):     # Var(q.k) = d_k and 1 after dividing, after "scaled"
        d_k = int(options.get("d_k", len((kwargs.get("K") or matmul(kwargs["X"],
                                                                   kwargs["W_K"]))[0])))
        ordered = {}
        for name, matrix in steps.items():
            ordered[name] = matrix
            if name == "scaled":
                ordered["variance"] = [[mpmath.mpf(d_k), mpmath.mpf(1)]]
        steps = ordered
    return steps


def _entropy_bits(row):
    return -mpmath.fsum(w * mpmath.log(w, 2) for w in row if w != 0)


def _jacobian_frobenius(row):
    """||diag(w) - w^T w||_F for one row of weights."""
    m = len(row)
    return mpmath.sqrt(mpmath.fsum(((row[j] if j == k else 0) - row[j] * row[k]) ** 2
                                   for j in range(m) for k in range(m)))


def _diagnostics(steps, diagnostics, kwargs):
    """entropy / entropy_max (bits) and the softmax Jacobian's Frobenius norm per row."""
    weights = steps["weights"]
    z = steps.get("masked", steps["scaled"])
    if diagnostics.get("entropy"):
        steps["entropy"] = [[_entropy_bits(row)] for row in weights]
        steps["entropy_max"] = [[mpmath.log(sum(1 for x in row if x != NEG_INF), 2)]
                                for row in z]
    if diagnostics.get("jacobian"):
        steps["jacobian_norm"] = [[_jacobian_frobenius(row)] for row in weights]
        if "scores" in steps:    # the same for softmax of the raw scores (no scale, T = 1)
            raw = [[s if z[i][j] != NEG_INF else NEG_INF for j, s in enumerate(row)]
                   for i, row in enumerate(steps["scores"])]
            unscaled = []
            for row in raw:
                exps = [mpmath.mpf(0) if x == NEG_INF else mpmath.exp(x) for x in row]
                total = mpmath.fsum(exps)
                unscaled.append([_jacobian_frobenius([e / total for e in exps])])
            steps["jacobian_norm_unscaled"] = unscaled


def _multi_head_reference(raw_inputs, options):
    """Heads h = 1..H on column blocks of Q (K, V shared by groups), concat, then W_O."""
    X = _spec_matrix(raw_inputs["X"])
    weights = {name: identity(len(X[0])) if str(raw_inputs[name]).strip().lower() == "identity"
               else _spec_matrix(raw_inputs[name]) for name in ("W_Q", "W_K", "W_V", "W_O")}
    heads = int(options.get("heads", 1))
    kv_heads = int(options.get("kv_heads", heads))
    Q, K, V = (matmul(X, weights[f"W_{name}"]) for name in "QKV")
    dq, dk, dv = len(Q[0]) // heads, len(K[0]) // kv_heads, len(V[0]) // kv_heads
    n, m = len(Q), len(K)
    mask = options.get("mask", "none")
    if mask not in ("none", "causal") or "scale" in options or "temperature" in options:
        raise NotImplementedError("reference models multi-head attention with d_k scaling only")
    allowed = causal(n, m, options.get("query_positions")) if mask == "causal" else None
    with mpmath.workdps(MP_DPS):
        steps = {"X": [[mp(x) for x in row] for row in X]}
        steps.update({name: [[mp(x) for x in row] for row in w] for name, w in weights.items()})
        outputs = []
        for h in range(heads):
            g = h // (heads // kv_heads)
            block = lambda M, width, k: [row[k * width:(k + 1) * width] for row in M]
            d_k = int(options.get("d_k", dk))
            head = mp_attention(Q=block(Q, dq, h), K=block(K, dk, g), V=block(V, dv, g),
                                factor=1 / mpmath.sqrt(d_k), allowed=allowed)
            steps.update({f"head{h + 1}.{name}": matrix for name, matrix in head.items()})
            outputs.append(head["output"])
        concat = [sum((out[i] for out in outputs), []) for i in range(n)]
        steps["concat"] = concat
        w_o = steps["W_O"]
        steps["output"] = [[mpmath.fsum(row[k] * w_o[k][j] for k in range(len(w_o)))
                            for j in range(len(w_o[0]))] for row in concat]
    return steps


def _layer_after_attention(steps, data, positions, w_vocab):
    """One linear FFN map, the read-out row, tied logits and their softmax."""
    current = steps["output"]
    ffn = data.get("ffn")
    if ffn is not None:
        if set(ffn) - {"W", "residual", "layernorm"} or ffn.get("residual") or \
                ffn.get("layernorm"):
            raise NotImplementedError(f"reference models only a linear FFN: {sorted(ffn)}")
        w = [[mp(x) for x in row] for row in _spec_matrix(ffn["W"])]
        steps["W_FFN"] = w
        current = [[mpmath.fsum(row[k] * w[k][j] for k in range(len(w)))
                    for j in range(len(w[0]))] for row in current]
        steps["ffn"] = current
    readout = data.get("readout")
    if readout is None:
        return
    if set(readout) - {"position", "unembedding"} or \
            str(readout.get("unembedding", "tied")).lower() != "tied":
        raise NotImplementedError(f"reference models only a tied readout: {sorted(readout)}")
    position = int(readout.get("position", positions[-1]))
    h = current[positions.index(position)]
    steps["h"] = [h]
    if data["vocabulary"].get("layout", "columns") == "columns":
        unembedding = [[mp(x) for x in row] for row in w_vocab]
    else:
        unembedding = [[mp(x) for x in row] for row in transpose(w_vocab)]
    logits = [mpmath.fsum(h[k] * unembedding[k][j] for k in range(len(h)))
              for j in range(len(unembedding[0]))]
    steps["logits"] = [logits]
    exps = [mpmath.exp(x) for x in logits]
    total = mpmath.fsum(exps)
    steps["logits_exp"] = [exps]
    steps["logits_exp_sum"] = [[total]]
    steps["probs"] = [[e / total for e in exps]]


# ----------------------------------------------------------- decimal helpers
_BIG = Context(prec=200)


def significant_digits(text):
    """Number of significant digits of a positional decimal string."""
    mantissa = text.lower().partition("e")[0]     # 1.23e-30 counts as 1.23
    digits = mantissa.lstrip("+-").replace(".", "").replace(",", "").lstrip("0")
    return len(digits)


def mp_to_decimal(x, dps=MP_DPS):
    """The mpf x as a Decimal carrying ``dps`` significant digits."""
    with mpmath.workdps(dps + 5):
        return Decimal(mpmath.nstr(x, dps, min_fixed=-mpmath.inf, max_fixed=mpmath.inf))


def round_significant(d, digits, rounding=ROUND_HALF_UP):
    """Decimal ``d`` rounded to ``digits`` significant digits (positional text)."""
    exponent = d.adjusted() - (digits - 1)
    rounded = d.quantize(Decimal(1).scaleb(exponent), rounding=rounding, context=_BIG)
    if rounded.adjusted() > d.adjusted():   # 0.9996 -> 1.000: one digit too many
        rounded = rounded.quantize(Decimal(1).scaleb(exponent + 1), context=_BIG)
    return format(rounded, "f")


def assert_close_to_digits(text, reference, digits):
    """``text`` is ``reference`` correctly rounded to ``digits`` significant digits.

    The check is numeric: |text - reference| <= half a unit in the last place
    (plus the 1e-48 relative error of the 50-digit reference), and the text
    shows exactly ``digits`` significant digits.
    """
    if reference == NEG_INF:
        assert text == "-inf"
        return
    if reference == 0:
        assert text == "0", text
        return
    if text == "0":     # an exact zero (a cancellation) is 0 up to the reference's own error
        assert abs(reference) < mpmath.mpf(10) ** -45, (text, reference)
        return
    value = Decimal(text)
    ref = mp_to_decimal(reference)
    unit = Decimal(1).scaleb(ref.adjusted() - (digits - 1))
    error = abs(value - ref)
    slack = abs(ref) * Decimal("1e-47")
    assert error <= unit / 2 + slack, (text, ref)
    assert shows_digits(text, digits), (text, digits)


def shows_digits(text, digits):
    """Whether a decimal text shows ``digits`` significant digits."""
    if "." in text or "e" in text.lower():
        return significant_digits(text) == digits
    # an integer: the significant digits, then zeros that only place them
    return significant_digits(text.rstrip("0")) <= digits <= len(text.lstrip("-"))
