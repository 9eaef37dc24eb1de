"""Exclusive locks on folders, held with flock, that forked children never keep.

A lock is an open file description with an ``flock`` on it. The kernel releases it when every
file descriptor of that description is closed, so a holder that dies (even by SIGKILL) leaves
the lock free for the next one; but a child forked while the lock is held has a copy of the
descriptor and keeps the lock until it, too, exits. A multiprocessing pool worker orphaned by
its parent's SIGKILL held an ingest's lock for minutes that way. So every lock taken here is
registered, and a forked child closes its copies at once (``os.register_at_fork``; closing a
copy does not release the parent's lock, and no ``LOCK_UN`` is ever sent from a child).
:func:`die_with_parent` is for pool workers: they are killed when the process that forked them
dies.

:func:`hold` takes a lock or refuses at once, naming the holder (its pid, host name and start
time are written into the lock file by whoever holds it); :func:`wait` takes one, waiting.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import socket
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from overhead.errors import LockHeld

__all__ = ["die_with_parent", "held_fds", "hold", "holder", "in_use", "wait"]

#: Descriptors of the locks this process holds (a forked child closes its copies).
_HELD: set[int] = set()


def _close_inherited() -> None:
    """Close, in a freshly forked child, the copies of the parent's lock descriptors."""
    for fd in list(_HELD):
        with contextlib.suppress(OSError):
            os.close(fd)
    _HELD.clear()


os.register_at_fork(after_in_child=_close_inherited)


def held_fds() -> set[int]:
    """Return the descriptors of the locks this process holds now."""
    return set(_HELD)


def _open(path: Path) -> int:
    """Open (create) a lock file, close-on-exec (never inherited across exec)."""
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)


def _write_holder(fd: int) -> None:
    """Write this process's pid, host name and start time into the lock file (rewritten whole)."""
    text = json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                       "since": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}) + "\n"
    os.ftruncate(fd, 0)
    os.pwrite(fd, text.encode(), 0)


def holder(path: str | os.PathLike[str]) -> dict:
    """Return what a lock file says of its holder (``pid``, ``host``, ``since``; {} if unknown)."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def in_use(path: str | os.PathLike[str]) -> dict | None:
    """Return the holder of a lock another process holds now (:func:`holder`), else None.

    Probes with a shared, non-blocking flock that is released at once; a lock file that does
    not exist is not in use (nothing is created).
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return holder(path)
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


@contextlib.contextmanager
def hold(path: str | os.PathLike[str], what: str) -> Iterator[Path]:
    """Hold an exclusive lock on ``path`` for the block, or refuse at once.

    Parameters
    ----------
    path : path
        The lock file (created; its folder must exist).
    what : str
        What the lock guards, for the refusal: ``campaign x``.

    Raises
    ------
    LockHeld
        When another process holds it: one line naming the file, the holder's pid, host and
        start time. A lock whose holder died is free (the kernel released it): it is taken
        and the file rewritten with this process's pid.
    """
    path = Path(path)
    fd = _open(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        h = holder(path)
        who = (f"pid {h.get('pid')} on {h.get('host', '?')} since {h.get('since', '?')}"
               if h.get("pid") else "another process (it has not written its pid yet)")
        raise LockHeld(f"{path}: {what} is in use by {who}; wait for it to finish or stop "
                       "that process, then run again") from None
    yield from _held(fd, path, record=True)


@contextlib.contextmanager
def wait(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Hold an exclusive lock on ``path`` for the block, waiting for it while another holds it.

    The file is left as it is (an ingest's lock file is part of its folder, which an
    interrupted ingest must leave unchanged).
    """
    path = Path(path)
    fd = _open(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except BaseException:
        os.close(fd)
        raise
    yield from _held(fd, path, record=False)


def _held(fd: int, path: Path, record: bool) -> Iterator[Path]:
    """Register the locked descriptor, write the holder (``record``), yield; unlock at the end."""
    _HELD.add(fd)
    pid = os.getpid()
    try:
        if record:
            _write_holder(fd)
        yield path
    finally:
        if os.getpid() == pid:  # never unlock from a forked child: the lock is the parent's
            _HELD.discard(fd)
            if record:
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


def die_with_parent(parent: int) -> None:
    """Make this (forked worker) process die when its parent ``parent`` dies.

    Linux's ``PR_SET_PDEATHSIG`` sends SIGKILL on the parent's death; a parent that is already
    gone (it died before the call) makes the process exit now. A pool's ``initializer``.
    """
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):  # not Linux: the lock is still closed at fork
        pass
    if os.getppid() != parent:
        os._exit(1)
