"""Running the command line inside a test, shared by the CLI tests."""

from __future__ import annotations

import os
import random
from pathlib import Path

from symattn.cli.app import main

ROOT = Path(__file__).resolve().parent.parent


def subprocess_env() -> dict[str, str]:
    """The environment of a ``python -m symattn`` child: this checkout first on the
    path, and no SYMATTN_DEBUG (its tracebacks are what the tests rule out)."""
    variables = dict(os.environ)
    variables.pop("SYMATTN_DEBUG", None)
    variables["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT),
                                                            variables.get("PYTHONPATH")]))
    return variables


def run(capsys, *argv):  # type: ignore[no-untyped-def]
    """main(argv) -> (status, stdout, stderr); argparse exits become statuses."""
    try:
        status = main(list(argv))
    except SystemExit as exit_:
        status = exit_.code
    out, err = capsys.readouterr()
    return status, out, err


def assert_one_line_error(err: str, *parts: str) -> None:
    """A single 'symattn: error: ...' line naming every part, never a traceback."""
    assert "Traceback" not in err
    lines = err.strip("\n").split("\n")
    assert len(lines) == 1, err
    assert lines[0].startswith("symattn: error: "), err
    for part in parts:
        assert part in lines[0], (part, err)


def large_spec(folder: Path, n: int = 400) -> Path:
    """An n x n softmax: its JSON derivation with every closed form (--max-terms 0)
    runs long enough to be interrupted (400 tokens: about a second to read and derive,
    then six of writing, 0.9 GB if it ran to the end)."""
    rng = random.Random(1)
    rows = ",\n".join("[" + ", ".join(f"{rng.randint(-300, 300) / 100:.2f}" for _ in range(n))
                      + "]" for _ in range(n))
    path = folder / "large.toml"
    path.write_text(f'title = "large"\n[inputs]\nscaled = [\n{rows}\n]\n', encoding="utf-8")
    return path
