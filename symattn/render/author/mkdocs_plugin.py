"""The MkDocs plugin ``symattn``: author mode inside a site build.

Enable it in ``mkdocs.yml`` (``plugins: [search, symattn]``); a page whose front
matter names a spec (``symattn: specs/cat.toml``, relative to the page) is
filled like ``symattn render PAGE.md.j2 --spec ...`` before MkDocs converts its
Markdown: ``{{ weights[3,2] | places(3) }}``, ``{{ matrix("weights") }}`` and the
other pieces of docs/author.md, in the sandbox. ``symattn_language: pl`` chooses
the language of the words (default: the spec's). Pages without the key are left
as they are. A fault in a page stops the build with the page, line (counted in
the page's file, front matter included) and reason.

The spec files (``.toml``) under the docs folder are not copied into the site
(``publish_specs: true`` copies them).

The limits of what a page's template may compute (docs/author.md, "Limits")
are the plugin's options, the ``symattn render`` options without the dashes:

    plugins:
      - symattn:
          template_max_seconds: 20
"""

from __future__ import annotations

__all__ = ["SymattnPlugin"]

from pathlib import Path
from typing import Any

from mkdocs.config import config_options
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin

from symattn import defaults
from symattn.derivation import pipeline
from symattn.derivation.steps import Derivation
from symattn.errors import SymattnError
from symattn.problem import spec
from symattn.render import author


class SymattnPlugin(BasePlugin):  # type: ignore[type-arg, no-untyped-call, misc, unused-ignore]
    """Fills the pages that name a spec in their front matter."""

    config_scheme = (
        ("template_max_digits", config_options.Type(int, default=defaults.TEMPLATE_MAX_DIGITS)),
        ("template_max_length", config_options.Type(int, default=defaults.TEMPLATE_MAX_LENGTH)),
        ("template_max_iterations",
         config_options.Type(int, default=defaults.TEMPLATE_MAX_ITERATIONS)),
        ("template_max_output", config_options.Type(int, default=defaults.TEMPLATE_MAX_OUTPUT)),
        ("template_max_seconds",
         config_options.Type((int, float), default=defaults.TEMPLATE_MAX_SECONDS)),
        ("publish_specs", config_options.Type(bool, default=False)))

    def __init__(self) -> None:
        super().__init__()
        self._derivations: dict[str, Derivation] = {}

    def _derivation(self, path: Path) -> Derivation:
        key = str(path.resolve())
        if key not in self._derivations:
            self._derivations[key] = pipeline.derive(spec.load(path))
        return self._derivations[key]

    def on_files(self, files: Any, /, *, config: Any) -> Any:
        """The site's files without the specs (``.toml``) the pages are filled from: they
        are the author's working files, not pages (``publish_specs: true`` keeps them)."""
        if (getattr(self, "config", None) or {}).get("publish_specs"):
            return files
        for file in [f for f in files if str(f.src_uri).lower().endswith(".toml")]:
            files.remove(file)
        return files

    def on_page_markdown(self, markdown: str, /, *, page: Any, config: Any, files: Any
                         ) -> str | None:
        """The page's Markdown, filled when its front matter has ``symattn: SPEC``."""
        source = page.meta.get("symattn")
        if source is None:
            return markdown
        name = page.file.src_uri
        try:
            if not isinstance(source, str):
                raise SymattnError(f"{name}: symattn: must name a spec file, relative to the "
                                   "page")
            folder = Path(page.file.abs_src_path).parent
            language = page.meta.get("symattn_language")
            return author.fill(markdown, self._derivation(folder / source), "markdown",
                               str(language) if language else None, name=name,
                               limits=self._limits(), first_line=_first_line(page, markdown))
        except SymattnError as error:
            raise PluginError(f"symattn: {error}") from None

    def _limits(self) -> author.TemplateLimits:
        config = getattr(self, "config", None) or {}
        return author.TemplateLimits(**{
            name: config.get(f"template_{name}", getattr(author.TemplateLimits, name))
            for name in ("max_digits", "max_length", "max_iterations", "max_output",
                         "max_seconds")})


def _first_line(page: Any, markdown: str) -> int:
    """The line of the page's file where ``markdown`` (the page after its front
    matter, which MkDocs has taken off) starts; 1 when the file cannot tell."""
    try:
        source = Path(page.file.abs_src_path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeError, AttributeError, TypeError):
        return 1
    source = source.replace("\r\n", "\n")
    if not markdown or not source.endswith(markdown):
        return 1
    return source[:len(source) - len(markdown)].count("\n") + 1
