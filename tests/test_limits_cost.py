"""Limits that match the cost: a sweep's temperatures times weights is bounded
(400 temperatures over a 128 x 128 spec took 259 s and 8 GB), refused in one
line with status 2 before the expensive part, raised with ``--max-size``."""

from __future__ import annotations

import json
import random

import pytest

import symattn
from cli_support import assert_one_line_error, run
from symattn.errors import InputError
from symattn.explore.sweep import parse_temperatures, sweep
from symattn.problem.limits import DEFAULT, SWEEP_ENTRIES, Limits


def _spec(tmp_path, n: int) -> str:
    rng = random.Random(n)
    inputs = {name: [[f"{rng.randint(-99, 99) / 100:.2f}" for _ in range(4)] for _ in range(n)]
              for name in "QKV"}
    path = tmp_path / "spec.json"
    path.write_text(json.dumps({"title": "t", "inputs": inputs, "options": {"mask": "causal"}}),
                    encoding="utf-8")
    return str(path)


def test_a_sweep_beyond_the_limit_is_refused_in_one_line(tmp_path, capsys) -> None:
    temperatures = ",".join(f"{t / 100:g}" for t in range(1, 401))
    assert 400 * 128 * 128 > SWEEP_ENTRIES >= 60 * 128 * 128
    status, out, err = run(capsys, "sweep", _spec(tmp_path, 128), "-T", temperatures)
    assert status == 2 and out == ""
    assert_one_line_error(err, "--temperatures", "400 temperatures", "16,384 weights",
                          "--max-size")


def test_max_size_raises_the_sweep_limit(tmp_path, capsys) -> None:
    spec = _spec(tmp_path, 8)      # 64 weights: 17 temperatures are 1,088 weights
    temperatures = ",".join(str(t) for t in range(1, 18))
    status, _, err = run(capsys, "sweep", spec, "-T", temperatures, "--max-size", "4096")
    assert status == 2          # 4,096 entries: the sweep limit scaled to 1,024
    assert_one_line_error(err, "1,088 weights to derive", "1,024")
    status, out, _ = run(capsys, "sweep", spec, "-T", temperatures, "--max-size", "8192")
    assert status == 0 and out


def test_the_api_sweep_takes_limits() -> None:
    problem = symattn.load_example("003-entropy-temperature")
    temperatures = parse_temperatures("0.5,1,2")
    weights = len(problem.allowed()) * len(problem.allowed()[0])
    assert len(sweep(problem, temperatures, Limits(max_sweep_entries=3 * weights))[0].rows) == 3
    with pytest.raises(InputError, match="3 temperatures"):
        sweep(problem, temperatures, Limits(max_sweep_entries=3 * weights - 1))
    assert DEFAULT.max_sweep_entries == SWEEP_ENTRIES
