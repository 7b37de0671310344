"""``symattn sizes`` and ``symattn check`` on a size spec in the reader's language.

Every phrase of the English catalog's ``[sizes]`` tables that a report uses
must show in English and be absent in Polish, Czech, Russian and Ukrainian;
numbers carry the language's digit groups and decimal mark. The expected
numbers are worked out here by hand from the shape, not taken from the code.
"""

from __future__ import annotations

import json
import re

import pytest

from symattn import messages

from cli_support import run
from test_languages import english_phrases

OTHERS = ["pl", "cs", "ru", "uk"]
# GQA, biases, a vocabulary and 32 layers: every line of the report shows.
SHAPE = ["--d-model", "4096", "--heads", "32", "--kv-heads", "8", "--layers", "32",
         "--seq-len", "4096", "--vocab", "50257", "--bias"]
NBSP = "\u00a0"
# W_Q with its bias: 4096 * 4096 + 4096 parameters, about 16.78 million.
WQ_PARAMS = 4096 * 4096 + 4096
# The KV cache per token: K and V, 32 layers, 8 heads of 128, 2 bytes each.
KV_PER_TOKEN = 2 * 32 * 8 * 128 * 2


def _sizes_phrases() -> list[str]:
    """The English phrases of the tables the sizes text report writes (all but the
    LaTeX title)."""
    return [phrase for phrase in english_phrases()
            if any(phrase in text for key, text in _sizes_texts("en")
                   if not key.startswith("sizes.reason.") and key != "sizes.title")]


def _sizes_texts(language: str) -> list[tuple[str, str]]:
    catalog = messages.load(language)
    return [(key, catalog.get(key)) for key in catalog.keys() if key.startswith("sizes.")]


def _sizes(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    status, out, err = run(capsys, "sizes", *SHAPE, *argv)
    assert status == 0, err
    return out


def test_english_report_has_every_phrase_and_a_decimal_point(capsys):
    out = _sizes(capsys, "--language", "en").replace(NBSP, " ")
    missing = [phrase for phrase in _sizes_phrases() if phrase not in out]
    assert not missing, missing
    assert f"{WQ_PARAMS:,}" == "16,781,312" and "16,781,312" in out
    assert "≈ 16.78 million" in out
    assert f"{KV_PER_TOKEN:,} B" in out and "128 KiB ≈ 131.07 kB" in out
    # no name of the code on the page
    assert not re.search(r"kv_cache_bytes|score_elements|wo_share|_params|head_dim", out)


@pytest.mark.parametrize("language", OTHERS)
def test_report_in_other_languages_has_no_english_phrase(capsys, language):
    out = _sizes(capsys, "--language", language)
    leaked = [phrase for phrase in english_phrases() if phrase in out.replace(NBSP, " ")]
    assert not leaked, leaked[:5]
    # digits grouped by a space, decimals after a comma
    assert "16 781 312" in out and "16,781,312" not in out
    assert "≈ 16,78" in out and "16.78" not in out
    assert f"128{NBSP}KiB ≈ 131,07{NBSP}kB" in out
    assert not re.search(r"kv_cache_bytes|score_elements|wo_share|_params|head_dim", out)


@pytest.mark.parametrize("language", OTHERS)
def test_latex_report_in_other_languages_has_no_english_phrase(capsys, language):
    tex = _sizes(capsys, "--language", language, "--format", "latex")
    body = tex.split("\\begin{document}", 1)[1]
    leaked = [phrase for phrase in english_phrases() if phrase in body]
    assert not leaked, leaked[:5]
    assert "16\\,781\\,312" in body and "16{,}78" in body


def test_locale_overrides_the_decimal_mark(capsys):
    out = _sizes(capsys, "--language", "cs", "--locale", "en")
    assert "16,781,312" in out and "≈ 16.78" in out and "parametry" in out


def test_json_stays_english_data(capsys):
    english = _sizes(capsys, "--format", "json")
    assert _sizes(capsys, "--format", "json", "--language", "ru") == english
    quantities = {q["name"]: q for q in json.loads(english)["quantities"]}
    assert quantities["wq_params"]["human"] == "~16.78 million"


# A size spec whose claims hit every kind of reason: 2 layers, a batch of 2, GQA.
SPEC = """\
[sizes]
d_model = 4096
heads = 32
kv_heads = 8
seq_len = 1024
batch = 2
layers = 2

[claims]
head_dim = "128"
wo_share = "40%"
W_Q = "[4096, 4096]"
W_O = "[4096, 1024]"
Q = "[1024, 4096]"
score_bytes = "128 MB"
"score_bytes @ rounded" = "134.2 MB"
score_bytes_all_layers = "128 MiB"
kv_cache_bytes = "8 MiB"
"""
# By hand: scores 2 * 32 * 1024^2 * 2 B = 128 MiB = 134.217728 MB per layer; the KV
# cache 2 (K, V) * 2 layers * 8 heads * 128 * 2 B * 1024 tokens * 2 sequences = 16 MiB.
ENGLISH_REASONS = [
    "exactly 128", "exactly 40%", "should be [2, 1024, 4096]",
    "matches the shape for one sequence", "matches the shape of W",
    "matches the value in MiB (binary units", "labelled MB",
    "exact 134.217728 MB = 134,217,728 B rounds half up to 134.2 MB",
    "matches the value for one layer (the spec has 2 layers)",
    "matches the value for one sequence (the batch has 2)",
    "matches the keys alone or the values alone",
]


@pytest.fixture()
def spec(tmp_path):
    path = tmp_path / "sizes.toml"
    path.write_text(SPEC, encoding="utf-8")
    return str(path)


def _check(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    status, out, err = run(capsys, "check", *argv, "--width", "0")   # reasons on one line
    assert status == 1, err            # the spec has wrong numbers
    return out


def test_english_check_says_every_reason(capsys, spec):
    out = _check(capsys, spec, "--language", "en").replace(NBSP, " ")
    missing = [reason for reason in ENGLISH_REASONS if reason not in out]
    assert not missing, missing
    for key, text in _sizes_texts("en"):
        if key.startswith("sizes.reason.match_binary"):
            assert text.split("{{")[0] in out


@pytest.mark.parametrize("language", OTHERS)
def test_check_in_other_languages_has_no_english_phrase(capsys, spec, language):
    for argv in ([spec, "--language", language],
                 [spec, "--language", language, "--format", "markdown"]):
        out = _check(capsys, *argv)
        leaked = [phrase for phrase in english_phrases() if phrase in out.replace(NBSP, " ")]
        assert not leaked, (argv, leaked[:5])
        leaked = [reason for reason in ENGLISH_REASONS[2:] if reason in out]
        assert not leaked, (argv, leaked)
        assert "134,217728" in out and "134.217728" not in out
        assert f"134{NBSP}217{NBSP}728" in out and " bytes" not in out


def test_the_spec_language_key_chooses_the_language(capsys, spec, tmp_path):
    path = tmp_path / "cs.toml"
    path.write_text('language = "cs"\n' + SPEC, encoding="utf-8")
    out = _check(capsys, str(path))
    assert "přesně 128" in out and "exactly 128" not in out
    assert "exactly 128" in _check(capsys, str(path), "--language", "en")


def test_check_json_reasons_stay_english_with_a_point(capsys, spec):
    status, out, err = run(capsys, "check", spec, "--format", "json", "--language", "uk")
    assert status == 1, err
    reasons = [claim["reason"] for claim in json.loads(out)["reports"][0]["claims"]]
    assert any(reason.startswith("exact 134.217728 MB = 134,217,728 bytes rounds half-up to "
                                 "134.2 MB; printed differently elsewhere: 128 MB")
               for reason in reasons)
    assert reasons[0] == "exactly 128"
