"""The campaign manifest: an append-only, fsynced JSON-lines log of every state change.

Each line is one record: ``{"ts", "trial", "state", ...}`` with state ``running``, ``done``,
``failed`` (``cause``, ``exit_status``, ``stderr`` for a failure) or ``interrupted`` (the run
was told to stop now while the trial ran: not a failure, its attempt is not counted, it runs
again on resume), or a campaign event
``{"ts", "event", ...}`` (start, stop, environment up/down). A record is written with one
``write`` on a file opened for appending and fsynced before the executor goes on, so after a
crash the file holds every change up to the last one, plus at most one torn line: the record
being written when the controller died. :class:`Manifest` drops that torn tail when it opens
the file (it was never a record); readers leave it out (:mod:`~overhead.campaign.layout`).

:func:`resume` is pure: from the plan, the manifest's last state of each trial and which trials
have a local ``meta`` file, it says what to run. A trial is done when, and only when, its local
meta exists; a trial that was ``running`` when the controller died is run again from scratch.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from overhead.campaign.durable import full_disk_is_disk_full
from overhead.campaign.layout import MANIFEST, last_records, read_records
from overhead.errors import DiskFull

__all__ = ["MANIFEST", "Manifest", "Resume", "read_records", "resume"]


def _now() -> str:
    """Return the current UTC time as ISO 8601 with microseconds and Z."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Manifest:
    """Append records to a campaign's manifest, each one fsynced; thread-safe.

    Parameters
    ----------
    path : str or path
        The manifest file (created if missing).
    """

    def __init__(self, path: str | Path):
        """Open the manifest for appending, dropping a torn last line first."""
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._repair()
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def _repair(self) -> None:
        """Truncate an unterminated last line (a record torn by a crash; never a record)."""
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            keep = data.rfind(b"\n") + 1
            with open(self.path, "r+b") as fh:
                fh.truncate(keep)
                fh.flush()
                os.fsync(fh.fileno())

    def append(self, record: Mapping) -> dict:
        """Append one record (``ts`` added), fsynced before returning it.

        A full disk (or quota) is :class:`~overhead.errors.DiskFull` naming the manifest; the
        part of the record written, if any, is cut off again, so the records before it stay
        the whole file.
        """
        rec = {"ts": _now(), **record}
        line = (json.dumps(rec, sort_keys=False, default=str) + "\n").encode()
        with self._lock:
            size = os.fstat(self._fd).st_size
            try:
                with full_disk_is_disk_full(self.path):
                    written = os.write(self._fd, line)
                    if written < len(line):  # a short write: the disk filled up under it
                        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                    os.fsync(self._fd)
            except DiskFull:
                with contextlib.suppress(OSError):
                    os.ftruncate(self._fd, size)
                raise
        return rec

    def trial(self, trial_id: str, state: str, **fields) -> dict:
        """Append a trial's state change (running, done, failed) with extra fields."""
        return self.append({"trial": trial_id, "state": state, **fields})

    def event(self, event: str, **fields) -> dict:
        """Append a campaign event (start, stop, environment up or down)."""
        return self.append({"event": event, **fields})

    def close(self) -> None:
        """Close the file."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> Manifest:
        """Use as a context manager."""
        return self

    def __exit__(self, *exc) -> None:
        """Close on leaving the block."""
        self.close()


@dataclass(frozen=True)
class Resume:
    """What a (re)started campaign does with each planned trial.

    Attributes
    ----------
    todo : list of str
        Trial ids to run, in plan order.
    done : set of str
        Finished trials (local meta exists).
    failed : dict of str to str
        Trials that failed as often as allowed, with their last cause.
    rerun : set of str
        Trials that were running when the controller stopped, or were interrupted by a
        stop-now (run again from scratch).
    attempts : dict of str to int
        Failed attempts so far per trial.
    recovered : set of str
        Trials whose meta exists but whose ``done`` record is missing (the controller died
        between the rename and the record); the executor records them.
    """

    todo: list[str]
    done: set[str]
    failed: dict[str, str]
    rerun: set[str]
    attempts: dict[str, int]
    recovered: set[str]


def resume(plan_ids: Iterable[str], records: Iterable[Mapping], finished: Iterable[str],
           retries: int = 0) -> Resume:
    """Decide what to run from the plan, the manifest and the trials on disk (pure).

    Parameters
    ----------
    plan_ids : iterable of str
        The plan's trial ids, in order.
    records : iterable of mapping
        The manifest's records.
    finished : iterable of str
        Trial ids whose local ``meta`` exists.
    retries : int
        Re-runs allowed after a failure: a trial that failed ``retries + 1`` times is not run
        again.

    Returns
    -------
    Resume
        The trials to run and why the others are not.
    """
    finished = set(finished)
    records = list(records)
    last = {tid: rec.get("state", "") for tid, rec in last_records(records).items()}
    causes: dict[str, str] = {}
    attempts: dict[str, int] = {}
    for rec in records:
        tid = rec.get("trial")
        if tid is not None and rec.get("state") == "failed":
            attempts[tid] = attempts.get(tid, 0) + 1
            causes[tid] = str(rec.get("cause", "unknown cause"))
    todo, failed, rerun, recovered, done = [], {}, set(), set(), set()
    for tid in plan_ids:
        if tid in finished:
            done.add(tid)
            if last.get(tid) != "done":
                recovered.add(tid)
            continue
        if attempts.get(tid, 0) > retries and last.get(tid) == "failed":
            failed[tid] = causes[tid]
            continue
        if last.get(tid) in ("running", "interrupted"):
            rerun.add(tid)
        todo.append(tid)
    return Resume(todo, done, failed, rerun, attempts, recovered)
