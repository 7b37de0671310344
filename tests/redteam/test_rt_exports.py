"""Learning-platform exports are data: a spec's title or token names cannot add a
question or a category to GIFT, a question, a category or an embedded-answer field to
Moodle XML, an item to QTI, and cannot make Moodle XML or QTI ill-formed.

Each export is read back with its own reader (GIFT line by line, xml.etree) and
compared with the same set made with plain names: the same number of
questions and categories, and the hostile strings intact as visible text.
"""

from __future__ import annotations

import html
import io
import re
import xml.etree.ElementTree as ET
import zipfile

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from suite_profile import examples

import symattn
from symattn.errors import InputError
from symattn.render import exports
from symattn.worksheets import sheet as worksheet

INJECTION = "T\n::INJ::[html]Injected question{=pwned}\n$CATEGORY: <script>x</script>"
QTI = "{http://www.imsglobal.org/xsd/imsqti_v2p1}"
# What XML 1.0 forbids (written independently of the exporter's own list).
FORBIDDEN = {chr(c) for c in range(32) if chr(c) not in "\t\n\r"} | {"\ufffe", "\uffff"}


def _sheets(title: str, tokens: list[str]) -> list[worksheet.Worksheet]:
    problem = symattn.Problem.from_mapping({
        "title": title, "tokens": tokens,
        "inputs": {"Q": [[1, 0], [0, 1], [1, 1]], "K": [[1, 0], [0, 1], [1, 1]],
                   "V": [[1, 2], [0, 1], [2, 0]]}})
    return worksheet.build(seed=3, variants=2, problem=problem, kinds=("scores_row",))


def _gift_counts(text: str) -> tuple[int, int]:
    """(questions, categories); every line must be one GIFT knows."""
    questions = categories = 0
    for line in text.split("\n"):
        if line.startswith("$CATEGORY: "):
            categories += 1
        elif line.startswith("::"):
            questions += 1
        else:
            assert line == "" or line.startswith("// "), line
    return questions, categories


_FIELD = re.compile(r"\{[0-9]*:[A-Z_]+:")     # what starts a field in Moodle's Cloze parser


def _moodle_counts(quiz: ET.Element) -> tuple[int, int, int]:
    """(categories, questions, Cloze fields)."""
    questions = [q for q in quiz.iter("question")]
    categories = sum(q.get("type") == "category" for q in questions)
    fields = sum(len(_FIELD.findall(q.findtext("questiontext/text") or "")) for q in questions)
    return categories, len(questions) - categories, fields


PLAIN = _sheets("T", ["a", "b", "c"])
PLAIN_GIFT = _gift_counts(exports.export("gift", PLAIN).decode("utf-8"))
PLAIN_MOODLE = _moodle_counts(ET.fromstring(exports.export("moodle", PLAIN)))


def _visible(text: str) -> str:
    return "".join(c for c in text if c not in FORBIDDEN and not "\ud800" <= c <= "\udfff")


def _qti_files(sheets: list[worksheet.Worksheet]) -> dict[str, ET.Element]:
    archive = zipfile.ZipFile(io.BytesIO(exports.export("qti", sheets)))
    return {name: ET.fromstring(archive.read(name)) for name in archive.namelist()}


def _check(title: str, tokens: list[str]) -> None:
    sheets = _sheets(title, tokens)
    gift = exports.export("gift", sheets).decode("utf-8")
    assert _gift_counts(gift) == PLAIN_GIFT
    quiz = ET.fromstring(exports.export("moodle", sheets))
    categories = [q.findtext("category/text") or "" for q in quiz.iter("question")
                  if q.get("type") == "category"]
    assert _moodle_counts(quiz) == PLAIN_MOODLE
    shown = _visible(" ".join(f"{title} (en, 3)".split()))    # one line, then what XML allows
    for category in categories:
        assert "<" not in category and ">" not in category     # HTML to Moodle: escaped
        top = category.removeprefix("$course$/top/").replace("//", "\x00")
        assert html.unescape(top).replace("\x00", "/").startswith(f"{shown}/")
    texts = [html.unescape(q.findtext("questiontext/text") or "") for q in quiz.iter("question")
             if q.get("type") != "category"]
    seen = [_visible(token).replace("\r\n", "\n").replace("\r", "\n")   # XML's line ends
            for token in tokens]
    assert all(any(token in text for token in seen) for text in texts)   # the asked row's
    files = _qti_files(sheets)
    assert files["assessment.xml"].get("title", "").startswith(_visible(title))
    assert len([n for n in files if n.startswith("items/")]) == PLAIN_MOODLE[1]


def test_a_token_that_looks_like_a_cloze_field_adds_no_field() -> None:
    _check("T", ["{1:SHORTANSWER:=x}", "{:NM:=1:0}", "c"])


def test_a_title_with_lines_adds_no_question_and_no_category() -> None:
    _check(INJECTION, ["a", "b", "c"])
    gift = exports.export("gift", _sheets(INJECTION, ["a", "b", "c"])).decode("utf-8")
    assert "<script>" not in gift
    # folded onto the category's line, where GIFT reads it as the category's name
    assert not any(line.startswith("::INJ") for line in gift.split("\n"))


def test_a_form_feed_leaves_every_xml_well_formed() -> None:
    _check("F\x0cF\x01", ["t\x0c1", "u\x1b2", "c"])


_PIECES = st.one_of(st.characters(max_codepoint=0x9f),
                    st.sampled_from(list("~=#{}:\\<>&\"'/$\ufffe\u2028") +
                                    ["]]>", "</question>", "<![CDATA[", "&amp;", "::", "\r\n"]))
_HOSTILE = st.lists(_PIECES, min_size=1, max_size=20).map("".join)


@settings(max_examples=examples(200), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(title=st.one_of(_HOSTILE, _HOSTILE.map(lambda t: t * 50)),
       tokens=st.lists(_HOSTILE, min_size=3, max_size=3, unique=True))
def test_hostile_titles_and_tokens_round_trip(title: str, tokens: list[str]) -> None:
    assume(all(_visible(t).strip() for t in tokens) and len({_visible(t) for t in tokens}) == 3)
    try:
        _sheets(title, tokens)
    except InputError:
        assume(False)       # a spec symattn refuses has no export to check
    _check(title, tokens)


@pytest.mark.parametrize("name", ["a~b", "x=1", "#3", "{y}", "p: q", "back\\slash", "l\nm"])
def test_a_token_with_gift_specials_stays_one_token(name: str) -> None:
    gift = exports.export("gift", _sheets("T", [name, "b", "c"])).decode("utf-8")
    assert _gift_counts(gift) == PLAIN_GIFT
    assert not re.search(r"(?<!\\)[{}]", re.sub(r"\{[#=~][^{}]*\}$", "", gift.split("\n")[2]
                                                  .replace("\\\\", "")))
