"""KV cache (symattn.explore.kvcache): incremental decoding equals the full causal computation.

The full computation is symattn's own ``derive``; the independent reference
is numpy float64 run the incremental way (each step attends over the prefix
only) and the full way.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import sympy
from flint import fmpq

import symattn
from symattn import NumberFormat, derive
from symattn.derivation import pipeline
from symattn.errors import InputError
from symattn.explore.kvcache import decode, work_saved
from symattn.explore.equality import same_exact
from symattn.problem.problem import Problem
from cli_support import run

SEVENTEEN = NumberFormat(digits=17)


def problem_of(inputs, **options):
    return Problem.from_mapping({"inputs": inputs, "options": options})


def as_floats(values):
    return np.array([float(SEVENTEEN.format(v)) for v in values])




def numpy_rope(x, base=10000.0):
    pairs = x[:, 0::2] + 1j * x[:, 1::2]
    theta = base ** (-np.arange(0, x.shape[1], 2) / x.shape[1])
    rotated = pairs * np.exp(1j * np.arange(x.shape[0])[:, None] * theta[None, :])
    out = np.empty_like(x)
    out[:, 0::2], out[:, 1::2] = rotated.real, rotated.imag
    return out


def numpy_incremental(q, k, v):
    """Decode with a cache in float64: step t sees keys and values 1..t only."""
    outputs, weights = [], []
    for t in range(q.shape[0]):
        scores = k[: t + 1] @ q[t] / math.sqrt(k.shape[1])
        e = np.exp(scores - scores.max())
        w = e / e.sum()
        weights.append(w)
        outputs.append(w @ v[: t + 1])
    return weights, np.array(outputs)


X = [[1, 0, "1/2", 0], [0, 1, 0, "1/2"], ["1/2", "1/2", 1, 1], [1, -1, 0, 2]]
W_K = [[1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]]
W_V = [[1, 0], [0, 1], [1, 0], [0, "-1"]]
SELF = {"X": X, "W_Q": "identity", "W_K": W_K, "W_V": W_V}


def floats(rows):
    return np.array([[float(sympy.Rational(str(x))) for x in row] for row in rows])


def test_cache_grows_and_every_row_equals_the_full_causal_row():
    problem = problem_of(SELF, mask="causal")
    steps = decode(problem)
    full = derive(problem)
    assert [s.position for s in steps] == [1, 2, 3, 4]
    assert [len(s.cached_keys) for s in steps] == [1, 2, 3, 4]
    assert [len(s.scores) for s in steps] == [1, 2, 3, 4]
    for t, step in enumerate(steps):
        assert step.equal and step.output_equal and step.text_equal
        assert step.scores_equal == t + 1 and step.masked_after and step.values_equal
        # the cache is K[:t+1] and V[:t+1] of the full computation, as exact rationals
        for j, (key, value) in enumerate(zip(step.cached_keys, step.cached_values)):
            assert all(isinstance(x, fmpq) for x in key)
            assert list(key) == [full["K"].value.exact(j, c) for c in range(4)]
            assert list(value) == [full["V"].value.exact(j, c) for c in range(2)]
        # the earlier cache entries are the very rows of the previous step
        if t:
            assert step.cached_keys[:t] == steps[t - 1].cached_keys
        for c in range(2):
            assert step.texts[c] == full["output"].value.text(t, c)


def test_the_proof_catches_a_wrong_cache(monkeypatch):
    # guard for the comparison itself: a key computed wrongly must not pass
    from symattn.explore import kvcache

    right = kvcache._RationalRows._row

    def wrong(self, name, t):
        row = right(self, name, t)
        return tuple(x + 1 for x in row) if (name, t) == ("K", 1) else row

    monkeypatch.setattr(kvcache._RationalRows, "_row", wrong)
    steps = decode(problem_of(SELF, mask="causal"))
    assert steps[0].equal
    assert [step.equal for step in steps[1:]] == [False, False, False]
    assert steps[1].scores_equal < 2 and not steps[1].text_equal


def test_incremental_rows_agree_with_numpy_both_ways():
    steps = decode(problem_of(SELF, mask="causal"))
    x = floats(X)
    q, k, v = x, x @ floats(W_K), x @ floats(W_V)
    weights, outputs = numpy_incremental(q, k, v)
    # the full causal computation in numpy, masked
    scaled = np.where(np.tril(np.ones((4, 4), dtype=bool)), q @ k.T / 2.0, -np.inf)
    e = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    full = (e / e.sum(axis=1, keepdims=True)) @ v
    for t, step in enumerate(steps):
        assert np.allclose(as_floats(step.scores), k[: t + 1] @ q[t], rtol=1e-14)
        assert np.allclose(as_floats(step.weights), weights[t], rtol=1e-12)
        assert np.allclose(as_floats(step.output), outputs[t], rtol=1e-12, atol=1e-14)
        assert np.allclose(as_floats(step.output), full[t], rtol=1e-12, atol=1e-14)


def test_first_step_is_exact():
    step = decode(problem_of(SELF, mask="causal"))[0]
    assert step.weights == (fmpq(1),)
    assert step.output == (fmpq(3, 2), fmpq(0))      # v_1 = x_1 W_V exactly


def test_work_saved_counts():
    steps = decode(problem_of(SELF, mask="causal"))
    assert [s.kv_rows for s in steps] == [2, 2, 2, 2]
    assert [s.kv_rows_without for s in steps] == [2, 4, 6, 8]
    assert work_saved(steps) == (8, 20)             # 2n and n(n + 1) for n = 4


def test_given_q_k_v_and_seed_example():
    problem = problem_of({"Q": [[1, 2], [0, 1], [1, 1]], "K": [[1, 0], [2, 1], [0, 1]],
                          "V": [[1], [2], [3]]}, mask="causal", temperature="1/2")
    assert all(step.equal for step in decode(problem))
    assert all(step.equal for step in decode(symattn.load_example("000-cat-chases-mouse")))


def test_sum_normalisation():
    problem = problem_of({"Q": [[1, 2], [1, 1]], "K": [[1, 0], [2, 1]], "V": [[1], [2]]},
                         mask="causal", normalisation="sum")
    steps = decode(problem)
    assert all(step.equal for step in steps)
    assert steps[1].weights == (fmpq(1, 4), fmpq(3, 4))


def test_symbolic_inputs_take_the_sympy_route():
    problem = problem_of({"Q": [["sqrt(2)", 1], [0, 1]], "K": [[1, 0], [1, "sqrt(3)"]],
                          "V": [[1], [2]]}, mask="causal")
    steps = decode(problem)
    assert all(step.equal for step in steps)
    assert not all(isinstance(s, fmpq) for s in steps[1].scores)


@pytest.mark.parametrize("kind", ["rope", "sinusoidal"])
def test_positions_decode_exactly(kind):
    inputs = {"X": X[:3], "W_Q": "identity", "W_K": W_K, "W_V": W_V}
    problem = problem_of(inputs, mask="causal", positions=kind)
    steps = decode(problem)
    # kvcache's rows with positions are SymPy's, so is the derivation they are compared with
    full = pipeline.derive(problem, sympy_positions=True)
    keys = "K_rot" if kind == "rope" else "K"
    for t, step in enumerate(steps):
        assert step.equal, (t, step)
        for j, key in enumerate(step.cached_keys):   # cached keys never change
            assert all(same_exact(key[c], full[keys].value.exact(j, c)) for c in range(4))
    if kind == "rope":
        x = floats(X[:3])
        q, k = numpy_rope(x), numpy_rope(x @ floats(W_K))
        _, outputs = numpy_incremental(q, k, x @ floats(W_V))
        for t, step in enumerate(steps):
            assert np.allclose(as_floats(step.output), outputs[t], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("inputs, options, words", [
    (SELF, {}, "mask = \"causal\""),
    ({"scores": [[1, 2], [3, 4]], "V": [[1], [2]]}, {"d_k": 2, "mask": "causal"},
     "not scores"),
    ({"X": [[1, 0]], "X_kv": [[1, 0], [0, 1]], "W_Q": "identity", "W_K": "identity",
      "W_V": "identity"}, {"mask": "causal", "query_positions": [2]}, "X_kv"),
    ({"X": [[1, 0], [0, 1]], "W_Q": "identity", "W_K": "identity"}, {"mask": "causal"},
     "values"),
    ({"Q": [[1, 0]], "K": [[1, 0], [0, 1]], "V": [[1], [2]]},
     {"mask": "causal", "query_positions": [2]}, "one query per key"),
    ({"X": [[1, 0, 0, 1], [0, 1, 1, 0]], "W_Q": "identity", "W_K": "identity",
      "W_V": "identity"}, {"mask": "causal", "heads": 2}, "one head"),
])
def test_problems_that_are_not_causal_self_attention(inputs, options, words):
    with pytest.raises(InputError, match=words):
        decode(problem_of(inputs, **options))


# ------------------------------------------------------------------------- CLI
def test_cli_kvcache_text(capsys):
    status, out, err = run(capsys, "kvcache", "--example", "000-cat-chases-mouse",
                           "--language", "en")
    assert status == 0, err
    assert "Step 3: token “mouse” at position 3" in out
    assert "k_3 = x_3 W_K" in out and "(new)" in out
    assert "equal, compared as fractions: 3 of 3" in out
    assert "Result: every output row (3 of 3) equals the full causal computation exactly" in out
    assert "K/V rows computed: with the cache 6, without it 12 (saved: 6" in out
    assert "[0.728193, 0.251482]" in out          # the seed's third output row, 6 digits
    # in the spec's language, Polish, with decimal commas
    status, out, err = run(capsys, "kvcache", "--example", "000-cat-chases-mouse")
    assert status == 0, err
    out = out.replace("\xa0", " ")
    assert "Krok 3: token „mouse” na pozycji 3" in out
    assert "[0,728193; 0,251482]" in out and "Step" not in out and "cache 6" not in out


def test_cli_kvcache_json(capsys):
    status, out, err = run(capsys, "kvcache", "--example", "000-cat-chases-mouse", "--places",
                           "2", "--format", "json")
    assert status == 0, err
    document = json.loads(out)
    assert document["equal"] is True
    assert document["kv_rows"] == {"with_cache": 6, "without_cache": 12}
    last = document["steps"][-1]
    assert last["output"]["value"] == ["0.73", "0.25"]
    assert len(last["cache_keys"]) == 3 and last["proof"]["equal"] is True
    assert last["scores"]["exact"] == ["4/5", "4/25", "16/25"]


def test_cli_kvcache_not_causal_is_exit_2(capsys, tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text('[inputs]\nQ = [[1, 0], [0, 1]]\nK = [[1, 0], [0, 1]]\n'
                    'V = [[1], [2]]\n', encoding="utf-8")
    status, out, err = run(capsys, "kvcache", str(spec))
    assert status == 2 and out == ""
    lines = err.strip().split("\n")
    assert len(lines) == 1 and lines[0].startswith("symattn: error: ")
    assert "causal" in lines[0] and "Traceback" not in err


def test_cli_kvcache_rope(capsys, tmp_path):
    spec = tmp_path / "r.toml"
    spec.write_text('title = "rope"\n[inputs]\nX = [[1, 0], [0, 1], [1, 1]]\n'
                    'W_Q = "identity"\nW_K = "identity"\nW_V = "identity"\n'
                    '[options]\nmask = "causal"\npositions = "rope"\n', encoding="utf-8")
    status, out, err = run(capsys, "kvcache", str(spec))
    assert status == 0, err
    assert "cached already rotated" in out and "compared as exact expressions" in out
    assert "k_2 = x_2 W_K (rotated to p = 1) = [" in out


@pytest.mark.parametrize("command", ["kvcache", "permute"])
def test_a_rational_spec_is_decoded_and_permuted_without_sympy(tmp_path, command):
    """Proving a rational spec's rows equal needs no SymPy (half a second to import):
    the command's report is written and SymPy was never imported."""
    import subprocess
    import sys

    code = ("import sys\nfrom symattn.cli import main\n"
            f"status = main(['{command}', '--example', '000-cat-chases-mouse', '-o', "
            f"{str(tmp_path / 'out.txt')!r}])\n"
            "print(status, 'sympy' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120)
    assert result.stdout.split() == ["0", "False"], result.stdout + result.stderr
    assert (tmp_path / "out.txt").stat().st_size > 500


def test_values_known_by_sympy_are_still_proved_equal_by_expansion():
    from symattn.values.symbolic import SympyValue

    x = sympy.Symbol("x")
    assert same_exact(SympyValue((x + 1) ** 2), SympyValue(x ** 2 + 2 * x + 1))
    assert not same_exact(SympyValue((x + 1) ** 2), SympyValue(x ** 2 + 1))
