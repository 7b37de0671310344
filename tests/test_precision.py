"""Framework precision: formats emulated exactly, steps as NumPy (and PyTorch) compute them.

References are written here as the NumPy (or PyTorch) code a notebook runs,
never taken from symattn's output; the format roundings are checked against
NumPy's own conversions and against a second implementation (bfloat16 on the
float32 bits).
"""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys

import numpy as np
import pytest
from flint import fmpq

import symattn
from symattn.derivation.precision import compute
from symattn.errors import InputError
from symattn.values.floats import (FORMATS, bfloat16_bits, exact_of, exp_in, round_float,
                                   round_to)
from symattn.verify.checker import check


# ------------------------------------------------------------------ formats
def test_float16_limits_worked_by_hand() -> None:
    half = FORMATS["float16"]
    assert round_to(fmpq(65504), half) == 65504.0            # (2 - 2^-10) * 2^15
    assert round_to(fmpq(65519), half) == 65504.0            # below the halfway point 65520
    assert round_to(fmpq(65520), half) == math.inf           # halfway: even is 2^16, too big
    assert round_to(fmpq(1, 2 ** 24), half) == 2.0 ** -24    # the least subnormal
    assert round_to(fmpq(1, 2 ** 25), half) == 0.0           # half of it: ties to even, 0
    assert round_to(fmpq(-3, 2 ** 26), half) == -(2.0 ** -24)
    assert round_to(fmpq(2049), FORMATS["float16"]) == 2048.0   # 11 bits: 2049 is a tie
    assert round_to(fmpq(2051), FORMATS["float16"]) == 2052.0


@pytest.mark.parametrize("name", ["float16", "float32", "float64"])
def test_rounding_matches_numpy_conversions(name: str) -> None:
    rng = random.Random(7)
    dtype = np.dtype(name).type
    with np.errstate(over="ignore"):
        for _ in range(3000):
            value = rng.choice([-1, 1]) * 2 ** rng.uniform(-30, 20) if name != "float64" \
                else rng.uniform(-1e6, 1e6)
            assert round_float(value, FORMATS[name]) == float(dtype(value))


def test_bfloat16_agrees_with_rounding_on_float32_bits() -> None:
    rng = random.Random(11)
    for _ in range(3000):
        value = float(np.float32(rng.choice([-1, 1]) * 2 ** rng.uniform(-130, 127)))
        assert round_float(value, FORMATS["bfloat16"]) == bfloat16_bits(value)


def test_numpy_exp_is_within_one_unit_of_the_correctly_rounded_exp() -> None:
    """Why the emulation calls NumPy's exp: it is not always correctly rounded."""
    rng = np.random.default_rng(3)
    for x in rng.uniform(-40, 40, 500):
        correct = exp_in(float(x), FORMATS["float64"])
        assert float(np.exp(x)) in (np.nextafter(correct, 0), correct,
                                    np.nextafter(correct, math.inf))


# ------------------------------------------------------------------ the steps
def _problem(rng: random.Random) -> tuple[dict[str, list[list[str]]], int]:
    """A random small problem, entries with one or two decimals (as documents print)."""
    n, d, d_k = rng.randint(2, 4), rng.randint(2, 4), rng.randint(2, 3)

    def matrix(rows: int, columns: int, spread: int) -> list[list[str]]:
        return [[f"{rng.randint(-spread, spread) / 100:.2f}" for _ in range(columns)]
                for _ in range(rows)]

    return {"X": matrix(n, d, 300), "W_Q": matrix(d, d_k, 250), "W_K": matrix(d, d_k, 250),
            "W_V": matrix(d, 2, 200)}, d_k


def _numpy_reference(inputs: dict[str, list[list[str]]], d_k: int, dtype: type
                     ) -> dict[str, np.ndarray]:
    """The NumPy code of a notebook, in ``dtype``."""
    X, W_Q, W_K, W_V = (np.array([[float(v) for v in row] for row in inputs[name]], dtype=dtype)
                        for name in ("X", "W_Q", "W_K", "W_V"))
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    scaled = Q @ K.T / dtype(math.sqrt(d_k))
    with np.errstate(all="ignore"):
        naive = np.exp(scaled) / np.exp(scaled).sum(-1, keepdims=True)
        e = np.exp(scaled - scaled.max(-1, keepdims=True))
        weights = e / e.sum(-1, keepdims=True)
    return {"Q": Q, "scaled": scaled, "weights_naive": naive, "weights": weights,
            "output": weights @ V}


@pytest.mark.parametrize("name", ["float64", "float32", "float16"])
def test_steps_match_numpy_on_100_random_problems(name: str) -> None:
    rng = random.Random(2024)
    dtype = np.dtype(name).type
    for _ in range(100):
        inputs, d_k = _problem(rng)
        run = compute(symattn.Problem.from_mapping({"inputs": inputs}), name)
        expected = _numpy_reference(inputs, d_k, dtype)
        for step, values in expected.items():
            got = np.array(run[step].values, dtype=np.float64)
            assert np.array_equal(got, values.astype(np.float64), equal_nan=True), \
                (name, step, inputs)


@pytest.mark.parametrize("name", ["float64", "float32"])
def test_queries_keys_and_values_from_three_matrices_match_numpy(name: str) -> None:
    """Q = X_q W_Q, K = X_k W_K, V = X_v W_V, each from its own input (once a crash)."""
    inputs = {"X_q": [[1, 0, 1], [0, 2, 1]], "X_k": [[1, 1], [0, 1], [2, 0]],
              "X_v": [[1, 0], [0, 1], [1, 1]], "W_Q": [[1, 0], [0, 1], [1, 1]],
              "W_K": [["0.5", 0], [0, 1]], "W_V": [[2, 0], [0, 2]]}
    dtype = np.dtype(name).type
    X_q, X_k, X_v, W_Q, W_K, W_V = (np.array([[float(v) for v in row] for row in inputs[key]],
                                             dtype=dtype)
                                    for key in ("X_q", "X_k", "X_v", "W_Q", "W_K", "W_V"))
    scaled = (X_q @ W_Q) @ (X_k @ W_K).T / dtype(math.sqrt(2))
    e = np.exp(scaled - scaled.max(-1, keepdims=True))
    weights = e / e.sum(-1, keepdims=True)
    run = compute(symattn.Problem.from_mapping({"inputs": inputs}), name)
    assert np.array_equal(np.array(run["weights"].values), weights.astype(np.float64))
    assert np.array_equal(np.array(run["output"].values),
                          (weights @ (X_v @ W_V)).astype(np.float64))


@pytest.mark.parametrize("name", ["float32", "float16", "bfloat16"])
def test_steps_match_pytorch_on_100_random_problems(name: str) -> None:
    torch = pytest.importorskip("torch")
    dtype = getattr(torch, name)
    rng = random.Random(99)
    for _ in range(100):
        inputs, d_k = _problem(rng)
        X, W_Q, W_K, W_V = (torch.tensor([[float(v) for v in row] for row in inputs[key]],
                                         dtype=dtype) for key in ("X", "W_Q", "W_K", "W_V"))
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        scaled = Q @ K.T / math.sqrt(d_k)
        e = torch.exp(scaled - scaled.max(-1, keepdim=True).values)
        weights = e / e.sum(-1, keepdim=True)
        run = compute(symattn.Problem.from_mapping({"inputs": inputs}), name)
        for step, values in (("scaled", scaled), ("weights", weights), ("output", weights @ V)):
            got = np.array(run[step].values, dtype=np.float64)
            assert np.array_equal(got, values.double().numpy(), equal_nan=True), (name, step)


def test_float16_naive_row_overflows_to_nan_as_numpy_does() -> None:
    problem = symattn.load_example("015-float16-overflow")
    run = compute(problem, "float16")
    scaled = np.array([[11.5, 11.25, 11.125], [12, 11.5, 10.25]], dtype=np.float16)
    with np.errstate(all="ignore"):
        naive = np.exp(scaled) / np.exp(scaled).sum(-1, keepdims=True)
    assert all(math.isnan(w) for w in run.row("weights_naive", 0))
    assert np.array_equal(np.array(run["weights_naive"].values), naive.astype(float),
                          equal_nan=True)
    assert run.row("exp", 0) == (math.inf,) * 3
    assert all(math.isfinite(w) for w in run.row("weights", 0))


def test_seed_004_exp_800_in_float64() -> None:
    run = compute(symattn.load_example("015-float64-exp-800"), "float64")
    assert run.row("exp", 0) == (math.inf,) * 3
    assert all(math.isnan(w) for w in run.row("weights_naive", 0))
    exact = [math.exp(z - 800) / sum(math.exp(y - 800) for y in (800, 799, 790))
             for z in (800, 799, 790)]
    assert run.row("weights", 0) == pytest.approx(exact, rel=1e-15)


def test_bfloat16_scaled_scores_are_rounded_to_eight_bits() -> None:
    problem = symattn.Problem.from_mapping({"inputs": {"scaled": [["1.001", "257"]]},
                                            "options": {"scale": "none"}})
    assert compute(problem, "bfloat16").row("scaled", 0) == (1.0, 256.0)


# ------------------------------------------------------------------ checking
def test_framework_precision_flag_on_the_float16_example() -> None:
    report = check(symattn.derive(symattn.load_example("015-float16-overflow")))
    by_position = {v.position: v for v in report.verdicts}
    scaled = np.array([[11.5, 11.25, 11.125], [12, 11.5, 10.25]], dtype=np.float16)
    e = np.exp(scaled - scaled.max(-1, keepdims=True))
    weights = e / e.sum(-1, keepdims=True)
    for (i, j), printed in np.ndenumerate(np.array([["0.4053", "0.3157", "0.2788"],
                                                    ["0.5615", "0.3416", "0.0977"]])):
        verdict = by_position[f"weights[{i + 1},{j + 1}]"]
        from_float16 = f"{float(weights[i, j]):.4f}" == printed
        if verdict.verdict == "ok" and "framework_precision" in verdict.flags:
            assert from_float16 and "float16" in verdict.reason
        else:
            assert printed == "0.3416" and verdict.verdict == "wrong"
    assert sum("framework_precision" in v.flags for v in report.verdicts) == 5


def test_without_precision_the_float16_numbers_are_wrong() -> None:
    derivation = symattn.derive(symattn.load_example("015-float16-overflow"))
    assert check(derivation, precision="exact").counts["wrong"] == 6


def test_precision_option_is_validated() -> None:
    with pytest.raises(InputError, match="options.precision: precision must be one of"):
        symattn.Problem.from_mapping({"inputs": {"scaled": [["1", "2"]]},
                                      "options": {"precision": "float8"}})


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "symattn", *args], capture_output=True,
                          text=True, timeout=120)


def test_cli_derive_and_check_with_precision() -> None:
    text = _cli("derive", "--example", "015-float64-exp-800", "--precision", "float16")
    assert text.returncode == 0 and "nan" in text.stdout and "float16" in text.stdout
    data = json.loads(_cli("derive", "--example", "015-float16-overflow", "--format",
                           "json").stdout)
    assert data["precision"]["format"] == "float16"
    assert data["precision"]["steps"]["weights_naive"][0] == ["nan", "nan", "nan"]
    markdown = _cli("derive", "--example", "015-float64-exp-800", "--format", "markdown",
                    "--language", "cs").stdout
    assert "## Spočteno ve formátu float64" in markdown
    assert "A:  nan  nan  nan" in markdown and "| A:  0.7310343155951328" in markdown
    latex = _cli("derive", "--example", "015-float16-overflow", "--format", "latex",
                 "--precision", "float16")
    assert latex.returncode == 2 and "--precision" in latex.stderr
    checked = _cli("check", "--example", "015-float16-overflow", "--precision", "exact",
                   "--format", "json")
    assert checked.returncode == 1
    assert json.loads(checked.stdout)["reports"][0]["summary"]["wrong"] == 6


def test_exact_of_round_trips() -> None:
    assert exact_of(0.1) == fmpq(3602879701896397, 36028797018963968)
