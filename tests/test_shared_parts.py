"""Values built from shared parts (``values.arith``): counted and evaluated once per part.

A LayerNorm entry repeats its row's mean in every centred entry and every
centred entry in the variance; a second layer repeats the first. Written out,
such a closed form grows exponentially with the depth. These tests hold
``exact.exponentials`` to the count of ``exp(`` in the written text (counted
here with ``str.count``), the shared balls to mpmath, and a layer of eight
tokens to seconds (it took minutes when every use of a part evaluated it again
and every closed form was written before it was counted).
"""

from __future__ import annotations

import random
import time

import mpmath
from flint import fmpq

import symattn
from symattn.values import arith
from symattn.values.exact import exact_text, to_ball
from symattn.values.written import exponentials
from cli_support import run


def _random_value(rng: random.Random, pool: list, depth: int):
    """A value made of earlier values of ``pool`` (shared parts) by a random operation."""
    if depth == 0 or rng.random() < 0.2:
        return fmpq(rng.randint(-9, 9), rng.randint(1, 9))
    a, b = rng.choice(pool), rng.choice(pool)
    operation = rng.choice(["add", "multiply", "divide", "exp", "gelu", "total", "sqrt",
                            "subtract"])
    if operation == "divide":
        return arith.divide(a, b) if to_ball(b, 64).contains(0) is False else arith.add(a, b)
    if operation == "sqrt":
        return arith.sqrt(arith.multiply(a, a)) if to_ball(a, 64).contains(0) is False else a
    if operation == "exp":
        # bounded arguments: e**(e**(...)) would outgrow every ball
        return arith.exp(arith.divide(a, fmpq(1 + int(float(to_ball(a, 64).abs_upper())))))
    if operation == "gelu":
        return arith.gelu(a)
    if operation == "total":
        return arith.total([a, b, rng.choice(pool)])
    return getattr(arith, operation)(a, b)


def test_exponentials_count_what_the_closed_form_writes():
    rng = random.Random(7)
    checked = 0
    for _ in range(40):
        pool = [fmpq(1, 2), arith.exp(fmpq(1, 3))]
        for depth in range(1, 7):
            pool.append(_random_value(rng, pool, depth))
        for value in pool:
            text = exact_text(value)
            if len(text) < 200_000:
                assert exponentials(value) == text.count("exp("), text[:200]
                checked += 1
    assert checked > 200


def test_a_part_shared_forty_levels_deep_is_evaluated_once():
    """x_(k+1) = x_k + x_k forty times over exp(1/2): 2**40 uses of the leaf, one ball each
    level. The closed form would have 2**40 exponentials; it is counted, not written."""
    value = arith.exp(fmpq(1, 2))
    for _ in range(40):
        value = arith.add(value, value)
    start = time.process_time()
    ball = to_ball(value, 128)
    assert exponentials(value) == 2 ** 40
    assert time.process_time() - start < 5
    with mpmath.workdps(40):
        expected = mpmath.mpf(2) ** 40 * mpmath.exp(mpmath.mpf(1) / 2)
        low, high = mpmath.mpf(ball.lower().str(40, radius=False)), \
            mpmath.mpf(ball.upper().str(40, radius=False))
        assert low <= expected * (1 + mpmath.mpf(10) ** -30) and \
            expected * (1 - mpmath.mpf(10) ** -30) <= high
        assert abs(mpmath.mpf(ball.mid().str(40, radius=False)) - expected) < \
            expected * mpmath.mpf(10) ** -25


def _layer_spec(tokens: int, width: int) -> str:
    rng = random.Random(tokens * 100 + width)

    def matrix(rows: int, columns: int) -> str:
        return "[" + ", ".join("[" + ", ".join(f"{rng.randint(-99, 99) / 100:.2f}"
                                               for _ in range(columns)) + "]"
                               for _ in range(rows)) + "]"
    return (f'[inputs]\nX = {matrix(tokens, width)}\nW_Q = "identity"\nW_K = "identity"\n'
            f'W_V = "identity"\n[options]\nmask = "causal"\n[ffn]\nW = {matrix(width, width)}\n'
            'residual = true\nlayernorm = true\nepsilon = "1/100"\n')


def test_a_layer_of_eight_tokens_takes_seconds(tmp_path, capsys):
    """Attention, residual, LayerNorm, FFN, residual, LayerNorm over 8 tokens of width 8:
    every report in seconds; the longest closed forms are left out of JSON (null) and
    the LayerNorm rows have mean 0 and mean square var / (var + 1/100)."""
    spec = tmp_path / "layer.toml"
    spec.write_text(_layer_spec(8, 8), encoding="utf-8")
    start = time.process_time()
    status, out, err = run(capsys, "derive", str(spec), "--format", "json")
    assert status == 0, err
    import json

    steps = {step["name"]: step for step in json.loads(out)["steps"]}
    assert steps["norm_2"]["exact_omitted"] > 0
    status, _, err = run(capsys, "derive", str(spec))
    assert status == 0, err
    assert time.process_time() - start < 60
    derivation = symattn.derive(symattn.loads(spec.read_text(encoding="utf-8"), "layer.toml"))
    grid = derivation["norm_2"].value
    with mpmath.workdps(40):
        for i in range(8):
            row = [mpmath.mpf(to_ball(grid.exact(i, j), 128).mid().str(35, radius=False))
                   for j in range(8)]
            assert abs(sum(row)) < mpmath.mpf(10) ** -25


def test_a_layernorm_entry_carried_from_printed_rounded_inputs_is_propagated():
    """The checker runs LayerNorm's rule on the document's own printed numbers: an entry
    worked from the printed (rounded) residual row is ``propagated``, not wrong; the
    value it should have is computed here with mpmath from those printed numbers."""
    text = _layer_spec(4, 4)
    derivation = symattn.derive(symattn.loads(text, "layer.toml"))
    residual = derivation["residual_1"].value
    for i in range(1, 4):
        printed = [f"{float(to_ball(residual.exact(i, k), 64).mid()):.2f}" for k in range(4)]
        with mpmath.workdps(40):
            row = [mpmath.mpf(p) for p in printed]
            mean = sum(row) / 4
            variance = sum((x - mean) ** 2 for x in row) / 4
            carried = [(x - mean) / mpmath.sqrt(variance + mpmath.mpf(1) / 100) for x in row]
            exact = [mpmath.mpf(to_ball(derivation["norm_1"].value.exact(i, k), 128)
                                .mid().str(35, radius=False)) for k in range(4)]
        differing = [k for k in range(4)
                     if mpmath.nstr(carried[k], 4, strip_zeros=False) !=
                     mpmath.nstr(exact[k], 4, strip_zeros=False)]
        if differing:
            break
    assert differing, "no entry of this spec carries a rounding forward"
    k = differing[0]
    claims = {f"residual_1[{i + 1},{c + 1}]": printed[c] for c in range(4)}
    claims[f"norm_1[{i + 1},{k + 1}]"] = mpmath.nstr(carried[k], 4, strip_zeros=False)
    spec = text + "[claims]\n" + "".join(f'"{key}" = "{value}"\n' for key, value in
                                         claims.items())
    report = symattn.check(symattn.loads(spec, "layer.toml"))
    verdict = next(v for v in report.verdicts if v.step == "norm_1")
    assert verdict.verdict == "propagated", (verdict.verdict, verdict.reason)
    assert len(verdict.carried_from) == 4


def test_the_heads_mixed_by_w_o_keep_to_max_terms(tmp_path, capsys):
    """``output = concat W_O`` repeats every head's output closed form: it is counted from
    its parts, so that ``--max-terms`` leaves the long ones out (counted here by writing
    each closed form and counting its ``exp(``), and the rest are written as before."""
    import json

    rng = random.Random(12)

    def matrix(rows: int, columns: int) -> list[list[str]]:
        return [[f"{rng.randint(-9, 9) / 10:.1f}" for _ in range(columns)] for _ in range(rows)]
    spec = tmp_path / "heads.json"
    spec.write_text(json.dumps({"inputs": {"X": matrix(12, 8), "W_Q": matrix(8, 8),
                                           "W_K": matrix(8, 8), "W_V": matrix(8, 8),
                                           "W_O": matrix(8, 8)},
                                "options": {"heads": 4, "mask": "causal"}}), encoding="utf-8")
    status, out, err = run(capsys, "derive", str(spec), "--format", "json")
    assert status == 0, err
    written = {s["name"]: s for s in json.loads(out)["steps"]}["output"]
    grid = symattn.derive(symattn.load(str(spec)))["output"].value
    texts = [[exact_text(grid.exact(i, j)) for j in range(8)] for i in range(12)]
    longer = sum(text.count("exp(") > 64 for row in texts for text in row)
    assert 0 < longer < 96 and written["exact_omitted"] == longer
    assert written["exact"] == [[None if text.count("exp(") > 64 else text for text in row]
                                for row in texts]


def test_a_short_closed_form_is_written_once_and_a_long_one_each_time():
    from symattn.values.exact import Irrational

    calls = []

    def writer(text: str):
        def write() -> str:
            calls.append(text[:5])
            return text
        return write
    short = Irrational(writer("exp(1/2)"), lambda prec: to_ball(fmpq(1), prec))
    long = Irrational(writer("x" * 10_000), lambda prec: to_ball(fmpq(1), prec))
    assert [short.text, short.text, exact_text(short)] == ["exp(1/2)"] * 3
    assert len(long.text) == len(long.text) == 10_000
    assert calls == ["exp(1"] + ["xxxxx"] * 2


def test_an_entry_of_concat_w_o_takes_its_ball_from_the_rows_product():
    """``output = concat W_O`` entry by entry (as permute and check ask for it): its ball
    is the row's ball-matrix product, which lies in the ball of the sum of products it
    stands for, as narrow; its closed form is that sum's."""
    from symattn.problem import examples

    derivation = symattn.derive(symattn.load(str(examples.path("003-multi-head"))))
    grid = derivation["output"].value
    checked = 0
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
            value = grid.exact(i, j)
            if not getattr(value, "parts", ()):    # a rational entry stays rational
                continue
            ball, sum_ball = to_ball(value, 200), to_ball(value.parts[0], 200)
            assert sum_ball.overlaps(ball) and float(ball.rad()) < 1e-50
            assert exact_text(value) == exact_text(value.parts[0])
            checked += 1
    assert checked >= 4
