"""LaTeX strings: exact values, formatted decimals, and escaped user text.

Everything a LaTeX or Markdown renderer prints as mathematics comes from
here as a finished string; nothing in this module rounds. Decimals arrive
already formatted by ``number_format.NumberFormat`` and are only transliterated
(a decimal comma becomes ``{,}``, ``-inf`` becomes ``-\\infty``).

Exact values become LaTeX from their structure, never by parsing text:

>>> from flint import fmpq
>>> from symattn.values.exact import Surd
>>> exact_latex(Surd(fmpq(1, 2), 2))
'\\\\frac{\\\\sqrt{2}}{2}'
>>> exact_latex(Surd(fmpq(13, 25), 2), inline=True)
'13\\\\sqrt{2}/25'
>>> exact_latex(fmpq(26, 25)), exact_latex(fmpq(1, 3)), exact_latex(fmpq(-1, 4), "cs")
('1.04', '\\\\frac{1}{3}', '-0{,}25')
>>> exp_latex(exact_latex(Surd(fmpq(1, 2), 2), inline=True))
'e^{\\\\sqrt{2}/2}'

User text (titles, token names, labels, printed numbers) is escaped so that
no spec can make the compiled document run a command or read a file:

>>> escape_text(r"\\input{/etc/passwd} 50% #1 a_b")
'\\\\textbackslash{}input\\\\{/etc/passwd\\\\} 50\\\\% \\\\#1 a\\\\_b'
"""

from __future__ import annotations

__all__ = ["SHORT", "escape_text", "has_cyrillic", "math_decimal", "printed_math",
           "exact_latex", "exp_latex", "sum_latex", "factor_latex", "product_latex",
           "frac_latex", "approx_width", "sympy_latex"]

import re
from functools import lru_cache
from typing import Any, Sequence

from flint import fmpq

from symattn.render import engines
from symattn.values.exact import NAN, NEG_INF, Surd, terminating_places
from symattn.values.trig import TrigValue
from symattn.values.rounding import decimal_digits

SHORT = 60                  # longest exact form (characters of LaTeX) shown
MAX_EXACT_PLACES = 8        # a terminating rational with more places is shown as a fraction

# ----------------------------------------------------------------- user text
_SPECIAL = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
    "^": r"\textasciicircum{}", "_": r"\_", "~": r"\textasciitilde{}", "%": r"\%",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
    '"': r"\textquotedbl{}", "'": r"\textquotesingle{}", "`": r"\textasciigrave{}",
    "\u00a0": "~", "\u2009": r"\,", "\u202f": r"\,", "\u2212": "{-}",
    "\u221e": r"$\infty$", "\u2248": r"$\approx$",
}
# Characters pdflatex typesets with T1 (Latin) and TS1 (checked against TeX Live 2022).
_LATIN_MISSING = {0x126, 0x127, 0x138, 0x13F, 0x140, 0x149, 0x166, 0x167, 0x17F}
_PUNCTUATION = {0x2013, 0x2014, 0x2018, 0x2019, 0x201A, 0x201C, 0x201D, 0x201E, 0x2020,
                0x2021, 0x2022, 0x2026, 0x2030, 0x2039, 0x203A, 0x20AC, 0x2122}
# Cyrillic letters of the T2A encoding (Russian, Ukrainian, Belarusian, ...).
_CYRILLIC_RANGES = ((0x400, 0x45F), (0x490, 0x493), (0x496, 0x49D), (0x4A0, 0x4A5),
                    (0x4AA, 0x4AB), (0x4AE, 0x4B3), (0x4B6, 0x4BB), (0x4C0, 0x4C2),
                    (0x4D0, 0x4DF), (0x4E2, 0x4E9), (0x4EC, 0x4F5), (0x4F8, 0x4F9))
_LIGATURE = re.compile(r"([-,])(?=\1)")
CYRILLIC_MACRO = r"\symattncyr"      # {\fontencoding{T2A}\selectfont #1}, see _macros
UNKNOWN_MACRO = r"\symattnchar"      # prints [U+hex code] for a character LaTeX cannot set


def _is_cyrillic(code: int) -> bool:
    return any(low <= code <= high for low, high in _CYRILLIC_RANGES)


def _is_latin(code: int) -> bool:
    return 0xA1 <= code <= 0x17F and code not in _LATIN_MISSING or code in _PUNCTUATION


def _next_is_cyrillic(text: str, index: int) -> bool:
    rest = text[index:].lstrip(" ")
    return bool(rest) and _is_cyrillic(ord(rest[0]))


def has_cyrillic(text: str) -> bool:
    """True when ``text`` has letters that need the T2A font encoding."""
    return any(_is_cyrillic(ord(c)) for c in text)


_LONG_WORD = re.compile(r"(\S{40,})")   # too long for a line: give TeX places to break it
_WORD_PIECE = 1       # a break after every character: no line can overflow by more than one


def escape_text(text: str) -> str:
    """``text`` as LaTeX text-mode material that prints literally.

    Every LaTeX special character becomes a harmless command or an escaped
    character, control characters become spaces, runs of Cyrillic letters are
    wrapped in ``\\symattncyr{...}`` (T2A font encoding) and any character pdflatex
    cannot typeset becomes ``\\symattnchar{<hex code>}``. A word of 40 characters or
    more may break after any character (``\\allowbreak``), so it cannot run off
    the page.
    """
    text = str(text)
    if not _LONG_WORD.search(text):
        return _escape_text(text)
    pieces = _LONG_WORD.split(text)      # odd indices: the long words
    return "".join(_escape_text(piece) if k % 2 == 0 else "\\allowbreak{}".join(
        _escape_text(piece[i:i + _WORD_PIECE]) for i in range(0, len(piece), _WORD_PIECE))
        for k, piece in enumerate(pieces))


def _escape_text(text: str) -> str:
    out: list[str] = []
    cyrillic: list[str] = []
    text = str(text)
    for index, char in enumerate(text):
        code = ord(char)
        if _is_cyrillic(code) or cyrillic and char == " " and _next_is_cyrillic(text, index):
            cyrillic.append(char)
            continue
        if cyrillic:
            out.append(f"{CYRILLIC_MACRO}{{{''.join(cyrillic)}}}")
            cyrillic = []
        if char in _SPECIAL:
            out.append(_SPECIAL[char])
        elif 0x20 <= code < 0x7F:
            out.append(char)
        elif code < 0x20 or code == 0x7F or 0x80 <= code < 0xA0:
            out.append(" ")
        elif _is_latin(code):
            out.append(char)
        else:
            out.append(f"{engines.char_macro(code)}{{{code:04X}}}")
    if cyrillic:
        out.append(f"{CYRILLIC_MACRO}{{{''.join(cyrillic)}}}")
    # No ligatures: "--" stays two hyphens, ",," two commas (T1 would join them).
    return _LIGATURE.sub(r"\1{}", "".join(out))


# ------------------------------------------------------------------ decimals
_DECIMAL = re.compile(r"(-?\d+(?:[.,]\d+)?)(?:[eE]([+-]?)0*(\d+))?")


def math_decimal(text: str) -> str:
    """A decimal formatted by ``NumberFormat`` as math: ``0{,}33``, ``-\\infty``.

    >>> math_decimal("0,33"), math_decimal("-inf"), math_decimal("1.5e+78")
    ('0{,}33', '-\\\\infty', '1.5 \\\\cdot 10^{78}')
    """
    if text == "-inf":
        return r"-\infty"
    if text == "nan":
        return r"\mathrm{NaN}"
    match = _DECIMAL.fullmatch(text)
    if not match:
        raise ValueError(f"not a formatted decimal: {text!r}")
    mantissa = match.group(1).replace(",", "{,}")
    if match.group(3) is None:
        return mantissa
    sign = "-" if match.group(2) == "-" else ""
    return f"{mantissa} \\cdot 10^{{{sign}{match.group(3)}}}"


_PRINTED = {".": ".", ",": "{,}", " ": r"\,", "\u00a0": r"\,", "\u2009": r"\,",
            "\u202f": r"\,", "%": r"\,\%", "-": "-", "\u2212": "-", "\u2013": "-",
            "+": "+", "~": r"{\approx}", "\u2248": r"{\approx}", "\u221e": r"\infty"}


def printed_math(text: str) -> str | None:
    """A number as a document printed it (``"~3.997"``, ``"83,83%"``) as math.

    Returns None when the text has anything but digits, signs, separators,
    spaces, a leading approximation mark, a percent sign, an exponent or an
    infinity: the caller then shows the value in a normalised form.

    >>> printed_math("~99.8%"), printed_math("2,980.96"), printed_math("-inf")
    ('{\\\\approx}99.8\\\\,\\\\%', '2{,}980.96', '-\\\\infty')
    >>> printed_math("1.5e-3"), printed_math("\\\\input{x}") is None
    ('1.5\\\\mathrm{e}{-3}', True)
    """
    body = text.strip()
    lowered = body.lower()
    for word in ("infinity", "inf", "oo"):
        if lowered.endswith(word):
            body = body[: len(body) - len(word)] + "\u221e"
            break
    parts = re.split(r"[eE]", body)
    if len(parts) > 2:
        return None
    mantissa, exponent = (parts[0], parts[1]) if len(parts) == 2 else (body, "")
    if len(parts) == 2 and not re.fullmatch(r"[+-]?\d+", exponent):
        return None
    out = []
    for char in mantissa:
        if char.isdigit() and char.isascii():
            out.append(char)
        elif char in _PRINTED:
            out.append(_PRINTED[char])
        else:
            return None
    if exponent:
        out.append(rf"\mathrm{{e}}{{{exponent}}}")
    return "".join(out) or None


# -------------------------------------------------------------- exact values
def _separator(locale: str) -> str:
    from symattn.values.number_format import DECIMAL_SEPARATORS

    return DECIMAL_SEPARATORS[locale]


def _rational(q: fmpq, locale: str, inline: bool) -> str:
    places = terminating_places(q)
    if places is not None and places <= MAX_EXACT_PLACES:
        from symattn.values.number_format import NumberFormat

        text = NumberFormat(digits=None, places=places, locale=locale).format(q)
        assert text is not None
        return math_decimal(text)
    sign = "-" if q < 0 else ""
    p, d = decimal_digits(abs(int(q.p))), decimal_digits(int(q.q))   # any length
    return f"{sign}{p}/{d}" if inline else f"{sign}\\frac{{{p}}}{{{d}}}"


def _surd(value: Surd, inline: bool) -> str:
    a = value.coefficient
    sign = "-" if a < 0 else ""
    p, d = decimal_digits(abs(int(a.p))), decimal_digits(int(a.q))
    root = f"\\sqrt{{{decimal_digits(int(value.radicand))}}}"
    top = root if p == "1" else f"{p}{root}"
    if d == "1":
        return f"{sign}{top}"
    return f"{sign}{top}/{d}" if inline else f"{sign}\\frac{{{top}}}{{{d}}}"


def exact_latex(value: Any, locale: str = "en", inline: bool = False) -> str | None:
    """LaTeX for an exact value, or None when it is an ``Irrational``.

    ``inline`` writes fractions with a slash (for exponents). Rationals with a
    short terminating expansion are written as that (exact) decimal. SymPy
    values (the symbolic path) are printed from their expression tree.
    """
    if value is NEG_INF:
        return r"-\infty"
    if value is NAN:
        return r"\mathrm{NaN}"
    if isinstance(value, fmpq):
        return _rational(value, locale, inline)
    if isinstance(value, Surd):
        return _surd(value, inline)
    expr = getattr(value, "expr", None)
    if expr is not None:
        return sympy_latex(expr, inline)
    if isinstance(value, TrigValue):   # positions: sines and cosines, laid out from their form
        from symattn.render.trig_latex import trig_latex

        return trig_latex(value, inline)
    return None


def exp_latex(argument: str) -> str:
    """``e^{argument}``; the argument is already LaTeX (best written inline).

    >>> exp_latex("1"), exp_latex(r"-\\infty")
    ('e', 'e^{-\\\\infty}')
    """
    return "e" if argument == "1" else f"e^{{{argument}}}"


def frac_latex(numerator: str, denominator: str) -> str:
    return f"\\frac{{{numerator}}}{{{denominator}}}"


def sum_latex(terms: Sequence[str]) -> str:
    """Terms joined by + and -, a leading minus of a term becoming the operator.

    >>> sum_latex(["0.8", "-0.1", "\\\\cdots", "2"])
    '0.8 - 0.1 + \\\\cdots + 2'
    """
    if not terms:
        return "0"
    out = terms[0]
    for term in terms[1:]:
        if term.startswith("-") and not term.startswith(r"-\infty"):
            out += f" - {term[1:]}"
        else:
            out += f" + {term}"
    return out


def factor_latex(text: str) -> str:
    """A factor of a product: parenthesised when it has a sign or a sum.

    >>> factor_latex("T"), factor_latex("-2")
    ('T', '\\\\left(-2\\\\right)')
    """
    if text.startswith("-") or " + " in text or " - " in text:
        return f"\\left({text}\\right)"
    return text


def product_latex(left: str, right: str) -> str:
    r"""``left \cdot right`` with signed factors in parentheses.

    >>> product_latex("0.5", "-2")
    '0.5 \\cdot \\left(-2\\right)'
    """
    return f"{factor_latex(left)} \\cdot {factor_latex(right)}"


# --------------------------------------------------------------------- width
_COMMAND = re.compile(r"\\([A-Za-z]+|.)")
_OPERATORS = frozenset(("sin", "cos", "tan", "exp", "log", "ln", "max", "min"))


def _group(text: str, start: int) -> tuple[str, int]:
    """The contents of the brace group opening at ``start`` and the index after it."""
    depth = 0
    for index in range(start, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return text[start + 1:index], index + 1
    return text[start + 1:], len(text)


def approx_width(latex: str) -> float:
    r"""A rough printed width of a math string, in characters.

    Fractions count their wider part, superscripts count 0.7, commands 1.

    >>> approx_width(r"\frac{\sqrt{2}}{10}") < approx_width("0.1414213")
    True
    """
    width = 0.0
    index = 0
    while index < len(latex):
        char = latex[index]
        if char == "\\":
            match = _COMMAND.match(latex, index)
            assert match is not None
            name = match.group(1)
            index = match.end()
            if name == "frac":
                top, index = _group(latex, index)
                bottom, index = _group(latex, index)
                width += max(approx_width(top), approx_width(bottom)) + 0.5
            elif name in ("left", "right", "mathrm", "text", "quad", ","):
                width += 1 if name == "quad" else 0.3 if name == "," else 0
            elif name in _OPERATORS:         # \sin prints three letters
                width += len(name)
            else:
                width += 1
        elif char in "^_":
            index += 1
            if index < len(latex) and latex[index] == "{":
                group, index = _group(latex, index)
            else:
                group, index = latex[index:index + 1], index + 1
            width += 0.7 * approx_width(group)
        elif char in "{} ":
            index += 1
        else:
            width += 1.6 if char in "+-=" else 1
            index += 1
    return width


# --------------------------------------------------------------------- SymPy
# Names SymPy prints as math: letters and digits, subscripts after single underscores
# (w_11, q_1_2). Anything else ("_", "__", "a__b") is set as text, as are names whose
# suffix SymPy turns into a macro of a package the documents do not load (xscr).
_PLAIN_SYMBOL = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*")
_NEEDS_PACKAGES = ("\\mathscr", "\\bm{")
@lru_cache(maxsize=1)
def _printer_class() -> Any:
    """A SymPy LaTeX printer that keeps user identifiers safe (built on first use)."""
    from sympy.printing.latex import LatexPrinter

    class SafePrinter(LatexPrinter):  # type: ignore[misc]  # SymPy is untyped: its base is Any
        """Identifiers are \\w characters; non-ASCII ones print as escaped text."""

        def _print_Symbol(self, expr: Any, style: str = "plain") -> str:
            if _PLAIN_SYMBOL.fullmatch(expr.name):
                printed = str(super()._print_Symbol(expr, style))
                if not any(macro in printed for macro in _NEEDS_PACKAGES):
                    return printed
            return f"\\text{{{escape_text(expr.name)}}}"

    return SafePrinter


def sympy_latex(expr: Any, inline: bool = False) -> str:
    """LaTeX of a SymPy expression (symbolic path), printed from its tree."""
    settings = {"fold_short_frac": True} if inline else {}
    return str(_printer_class()(settings).doprint(expr))
