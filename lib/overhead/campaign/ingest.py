"""Turn a campaign's raw tree into tidy tables, incrementally.

:func:`ingest_campaign` reads ``data/raw/<campaign>/`` (:mod:`~overhead.campaign.layout`:
``<environment>/<benchmark>/<trial-id>/{meta,output,stderr,trial.json}``,
``facts/<environment>.json``, ``manifest.jsonl``) and writes ``data/tidy/<campaign>/``::

    measurements.parquet/part-00000.parquet ...   tidy rows, a folder of Parquet parts
    provenance.parquet/part-00000.parquet ...     one row per run_id, parts numbered alike
    trials.parquet                                one row per trial (done, failed, unparsed)
    ingest-state.json                             what was ingested (see below)
    .ingest.lock                                  one ingest per folder at a time

Every trial directory is read with :func:`overhead.runners.read_trial`; its rows get the
campaign's context (campaign, run_id = ``<campaign>/<environment>/<benchmark>/<trial-id>``,
trial = the round, benchmark, environment, variant, host, warmup), its provenance record is
joined with the environment's facts. A trial whose output does not parse is recorded in
trials.parquet (status ``unparsed``, the error naming file and line) and the others go on.
A trial whose tool exited 0 but whose output shows no result is ``failed`` (its cause quotes
the output); one whose output holds results and then a failure keeps its rows, with the
failure as its cause and provenance status ``partial``.
Failed trials that left no directory come from the manifest's last record of each trial. A
trial kept flagged for interference after its re-runs (trial.json ``excluded``) is status
``excluded`` with no rows in the measurements; the attempts moved to ``interfered/`` are rows of
status ``interfered`` (run id ``<campaign>/interfered/<environment>/<benchmark>/<id>.<n>``).

Incremental: ``ingest-state.json`` maps each ingested trial directory to a stamp (size,
modification and change times and inode of its meta: trial directories are replaced, never
edited, see :func:`_scan`) and to the part that holds its rows. A re-run reads only new or
changed trial directories (and the trials of an environment whose facts changed) into one new
part; the parts that held changed or vanished trials are rewritten without them. A change of
the ingest or parser code, of the raw folder, or a trials.parquet that is not the one the state
knows makes a full rebuild (as does ``force=True``). The manifest is append-only: only the
lines after the offset read last time are parsed. Nothing to do returns without importing
pandas.

Crash safety: parts are written under hidden names (``.part-*.pending``, which Parquet
dataset readers skip) and renamed into place at the end, then replaced parts are deleted,
then trials.parquet and the state file are renamed into place. An ingest interrupted before
that leaves the previous tables and state as they were; one interrupted during those few
renames is repaired by the next run (parts the state does not know are deleted, trials whose
part is missing are read again, a trials.parquet the state does not know triggers a full
rebuild).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from overhead import locks, schema
from overhead.campaign.layout import (
    CAMPAIGN_RESOLVED,
    FACTS,
    INTERFERED,
    INTERFERENCE_FLAGS,
    MANIFEST,
    META,
    PARTIAL,
    RESERVED,
    TRIAL_JSON,
    last_records,
    read_manifest,
)
from overhead.errors import InputError, OverheadError, ParseError

__all__ = ["CampaignIngestResult", "ingest_campaign", "read_manifest"]

MEASUREMENTS = "measurements.parquet"
PROVENANCE = "provenance.parquet"
TRIALS = "trials.parquet"
STATE = "ingest-state.json"
LOCK = ".ingest.lock"
#: Version of the state file's layout; another version makes a full rebuild.
STATE_VERSION = 1
#: Fewer trials than this are read in this process: a pool's start-up would cost more.
POOL_MIN_TRIALS = 200
#: At most this many trials per part in a cold ingest.
PART_TRIALS = 2500
#: Characters of stderr kept in trials.parquet for a failed trial.
STDERR_TAIL = 2000
#: Bytes before the manifest offset whose hash tells that the consumed part is unchanged.
_TAIL = 4096
#: Facts columns of the provenance table (fact name -> column); the other facts go to notes.
FACT_COLUMNS = {
    "kernel": "kernel", "cpu_model": "cpu_model", "cpu": "cpu_model", "cpu_ghz": "cpu_ghz",
    "governor": "governor", "mitigations": "mitigations", "docker_version": "docker_version",
    "docker_storage_driver": "docker_storage_driver", "docker_network_mode": "docker_network_mode",
    "qemu_version": "qemu_version", "accelerator": "accelerator", "vcpu_pinning": "vcpu_pinning",
    "git_sha": "git_sha", "campaign_hash": "campaign_hash",
}
#: Facts that are context of every row (columns of their own), not notes.
_FACT_CONTEXT = ("environment", "tidy_environment", "variant", "host")
#: Columns of trials.parquet and their Arrow types (noise_* columns follow, typed by value).
TRIAL_COLUMNS = {
    "run_id": "string", "campaign": "string", "trial_id": "string", "env_name": "string",
    "environment": "string", "variant": "string", "host": "string", "benchmark": "string",
    "runner": "string", "cell": "string", "round": "int64", "position": "int64",
    "plan_position": "int64", "previous": "string", "warmup": "bool", "status": "string",
    "attempt": "int64", "exit_status": "int64", "started_at": "timestamp", "finished_at": "timestamp",
    "duration_s": "float64", "rows": "int64", "cause": "string", "stderr": "string",
    "kept": "string", "noise_flags": "string",
}
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?")
_CODE = ("runners.py", "schema.py", "campaign/ingest.py", "campaign/layout.py")


#: Every environment's facts in the tidy folder (environment name -> facts).
FACTS_COPY = "facts.json"


@dataclass
class CampaignIngestResult:
    """What :func:`ingest_campaign` did.

    Attributes
    ----------
    out : pathlib.Path
        The tidy folder.
    campaign : str
        The campaign (the raw folder's name).
    trials_total : int
        Rows of trials.parquet: trial directories plus failed trials known only from the
        manifest.
    trials_read : int
        Trial directories read by this run (0 when nothing changed).
    rows : int
        Measurement rows in the tables after this run.
    rows_read : int
        Measurement rows of the trials read by this run.
    failed : int
        Trials with status ``failed`` (the tool exited non-zero, or the manifest says so).
    unparsed : int
        Trials with status ``unparsed`` (their cause names the file and line).
    parts_written : int
        Parquet part files written (measurements and provenance).
    parts_removed : int
        Part files deleted (replaced by rewritten ones, or left by an interrupted run).
    full_rebuild : bool
        Whether every trial was read again (``reason`` says why).
    seconds : float
        Wall time.
    reason : str
        Why a full rebuild ("" for an incremental run).
    unchanged : bool
        Nothing changed: no table was written.
    errors : dict of str to str
        run_id -> message of the trials read by this run that did not parse.
    phases : dict of str to float
        Seconds per phase (for ``make bench``).
    """

    out: Path
    campaign: str
    trials_total: int
    trials_read: int
    rows: int
    rows_read: int
    failed: int
    unparsed: int
    parts_written: int
    parts_removed: int
    full_rebuild: bool
    seconds: float
    reason: str = ""
    unchanged: bool = False
    errors: dict[str, str] = field(default_factory=dict)
    phases: dict[str, float] = field(default_factory=dict)

    def describe(self) -> str:
        """Return a short human report."""
        if self.unchanged:
            head = f"{self.out}: up to date ({self.trials_total} trials, {self.rows} rows; nothing changed)"
        else:
            how = f"full rebuild ({self.reason})" if self.full_rebuild else "incremental"
            head = (f"{self.out}: {how}, read {self.trials_read} of {self.trials_total} trials "
                    f"({self.rows_read} rows) in {self.seconds:.2f} s; {self.rows} rows in all, "
                    f"{self.parts_written} part files written, {self.parts_removed} removed")
        lines = [head]
        if self.failed or self.unparsed:
            lines.append(f"  {self.failed} failed, {self.unparsed} unparsed trials (see trials.parquet)")
        lines += [f"  UNPARSED {run}: {msg}" for run, msg in list(self.errors.items())[:5]]
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# small helpers (no pandas)


def _write_json(path: Path, data: dict) -> None:
    """Write JSON atomically (temporary file in the same folder, then rename)."""
    fd, tmp = _mkstemp(path)
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(json.dumps(data, separators=(",", ":")))  # one shot: the C encoder
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _stat(path: str) -> list[int] | None:
    """Return (size, mtime_ns, inode) of a file, or None when it is missing."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _code_hash() -> str:
    """Hash the code whose change changes what ingest writes (parsers, runners, schema, this)."""
    here = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for f in sorted((here / "parsers").rglob("*.py")) + [here / name for name in _CODE]:
        h.update(f.relative_to(here).as_posix().encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def _scan(raw: Path) -> dict[str, str]:
    """Find the finished trial directories of a raw tree and stamp them.

    A trial directory is never changed in place: the runner assembles it under another name
    and renames it (runners/common.sh), and the controller does the same with the fetched copy,
    so a trial that is run again is a new directory with a new meta file. The stamp is
    therefore meta's size, modification and change times and inode: one stat call per trial
    (about 3 microseconds here), so that a re-run over 10,000 trials knows what changed in a
    few hundredths of a second. An output edited in place by hand is not noticed (ingest with
    ``force=True``).

    Parameters
    ----------
    raw : Path
        The campaign's raw folder.

    Returns
    -------
    dict of str to str
        ``<environment>/<benchmark>/<trial-id>`` -> stamp, in no particular order. A
        directory without meta is not finished and left out, as are ``*.partial`` folders,
        hidden entries and the facts/ and failed/ folders.
    """
    found: dict[str, str] = {}
    stat = os.stat
    for env in os.scandir(raw):
        if env.name.startswith(".") or env.name in RESERVED or not env.is_dir():
            continue
        for bench in os.scandir(env.path):
            if bench.name.startswith(".") or not bench.is_dir():
                continue
            prefix = f"{env.name}/{bench.name}/"
            for trial in os.scandir(bench.path):
                name = trial.name
                if name[0] == "." or PARTIAL in name or not trial.is_dir():
                    continue
                try:
                    m = stat(trial.path + "/" + META)
                except FileNotFoundError:
                    continue  # not finished
                found[prefix + name] = f"{m.st_size}.{m.st_mtime_ns}.{m.st_ctime_ns}.{m.st_ino}"
    return found


def _read_facts(raw: Path) -> tuple[dict[str, dict], dict[str, str]]:
    """Read facts/<environment>.json: (environment -> facts, environment -> content hash)."""
    facts: dict[str, dict] = {}
    hashes: dict[str, str] = {}
    folder = raw / FACTS
    if not folder.is_dir():
        return facts, hashes
    for path in sorted(folder.glob("*.json")):
        data = path.read_bytes()
        try:
            value = json.loads(data)
        except (ValueError, UnicodeDecodeError) as exc:
            line = getattr(exc, "lineno", None)
            raise InputError(f"{path}:{line or 1}: not JSON ({exc})") from None
        if not isinstance(value, dict):
            raise InputError(f"{path}:1: not a JSON object")
        facts[path.stem] = value
        hashes[path.stem] = hashlib.sha256(data).hexdigest()
    return facts, hashes


def _apply(failed: dict[str, dict], records: list[dict]) -> None:
    """Keep in ``failed`` the last record of each trial whose last state is ``failed``."""
    for tid, rec in last_records(records).items():
        if rec.get("state") == "failed":
            failed[tid] = rec
        else:
            failed.pop(tid, None)


def _manifest_view(raw: Path, previous: dict | None) -> tuple[dict, dict]:
    """Read what is new in the manifest.

    Returns (state, view): the state to keep (offset, lines, stamp, hash of the bytes before
    the offset, the failed map of the consumed records, the pending record) and the failed
    map including the pending record.
    """
    path = raw / MANIFEST
    stamp = _stat(str(path))
    if stamp is None:
        return {"stamp": None, "offset": 0, "line": 0, "tail": "", "failed": {}, "pending": None}, {}
    prev = previous or {}
    if prev.get("stamp") == stamp:
        state = prev
    else:
        offset, line, failed = prev.get("offset", 0), prev.get("line", 0), dict(prev.get("failed", {}))
        if not prev or stamp[0] < offset or _tail_hash(path, offset) != prev.get("tail"):
            offset, line, failed = 0, 0, {}
        records, offset, line, pending = read_manifest(path, offset, line)
        _apply(failed, records)
        state = {"stamp": stamp, "offset": offset, "line": line, "tail": _tail_hash(path, offset),
                 "failed": failed, "pending": pending}
    view = dict(state["failed"])
    if state.get("pending") is not None:
        _apply(view, [state["pending"]])
    return state, view


def _tail_hash(path: Path, offset: int) -> str:
    """Hash the bytes just before ``offset`` (tells a rewritten manifest from an appended one)."""
    start = max(0, offset - _TAIL)
    with open(path, "rb") as fh:
        fh.seek(start)
        return hashlib.sha256(fh.read(offset - start)).hexdigest()


def _part_name(number: int) -> str:
    """Return the file name of part ``number``."""
    return f"part-{number:05d}.parquet"


def _part_number(name: str) -> int | None:
    """Return the number of a part file name, or None for any other file."""
    m = re.fullmatch(r"part-(\d+)\.parquet", name)
    return int(m.group(1)) if m else None


def _on_disk(folder: Path) -> dict[int, Path]:
    """Return part number -> path of the parts in a table folder."""
    if not folder.is_dir():
        return {}
    found = {}
    for entry in os.scandir(folder):
        n = _part_number(entry.name)
        if n is not None:
            found[n] = Path(entry.path)
    return found


def _clean_pending(out: Path) -> None:
    """Delete the hidden files an interrupted ingest left (pending parts, temporary tables)."""
    for table in (MEASUREMENTS, PROVENANCE):
        folder = out / table
        if folder.is_dir():
            for entry in os.scandir(folder):
                if entry.name.startswith("."):
                    os.unlink(entry.path)
    for entry in os.scandir(out):
        if entry.name.startswith((f".{TRIALS}.", f".{STATE}.")) and entry.name.endswith(".tmp"):
            os.unlink(entry.path)


# ---------------------------------------------------------------------------------------------
# reading trials (in a worker process or in-process)


def _int(value, name: str, where: str):
    """Return ``value`` as an int (None stays None); a ParseError names ``where`` otherwise."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"[+-]?\d+", value.strip()):
        return int(value)
    raise ParseError(where, None, f"{name} {value!r} is not an integer")


def _float(value, name: str, where: str):
    """Return ``value`` as a float (None stays None); a ParseError names ``where`` otherwise."""
    if value is None or isinstance(value, float):
        return value
    if isinstance(value, int | str) and not isinstance(value, bool):
        with contextlib.suppress(ValueError):
            return float(value)
    raise ParseError(where, None, f"{name} {value!r} is not a number")


def _bool(value, name: str, where: str):
    """Return ``value`` as a bool (None stays None); a ParseError names ``where`` otherwise."""
    if value is None or isinstance(value, bool):
        return value
    raise ParseError(where, None, f"{name} {value!r} is not true or false")


def _str(value):
    """Return ``value`` as a string for a string column (None stays None, objects as JSON)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True)
    return str(value)


def _time(value, name: str, where: str):
    """Check an ISO 8601 time (kept as text; the table converts it)."""
    if value is None:
        return None
    if not isinstance(value, str) or not _TIMESTAMP.fullmatch(value):
        raise ParseError(where, None, f"{name} {value!r} is not an ISO 8601 time")
    return value


def _noise_value(value):
    """Keep a noise sample's value as JSON gave it (objects and lists as JSON text)."""
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True)
    return value


def _trial_json(path: Path) -> dict:
    """Read a trial's trial.json (a ParseError names the file and line)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ParseError(str(path), None, "missing (the controller writes it with meta)") from None
    try:
        value = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ParseError(str(path), getattr(exc, "lineno", None), f"not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise ParseError(str(path), 1, "not a JSON object")
    return value


def _record_from_trial_json(tj: dict, record: dict, where: str, facts: dict) -> None:
    """Fill a trials row from trial.json (typed and checked; a ParseError names ``where``)."""
    env_facts = facts.get(record["env_name"], {})
    record.update({
        "environment": _str(tj.get("tidy_environment") or env_facts.get("tidy_environment")),
        "variant": _str(tj["variant"] if "variant" in tj else env_facts.get("variant")),
        "host": _str(tj.get("host") or env_facts.get("host")),
        "benchmark": _str(tj.get("benchmark") or record["benchmark"]),
        "runner": _str(tj.get("runner")), "cell": _str(tj.get("cell")),
        "round": _int(tj.get("round"), "round", where),
        "position": _int(tj.get("position"), "position", where),
        "plan_position": _int(tj.get("plan_position"), "plan_position", where),
        "previous": _str(tj.get("previous")), "warmup": _bool(tj.get("warmup"), "warmup", where),
        "attempt": _int(tj.get("attempt"), "attempt", where),
        "started_at": _time(tj.get("started_at"), "started_at", where),
        "finished_at": _time(tj.get("finished_at"), "finished_at", where),
        "duration_s": _float(tj.get("duration_s"), "duration_s", where),
    })
    noise = tj.get("noise") or {}
    if not isinstance(noise, dict):
        raise ParseError(where, None, f"noise {noise!r} is not an object")
    for when in ("before", "after"):
        sample = noise.get(when) or {}
        if not isinstance(sample, dict):
            raise ParseError(where, None, f"noise.{when} {sample!r} is not an object")
        for key, value in sample.items():
            record[f"noise_{when}_{key}"] = _noise_value(value)
    placement = tj.get("placement") or {}
    if not isinstance(placement, dict):
        raise ParseError(where, None, f"placement {placement!r} is not an object")
    record["client_host"] = _str(placement.get("client_host"))
    record["client_cpus"] = _str(placement.get("client_cpus"))
    record["server_cpus"] = _str(placement.get("server_cpus"))
    idle = tj.get("idle")
    if idle is not None and not isinstance(idle, dict):
        raise ParseError(where, None, f"idle {idle!r} is not an object")
    record["idle"] = (", ".join(f"{k} {v}" for k, v in sorted(idle.items())) or None) if idle else None
    seen = tj.get("interference") or {}
    if not isinstance(seen, dict):
        raise ParseError(where, None, f"interference {seen!r} is not an object")
    for key, value in seen.items():
        record[f"noise_{key}"] = _noise_value(value)
    flags = tj.get("noise_flags")
    if isinstance(flags, list):
        record["noise_flags"] = ",".join(map(str, flags)) if flags else None
    else:
        record["noise_flags"] = _str(flags) or None
    if not record["environment"]:
        raise ParseError(where, None, "no tidy_environment (and none in the environment's facts)")


def _provenance_row(trial, record: dict, facts: dict, output: Path, client: str | None = None) -> dict:
    """Build a trial's provenance row: read_trial's record joined with the environment's facts.

    A load generator's trial (``client``: its runner ran on that host) keeps its meta's host
    facts as the client's (:func:`overhead.runners.client_provenance`).
    """
    from overhead.runners import client_provenance

    row = client_provenance(trial.provenance, client) if client else dict(trial.provenance)
    notes = [row.pop("notes")] if row.get("notes") else []
    for key, value in sorted(facts.get(record["env_name"], {}).items()):
        if value is None or key in _FACT_CONTEXT:
            continue
        column = FACT_COLUMNS.get(key)
        if column == "cpu_ghz" and (isinstance(value, bool) or not isinstance(value, int | float)):
            column = None  # not a number: kept as said, in the notes
        if column is None:
            notes.append(f"{key}={_str(value)}")
        elif row.get(column) in (None, ""):
            # the trial's own meta (measured where it ran) wins over the environment's facts
            row[column] = value if column == "cpu_ghz" else _str(value)
    sha = None
    if output.exists():
        with open(output, "rb") as fh:
            sha = hashlib.file_digest(fh, "sha256").hexdigest()
    row.update({"run_id": record["run_id"], "campaign": record["campaign"],
                "environment": record["environment"], "variant": record["variant"],
                "host": record["host"], "source_file": f"{record['run_id'].split('/', 1)[1]}/output",
                "source_sha256": sha, "notes": "; ".join(notes) or None})
    return row


def _read_one(raw: Path, campaign: str, key: str, facts: dict, include_excluded: bool = False):
    """Read one trial directory: (trials row, measurement frame or None, provenance row or None)."""
    from overhead import runners

    env_name, bench, tid = key.split("/")
    path = raw / key
    record = {"run_id": f"{campaign}/{key}", "campaign": campaign, "trial_id": tid,
              "env_name": env_name, "benchmark": bench, "status": "unparsed"}
    try:
        tj = _trial_json(path / TRIAL_JSON)
        _record_from_trial_json(tj, record, str(path / TRIAL_JSON), facts)
        trial = runners.read_trial(path)
    except (OverheadError, OSError) as exc:
        record["cause"] = str(exc)
        record["rows"] = 0
        return record, None, None
    tj_status = tj.get("status")
    record["exit_status"] = trial.exit_status
    prov = _provenance_row(trial, record, facts, path / "output", _str(tj.get("client")) or None)
    excluded = tj.get("excluded")
    if excluded and not include_excluded:
        # disturbed, and out of re-runs: kept in the raw tree, its rows not in the statistics
        record["status"] = prov["status"] = "excluded"
        record["rows"] = 0
        record["cause"] = prov["failure"] = _interference_cause(tj)
        return record, None, prov
    if trial.ok and tj_status in (None, "done"):
        prov["status"] = "done"
        record["status"] = "done"
        record["rows"] = len(trial.measurements)
        if trial.cut_short:
            # results, then a failure the tool exited 0 after: the trial is done and its rows
            # are kept; its cause and the run's provenance say that the run was cut short
            record["cause"] = trial.cut_short
            prov["status"] = "partial"
            prov["failure"] = trial.cut_short
        if excluded:  # kept on request: its rows are in, the cause says what disturbed it
            record["cause"] = _interference_cause(tj)
        return record, trial.measurements, prov
    record["status"] = "failed"
    record["rows"] = 0
    tool = trial.meta.get("tool", "the tool")
    if trial.exit_status != 0:
        record["cause"] = f"{tool} exited with status {trial.exit_status}"
        if trial.failure:
            record["cause"] += f"; {trial.failure}"
    elif trial.failure:
        record["cause"] = trial.failure  # exit 0, but the output shows no result
    else:
        record["cause"] = f"trial.json status {tj_status!r}"
    record["stderr"] = trial.stderr[-STDERR_TAIL:] or None
    prov["status"] = "failed"
    prov["failure"] = record["cause"]
    return record, None, prov


def _interference_cause(tj: dict) -> str:
    """Say why a trial was excluded: its interference flags and figures."""
    flags = tj.get("excluded")
    seen = tj.get("interference") if isinstance(tj.get("interference"), dict) else {}
    words = []
    for flag in flags if isinstance(flags, list) else [flags]:
        value = seen.get(f"{flag}_s")
        words.append(f"{flag} {value} CPU-s" if value is not None else str(flag))
    return "interference: " + ", ".join(words) + f" during {tj.get('duration_s')} s"


def _interfered_rows(raw: Path, campaign: str, facts: dict) -> list[dict]:
    """Return a trials row for each attempt kept under ``interfered/`` (status ``interfered``).

    Their measurements are never read: they are what something outside the trial disturbed.
    """
    rows = []
    base = raw / INTERFERED
    if not base.is_dir():
        return rows
    for path in sorted(base.glob("*/*/*")):
        if not path.is_dir() or PARTIAL in path.name:
            continue
        env_name, bench = path.parent.parent.name, path.parent.name
        key = f"{INTERFERED}/{env_name}/{bench}/{path.name}"
        record = {"run_id": f"{campaign}/{key}", "campaign": campaign,
                  "trial_id": path.name.rsplit(".", 1)[0], "env_name": env_name,
                  "benchmark": bench, "status": "interfered", "rows": 0,
                  "kept": key}
        try:
            tj = _trial_json(path / TRIAL_JSON)
            _record_from_trial_json(tj, record, str(path / TRIAL_JSON), facts)
            record["cause"] = _interference_cause({**tj, "excluded": [
                f for f in (tj.get("noise_flags") or []) if f in INTERFERENCE_FLAGS]})
        except (OverheadError, OSError) as exc:
            record["cause"] = str(exc)
        rows.append(record)
    return rows


#: Context columns added to every row: name -> (trials row field, Arrow type name).
_CONTEXT = {"campaign": ("campaign", "string"), "run_id": ("run_id", "string"),
            "trial": ("round", "int64"), "benchmark": ("benchmark", "string"),
            "environment": ("environment", "string"), "variant": ("variant", "string"),
            "host": ("host", "string"), "warmup": ("warmup", "bool")}


def _measurement_table(frames: list, records: list[dict]):
    """Combine trials' tidy rows into one Arrow table with the campaign's context columns.

    The rows are combined by :func:`overhead.schema.frames_to_arrow` (conformed once per group
    of same-column frames); each context column is built from one value per trial repeated by
    code.
    """
    import numpy as np
    import pyarrow as pa

    from overhead import schema

    table = schema.frames_to_arrow(frames, schema.conform)
    counts = np.array([len(f) for f in frames], dtype=np.int64)
    codes = pa.array(np.repeat(np.arange(len(frames), dtype=np.int32), counts))
    for column, (name, kind) in _CONTEXT.items():
        values = pa.array([r.get(name) for r in records], {"string": pa.string(), "int64": pa.int64(),
                                                            "bool": pa.bool_()}[kind])
        table = table.set_column(table.column_names.index(column), column, values.take(codes))
    return table


def _read_chunk(raw: str, campaign: str, keys: list[str], facts: dict, part: int, out: str,
                include_excluded: bool = False) -> dict:
    """Read a chunk of trials and write their part files under hidden names.

    Returns the trials rows (key -> row), the part number, its row counts and the pending
    files written (renamed into place by the caller at the end).
    """
    import pandas as pd

    from overhead import schema

    raw_path, out_path = Path(raw), Path(out)
    records, frames, framed, prov = {}, [], [], []
    for key in keys:
        record, df, prov_row = _read_one(raw_path, campaign, key, facts, include_excluded)
        records[key] = record
        if df is not None and len(df):
            frames.append(df)
            framed.append(record)
        if prov_row is not None:
            prov.append(prov_row)
    result = {"part": part, "records": records, "rows": 0, "prov_rows": len(prov), "pending": []}
    name = f".{_part_name(part)}.pending"
    if frames:
        table = _measurement_table(frames, framed)
        result["rows"] = table.num_rows
        result["pending"].append(str(schema.write_table(table, out_path / MEASUREMENTS / name)))
    if prov:
        provenance = schema.conform(pd.DataFrame.from_records(prov), schema.PROVENANCE_COLUMNS)
        result["pending"].append(str(schema.write_table(schema.to_arrow(provenance),
                                                        out_path / PROVENANCE / name)))
    return result


def _rewrite_part(out: Path, old: int, new: int, drop: set[str]) -> dict:
    """Write part ``old`` without the rows of run ids ``drop`` as pending part ``new``."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from overhead import schema

    result = {"part": new, "rows": 0, "prov_rows": 0, "pending": []}
    value_set = pa.array(sorted(drop), pa.string())
    for table_name, count in ((MEASUREMENTS, "rows"), (PROVENANCE, "prov_rows")):
        path = out / table_name / _part_name(old)
        if not path.exists():
            continue
        table = pq.ParquetFile(path).read()
        keep = pc.invert(pc.is_in(table.column("run_id").cast(pa.string()), value_set=value_set))
        table = table.filter(keep)
        if table.num_rows:
            result[count] = table.num_rows
            target = out / table_name / f".{_part_name(new)}.pending"
            result["pending"].append(str(schema.write_table(table, target)))
    return result


# ---------------------------------------------------------------------------------------------
# trials.parquet


def _manifest_row(campaign: str, tid: str, rec: dict, facts: dict) -> dict:
    """Build the trials row of a failed trial known only from the manifest."""
    env_name, bench = _str(rec.get("environment")), _str(rec.get("benchmark"))
    env_facts = facts.get(env_name or "", {})
    run_id = f"{campaign}/{env_name}/{bench}/{tid}" if env_name and bench else f"{campaign}/{tid}"
    where = f"{MANIFEST} record of {tid}"

    def maybe(convert, name):
        try:
            return convert(rec.get(name), name, where)
        except ParseError:
            return None  # the manifest's extra fields are informative only

    stderr = _str(rec.get("stderr"))
    return {"run_id": run_id, "campaign": campaign, "trial_id": tid, "env_name": env_name,
            "environment": _str(env_facts.get("tidy_environment") or rec.get("tidy_environment")),
            "variant": _str(env_facts.get("variant") or rec.get("variant")),
            "host": _str(rec.get("host") or env_facts.get("host")), "benchmark": bench,
            "round": maybe(_int, "round"), "attempt": maybe(_int, "attempt"),
            "exit_status": maybe(_int, "exit_status"), "status": "failed",
            "finished_at": maybe(_time, "ts"), "duration_s": maybe(_float, "duration_s"),
            "cause": _str(rec.get("cause")) or "unknown cause",
            "stderr": stderr[-STDERR_TAIL:] if stderr else None, "kept": _str(rec.get("kept")),
            "rows": 0}


def _write_small(table, path: Path) -> None:
    """Write a small table as Parquet atomically, fast: no dictionary pages (half the time)."""
    import pyarrow.parquet as pq

    fd, tmp = _mkstemp(path)
    os.close(fd)
    try:
        pq.write_table(table, tmp, compression="zstd", use_dictionary=False, store_schema=False)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _mkstemp(path: Path) -> tuple[int, str]:
    """Open a hidden temporary file beside ``path`` (renamed onto it when complete)."""
    import tempfile

    return tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)


def _arrow_type(kind: str):
    """Return the Arrow type of a TRIAL_COLUMNS type name."""
    import pyarrow as pa

    return {"string": pa.string(), "int64": pa.int64(), "bool": pa.bool_(), "float64": pa.float64(),
            "timestamp": pa.timestamp("ns", tz="UTC")}[kind]


def _trials_table(rows: list[dict]):
    """Build an Arrow table of trials rows: fixed columns typed, noise columns by their values."""
    import pyarrow as pa

    columns = {}
    for name, kind in TRIAL_COLUMNS.items():
        values = [r.get(name) for r in rows]
        if kind == "timestamp":
            columns[name] = pa.array(values, pa.string()).cast(_arrow_type(kind))
        else:
            columns[name] = pa.array(values, _arrow_type(kind))
    extra = sorted({k for r in rows for k in r if k not in TRIAL_COLUMNS})
    for name in extra:
        values = [r.get(name) for r in rows]
        try:
            columns[name] = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError):
            columns[name] = pa.array([None if v is None else str(v) for v in values], pa.string())
    return pa.table(columns)


def _concat_trials(tables: list):
    """Concatenate trials tables whose noise columns differ (types unified as in tidy)."""
    import pyarrow as pa

    from overhead.schema import align_tables
    from overhead.tidy import unify_types

    types: dict[str, set] = {}
    for t in tables:
        for f in t.schema:
            types.setdefault(f.name, set()).add(f.type)
    fixed = [n for n in TRIAL_COLUMNS if n in types]
    names = fixed + sorted(n for n in types if n not in TRIAL_COLUMNS)
    target = {n: (_arrow_type(TRIAL_COLUMNS[n]) if n in TRIAL_COLUMNS else unify_types(types[n])) for n in names}
    target = {n: (pa.string() if t == pa.null() else t) for n, t in target.items()}
    return align_tables(tables, names, target).sort_by("run_id")


# ---------------------------------------------------------------------------------------------
# the ingest


def ingest_campaign(raw_dir: str | os.PathLike[str], out_dir: str | os.PathLike[str], *,
                    workers: int | None = None, force: bool = False,
                    include_excluded: bool = False) -> CampaignIngestResult:
    """Ingest a campaign's raw tree into its tidy folder, reading only what is new.

    Parameters
    ----------
    raw_dir : path
        ``data/raw/<campaign>/``; its name is the campaign's.
    out_dir : path
        ``data/tidy/<campaign>/`` (created).
    workers : int, optional
        Processes for a large ingest (default: the CPU count, at most 4). Fewer than
        POOL_MIN_TRIALS new trials are read in this process.
    force : bool
        Read every trial again (a full rebuild), e.g. after editing a raw file in place.
    include_excluded : bool
        Keep the rows of trials excluded for interference (status ``done``, their cause naming
        the interference) instead of leaving them out; switching it makes a full rebuild.

    Returns
    -------
    CampaignIngestResult
        Counts, and whether this was a full rebuild.

    Raises
    ------
    InputError
        When the raw folder does not exist, a facts file is not JSON, or ``out_dir`` holds
        single-file tables (not a campaign's tidy folder).
    ParseError
        For a damaged manifest line (not the torn last one), naming file and line. A trial
        that does not parse is not an error: it is recorded as unparsed.
    """
    started = time.perf_counter()
    raw, out = Path(raw_dir), Path(out_dir)
    if not raw.is_dir():
        raise InputError(f"{raw}: not a folder (a campaign's raw tree, data/raw/<campaign>)")
    for table in (MEASUREMENTS, PROVENANCE):
        if (out / table).is_file():
            raise InputError(f"{out / table}: a single-file table; {out} is not a campaign's tidy "
                             "folder (choose another output folder)")
    out.mkdir(parents=True, exist_ok=True)
    with locks.wait(out / LOCK):
        result = _Ingest(raw, out, workers, force, started, include_excluded).run()
        _copy_plan(raw, out)
        return result


def _copy_plan(raw: Path, out: Path) -> None:
    """Put the last run's plan and settings beside the tables, for reports and comparisons.

    ``plan.json`` (its stopping rule's stops and decisions), ``campaign.json`` (the campaign
    as run: profile merged, overrides applied) and ``facts.json`` (every environment's facts,
    by environment name). A plan.json or campaign.json that is not valid JSON (a run killed
    while writing it) is left out, with the one in the tidy folder kept: they describe the
    data, they are not data; facts were already read (and checked) by the ingest.
    """
    for name in ("plan.json", CAMPAIGN_RESOLVED):
        path = raw / name
        if not path.is_file():
            continue
        try:
            data = json.loads(path.read_text())
        except ValueError:
            continue
        _write_json(out / name, data)
    facts, _ = _read_facts(raw)
    if facts:
        _write_json(out / FACTS_COPY, facts)


class _Ingest:
    """One ingest run (with the folder's lock held): plan, read, rewrite, commit."""

    def __init__(self, raw: Path, out: Path, workers: int | None, force: bool, started: float,
                 include_excluded: bool = False):
        """Remember the folders, the options and when the run started."""
        self.raw, self.out, self.force, self.started = raw, out, force, started
        self.include_excluded = include_excluded
        self.campaign = raw.resolve().name
        self.workers = workers if workers is not None else min(4, os.cpu_count() or 1)
        self.phases: dict[str, float] = {}
        self.lap = started

    def phase(self, name: str) -> None:
        """Record the seconds since the last phase under ``name``."""
        now = time.perf_counter()
        self.phases[name] = self.phases.get(name, 0.0) + now - self.lap
        self.lap = now

    def load_state(self) -> tuple[dict | None, str]:
        """Return the previous state and, when it cannot be used, why (a full rebuild)."""
        path = self.out / STATE
        if not path.exists():
            return None, "no previous ingest"
        if self.force:
            return None, "forced"
        try:
            state = json.loads(path.read_bytes())
        except ValueError:
            return None, f"{STATE} is damaged"
        if state.get("version") != STATE_VERSION:
            return None, f"{STATE} has another layout version"
        if state.get("raw") != str(self.raw.resolve()):
            return None, f"the raw folder changed (was {state.get('raw')})"
        if state.get("code") != self.code:
            return None, "the ingest or parser code changed"
        if bool(state.get("include_excluded")) != self.include_excluded:
            return None, "include_excluded changed"
        if _stat(str(self.out / TRIALS)) != state.get("trials_stamp"):
            return None, f"{TRIALS} is not the one the last ingest wrote"
        return state, ""

    def run(self) -> CampaignIngestResult:
        """Do the ingest."""
        _clean_pending(self.out)
        scan = _scan(self.raw)
        self.phase("scan trial directories")
        facts, fact_hashes = _read_facts(self.raw)
        self.code = _code_hash()
        state, reason = self.load_state()
        full = state is None
        if full:
            state = {"trials": {}, "parts": {}, "facts": {}, "manifest": None, "next_part": 0}
        manifest, view = _manifest_view(self.raw, state.get("manifest"))
        self.phase("state, facts and manifest")

        # what changed
        old_trials: dict[str, list] = state["trials"]
        parts: dict[str, dict] = {str(k): v for k, v in state["parts"].items()}
        measured = _on_disk(self.out / MEASUREMENTS)
        proved = _on_disk(self.out / PROVENANCE)
        missing_parts = {p for p, info in parts.items()
                         if (info["rows"] and int(p) not in measured) or (info["prov_rows"] and int(p) not in proved)}
        changed_facts = {e for e in set(fact_hashes) | set(state["facts"])
                         if fact_hashes.get(e) != state["facts"].get(e)}
        to_read = []
        for key, stamp in scan.items():
            old = old_trials.get(key)
            if (old is None or old[0] != stamp or (old[1] is not None and str(old[1]) in missing_parts)
                    or key.split("/", 1)[0] in changed_facts):
                to_read.append(key)
        to_read.sort()  # parts hold neighbouring trials
        gone = [key for key in old_trials if key not in scan]
        drop = set(to_read) | set(gone)  # trials whose old rows go
        affected = {str(old_trials[k][1]) for k in drop if k in old_trials and old_trials[k][1] is not None}
        affected -= missing_parts
        known = {int(p) for p in parts}
        orphans = [p for p in set(measured) | set(proved) if p not in known]
        manifest_changed = view != state.get("view", {})
        if not (to_read or gone or affected or missing_parts or orphans or manifest_changed
                or changed_facts or full):
            if manifest != state.get("manifest"):
                state["manifest"] = manifest
                _write_json(self.out / STATE, state)
            self.phase("check (nothing to do)")
            s = state["summary"]
            return CampaignIngestResult(self.out, self.campaign, s["trials"], 0, s["rows"], 0, s["failed"],
                                        s["unparsed"], 0, 0, False, time.perf_counter() - self.started,
                                        unchanged=True, phases=self.phases)

        next_part = max([state["next_part"], *[p + 1 for p in set(measured) | set(proved)]])
        pending: list[str] = []
        rewrites: list[tuple[str, dict]] = []
        try:
            results = self.read(to_read, facts, next_part)
            next_part += len(results)
            pending += [p for r in results for p in r["pending"]]
            self.phase(f"read {len(to_read)} trials")
            drop_ids = {f"{self.campaign}/{k}" for k in drop}
            for old in sorted(affected, key=int):
                rewrites.append((old, _rewrite_part(self.out, int(old), next_part, drop_ids)))
                pending += rewrites[-1][1]["pending"]
                next_part += 1
            self.phase("rewrite parts")
            trials_table, manifest_runs = self.build_trials(scan, drop, results, view, facts, state, full)
        except BaseException:
            # the lock is held: every hidden file in the table folders is this run's
            _clean_pending(self.out)
            raise

        # the new state
        new_trials = {k: v for k, v in old_trials.items() if k in scan and k not in drop}
        new_parts = {p: v for p, v in parts.items() if p not in affected and p not in missing_parts}
        for old, r in rewrites:
            for v in new_trials.values():
                if v[1] is not None and str(v[1]) == old:
                    v[1] = r["part"] if (r["rows"] or r["prov_rows"]) else None
        for r in [*results, *(r for _, r in rewrites)]:
            if r["rows"] or r["prov_rows"]:
                new_parts[str(r["part"])] = {"rows": r["rows"], "prov_rows": r["prov_rows"]}
        for r in results:
            for key, record in r["records"].items():
                has_rows = record["status"] in ("done", "failed") and (r["rows"] or r["prov_rows"])
                new_trials[key] = [scan[key], r["part"] if has_rows else None]
        errors = {rec["run_id"]: rec["cause"] for r in results for rec in r["records"].values()
                  if rec["status"] == "unparsed"}

        import pyarrow.compute as pc

        statuses = dict(zip(*(c.to_pylist() for c in pc.value_counts(trials_table.column("status")).flatten()),
                            strict=True))
        summary = {"trials": trials_table.num_rows, "rows": sum(v["rows"] for v in new_parts.values()),
                   "failed": statuses.get("failed", 0), "unparsed": statuses.get("unparsed", 0)}
        self.phase("new state")
        removed = self.commit(pending, new_parts, trials_table)
        trials_stamp = _stat(str(self.out / TRIALS))
        _write_json(self.out / STATE, {
            "version": STATE_VERSION, "campaign": self.campaign, "raw": str(self.raw.resolve()),
            "code": self.code, "include_excluded": self.include_excluded, "next_part": next_part, "facts": fact_hashes, "manifest": manifest,
            "view": view, "manifest_runs": manifest_runs, "trials_stamp": trials_stamp,
            "summary": summary, "parts": new_parts,
            "trials": dict(sorted(new_trials.items())),
        })
        self.phase("commit: write the state")
        return CampaignIngestResult(
            self.out, self.campaign, summary["trials"], len(to_read), summary["rows"],
            sum(r["rows"] for r in results), summary["failed"], summary["unparsed"], len(pending),
            removed, full, time.perf_counter() - self.started, reason=reason if full else "",
            errors=errors, phases=self.phases)

    def read(self, keys: list[str], facts: dict, first_part: int) -> list[dict]:
        """Read trials into new parts: in this process for a few, in a pool for many."""
        # the heavy imports (about half a second), timed apart; before forking, so that the
        # workers inherit them
        import pandas  # noqa: F401
        import pyarrow.parquet  # noqa: F401

        from overhead import runners, schema  # noqa: F401

        self.phase("imports (pandas, pyarrow)")
        if not keys:
            return []
        (self.out / MEASUREMENTS).mkdir(exist_ok=True)
        (self.out / PROVENANCE).mkdir(exist_ok=True)
        if len(keys) < POOL_MIN_TRIALS or self.workers <= 1:
            return [_read_chunk(str(self.raw), self.campaign, keys, facts, first_part, str(self.out),
                                self.include_excluded)]
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        n = max(self.workers * 4, -(-len(keys) // PART_TRIALS))
        size = -(-len(keys) // n)
        chunks = [keys[i:i + size] for i in range(0, len(keys), size)]
        ctx = multiprocessing.get_context("fork")
        # the workers die with this process (a SIGKILLed ingest left them holding nothing, but
        # running on); the lock's descriptor is closed in them at fork (overhead.locks)
        with ProcessPoolExecutor(max_workers=min(self.workers, len(chunks)), mp_context=ctx,
                                 initializer=locks.die_with_parent,
                                 initargs=(os.getpid(),)) as pool:
            futures = [pool.submit(_read_chunk, str(self.raw), self.campaign, chunk, facts,
                                   first_part + i, str(self.out), self.include_excluded)
                       for i, chunk in enumerate(chunks)]
            try:
                return [f.result() for f in futures]
            except BaseException:
                for f in futures:
                    f.cancel()
                raise

    def build_trials(self, scan: dict, drop: set[str], results: list[dict], view: dict,
                     facts: dict, state: dict, full: bool):
        """Build trials.parquet's table: kept rows of the old one, the new rows, the manifest's.

        Returns the table and the run ids of its rows that come from the manifest (replaced
        as a whole next time).
        """
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        tables = []
        if not full:
            old = pq.ParquetFile(self.out / TRIALS).read()
            # the old rows minus those read again or gone, and minus the manifest's rows
            remove = [f"{self.campaign}/{k}" for k in drop] + state.get("manifest_runs", [])
            if remove:
                old = old.filter(pc.invert(pc.is_in(old.column("run_id"),
                                                     value_set=pa.array(remove, pa.string()))))
            tables.append(old)
            self.phase("trials table: read and filter the old one")
        rows = [rec for r in results for rec in r["records"].values()]
        present = {k.rsplit("/", 1)[1] for k in scan}
        from_manifest = [_manifest_row(self.campaign, tid, rec, facts) for tid, rec in sorted(view.items())
                         if tid not in present]
        # the attempts moved aside for interference: few, read again each time, like the above
        from_manifest += _interfered_rows(self.raw, self.campaign, facts)
        tables.append(_trials_table(rows + from_manifest))
        self.phase("trials table: new rows")
        table = _concat_trials(tables)
        self.phase("trials table: combine and sort")
        return table, [row["run_id"] for row in from_manifest]

    def commit(self, pending: list[str], parts: dict, trials_table) -> int:
        """Put the new files in place and remove the parts the new state does not list.

        Returns the number of part files removed.
        """
        for p in pending:
            path = Path(p)
            os.replace(path, path.with_name(path.name[1:].removesuffix(".pending")))
        removed = 0
        for table in (MEASUREMENTS, PROVENANCE):
            folder = self.out / table
            folder.mkdir(exist_ok=True)
            for number, path in _on_disk(folder).items():
                if str(number) not in parts:
                    path.unlink()
                    removed += 1
        for table in (MEASUREMENTS, PROVENANCE):
            schema.write_schema_part(self.out / table)
        self.phase("commit: parts into place")
        _write_small(trials_table, self.out / TRIALS)
        self.phase("commit: write trials.parquet")
        return removed
