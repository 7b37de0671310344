"""Documents -> numbers -> placed claims: a draft spec from a worked example.

``pipeline.extract(document, spec_text=None)`` reads a document
(``document.read_document``: text, Markdown, LaTeX, HTML (``html_text``,
``mathml``), notebooks, in any encoding; nothing is
run), finds its numbers, vectors and matrices (``scanner``), proposes inputs
from the ones it names (``inputs``) unless a spec gives them, and places
every printed number on a quantity of the derivation (``candidates``,
``place``, ``lines``) with a confidence. ``draft`` writes the TOML;
``checking.check_document`` is ``symattn check DOC --spec``. See
docs/extract.md.
"""
