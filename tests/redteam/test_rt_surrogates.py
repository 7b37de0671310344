"""Issue 19 items 5 and 18 (duplicate key): JSON text no output can write is refused at load.

A lone surrogate (``"\\ud800"`` in a title, token, label or entry) used to crash
derive, check and permute with ``UnicodeEncodeError`` when the output was
written; a duplicate key was named without its table.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_support import assert_one_line_error, run

BASE = '{{"title": {title}, "tokens": {tokens}, "inputs": {{"Q": [[1, 0], [0, 1]], ' \
       '"K": [[1, 0], [0, 1]], "V": {v}}}, "claims": {claims}}}'
PLACES = {
    "title": dict(title='"x\\ud800y"', tokens='["a", "b"]', v="[[1, 2], [3, 4]]", claims="{}"),
    "tokens": dict(title='"t"', tokens='["a", "\\udfff"]', v="[[1, 2], [3, 4]]", claims="{}"),
    "claims": dict(title='"t"', tokens='["a", "b"]', v="[[1, 2], [3, 4]]",
                   claims='{"weights[1,1]": {"value": "0.67", "label": "\\ud83d"}}'),
    "entry": dict(title='"t"', tokens='["a", "b"]', v='[[1, 2], [3, "\\ud800"]]', claims="{}"),
}
WHERE = {"title": ["title"], "tokens": ["tokens", "row 2"], "claims": ["claims"],
         "entry": ["inputs.V", "row 2", "column 2"]}


@pytest.mark.parametrize("command", ["derive", "check", "permute"])
@pytest.mark.parametrize("place", sorted(PLACES))
def test_lone_surrogates_are_refused_with_a_place(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str],
                                                  command: str, place: str) -> None:
    path = tmp_path / "s.json"
    path.write_text(BASE.format(**PLACES[place]), encoding="utf-8")
    status, out, err = run(capsys, command, str(path))
    assert status == 2, err
    assert_one_line_error(err, str(path), "surrogate", *WHERE[place])
    err.encode("utf-8")          # the message itself can be written


def test_a_surrogate_pair_is_one_character(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.json"
    path.write_text(BASE.format(title='"cat \\ud83d\\udc31"', tokens='["a", "b"]',
                                v="[[1, 2], [3, 4]]", claims="{}"), encoding="utf-8")
    status, out, _ = run(capsys, "derive", str(path))
    assert status == 0 and "cat \U0001f431" in out


def test_duplicate_key_named_with_its_table(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "d.json"
    path.write_text('{"inputs": {"scaled": [[1, 2]], "scaled": [[3, 4]]}}', encoding="utf-8")
    status, _, err = run(capsys, "derive", str(path))
    assert status == 2
    assert_one_line_error(err, f"{path}, inputs.scaled: duplicate key `scaled`")
