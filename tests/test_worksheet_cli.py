"""``symattn worksheet``: files, byte-identical reruns, one-line errors, check specs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from symattn.cli.app import main


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_writes_sheets_keys_and_answers(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    out = tmp_path / "class"
    args = ["worksheet", "--seed", "7", "--variants", "3", "--language", "pl", "-o", str(out),
            "--exercises", "softmax_table,find_error,sizes"]
    assert main(args) == 0
    names = sorted(_files(out))
    assert names == ["worksheet-01-key.tex", "worksheet-01.tex", "worksheet-02-key.tex",
                     "worksheet-02.tex", "worksheet-03-key.tex", "worksheet-03.tex",
                     "worksheet-answers.json"]
    message = capsys.readouterr().err
    assert message.count("\n") == 1 and "the checker confirmed all" in message
    answers = json.loads((out / "worksheet-answers.json").read_text(encoding="utf-8"))
    assert [v["variant"] for v in answers["variants"]] == [1, 2, 3]
    assert [e["kind"] for e in answers["exercises"]] == ["softmax_table", "find_error",
                                                         "sizes"]
    first = answers["variants"][0]["answers"][0]
    assert first["exercise"] == "1" and "," in first["expected"]     # Polish decimal comma
    sheet = (out / "worksheet-01.tex").read_text(encoding="utf-8")
    assert "\\usepackage[polish]{babel}" in sheet and "Tabela softmaksu" in sheet


def test_same_seed_gives_byte_identical_files(tmp_path: Path) -> None:
    args = ["worksheet", "--seed", "12", "--variants", "2", "--language", "ru",
            "--check-specs"]
    assert main(args + ["-o", str(tmp_path / "a")]) == 0
    assert main(args + ["-o", str(tmp_path / "b")]) == 0
    first, second = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert first == second and len(first) > 5


def test_check_specs_pass_symattn_check(tmp_path: Path) -> None:
    assert main(["worksheet", "--seed", "4", "--exercises", "all", "--check-specs",
                 "--language", "uk", "-o", str(tmp_path), "--name", "quiz"]) == 0
    specs = sorted(str(p) for p in (tmp_path / "quiz-check").glob("*.json"))
    assert len(specs) >= 11
    report = tmp_path / "report.json"
    assert main(["check", *specs, "--format", "json", "-o", str(report)]) == 0
    text = report.read_text(encoding="utf-8")
    assert '"verdict": "ok"' in text and '"wrong"' not in text.replace('"wrong": 0', "")


def test_from_a_spec_file(tmp_path: Path) -> None:
    spec = tmp_path / "my.toml"
    spec.write_text('title = "Ďábelský test: \\\\input{x} 50%"\n'
                    'tokens = ["кіт", "łódź", "kočka"]\n'
                    '[inputs]\nQ = [[1, 0], [0, 1], [1, 1]]\nK = [[1, 0], [0, 1], [1, 1]]\n'
                    'V = [[1, 2], [3, 4], [5, 6]]\n', encoding="utf-8")
    assert main(["worksheet", str(spec), "--exercises", "scores_row,weights_row",
                 "-o", str(tmp_path / "out")]) == 0
    sheet = (tmp_path / "out" / "worksheet.tex").read_text(encoding="utf-8")
    assert "\\textbackslash{}input\\{x\\} 50\\%" in sheet and "\\input{x}" not in sheet


@pytest.mark.parametrize("extra, message", [
    (["--language", "de"], "--language must be one of en, pl, cs, ru, uk"),
    (["--variants", "0"], "--variants must be a whole number from 1 to 500"),
    (["--seed", "-3"], "--seed must be a whole number"),
    (["--places", "x"], "--places must be a whole number"),
    (["--exercises", "softmax,sizes"], "unknown exercise kind 'softmax'"),
    (["--mistakes", "typo"], "unknown mistake 'typo'"),
    (["--example", "003-positions-sinusoidal"], "a worksheet needs rational numbers"),
    (["--example", "003-multi-head"], "a worksheet needs a single attention head"),
    (["no-such-spec.toml"], "no such file"),
    (["--name", "../x"], "--name must be a plain file name prefix"),
    (["--preset", "lesson90"], "unknown preset 'lesson90'; known: lesson45, homework, exam"),
    (["--numbers", "mental"], "unknown numbers 'mental'"),
    (["--numbers", "calculator-free", "-x", "temperature"], "no calculator-free form"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          extra: list[str], message: str) -> None:
    assert main(["worksheet", "-o", str(tmp_path / "out"), *extra]) == 2
    error = capsys.readouterr().err
    assert error.startswith("symattn: error: ") and error.count("\n") == 1
    assert message in error
    assert not (tmp_path / "out").exists()          # nothing written


def test_output_dir_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    assert main(["worksheet", "-o", str(tmp_path / "file")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_help_lists_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["worksheet", "--help"])
    assert "--variants" in capsys.readouterr().out


def test_pdfs_compile_while_the_next_documents_are_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # All 2N documents were written before the first TeX run started; now each PDF
    # starts as soon as its LaTeX exists, and still lands next to its own .tex.
    import threading

    from symattn.render import pdf, worksheet

    events: list[str] = []
    lock = threading.Lock()
    real_key = worksheet.key_latex

    def key_latex(*args: object, **kwargs: object) -> str:
        with lock:
            events.append("write")
        return real_key(*args, **kwargs)  # type: ignore[arg-type]

    def compile_pdf(tex: str, **kwargs: object) -> bytes:
        with lock:
            events.append("compile")
        return f"%PDF {len(tex)} {hash(tex)}".encode()

    monkeypatch.setattr(worksheet, "key_latex", key_latex)
    monkeypatch.setattr(pdf, "compile_pdf", compile_pdf)
    out = tmp_path / "class"
    assert main(["worksheet", "--seed", "3", "--variants", "3", "-x", "softmax_table",
                 "--pdf", "--jobs", "2", "-o", str(out)]) == 0
    assert events.index("compile") < len(events) - 1 - events[::-1].index("write")
    for tex in sorted(out.glob("*.tex")):
        text = tex.read_text(encoding="utf-8")
        assert tex.with_suffix(".pdf").read_bytes() == \
            f"%PDF {len(text)} {hash(text)}".encode()
