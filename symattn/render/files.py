"""Write output files atomically: all of the new content or the old file intact."""

from __future__ import annotations

__all__ = ["write_atomically"]

import os
import tempfile
from pathlib import Path

from symattn.errors import InputError, Location


def write_atomically(path: str | Path, content: str | bytes) -> None:
    """Write ``content`` to ``path`` through a temporary file and a rename.

    An existing file is replaced only once the new content is complete.
    """
    target = Path(path)
    if target.is_dir():
        raise InputError("is a directory; give a file name to write", Location(file=str(target)))
    folder = target.parent if str(target.parent) else Path(".")
    data = content.encode("utf-8") if isinstance(content, str) else content
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=folder)
    except OSError as error:
        raise InputError(f"cannot write here: {error.strerror}",
                         Location(file=str(target))) from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        # mkstemp makes the file private (0600); give it the usual permissions.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, target)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise InputError(f"cannot write: {error.strerror}", Location(file=str(target))) from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
