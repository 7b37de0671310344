"""The reader's language: every word of a derivation, a listing and a report from its catalog.

The English catalog is the reference for what must not leak: every stretch of
fixed English text in it (between placeholders and math, over 15 characters)
must be absent from a page rendered in another language, and on the Czech
example no word of the English catalog's vocabulary may appear that is not
also Czech (or the spec's own text).
"""

from __future__ import annotations

import re
from pathlib import Path
from functools import lru_cache

import pytest

import symattn
from symattn import messages
from symattn.errors import InputError
from symattn.problem import examples

from cli_support import run

# The worksheets' messages are checked by the worksheet tests; the rest is the derivation's.
_WORKSHEET = ("kind.", "mistake.", "sheet.", "tokens.")
ATTENTION = [name for name in examples.names()
             if "[inputs]" in examples.path(name).read_text(encoding="utf-8")]
OWN_LANGUAGE = [(name, symattn.load_example(name).language) for name in ATTENTION
                if symattn.load_example(name).language not in ("", "en")]


def _texts(catalog: messages.Catalog) -> list[tuple[str, str]]:
    out = []
    for key in catalog.keys():
        if key.startswith(_WORKSHEET) or key == "language":
            continue
        value = catalog.get(key)
        out += [(key, text) for text in (value if isinstance(value, list) else [value])]
    return out


@lru_cache(maxsize=None)
def english_phrases() -> frozenset[str]:
    """Every stretch of fixed English prose in the catalog longer than 15 characters."""
    found = set()
    for _, text in _texts(messages.load("en")):
        for piece in re.split(r"\{\{[a-z_]+\}\}|\$[^$]*\$|~", text):
            piece = piece.strip(" .,;:()")
            if len(piece) > 15:
                found.add(piece)
    return frozenset(found)


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[^\W\d_]{2,}", text)}


@lru_cache(maxsize=None)
def vocabulary(language: str) -> frozenset[str]:
    """The words of a catalog's prose (math and LaTeX commands removed)."""
    words: set[str] = set()
    for _, text in _texts(messages.load(language)):
        text = re.sub(r"\$[^$]*\$|\\[A-Za-z]+|\{\{[a-z_]+\}\}", " ", text)
        words |= _words(text)
    return frozenset(words)


def page_words(tex: str) -> set[str]:
    """The words a reader sees on a LaTeX page: no preamble, math or commands."""
    body = tex.split("\\begin{document}", 1)[-1]
    body = re.sub(r"\\begin\{(align\*|aligned|bmatrix|smallmatrix)\}.*?\\end\{\1\}", " ", body,
                  flags=re.S)
    body = re.sub(r"\$[^$]*\$|\\\[.*?\\\]", " ", body, flags=re.S)
    body = re.sub(r"\\(?:text|mathrm|operatorname)\{[^}]*\}", " ", body)
    body = re.sub(r"\\[A-Za-z]+\*?(\[[^\]]*\])?", " ", body)
    body = re.sub(r"(?m)%.*$", " ", body)
    return _words(body)


@pytest.mark.parametrize("name, language", OWN_LANGUAGE)
def test_every_example_in_its_language_has_no_english_phrase(name: str, language: str) -> None:
    derivation = symattn.derive(symattn.load_example(name))
    for text in (symattn.render_latex(derivation), symattn.render_markdown(derivation)):
        leaked = [phrase for phrase in english_phrases() if phrase in text]
        assert not leaked, (name, language, leaked[:5])


@pytest.mark.parametrize("language", ["pl", "cs", "ru", "uk"])
def test_a_rich_example_in_every_language_has_no_english_phrase(language: str) -> None:
    """Masks, scores written out term by term, notes on wrong and carried numbers."""
    derivation = symattn.derive(symattn.load_example("001-kocka-spi-venku"))
    english = symattn.render_latex(derivation, language="en")
    assert len([phrase for phrase in english_phrases() if phrase in english]) > 20  # it can fail
    for text in (symattn.render_latex(derivation, language=language),
                 symattn.render_markdown(derivation, language=language)):
        leaked = [phrase for phrase in english_phrases() if phrase in text]
        assert not leaked, (language, leaked[:5])
        body = text.split("\\begin{document}")[-1]      # the preamble may use @ (\\makeatletter)
        body = re.sub(r"@\{[^{}]*\}", "", body)     # column separators: r@{}l, @{\quad}
        assert "Step " not in body and "weights[" not in body and "@" not in body


def test_the_czech_example_is_czech_from_the_first_to_the_last_word() -> None:
    problem = symattn.load_example("001-kocka-spi-venku")
    tex = symattn.render_latex(symattn.derive(problem))
    spec_text = examples.path("001-kocka-spi-venku").read_text(encoding="utf-8")
    english_only = vocabulary("en") - vocabulary("cs") - _words(spec_text)
    seen = page_words(tex)
    assert not seen & english_only, sorted(seen & english_only)
    assert {"krok", "skóre", "váhy", "pozornosti", "kauzální", "maska", "výstup"} <= seen
    assert "0{,}97" in tex and "0.97" not in tex.split("\\begin{document}")[1]


@pytest.mark.parametrize("language", ["pl", "cs", "ru", "uk"])
def test_the_czech_example_in_other_languages_has_no_english_word(language: str) -> None:
    problem = symattn.load_example("001-kocka-spi-venku")
    tex = symattn.render_latex(symattn.derive(problem), language=language)
    spec_text = examples.path("001-kocka-spi-venku").read_text(encoding="utf-8")
    english_only = vocabulary("en") - vocabulary(language) - _words(spec_text)
    assert not page_words(tex) & english_only, sorted(page_words(tex) & english_only)


def test_headings_and_notes_in_words_not_internal_names() -> None:
    """Seed 000 in Polish: notes name the entry as the page does, one note per number."""
    tex = symattn.render_latex(symattn.derive(symattn.load_example("000-cat-chases-mouse")))
    notes = re.findall(r"\\item (.*)", tex)
    assert notes
    for note in notes:
        assert not re.search(r"[a-z_]+\[\d|@|->|-oo|QK\^T|log2", note), note
    assert any("waga klucza 1 w~wierszu 2" in note for note in notes)
    # one note per printed number: 0.35 printed three times is one note, saying so
    numbers = [(note.split(":")[0], re.search(r"liczba (\$[^$]*\$)", note).group(1))
               for note in notes]
    assert len(numbers) == len(set(numbers))
    assert any("(występuje w~tekście 3~razy)" in note or "(występuje w~tekście 3 razy)" in note
               for note in notes)
    headings = re.findall(r"\\subsection\*\{(.*)\}", tex)
    assert "Krok 9: Surowe wyniki" in headings and "Krok 12: Wyniki po nałożeniu maski" in headings
    assert not any(re.search(r"-oo|\^T|log2|->", h) for h in headings)


def test_cli_language_default_override_and_locale(capsys) -> None:  # type: ignore[no-untyped-def]
    status, out, err = run(capsys, "derive", "--example", "001-kocka-spi-venku", "--format",
                           "latex")
    assert status == 0, err
    assert "\\subsection*{Krok 10: Váhy pozornosti}" in out and "0{,}97" in out
    status, out, err = run(capsys, "derive", "--example", "001-kocka-spi-venku", "--format",
                           "markdown", "--language", "en")
    assert status == 0, err
    assert "### Step 10: Attention weights" in out and "0.97" in out and "0{,}97" not in out
    status, out, err = run(capsys, "derive", "--example", "001-kocka-spi-venku", "--language",
                           "ru", "--locale", "en")
    assert status == 0, err
    assert "Шаг 10: Веса внимания" in out and "0.970000" in out
    status, out, err = run(capsys, "derive", "--example", "004-softmax-row", "--language",
                           "uk", "--format", "json")
    assert status == 0, err
    assert '"2980.96' in out                       # JSON keeps the point: it is data


def test_python_api_language() -> None:
    derivation = symattn.derive(symattn.load_example("004-cat-eats-fish"))
    # Ukrainian words are set in the Cyrillic font encoding, so the page compiles:
    # the whole page through babel and T2A, not word by word
    tex = symattn.render_latex(derivation)
    assert "Крок 1: Вхідні ембедінги" in tex and "\\symattncyr{Крок}" not in tex
    assert "\\usepackage[T1,T2A]{fontenc}" in tex and "\\usepackage[ukrainian]{babel}" in tex
    assert "### Крок 1: Вхідні ембедінги" in symattn.render_markdown(derivation)
    assert "Krok 1: Embeddingi wejściowe" in symattn.render_latex(derivation, language="pl")
    assert "### Step 1: Input embeddings" in symattn.render_markdown(derivation,
                                                                     language="en")
    shown = symattn.derive(symattn.load_example("004-cat-eats-fish"), language="cs")
    assert "Krok 1: Vstupní embeddingy" in shown._repr_markdown_()
    with pytest.raises(InputError, match="unknown language 'de'"):
        symattn.derive(symattn.load_example("004-cat-eats-fish"), language="de")


def test_spec_language_key_is_checked(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from symattn.problem import spec

    problem = spec.loads('language = "UK"\n[inputs]\nscaled = [[1, 2]]\n', "a.toml")
    assert problem.language == "uk"
    german = spec.loads('language = "de"\n[inputs]\nscaled = [[1, 2]]\n', "b.toml")
    assert (german.language, german.written_language) == ("", "de")   # no catalog: English
    with pytest.raises(InputError) as caught:
        spec.loads('language = "de!"\n[inputs]\nscaled = [[1, 2]]\n', "b.toml")
    assert "b.toml" in str(caught.value) and "language" in str(caught.value)


@pytest.mark.parametrize("language", ["en", "pl", "cs", "ru", "uk"])
def test_text_listing_in_every_language(language: str, capsys) -> None:  # type: ignore[no-untyped-def]
    status, out, err = run(capsys, "derive", "--example", "003-multi-head", "--language",
                           language)
    assert status == 0, err
    catalog = messages.load(language)
    assert catalog.text("heading.weights") in out
    assert catalog.fill("document.head", number="2") in out       # "(head 2)", translated
    assert "head2" not in out and "scores:" not in out
    if language != "en":
        leaked = [phrase for phrase in english_phrases() if phrase in out]
        assert not leaked, leaked[:5]


# ------------------------------------------------------------------ the reports
REPORTS = {
    "sweep": ["sweep", "--example", "003-entropy-temperature"],
    "whatif": ["whatif", "--example", "000-cat-chases-mouse"],
    "permute": ["permute", "--example", "003-positions-sinusoidal", "--order", "3,1,2"],
    "kvcache": ["kvcache", "--example", "000-cat-chases-mouse"],
    "check": ["check", "--example", "001-kocka-spi-venku"],
}


@pytest.mark.parametrize("language", ["pl", "cs", "ru", "uk"])
@pytest.mark.parametrize("command", sorted(REPORTS))
def test_reports_have_no_english_phrase(command: str, language: str, capsys) -> None:  # type: ignore[no-untyped-def]
    formats = ["text", "markdown"] if command == "check" else ["text", "latex"]
    english = [phrase for phrase in english_phrases()]
    for layout in formats:
        status, out, err = run(capsys, *REPORTS[command], "--language", language,
                               "--format", layout)
        assert status in (0, 1), err              # check: 1 when a printed number is wrong
        leaked = [phrase for phrase in english if phrase in out]
        assert not leaked, (command, language, layout, leaked[:5])
        assert messages.load(language).language       # the catalog the page was written from


@pytest.mark.parametrize("command", sorted(REPORTS))
def test_reports_in_english_show_english_phrases(command: str, capsys) -> None:  # type: ignore[no-untyped-def]
    """The leak test above can fail: the English report is full of catalog phrases."""
    status, out, err = run(capsys, *REPORTS[command], "--language", "en")
    assert status in (0, 1), err
    assert len([phrase for phrase in english_phrases() if phrase in out]) >= 2


def test_russian_and_ukrainian_pages_compile() -> None:
    from latex_support import HAVE_PDFLATEX, HAVE_PDFTOTEXT, compile_all, pdf_text

    if not HAVE_PDFLATEX:
        pytest.skip("pdflatex is not installed")
    documents = {
        "ru": symattn.render_latex(symattn.derive(symattn.load_example(
            "003-positions-sinusoidal"))),
        "uk": symattn.render_latex(symattn.derive(symattn.load_example("004-cat-eats-fish")))}
    pdfs = compile_all(documents)
    for language, pdf in pdfs.items():
        assert isinstance(pdf, bytes) and pdf.startswith(b"%PDF"), (language, pdf)
    if HAVE_PDFTOTEXT:
        assert "Шаг 10: Сырые оценки" in pdf_text(pdfs["ru"])
        assert "Крок 5: Запити" in pdf_text(pdfs["uk"])


def _long_words(node: object) -> set[str]:
    """The words of five letters or more in a catalog or a spec's prose (placeholders and
    LaTeX commands left out)."""
    if isinstance(node, dict):
        return set().union(*map(_long_words, node.values())) if node else set()
    if isinstance(node, list):
        return set().union(*map(_long_words, node)) if node else set()
    if not isinstance(node, str):
        return set()
    text = re.sub(r"\{\{[^}]*\}\}|\\[A-Za-z]+", " ", node)
    return {w.lower() for w in re.findall(r"[^\W\d_]{5,}", text)}


def test_every_example_derived_in_english_has_no_word_of_another_language(capsys) -> None:
    """Every word the tool writes is in the page language: no word of the other four
    catalogs (but not of English) and no word of the spec's prose in its own language
    appears on an English page, in text or Markdown. The tokens are the example's data."""
    import tomllib

    from symattn.cli.app import main
    from symattn.problem import examples

    folder = Path(__file__).resolve().parent.parent / "symattn" / "messages"
    catalogs = {language: _long_words(tomllib.loads((folder /
                                                f"{language}.toml").read_text("utf-8")))
                for language in ("en", "pl", "cs", "ru", "uk")}
    foreign = set().union(*(catalogs[k] for k in ("pl", "cs", "ru", "uk"))) - catalogs["en"]
    for name in examples.names():
        if examples.kind(name) == "sizes":
            continue
        spec = tomllib.loads(examples.path(name).read_text("utf-8"))
        own = spec.get("language", "en")
        prose = set()
        for key in ("title", "description"):
            text = spec.get(key, "")
            prose |= _long_words(text.get(own, "") if isinstance(text, dict) else
                            text if own != "en" else "")
        prose |= {label.split("@", 1)[1].strip().lower() for label in spec.get("claims", {})
                  if "@" in label and own != "en"}
        for output in ("text", "markdown"):
            assert main(["derive", "--example", name, "--language", "en", "-f", output]) == 0
            page = capsys.readouterr().out
            found = {w.lower() for w in re.findall(r"[^\W\d_]{5,}", page)} | \
                {label for label in prose if label in page.lower()}
            tokens = {t.lower() for t in spec.get("tokens", [])}
            assert not (found & (foreign | prose)) - tokens - catalogs["en"], (name, output)


# ------------------------------------------------------------------ the catalogs
def test_every_catalog_has_every_message_with_the_placeholders_of_english() -> None:
    """The same keys, the same kind (text or list, of the same length) and, message by
    message, the same placeholders as the English catalog; a plural form (``_one``,
    ``_few``) has the placeholders of its message."""
    english = messages.load("en")
    for language in messages.LANGUAGES:
        catalog = messages.load(language)
        assert set(catalog.keys()) == set(english.keys()), (
            language, sorted(set(catalog.keys()) ^ set(english.keys()))[:5])
        for key in english.keys():
            mine, theirs = english.get(key), catalog.get(key)
            assert type(theirs) is type(mine), (language, key)
            pairs = list(zip(mine, theirs)) if isinstance(mine, list) else [(mine, theirs)]
            assert not isinstance(mine, list) or len(mine) == len(theirs), (language, key)
            for ours, translated in pairs:
                assert messages.placeholders(translated) == messages.placeholders(ours), \
                    (language, key, translated)
            base = re.sub(r"_(one|few)$", "", key)
            if base != key and isinstance(catalog.get(base), str):
                assert messages.placeholders(catalog.text(base)) == \
                    messages.placeholders(theirs), (language, key)


def test_the_catalog_check_can_fail() -> None:
    """A translation that drops a placeholder is not the English message's."""
    english = messages.load("en").text("step.row")
    assert messages.placeholders("Wiersz") != messages.placeholders(english)


# ------------------------------------------------------------------ a language without a catalog
_NO_CATALOG = ('language = "{tag}"\ntitle = "um exemplo"\n[inputs]\nscaled = [[0, 0]]\n'
               '[options]\nscale = "none"\n[claims]\nweights = [["0.5", "0.5"]]\n')


@pytest.mark.parametrize("tag", ["pt", "de-AT"])
def test_a_language_without_a_catalog_is_english_with_a_line_saying_so(
        tag: str, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    spec = tmp_path / "spec.toml"
    spec.write_text(_NO_CATALOG.format(tag=tag), encoding="utf-8")
    note = f'There is no message catalog for the language "{tag}"; this page is in English.'
    for layout in ("text", "markdown", "latex", "html"):
        status, out, err = run(capsys, "derive", str(spec), "-f", layout)
        assert status == 0, err
        out = out.replace("&quot;", '"')
        assert out.count(note) == 1, (layout, out[:600])
        assert "this report is in English" not in out      # one line, not two
        assert catalog_phrase("en", "heading.weights") in out
        assert "um exemplo" not in out            # a page never mixes languages
    for layout in ("text", "markdown", "html"):
        status, out, err = run(capsys, "check", str(spec), "-f", layout)
        assert status == 0, err
        out = out.replace("&quot;", '"')
        assert out.count(f'There is no message catalog for the language "{tag}"; this '
                         "report is in English.") == 1, out
        assert "right" in out
    status, out, err = run(capsys, "derive", str(spec), "-f", "markdown", "-l", "cs")
    assert status == 0 and f"Pro jazyk „{tag}“ není katalog zpráv" in out


def catalog_phrase(language: str, key: str) -> str:
    return str(messages.load(language).text(key))


def test_a_spec_with_a_catalog_has_no_such_line(capsys) -> None:  # type: ignore[no-untyped-def]
    status, out, err = run(capsys, "derive", "--example", "004-softmax-row", "-f", "markdown")
    assert status == 0, err
    assert "catalog" not in out and "каталогу" not in out


# ------------------------------------------------------------------ labels by language
_LABELLED = '''language = "cs"
[inputs]
scaled = [[0, 0]]
[options]
scale = "none"
[claims]
"weights[1,1]" = "0.5"
"weights[1,1] @ řešení" = "0.50"
"weights[1,2] @ cvičení" = "0.5"
[labels]
"řešení" = {cs = "řešení", en = "solutions"}
'''


def test_a_label_is_shown_in_each_language_the_spec_gives_it(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    spec = tmp_path / "labels.toml"
    spec.write_text(_LABELLED, encoding="utf-8")
    status, out, err = run(capsys, "check", str(spec), "-l", "en")
    assert status == 0, err
    assert "solutions" in out and "řešení" not in out
    assert "printing 3" in out and "cvičení" not in out          # no English text given
    status, out, err = run(capsys, "check", str(spec))
    assert "řešení" in out and "cvičení" in out                  # the spec's own
    status, out, err = run(capsys, "check", str(spec), "-l", "pl")
    assert "wystąpienie 2" in out and "solutions" not in out     # not given in Polish
    status, out, err = run(capsys, "derive", str(spec), "-l", "en", "-f", "markdown")
    assert status == 0, err
    assert "printed again: solutions" in out and "řešení" not in out


def test_a_labels_table_of_the_wrong_shape_is_refused(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    spec = tmp_path / "labels.toml"
    for table, where in (('labels = "x"\n', "labels"),
                         ('[labels]\n"řešení" = {"e n" = "solutions"}\n', "labels"),
                         ('[labels]\n"řešení" = {en = 1}\n', "labels")):
        spec.write_text(_LABELLED.split("[labels]")[0] + table, encoding="utf-8")
        status, out, err = run(capsys, "check", str(spec))
        assert status == 2 and "labels.toml" in err and where in err, err
        assert "Traceback" not in err
