"""Running the command line inside a test, shared by the CLI tests."""

from __future__ import annotations

from symattn.cli.app import main


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
