"""The raw tree of a campaign: what the executor writes and ingest and status read.

``data/raw/<campaign>/`` holds::

    <environment>/<benchmark>/<trial-id>/    a finished trial: the runner's files (meta, output,
                                             stderr) and trial.json; finished when, and only
                                             when, its meta exists
    <environment>/<benchmark>/<trial-id>.partial   a trial being fetched (never read)
    failed/<environment>/<benchmark>/<trial-id>.<attempt>/   a failed runner's files
    interfered/<environment>/<benchmark>/<trial-id>.<n>/     the n-th attempt of a trial that
                                             something outside it disturbed (trial.json says
                                             what; run again, never ingested as a result)
    facts/<environment>.json                 provenance, once per environment
    manifest.jsonl                           every state change, one JSON object a line
    plan.json, campaign.yml                  the plan the last run made, the campaign file
    campaign.json                            the campaign as the last run resolved it (its
                                             profile merged, --set overrides applied)
    .run.lock                                an ``overhead run`` of the campaign holds it (flock;
                                             the holder's pid, host and start time in it)

The manifest is append-only and fsynced record by record (:class:`overhead.campaign.manifest.
Manifest`), so after a crash it holds at most one torn line: an unterminated last line, the
record being written when the controller died. Every reader here leaves that line out with a
warning; any other line that is not a JSON object is an error naming the file and line.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Protocol

from overhead.errors import ParseError

__all__ = ["CAMPAIGN_COPY", "CAMPAIGN_RESOLVED", "FACTS", "FAILED", "INTERFERED", "INTERFERENCE_FLAGS", "MANIFEST", "META", "PARTIAL", "PLAN", "RESERVED",
           "RUN_LOCK", "TRIAL_JSON",
           "facts_path", "failed_dir", "interfered_dir", "last_records", "partial_dir", "read_manifest",
           "read_records", "trial_dir"]

#: The manifest's file name.
MANIFEST = "manifest.jsonl"
#: Folder of the environments' facts, and of failed runners' files.
FACTS = "facts"
FAILED = "failed"
#: Folder of the attempts excluded for interference (then run again).
INTERFERED = "interfered"
#: The noise flags of trial.json that mean something outside the trial disturbed it (its
#: attempt goes to INTERFERED and is run again; :func:`overhead.campaign.analysis.interference`).
INTERFERENCE_FLAGS = ("outside", "steal")
#: Folder names of a raw campaign tree that are not environments.
RESERVED = (FACTS, FAILED, INTERFERED)
#: The file whose presence makes a trial directory finished, and the controller's record.
META = "meta"
TRIAL_JSON = "trial.json"
#: Suffix of a trial directory still being fetched.
PARTIAL = ".partial"
#: The plan the last run wrote (with the stopping rule's rounds) and the campaign file's copy.
PLAN = "plan.json"
CAMPAIGN_COPY = "campaign.yml"
#: The campaign as run: profile merged and overrides applied (what ``overhead compare`` reads
#: to name what differs between two campaigns: an environment's --cpus, a benchmark's size).
CAMPAIGN_RESOLVED = "campaign.json"
#: The lock an ``overhead run`` holds on the campaign's raw folder (:func:`overhead.locks.hold`):
#: a second run of the campaign refuses while it is held.
RUN_LOCK = ".run.lock"


class _Trial(Protocol):
    """What a trial's paths are made of (a planned trial)."""

    id: str
    environment: str
    benchmark: str


def trial_dir(raw: Path, trial: _Trial) -> Path:
    """Return a trial's final local directory: ``raw/<environment>/<benchmark>/<trial-id>``."""
    return raw / trial.environment / trial.benchmark / trial.id


def partial_dir(final: Path) -> Path:
    """Return where a trial directory is assembled before it is renamed to ``final``."""
    return final.with_name(final.name + PARTIAL)


def failed_dir(raw: Path, trial: _Trial, attempt: int) -> Path:
    """Return where a failed runner's files are kept: ``failed/<env>/<bench>/<id>.<attempt>``."""
    return raw / FAILED / trial.environment / trial.benchmark / f"{trial.id}.{attempt}"


def interfered_dir(raw: Path, trial: _Trial, n: int) -> Path:
    """Return where the n-th disturbed attempt of a trial is kept: ``interfered/<env>/<bench>/<id>.<n>``."""
    return raw / INTERFERED / trial.environment / trial.benchmark / f"{trial.id}.{n}"


def facts_path(raw: Path, environment: str) -> Path:
    """Return an environment's facts file: ``facts/<environment>.json``."""
    return raw / FACTS / f"{environment}.json"


def read_manifest(path: str | os.PathLike[str], offset: int = 0, line: int = 0
                  ) -> tuple[list[dict], int, int, dict | None]:
    """Read a manifest's records from byte ``offset`` on (the file is append-only).

    Parameters
    ----------
    path : path
        The manifest (JSON lines).
    offset : int
        Where to start: the end of the last line consumed before.
    line : int
        How many lines precede ``offset`` (for the line numbers of errors).

    Returns
    -------
    records : list of dict
        The complete records (lines ending in a newline) after ``offset``, in order.
    offset : int
        The byte offset after the last complete record.
    line : int
        The number of lines before that offset.
    pending : dict or None
        An unterminated last line that is a JSON object (a record whose newline is missing);
        it is not consumed.

    Raises
    ------
    ParseError
        Naming the file and line, for a line that is not a JSON object, unless it is the
        unterminated last line: that one is a record torn by a controller killed while
        writing it, left out with a warning.
    """
    path = Path(path)
    with open(path, "rb") as fh:
        fh.seek(offset)
        data = fh.read()
    records: list[dict] = []
    pending = None
    pieces = data.split(b"\n")
    position, consumed = offset, line
    for i, raw in enumerate(pieces):
        terminated = i < len(pieces) - 1
        number = line + i + 1
        if raw.strip():
            try:
                rec = json.loads(raw)
                if not isinstance(rec, dict):
                    raise ValueError("not an object")
            except ValueError:
                if not terminated:
                    warnings.warn(f"{path}:{number}: torn last record left out (the controller "
                                  "stopped while writing it)", stacklevel=3)
                    break
                raise ParseError(str(path), number, "not a JSON object (the manifest is damaged)") from None
            if not terminated:
                pending = rec
                break
            records.append(rec)
        if terminated:
            position += len(raw) + 1
            consumed = number
    return records, position, consumed, pending


def read_records(path: str | Path) -> list[dict]:
    """Read a whole manifest's records in order (a missing file has none).

    An unterminated last line that is a JSON object is a record; one that is not is the torn
    record (left out with a warning). See :func:`read_manifest` for the errors.
    """
    path = Path(path)
    if not path.exists():
        return []
    records, _, _, pending = read_manifest(path)
    return records if pending is None else [*records, pending]


def last_records(records: Iterable[Mapping], into: dict[str, Mapping] | None = None
                 ) -> dict[str, Mapping]:
    """Return the last record of each trial (by its ``trial`` id, as a string).

    Parameters
    ----------
    records : iterable of mapping
        Manifest records in order; campaign events (no ``trial``) are skipped.
    into : dict, optional
        The fold of earlier records, updated in place and returned.
    """
    last = {} if into is None else into
    for rec in records:
        tid = rec.get("trial")
        if tid is not None:
            last[str(tid)] = rec
    return last
