"""The benchmark runners (``runners/*.sh``) and the trial directories they leave.

A runner is a POSIX sh script that runs ON the measured host (native, in a container, in a VM)
and writes one trial directory: ``output`` (the tool's report, what its parser reads),
``stderr`` and ``meta`` (``name=value`` lines: runner, tool, parser, tool version, command,
exit status, start and finish times, host facts and the ``p_<name>`` parameters). See
``runners/common.sh`` for the contract. This module finds the scripts and turns a trial
directory into tidy rows plus one provenance record.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from overhead.errors import ParseError
from overhead.paths import ROOT

#: Where the runner scripts live (a checkout's runners/ folder).
RUNNERS_DIR = ROOT / "runners"

#: Meta fields every finished trial has; a trial without one of them is not a runner's trial.
REQUIRED_META = ("runner", "tool", "parser", "tool_version", "command", "started_at",
                 "finished_at", "exit_status")

#: meta field -> provenance column (schema.PROVENANCE_COLUMNS).
PROVENANCE_FROM_META = {
    "tool": "tool",
    "tool_version": "tool_version",
    "started_at": "started_at",
    "kernel": "kernel",
    "cpu_model": "cpu_model",
    "governor": "governor",
    "mitigations": "mitigations",
    "command": "command_line",
}


#: meta fields kept in the provenance notes (no column of their own). ``virt_vm`` and
#: ``virt_container`` are the host's two virtualization answers; ``virtualization`` (plain
#: systemd-detect-virt: the innermost layer only, "docker" on a VM with a /.dockerenv) is what
#: runners wrote before them, kept as said when a tree that old is read.
NOTE_FIELDS = ("runner", "virt_vm", "virt_container", "virtualization", "machine", "nproc",
               "mem_total_bytes", "exit_status")


#: Provenance columns read from a trial's meta that describe the machine the runner ran on.
HOST_COLUMNS = ("kernel", "cpu_model", "governor", "mitigations")
#: Notes read from a trial's meta that describe that machine.
HOST_NOTES = ("virt_vm", "virt_container", "virtualization", "machine", "nproc",
              "mem_total_bytes")


def client_provenance(provenance: dict, client: str) -> dict:
    """Return a load generator's trial provenance with its machine's facts named as the client's.

    A benchmark with a ``client`` runs its runner on the client host, so the trial's meta
    describes that host, not the environment the server ran in (a VM's netperf trial recorded
    the host's kernel as its own). The columns of :data:`HOST_COLUMNS` move into the notes as
    ``client_<name>=`` (the environment's facts then fill the columns), the notes of
    :data:`HOST_NOTES` are renamed ``client_<name>``, and ``client_host=<client>`` is added.

    Parameters
    ----------
    provenance : dict
        A :class:`Trial`'s provenance (columns and a ``notes`` string of ``name=value; ...``).
    client : str
        The client host's name in the campaign.
    """
    out = {k: v for k, v in provenance.items() if k not in HOST_COLUMNS and k != "notes"}
    notes = [f"client_host={client}"]
    notes += [f"client_{k}={provenance[k]}" for k in HOST_COLUMNS if provenance.get(k)]
    for note in filter(None, str(provenance.get("notes") or "").split("; ")):
        name = note.partition("=")[0]
        notes.append(f"client_{note}" if name in HOST_NOTES else note)
    out["notes"] = "; ".join(notes)
    return out


def available() -> list[str]:
    """List the names of the runners in RUNNERS_DIR (``fio`` for ``runners/fio.sh``), sorted.

    ``common.sh`` (sourced by every runner) and the ``server-*.sh`` scripts (servers the
    campaign engine starts inside an environment, such as MariaDB) are not runners.
    """
    return sorted(p.stem for p in RUNNERS_DIR.glob("*.sh")
                  if p.name != "common.sh" and not p.name.startswith("server-"))


def script(name: str) -> Path:
    """Return the path of runner ``name``.

    Parameters
    ----------
    name : str
        The runner's name (``fio`` for ``runners/fio.sh``).

    Returns
    -------
    pathlib.Path
        The runner's script.

    Raises
    ------
    KeyError
        When there is no such runner; the message names the known runners.
    """
    path = RUNNERS_DIR / f"{name}.sh"
    if name not in available():
        raise KeyError(f"unknown runner {name!r}; known runners: {', '.join(available())}")
    return path


def declared_params(path: str | Path) -> list[str]:
    """Return the parameter names a runner script declares (its ``rn_declare`` words)."""
    text = Path(path).read_text().replace("\\\n", " ")
    names: list[str] = []
    for line in text.splitlines():
        m = re.match(r"\s*rn_declare\s+(.*)", line)
        if m:
            names += [w.split("=", 1)[0] for w in m.group(1).split() if "=" in w]
    return names


def command(name: str, outdir: str | Path, **params) -> list[str]:
    """Build the argv running runner ``name`` into ``outdir`` with ``params`` (name=value each)."""
    return ["sh", str(script(name)), str(outdir), *(f"{k}={v}" for k, v in params.items())]


def read_meta(path: str | Path) -> dict[str, str]:
    """Read the ``name=value`` lines of a trial's meta file, in order.

    Parameters
    ----------
    path : str or path
        The meta file.

    Returns
    -------
    dict of str to str
        Name -> value, in the file's order.

    Raises
    ------
    ParseError
        Naming the file and line, for a line without ``=``, an empty or repeated name, and for
        a file that lacks one of REQUIRED_META (an interrupted runner never leaves such a file
        in place, so it is not a runner's trial).
    """
    path = Path(path)
    meta: dict[str, str] = {}
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(str(path), data[: exc.start].count(b"\n") + 1, "not UTF-8 text") from None
    for number, line in enumerate(text.splitlines(), 1):
        name, sep, value = line.partition("=")
        if not sep or not name:
            raise ParseError(str(path), number, f"expected name=value, found {line[:60]!r}")
        if name in meta:
            raise ParseError(str(path), number, f"{name!r} appears twice")
        meta[name] = value
    missing = [k for k in REQUIRED_META if k not in meta]
    if missing:
        raise ParseError(str(path), len(text.splitlines()) + 1,
                         f"missing {', '.join(missing)}: not a finished runner trial")
    try:
        int(meta["exit_status"])
    except ValueError:
        raise ParseError(str(path), list(meta).index("exit_status") + 1,
                         f"exit_status {meta['exit_status']!r} is not an integer") from None
    return meta


def version_number(text: str) -> str:
    """Return the first dotted version number in a tool's version line.

    Parameters
    ----------
    text : str
        The version line.

    Returns
    -------
    str
        The version number ("fio-3.33" -> "3.33", "pg_test_fsync (PostgreSQL) 15.20
        (Debian ...)" -> "15.20"); the whole line if it has none.
    """
    found = re.search(r"\d+(?:\.\d+)+", text)
    return found.group(0) if found else text


def sidecars(path: str | Path, meta: dict[str, str]) -> dict[str, str]:
    """Return a trial's sidecar files: file name -> parser.

    A sidecar is a second tool's report beside ``output`` whose rows join the trial's (perf
    stat around nuttcp, mpstat sampling the server during a MySQL run). A runner names its
    own in meta (``sidecar=perf:perf_stat``, comma-separated); the campaign engine names the
    ones it adds in the trial's ``trial.json`` (``"sidecars": {"monitor": "mpstat"}``).

    Raises
    ------
    ParseError
        For a meta ``sidecar`` entry that is not ``file:parser`` or names a path.
    """
    import json

    path = Path(path)
    found: dict[str, str] = {}
    for entry in filter(None, meta.get("sidecar", "").split(",")):
        name, sep, parser = entry.partition(":")
        if not sep or not name or not parser or "/" in name or name in ("meta", "output"):
            line = list(meta).index("sidecar") + 1
            raise ParseError(str(path / "meta"), line, f"sidecar {entry!r} is not file:parser")
        found[name] = parser
    record = path / "trial.json"
    if record.exists():
        try:
            extra = json.loads(record.read_text()).get("sidecars") or {}
        except (json.JSONDecodeError, AttributeError):
            raise ParseError(str(record), 1, "not a JSON object") from None
        found.update({str(k): str(v) for k, v in extra.items()})
    return found


def _param_value(text: str):
    """Convert a runner parameter as the tidy table stores it: int or float if one, else str."""
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


@dataclass
class Trial:
    """One runner trial: its meta, its tidy rows (None when the tool failed) and provenance.

    Attributes
    ----------
    path : pathlib.Path
        The trial directory.
    meta : dict of str to str
        The meta file's ``name=value`` lines.
    exit_status : int
        The tool's exit status.
    stderr : str
        The tool's stderr.
    measurements : pandas.DataFrame or None
        The tidy rows; None for a failed trial.
    provenance : dict
        The provenance record (columns of schema.PROVENANCE_COLUMNS, host facts in ``notes``).
    failure : str or None
        What the output shows of a failed run (the parser's
        :class:`~overhead.errors.RunFailed` message, ``path:line: the run did not finish:
        ...``), whether the tool exited non-zero or not; None when the run gave results or
        its output says nothing about the failure.
    cut_short : str or None
        For a trial that exited 0 with results followed by a failure in its output (a
        redis-benchmark whose server went away after its first tests): what the output shows
        (:func:`overhead.parsers.cut_short_of`); its rows are kept in ``measurements``.
    """

    path: Path
    meta: dict[str, str]
    exit_status: int
    stderr: str
    measurements: object = None  # pandas DataFrame of tidy rows; None for a failed trial
    provenance: dict = field(default_factory=dict)
    failure: str | None = None
    cut_short: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the tool exited with status 0 and its output holds results (rows parsed)."""
        return self.exit_status == 0 and self.failure is None


def _refine(df, key: str, value: str) -> None:
    """Keep the runner's parameter where the output names it less precisely.

    sysbench 1.0's report says only ``oltp`` for the runner's ``test=oltp_read_write``: the
    runner's value refines the output's (the output's name followed by ``_``), never
    contradicts it.
    """
    col = df[key]
    if col.dtype.kind in "iufcb" or not value:
        return
    refined = col.map(lambda s: isinstance(s, str) and value.startswith(f"{s}_"),
                      na_action="ignore").fillna(False).astype(bool)
    if refined.any():
        df.loc[refined, key] = value


def read_trial(path: str | Path) -> Trial:
    """Read a trial directory a runner wrote.

    The trial holds the meta, stderr and, when the tool succeeded, the tidy rows its parser
    makes of ``output``. The runner's parameters (meta ``p_<name>``) become ``p_<name>``
    columns where the output does not state them itself (redis-benchmark never prints its
    pipeline depth, for instance); where it does, the output's value is kept, unless the
    runner's refines it (``oltp`` -> ``oltp_read_write``). The tool version
    and start time fill the rows' columns the output left empty.

    Parameters
    ----------
    path : str or path
        The trial directory.

    Returns
    -------
    Trial
        The trial. A failed trial (non-zero exit status, or an output the parser finds to be
        a run that did not finish) is returned with ``measurements=None``, its stderr and
        ``failure`` (what the output shows, when it shows anything), so the caller records
        it.

    Raises
    ------
    ParseError
        For bad meta or output, naming the file and line.
    """
    from overhead import parsers
    from overhead.schema import validate

    path = Path(path)
    meta = read_meta(path / "meta")
    stderr_path = path / "stderr"
    stderr = stderr_path.read_text(errors="replace") if stderr_path.exists() else ""
    status = int(meta["exit_status"])
    provenance = {column: meta[key] for key, column in PROVENANCE_FROM_META.items()
                  if meta.get(key) not in (None, "", "unavailable")}
    # host facts the provenance table has no column for go into its notes
    extra = [f"{k}={meta[k]}" for k in NOTE_FIELDS if meta.get(k)]
    if extra:
        provenance["notes"] = "; ".join(extra)
    trial = Trial(path=path, meta=meta, exit_status=status, stderr=stderr, provenance=provenance)
    output = path / "output"
    if status != 0:
        # the output may still say why (iperf3's "unable to connect"): that message is the
        # failure's description; an output the parser cannot read adds nothing to the status
        try:
            # results and then a failure (an interrupted iperf3 client): the failure says why
            trial.failure = parsers.cut_short_of(parsers.parse_file(meta["parser"], output))
        except parsers.RunFailed as exc:
            trial.failure = str(exc)
        except (ParseError, OSError):
            pass
        return trial
    try:
        df = parsers.parse_file(meta["parser"], output)
    except parsers.RunFailed as exc:
        # exit status 0 but no result (fio's jobs that hit a full disk): a failed trial too
        trial.failure = str(exc)
        return trial
    trial.cut_short = parsers.cut_short_of(df)
    import pandas as pd

    if df["tool_version"].isna().any():
        df["tool_version"] = df["tool_version"].fillna(version_number(meta["tool_version"]))
    if df["started_at"].isna().any():
        df["started_at"] = df["started_at"].fillna(pd.Timestamp(meta["started_at"]))
    # a sidecar's rows keep their own tool's version (not the runner's tool's), and carry the
    # run's parameters (p_threads of the MySQL run the server's mpstat sampled) and p_sidecar
    frames = [df]
    for name, parser in sidecars(path, meta).items():
        side = parsers.parse_file(parser, path / name)
        frames.append(side.assign(p_sidecar=name))
    if len(frames) > 1:
        df = pd.concat(frames, ignore_index=True)
    for key, value in meta.items():
        if not key.startswith("p_"):
            continue
        if key not in df.columns or df[key].isna().all():
            df[key] = _param_value(value)
            continue
        if len(frames) > 1:  # the output stated it; the sidecars' rows take it from meta
            fill = df["p_sidecar"].notna() & df[key].isna()
            df.loc[fill, key] = _param_value(value)
        _refine(df, key, value)
    validate(df)
    trial.measurements = df
    return trial
