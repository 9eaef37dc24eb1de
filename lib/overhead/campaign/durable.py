"""Files the controller writes, written so that a crash or a full disk loses nothing recorded.

:func:`write_atomic` writes a whole file or nothing (a temporary file in the same folder,
fsynced, renamed over the old one); a full disk (``ENOSPC``, or ``EDQUOT`` for a quota) while
writing anything of a campaign's raw tree is :class:`~overhead.errors.DiskFull`, one line
naming the file: the disk being full is not a trial's fault, so the run stops there and the
trial under way is run again by the next run (:func:`disk_full`).
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path

from overhead.errors import DiskFull

__all__ = ["DISK_FULL", "disk_full", "fsync_dir", "full_disk_is_disk_full", "sync_tree",
           "write_atomic"]

#: The errors of a full disk or quota.
DISK_FULL = (errno.ENOSPC, errno.EDQUOT)


def disk_full(path: str | os.PathLike[str]) -> DiskFull:
    """Return the one-line error of a full disk while writing ``path``."""
    return DiskFull(f"disk full writing {path}: free space and run again; nothing recorded is "
                    "lost (the trial under way runs again)")


@contextlib.contextmanager
def full_disk_is_disk_full(path: str | os.PathLike[str]) -> Iterator[None]:
    """Turn an OSError of a full disk raised in the block into :class:`DiskFull` naming ``path``.

    The file the error names (``exc.filename``), when it names one, is named instead.
    """
    try:
        yield
    except DiskFull:
        raise
    except OSError as exc:
        if exc.errno in DISK_FULL:
            raise disk_full(exc.filename or path) from None
        raise


def fsync_dir(path: str | os.PathLike[str]) -> None:
    """Fsync a directory, so that a rename inside it is durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sync_tree(path: Path) -> None:
    """Fsync every file in a folder and the folder itself."""
    for f in path.iterdir():
        fd = os.open(f, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    fsync_dir(path)


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all: temporary file, fsync, rename, fsync dir.

    Raises
    ------
    DiskFull
        When the disk (or quota) is full; ``path`` is left as it was and the temporary file
        removed.
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp.{os.getpid()}")
    raw = data.encode() if isinstance(data, str) else data
    try:
        with full_disk_is_disk_full(path):
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
            try:
                view = memoryview(raw)
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, path)
            fsync_dir(path.parent)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
