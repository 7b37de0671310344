"""The Jinja environment shared by the LaTeX and Markdown renderers.

Templates live in ``templates/`` at the root of a checkout, and inside the
installed package as ``symattn/templates`` (the wheel copies them there); a
user's ``--template-dir`` comes first, so a file there overrides the bundled
template of the same name. User templates are trusted code: they run with the
rights of whoever runs symattn, like any Python plug-in.

Delimiters are LaTeX-safe (``\\BLOCK{...}``, ``\\VAR{...}``, ``\\#{...}``), line
statements are off, undefined names are errors, and ``finalize`` refuses to
print anything but a string: templates lay out strings, they never compute.
Every template sees ``t``, the message catalog of the language being rendered
(``symattn/messages``): its fixed phrases come from there.

>>> environment().from_string(r"\\VAR{x} \\BLOCK{if y}yes\\BLOCK{endif}").render(x="a", y=True)
'a yes'
"""

from __future__ import annotations

__all__ = ["break_long_lines", "closed_displays", "TemplateError", "template_dirs", "environment",
           "render"]

import re
import traceback
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from symattn.errors import TemplateError
from symattn.messages import load as load_catalog

if TYPE_CHECKING:      # jinja2 is imported on first use: most commands print no template
    import jinja2

MARKER = "document.tex.j2"      # a bundled template every template folder must have


class _NotAString(TypeError):
    pass


# A ``Catalog``, or a ``prose.ProseCatalog`` (the Markdown templates' converted one).
_CATALOG: ContextVar[Any] = ContextVar("symattn_catalog", default=None)


class _Messages:
    """The template global ``t``: the message catalog of the render in progress.

    A global (not a context variable), so macros imported without context see
    it too; ``render(..., messages=catalog)`` chooses the catalog (English
    when none is given).
    """

    @staticmethod
    def _catalog() -> Any:
        catalog = _CATALOG.get()
        return catalog if catalog is not None else load_catalog("en")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._catalog(), name)

    def __getitem__(self, key: str) -> Any:
        return self._catalog()[key]


def _finalize(value: Any) -> str:
    if isinstance(value, str):
        return value
    import jinja2

    if isinstance(value, jinja2.Undefined):
        return str(value)      # StrictUndefined raises, naming what is missing
    raise _NotAString(f"a template printed {type(value).__name__} {value!r}; templates "
                      "receive strings only (format numbers in the view, not the template)")


def template_dirs(user_dir: str | Path | None = None) -> list[Path]:
    """Where templates are looked up, first match wins.

    The user's folder, then the installed copy (``symattn/templates``), then
    the checkout's ``templates/`` next to the package.
    """
    package = Path(__file__).resolve().parent.parent   # symattn/, from symattn/render/
    found = []
    if user_dir is not None:
        folder = Path(user_dir)
        if not folder.is_dir():
            raise TemplateError(f"--template-dir {folder}: no such folder")
        found.append(folder)
    for folder in (package / "templates", package.parent / "templates"):
        if (folder / MARKER).is_file():
            found.append(folder)
            break
    else:
        raise TemplateError("the bundled templates are missing: neither "
                            f"{package / 'templates'} nor {package.parent / 'templates'} "
                            "exists; reinstall symattn")
    return found


@lru_cache(maxsize=8)
def _environment(folders: tuple[str, ...]) -> jinja2.Environment:
    import jinja2

    loader = jinja2.FileSystemLoader(list(folders)) if folders else jinja2.DictLoader({})
    env = jinja2.Environment(
        loader=loader,
        block_start_string=r"\BLOCK{", block_end_string="}",
        variable_start_string=r"\VAR{", variable_end_string="}",
        comment_start_string=r"\#{", comment_end_string="}",
        line_statement_prefix=None, line_comment_prefix=None,
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
        autoescape=False, undefined=jinja2.StrictUndefined, finalize=_finalize)
    env.globals["t"] = _Messages()
    return env


def environment(user_dir: str | Path | None = None, bundled: bool = False
                ) -> jinja2.Environment:
    """The Jinja environment (``bundled=False`` and no folder: strings only, for tests)."""
    folders = tuple(str(f) for f in template_dirs(user_dir)) if (user_dir or bundled) else ()
    return _environment(folders)


def _template_line(error: BaseException, folders: list[Path]) -> tuple[str, int] | None:
    """The innermost template file and line in the traceback of ``error``."""
    found = None
    for frame in traceback.extract_tb(error.__traceback__):
        filename = frame.filename or ""
        if filename.endswith(".j2") or any(filename.startswith(str(f)) for f in folders):
            found = (Path(filename).name, frame.lineno or 0)
    return found


def render(name: str, user_dir: str | Path | None = None, messages: Any = None,
           **context: Any) -> str:
    """Render template ``name`` (phrases from the catalog ``messages``, else English);
    any failure becomes a ``TemplateError``."""
    import jinja2

    folders = template_dirs(user_dir)
    env = _environment(tuple(str(f) for f in folders))
    token = _CATALOG.set(messages)
    try:
        rendered = str(env.get_template(name).render(**context))
        if not name.endswith(".tex.j2"):
            return rendered
        return break_long_lines(closed_displays(rendered))
    except jinja2.TemplateSyntaxError as error:
        where = Path(error.filename).name if error.filename else (error.name or name)
        raise TemplateError(f"template {where}, line {error.lineno}: {error.message}") from None
    except jinja2.TemplateNotFound as error:
        searched = ", ".join(str(f) for f in folders)
        raise TemplateError(f"template {error.name} not found (searched {searched})") from None
    except Exception as error:  # noqa: BLE001 - a user template may fail in any way
        place = _template_line(error, folders)
        where = f"template {place[0]}, line {place[1]}" if place else f"template {name}"
        message = str(error) or type(error).__name__
        raise TemplateError(f"{where}: {message}") from None
    finally:
        _CATALOG.reset(token)


# TeX reads a line into a buffer of 200,000 characters (buf_size); a 256 x 256 matrix
# written on one line overflows it. Lines longer than this are broken at spaces.
LONG_LINE = 2000


def break_long_lines(tex: str, limit: int = LONG_LINE) -> str:
    """``tex`` with every line over ``limit`` characters broken at spaces, which TeX
    reads the same (a line end is a space; leading spaces are skipped). A line with
    a ``%`` is left alone: a break would end its comment early.

    >>> break_long_lines("a b c d", 4)
    'a b\\nc d'
    """
    lines = []
    for line in tex.split("\n"):
        while len(line) > limit and "%" not in line:
            cut = line.rfind(" ", 1, limit)
            if cut <= 0:
                cut = line.find(" ", limit)
            if cut <= 0:
                break
            lines.append(line[:cut])
            line = line[cut + 1:]
        lines.append(line)
    return "\n".join(lines)


# A display environment of amsmath, whose body may not hold a blank line (TeX reads one as
# \par: "Paragraph ended before \align* was complete").
_DISPLAY = re.compile(r"\\begin\{(align\*?|equation\*?|gather\*?|multline\*?|alignat\*?)\}"
                      r".*?\\end\{\1\}", re.S)
_BLANK_LINE = re.compile(r"\n[ \t]*(?=\n)")


def closed_displays(tex: str) -> str:
    r"""``tex`` without blank lines inside display environments: a template line whose
    content came out empty (a step with no result line) must not end the display.

    >>> closed_displays("\\begin{align*}\nx &= 1\n\n\\end{align*}\n\nNext")
    '\\begin{align*}\nx &= 1\n\\end{align*}\n\nNext'
    """
    return _DISPLAY.sub(lambda display: _BLANK_LINE.sub("", display.group()), tex)
