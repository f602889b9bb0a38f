"""Writing the files a command produces: all or nothing, with the permissions a user expects.

Every file the tool writes goes through :func:`write_files`:

- All files of one call are checked first (the folder exists, the path is not a directory, a
  FIFO has a reader) and staged as temporary files beside their targets; only when every one is
  ready are they put in place. So ``topo -o a.json --draw /proc/x.png`` writes nothing, and an
  interrupted or failed write never leaves a partial file.
- A regular file (or a new name) is replaced by a rename, which is atomic: the old file stays
  whole until the new one is complete. A file with several hard links is rewritten in place
  instead, so the links keep sharing it. A symbolic link is followed: its target is written and
  the link stays. A device or FIFO (``/dev/null``, ``/dev/stdout``, a pipe) is written through,
  never replaced by a regular file.
- A new file gets the mode ``0666`` less the umask (``0644`` under the usual ``022``), as
  compilers and plotting tools make them; a replaced file keeps its mode.
- A missing folder is refused (say ``mkdir -p`` first): a typing slip in a path then costs an
  error line, not a stray folder tree. Folder outputs (``gallery -o DIR``, ``prove -o DIR``) are
  created by :func:`ensure_directory`.

Every refusal or failure (no space left, permission denied, read-only file system) is an
:class:`~supermesh.errors.InputFileError` naming the path and the reason.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from supermesh.errors import InputFileError

__all__ = ["check_targets", "ensure_directory", "write_files", "write_text_atomic"]

Data = str | bytes


@dataclass
class _Plan:
    shown: str  # the path as the user gave it
    target: Path  # where the bytes go (a symlink resolved)
    data: bytes
    through: bool  # write into the existing file (device, FIFO, hard-linked file)
    mode: int | None  # mode of the new file (None: keep the existing one's)
    tmp: str | None = None


def _umask() -> int:
    try:  # Linux states it without changing it
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _failure(shown: str, exc: OSError) -> InputFileError:
    reason = exc.strerror or str(exc)
    hint = "nothing was written; an existing file is left as it was"
    if exc.errno == errno.ENOSPC:
        hint = "free some space or write elsewhere; " + hint
    elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        hint = "write to a folder you can write to; " + hint
    return InputFileError(f"cannot write {shown}: {reason}", hint=hint)


def _plan(path: str | Path, data: Data) -> _Plan:
    shown = str(path)
    if not shown.strip():
        raise InputFileError("cannot write to an empty path", hint="give a file name")
    payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    target = Path(os.path.realpath(shown)) if os.path.islink(shown) else Path(shown)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise _failure(shown, exc) from None
    if st is None:
        parent = target.parent
        if not parent.is_dir():
            raise InputFileError(
                f"cannot write {shown}: the folder {str(parent)!r} does not exist",
                hint=f"create it first (mkdir -p {parent}) or write elsewhere",
            )
        if not os.access(parent, os.W_OK):
            raise InputFileError(
                f"cannot write {shown}: the folder {str(parent)!r} is not writable",
                hint="write to a folder you can write to",
            )
        return _Plan(shown, target, payload, through=False, mode=0o666 & ~_umask())
    if stat.S_ISDIR(st.st_mode):
        raise InputFileError(f"cannot write {shown}: it is a folder", hint="give a file name")
    if stat.S_ISREG(st.st_mode) and st.st_nlink <= 1:
        if not os.access(target.parent, os.W_OK):
            return _Plan(shown, target, payload, through=True, mode=None)
        return _Plan(shown, target, payload, through=False, mode=stat.S_IMODE(st.st_mode))
    if stat.S_ISREG(st.st_mode) or stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode):
        return _Plan(shown, target, payload, through=True, mode=None)
    raise InputFileError(
        f"cannot write {shown}: it is neither a regular file nor a device or FIFO",
        hint="give the path of a regular file",
    )


def _stage(plan: _Plan) -> None:
    fd, plan.tmp = tempfile.mkstemp(prefix=f".{plan.target.name}.", dir=plan.target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(plan.data)
        os.chmod(plan.tmp, plan.mode if plan.mode is not None else 0o644)
    except BaseException:
        Path(plan.tmp).unlink(missing_ok=True)
        plan.tmp = None
        raise


def _write_through(plan: _Plan) -> None:
    flags = os.O_WRONLY | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(plan.target, flags)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a FIFO nobody reads: writing would wait forever
            raise InputFileError(
                f"cannot write {plan.shown}: no process is reading the FIFO",
                hint="start the reader first, or write to a regular file",
            ) from None
        raise
    try:
        os.set_blocking(fd, True)
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.ftruncate(fd, 0)
        view = memoryview(plan.data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def check_targets(paths: Sequence[str | Path]) -> None:
    """Check that :func:`write_files` could write these paths, writing nothing.

    For a command that works long before it writes (``sweep -o``): a missing folder or a path
    that is a folder is refused before the work, not after it.

    Raises
    ------
    InputFileError
        As :func:`write_files` would, naming the path.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> check_targets([os.path.join(folder, "rows.csv")])
    >>> check_targets([folder])
    Traceback (most recent call last):
    ...
    supermesh.errors.InputFileError: cannot write ...: it is a folder
    """
    for path in paths:
        _plan(path, b"")


def write_files(items: Sequence[tuple[str | Path, Data]]) -> list[str]:
    """Write every ``(path, data)`` pair, or none of them (see the module docstring).

    Parameters
    ----------
    items : sequence of (path, str or bytes)
        Text is written as UTF-8.

    Returns
    -------
    list of str
        The paths written, as given.

    Raises
    ------
    InputFileError
        A path that cannot be written (missing folder, a folder, no space, no permission): the
        message names it; no file of the call is then written (a device written through before
        a later failure cannot be taken back; devices are written last).

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> a, b = os.path.join(folder, "a.txt"), os.path.join(folder, "missing", "b.txt")
    >>> write_files([(a, "one"), (b, "two")])
    Traceback (most recent call last):
    ...
    supermesh.errors.InputFileError: cannot write ...b.txt: the folder ... does not exist
    >>> os.path.exists(a), write_files([(a, "one")]), Path(a).read_text()
    (False, [...], 'one')
    """
    plans = [_plan(path, data) for path, data in items]
    try:
        for plan in plans:
            if not plan.through:
                try:
                    _stage(plan)
                except OSError as exc:
                    raise _failure(plan.shown, exc) from None
        for plan in plans:
            if plan.tmp is not None:
                os.replace(plan.tmp, plan.target)
                plan.tmp = None
        for plan in plans:
            if plan.through:
                try:
                    _write_through(plan)
                except OSError as exc:
                    raise _failure(plan.shown, exc) from None
    finally:
        for plan in plans:
            if plan.tmp is not None:
                Path(plan.tmp).unlink(missing_ok=True)
    return [plan.shown for plan in plans]


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write one text file (UTF-8) by :func:`write_files`: atomic, umask modes, links kept.

    Raises
    ------
    InputFileError
        The path cannot be written (the message names it and the reason).
    """
    write_files([(path, text)])


def ensure_directory(path: str | Path) -> Path:
    """Create the output folder ``path`` (and its parents) unless it exists.

    Raises
    ------
    InputFileError
        An empty path, a path that is a file, or a folder that cannot be made.

    Examples
    --------
    >>> import os, tempfile
    >>> ensure_directory(os.path.join(tempfile.mkdtemp(), "a", "b")).is_dir()
    True
    """
    shown = str(path)
    if not shown.strip():
        raise InputFileError("cannot write to an empty folder name", hint="give a folder name")
    folder = Path(shown)
    if folder.exists() and not folder.is_dir():
        raise InputFileError(f"cannot write into {shown}: it is not a folder", hint="rename it")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _failure(shown, exc) from None
    return folder
