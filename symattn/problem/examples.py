"""The bundled worked examples (spec files shipped inside the package).

>>> "000-cat-chases-mouse" in names()
True
"""

from __future__ import annotations

__all__ = ["names", "path", "describe", "kind"]

from pathlib import Path

from symattn.errors import InputError, Location


def _folder() -> Path:
    # beside the package's modules (not importlib.resources: its zip support costs every
    # command an import of zipfile, and an example is read as a file anyway)
    return Path(__file__).resolve().parent.parent / "examples"


def names() -> list[str]:
    """Names of the bundled examples, sorted."""
    return sorted(p.stem for p in _folder().glob("*.toml"))


def path(name: str) -> Path:
    """The spec file of a bundled example; a unique prefix is enough."""
    known = names()
    if name in known:
        return _folder() / f"{name}.toml"
    matches = [n for n in known if n.startswith(name)]
    if len(matches) == 1:
        return _folder() / f"{matches[0]}.toml"
    if matches:
        raise InputError(f"example {name!r} is ambiguous: {', '.join(matches)}")
    raise InputError(f"no example named {name!r}; `symattn examples` lists them: "
                     f"{', '.join(known)}")


def describe(name: str) -> tuple[str, str]:
    """(title, description) of an example, read from its spec."""
    from symattn.problem import spec

    from symattn.problem.read import read_prose

    mapping = spec.read_mapping(path(name).read_text(encoding="utf-8"), str(path(name)))
    where = Location(file=name)
    return read_prose(mapping, "title", where)[0], read_prose(mapping, "description", where)[0]


def kind(name: str) -> str:
    """What an example is for: ``"sizes"`` (a [sizes] table, for ``symattn sizes`` and
    ``check``), ``"check"`` (inputs with printed numbers to check) or ``"derive"``.

    >>> kind("001-score-matrix-memory"), kind("001-softmax-10-2-1")
    ('sizes', 'check')
    """
    from symattn.problem import spec

    mapping = spec.read_mapping(path(name).read_text(encoding="utf-8"), str(path(name)))
    if "sizes" in mapping and "inputs" not in mapping:
        return "sizes"
    return "check" if mapping.get("claims") else "derive"
