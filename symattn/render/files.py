"""Write output files safely: all of the new content or the old file intact.

What ``-o OUT`` (and every file a command writes) does, by what OUT is:

* a new path, or an existing regular file: the content goes to a temporary
  file next to it (a short name: ``.symattn-`` and eight random characters, so
  any legal file name works), which is then renamed over it; an existing file keeps its mode;
* a symbolic link: followed, and its target written as above (the link stays);
* a character device or a FIFO (``/dev/null``, a named pipe, ``>(cmd)``), or a
  path under ``/dev/`` or ``/proc/`` (``/dev/stdout``, ``/dev/fd/3``, even when it
  leads to a file the shell opened): written directly, never replaced;
* a directory, a block device or a socket: refused (``InputError``), nothing written.

``OutputSet`` stages many files (a worksheet class set) and renames them into
place in one pass during which Ctrl-C and SIGTERM wait, so an interrupted run
leaves either the old set or the new one, never a mix.
"""

from __future__ import annotations

__all__ = ["write_atomically", "write_stdout", "OutputSet", "check_not_input", "stdout_closed"]

import os
import re
import shutil
import signal
import stat
import sys
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any, Iterable, Iterator, Sequence

from symattn.errors import InputError, Location

_PREFIX = ".symattn-"
_closed = [False]        # whether stdout turned out to be a closed pipe


def _bytes(content: str | bytes) -> bytes:
    return content.encode("utf-8") if isinstance(content, str) else content


def _kind(path: Path) -> str:
    """``new``, ``file``, ``through`` (character device, FIFO) or ``refused: WHY``."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "new"
    except OSError as error:
        return f"refused: cannot write here: {error.strerror}"
    if stat.S_ISREG(mode):
        # /dev/stdout, /dev/fd/N, /proc/self/fd/N lead to whatever the shell opened
        # (maybe a file in append mode): written to, not replaced
        special = os.path.abspath(path).startswith(("/dev/", "/proc/"))
        return "through" if special else "file"
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return "through"
    if stat.S_ISDIR(mode):
        return "refused: is a directory; give a file name to write"
    return "refused: is a device or socket, not a file; give a file name to write"


def _real(path: Path) -> Path:
    """The file a symbolic link leads to (the path itself when it is none)."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


_OWN = re.compile(r"/dev/(?:fd/(\d+)|(stdout)|(stderr))|/proc/(?:self|thread-self|"
                  + str(os.getpid()) + r")/fd/(\d+)")


def _own_descriptor(path: Path) -> int | None:
    """The descriptor ``/dev/stdout``, ``/dev/fd/N`` or ``/proc/self/fd/N`` names."""
    match = _OWN.fullmatch(os.path.abspath(path))
    if match is None:
        return None
    number, out, err, proc = match.groups()
    return 1 if out else 2 if err else int(number or proc)


def _write_through(path: Path, data: bytes) -> None:
    descriptor = _own_descriptor(path)
    try:
        if descriptor is not None:      # what the shell opened, as it opened it (>> appends)
            if descriptor == 1:
                write_stdout(data)
                return
            with os.fdopen(os.dup(descriptor), "wb") as stream:
                stream.write(data)
            return
        with open(path, "wb") as stream:
            stream.write(data)
    except OSError as error:
        raise InputError(f"cannot write: {error.strerror}", Location(file=str(path))) from None


def _new_temporary(target: Path) -> Path:
    """A new empty temporary file next to ``target``."""
    folder = target.parent if str(target.parent) else Path(".")
    try:
        handle, name = tempfile.mkstemp(prefix=_PREFIX, dir=folder)
    except OSError as error:
        raise InputError(f"cannot write here: {error.strerror}",
                         Location(file=str(target))) from None
    os.close(handle)
    return Path(name)


def _fill(temporary: Path, target: Path, data: bytes | Iterable[str | bytes]) -> None:
    """``data`` (or its pieces, written as they come) into ``temporary``, with the mode
    ``target`` will have; the temporary file is removed if anything goes wrong."""
    try:
        with open(temporary, "wb") as stream:
            if isinstance(data, bytes):
                stream.write(data)
            else:
                for piece in data:
                    stream.write(_bytes(piece))
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)     # an existing file keeps its mode
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        os.chmod(temporary, mode)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise InputError(f"cannot write: {error.strerror}", Location(file=str(target))) from None
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_atomically(path: str | Path, content: str | bytes | Iterable[str | bytes]) -> None:
    """Write ``content`` to ``path`` as the module docstring says (``InputError`` if refused).

    ``content`` may come in pieces (strings or UTF-8 bytes, e.g. a large JSON
    document made a step at a time): they go into the temporary file as they
    are made, and only a complete file is renamed into place; an error while
    they are made leaves the old file as it was. A device or pipe gets the
    whole content at once, after every piece is made.
    """
    target = Path(path)
    kind = _kind(target)
    if kind.startswith("refused"):
        raise InputError(kind.removeprefix("refused: "), Location(file=str(target)))
    if kind == "through":
        whole = content if isinstance(content, (str, bytes)) else \
            b"".join(map(_bytes, content))
        _write_through(target, _bytes(whole))
        return
    with OutputSet() as files:
        files.add(target, content)
        files.commit()


def write_stdout(content: str | bytes) -> None:
    """``content`` to stdout; a closed pipe (``| head``) is noted, not an error, so the
    command still ends with its own exit status."""
    if _closed[0] or sys.stdout is None:     # None: started with stdout closed (>&-)
        return
    try:
        if isinstance(content, bytes):
            sys.stdout.flush()
            sys.stdout.buffer.write(content)
        else:
            sys.stdout.write(content)
        sys.stdout.flush()
    except BrokenPipeError:
        stdout_closed()


def stdout_closed() -> None:
    """Stdout is a closed pipe: later writes (and Python's own at exit) go nowhere."""
    _closed[0] = True
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError):       # no real stdout (tests capture it)
        pass


def check_not_input(output: str | None, inputs: Sequence[str]) -> None:
    """Refuse ``-o OUT`` when OUT is one of the command's input files."""
    if output in (None, "-"):
        return
    for source in inputs:
        try:
            same = os.path.samefile(str(output), source)
        except (OSError, ValueError):
            continue
        if same and stat.S_ISREG(os.stat(source).st_mode):
            raise InputError(f"is also an input ({source}); write the output to another file",
                             Location(file=str(output)))


@contextmanager
def _signals_wait() -> Iterator[None]:
    """Ctrl-C and SIGTERM that arrive inside wait until the block ends, then act."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def note(number: int, _frame: FrameType | None) -> None:
        caught.append(number)

    names = (signal.SIGINT, signal.SIGTERM)
    previous: dict[int, Any] = {number: signal.signal(number, note) for number in names}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        for number in caught[:1]:
            handler = previous[number]
            if callable(handler):
                handler(number, None)
            elif handler == signal.SIG_DFL:
                signal.raise_signal(number)


class OutputSet:
    """Files (and folders of files) staged next to their targets, then renamed into place
    together by ``commit``; leaving the ``with`` block without a commit removes them all."""

    def __init__(self) -> None:
        self._staged: list[tuple[Path, Path]] = []       # (temporary, target)
        self._trash: list[Path] = []

    def __enter__(self) -> OutputSet:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.discard()

    def add(self, path: str | Path, content: str | bytes | Iterable[str | bytes]) -> None:
        """Stage a regular file (a symbolic link: its target); refuse anything else."""
        target = Path(path)
        kind = _kind(target)
        if kind != "new" and kind != "file":
            why = kind.removeprefix("refused: ") if kind.startswith("refused") else \
                "is a device or pipe; a file set is written to regular files only"
            raise InputError(why, Location(file=str(target)))
        real = _real(target)
        with _signals_wait():       # a temporary file is made and noted in one step
            temporary = _new_temporary(real)
            self._staged.append((temporary, real))
        # Written outside: Ctrl-C during a long document acts at once (and the file goes)
        _fill(temporary, real, _bytes(content) if isinstance(content, (str, bytes)) else content)

    def add_folder(self, path: str | Path, files: Sequence[tuple[str, str | bytes]]) -> None:
        """Stage a folder holding ``files`` (name, content); it replaces the old folder whole."""
        target = Path(path)
        if target.exists() and (target.is_symlink() or not target.is_dir()):
            raise InputError("is in the way: a folder of this name is written here",
                             Location(file=str(target)))
        temporary = self._new_folder(target)
        self._staged.append((temporary, target))
        for name, content in files:
            try:
                (temporary / name).write_bytes(_bytes(content))
            except OSError as error:
                raise InputError(f"cannot write: {error.strerror}",
                                 Location(file=str(target / name))) from None
        os.chmod(temporary, 0o777 & ~_umask())

    def remove(self, path: str | Path) -> None:
        """Take away ``path`` (a file or folder of an earlier set) in the commit's pass."""
        target = Path(path)
        bin_folder = self._new_folder(target)
        self._staged.append((target, bin_folder / "old"))

    def _new_folder(self, target: Path) -> Path:
        """A new temporary folder beside ``target``, noted for removal before a signal
        can act (once renamed into place, there is nothing left to remove)."""
        folder = target.parent if str(target.parent) else Path(".")
        with _signals_wait():
            try:
                made = Path(tempfile.mkdtemp(prefix=_PREFIX, dir=folder))
            except OSError as error:
                raise InputError(f"cannot write here: {error.strerror}",
                                 Location(file=str(target))) from None
            self._trash.append(made)
        return made

    def commit(self) -> None:
        """Rename every staged file into place, in one pass that signals do not split."""
        with _signals_wait():
            for temporary, target in self._staged:
                if temporary.is_dir() and target.is_dir():
                    os.replace(target, self._new_folder(target) / "old")
                try:
                    os.replace(temporary, target)
                except OSError as error:
                    raise InputError(f"cannot write: {error.strerror}",
                                     Location(file=str(target))) from None
            self._staged = []
        self.discard()

    def discard(self) -> None:
        """Remove whatever is staged and not committed, and the replaced folders."""
        for temporary, target in self._staged:
            if not any(target.parent == folder for folder in self._trash):
                _remove(temporary)      # (a file to take away stays where it is)
        for folder in self._trash:
            _remove(folder)
        self._staged, self._trash = [], []


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask
