"""The MkDocs plugin ``symattn``: author mode inside a site build.

Enable it in ``mkdocs.yml`` (``plugins: [search, symattn]``); a page whose front
matter names a spec (``symattn: specs/cat.toml``, relative to the page) is
filled like ``symattn render PAGE.md.j2 --spec ...`` before MkDocs converts its
Markdown: ``{{ weights[3,2] | places(3) }}``, ``{{ matrix("weights") }}`` and the
other pieces of docs/author.md, in the sandbox. ``symattn_language: pl`` chooses
the language of the words (default: the spec's). Pages without the key are left
as they are. A fault in a page stops the build with the page, line and reason.
"""

from __future__ import annotations

__all__ = ["SymattnPlugin"]

from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin

from symattn.derivation import pipeline
from symattn.derivation.steps import Derivation
from symattn.errors import SymattnError
from symattn.problem import spec
from symattn.render import author


class SymattnPlugin(BasePlugin):  # type: ignore[type-arg, no-untyped-call, misc, unused-ignore]
    """Fills the pages that name a spec in their front matter."""

    def __init__(self) -> None:
        super().__init__()
        self._derivations: dict[str, Derivation] = {}

    def _derivation(self, path: Path) -> Derivation:
        key = str(path.resolve())
        if key not in self._derivations:
            self._derivations[key] = pipeline.derive(spec.load(path))
        return self._derivations[key]

    def on_page_markdown(self, markdown: str, /, *, page: Any, config: Any, files: Any
                         ) -> str | None:
        """The page's Markdown, filled when its front matter has ``symattn: SPEC``."""
        source = page.meta.get("symattn")
        if source is None:
            return markdown
        name = page.file.src_uri
        try:
            if not isinstance(source, str):
                raise SymattnError("symattn: must name a spec file, relative to the page")
            folder = Path(page.file.abs_src_path).parent
            language = page.meta.get("symattn_language")
            return author.fill(markdown, self._derivation(folder / source), "markdown",
                               str(language) if language else None, name=name)
        except SymattnError as error:
            raise PluginError(f"symattn: {name}: {error}") from None
