"""Turn a tree of raw outputs into the tidy Parquet tables: a raw tree plus a rule set.

:func:`ingest` walks a tree, decides per file with a :class:`RuleSet` what it is (which tool
wrote it, which benchmark, environment and variant it belongs to, which rows to keep and why),
parses it, adds the context (campaign, environment, variant, run_id), and writes
``measurements.parquet``, ``monitor/`` (system-monitor samples), ``provenance.parquet`` and
``reference.parquet`` (values a rule set reads from elsewhere, such as a study's spreadsheets).
A study's rule set lives with the study (the authors' tree of RC25482 is
:data:`overhead.rc25482.files.RULESET`); a campaign's raw tree will be another.

Caching works on content: every mapped file is hashed (SHA-256) and the hashes are kept in
``manifest.json`` with the hashes of the outputs and of the code. A re-run whose files, code
and outputs are unchanged returns at once without importing pandas; any change re-parses the
tree (two processes; about two seconds for the authors' 26 MB).
All writes go to a temporary file renamed into place, so an interrupted ingest leaves the
previous tables intact. pandas is imported inside functions for that fast path.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from overhead import locks
from overhead.errors import ParseError

__all__ = ["IngestResult", "ParseError", "Rule", "RuleSet", "ingest", "plan"]

MANIFEST = "manifest.json"
TABLES = ("measurements.parquet", "provenance.parquet", "reference.parquet")
MONITOR = "monitor"
LOCK = ".ingest.lock"
#: Tools whose output is a system-monitor time series (one row per sample and counter). Their
#: rows go to monitor/, one Parquet part per raw file: they are 97% of the IBM rows, share no
#: parameters with the benchmarks, and would otherwise make every benchmark query scan them
#: (and every ingest copy them between processes). A format with a wide form (dstat's CSV:
#: :func:`overhead.parsers.parse_file_wide`) is stored wide, one row per sample
#: (:mod:`overhead.wide`); :func:`overhead.tidy.read` melts it back into the tidy rows.
MONITOR_TOOLS = frozenset({"dstat", "mpstat", "vmstat", "iostat"})
_CODE_FILES = ("schema.py", "ingest.py")


@dataclass(frozen=True)
class Rule:
    """How to ingest files matching ``pattern`` (fnmatch on the path relative to the root).

    Parameters
    ----------
    pattern : str
        fnmatch pattern on the '/'-separated relative path.
    tool : str or None
        The parser to use; None skips the file (``why`` says why).
    why : str
        The reason for the rule, kept in provenance notes and the manifest.
    benchmark, environment, variant : str or None
        Fixed values for every matching file (``context`` may give environment and variant
        per file instead).
    context : callable, optional
        ``context(rel) -> dict`` with ``environment``, ``variant``, ``trial``, ``p_*``
        parameters and provenance facts (``governor``...) for one file.
    keep : callable, optional
        ``keep(frame) -> boolean mask``: the parsed rows to keep; ``keep_why`` says what the
        rest is.
    keep_why : str
        What ``keep`` leaves out.
    params : dict
        Extra ``p_*`` values for every row.
    """

    pattern: str
    tool: str | None
    why: str
    benchmark: str | None = None
    environment: str | None = None
    variant: str | None = None
    context: Callable[[str], dict] | None = None
    keep: Callable | None = None
    keep_why: str = ""
    params: dict = field(default_factory=dict)


@dataclass(frozen=True)
class RuleSet:
    """A raw tree's rules: which campaign its rows belong to and what each file is.

    Parameters
    ----------
    campaign : str
        The ``campaign`` column of every row, and the prefix of every run id.
    rules : tuple of Rule
        Tried in order; the first whose pattern matches a file decides.
    facts : callable, optional
        ``facts(environment, variant) -> dict`` of provenance columns that every run of that
        environment shares (``accelerator``...).
    reference : callable, optional
        ``reference(root) -> DataFrame`` of tidy rows for ``reference.parquet`` (values that
        exist only outside the raw outputs, such as a study's spreadsheets).
    code : tuple of Path
        Source files whose content decides what ingest produces besides the parsers (the
        module defining the rules): part of the cache key.
    """

    campaign: str
    rules: tuple[Rule, ...]
    facts: Callable[[str, str | None], Mapping] | None = None
    reference: Callable[[Path], object] | None = None
    code: tuple[Path, ...] = ()

    def rule_for(self, rel: str) -> Rule | None:
        """Return the first rule whose pattern matches ``rel``, or None (the file is unmapped)."""
        import fnmatch

        for rule in self.rules:
            if fnmatch.fnmatchcase(rel, rule.pattern):
                return rule
        return None


# The rule set of the ingest in progress, by key: rules hold lambdas, which do not pickle, so
# worker processes (forked after it is set) find it here instead of receiving it.
_ACTIVE: dict[int, RuleSet] = {}


@dataclass
class IngestResult:
    """What an ingest did: counts, skipped and unmapped files, and whether it was a no-op."""

    out: Path
    rows: int
    runs: int
    files: dict[str, int]  # tool -> files ingested
    skipped: dict[str, list[str]] = field(default_factory=dict)  # reason -> files
    dropped: dict[str, int] = field(default_factory=dict)  # file -> rows left out by its rule
    unmapped: list[str] = field(default_factory=list)
    monitor_rows: int = 0
    unchanged: bool = False
    seconds: float = 0.0
    phases: dict[str, float] = field(default_factory=dict)  # seconds per phase (see make bench)
    #: file -> what its output shows of a run that failed (provenance status "failed")
    failed: dict[str, str] = field(default_factory=dict)
    #: file -> what its output shows of a run that failed after results that are kept
    #: (provenance status "partial", see overhead.parsers.cut_short_of)
    partial: dict[str, str] = field(default_factory=dict)

    def describe(self) -> str:
        """Return a short human report."""
        if self.unchanged:
            return (f"{self.out}: up to date ({self.rows} measurement rows, {self.monitor_rows} monitor "
                    f"samples from {sum(self.files.values())} files; nothing changed)")
        lines = [
            f"{self.out}: {self.rows} measurement rows + {self.monitor_rows} monitor samples, "
            f"{self.runs} runs from {sum(self.files.values())} files "
            f"in {self.seconds:.2f} s",
            "  files per tool: " + ", ".join(f"{t} {n}" for t, n in sorted(self.files.items())),
            f"  skipped {sum(len(v) for v in self.skipped.values())} files (reasons in provenance notes and manifest.json)",
        ]
        if self.failed:
            lines.append(f"  FAILED {len(self.failed)} runs (no result; status failed in "
                         "provenance): " + "; ".join(list(self.failed.values())[:3]))
        if self.partial:
            lines.append(f"  PARTIAL {len(self.partial)} runs (results kept, then the run failed; "
                         "status partial in provenance): " + "; ".join(list(self.partial.values())[:3]))
        if self.unmapped:
            lines.append(f"  UNMAPPED {len(self.unmapped)} files (no rule): " + ", ".join(self.unmapped[:5]))
        return "\n".join(lines)

    def to_json(self) -> dict:
        """Return the serializable part, stored in the manifest."""
        return {"rows": self.rows, "monitor_rows": self.monitor_rows, "runs": self.runs, "files": self.files, "skipped": self.skipped,
                "dropped": self.dropped, "unmapped": self.unmapped, "failed": self.failed,
                "partial": self.partial}


def file_sha256(path: str | os.PathLike[str]) -> str:
    """Return the hex SHA-256 of a file's bytes (what provenance and manifests record)."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def _stamp(path: Path) -> list[int] | None:
    """Return the size and modification time of an output we wrote.

    Inputs are hashed; our own outputs only need to be the files we wrote, which size and mtime
    tell without reading them.
    """
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return [st.st_size, st.st_mtime_ns]


def code_hash(ruleset: RuleSet | None = None) -> str:
    """Hash the code that decides what ingest produces.

    That code is the parsers, schema, ingest, and the rule set's own files.

    Parameters
    ----------
    ruleset : RuleSet, optional
        The rule set whose ``code`` files are hashed too.

    Returns
    -------
    str
        The hex SHA-256 of that code.
    """
    here = Path(__file__).parent
    h = hashlib.sha256()
    files = sorted((here / "parsers").rglob("*.py")) + [here / f for f in _CODE_FILES]
    files += list(ruleset.code) if ruleset is not None else []
    for f in files:
        if f.exists():
            h.update(str(f.relative_to(here) if f.is_relative_to(here) else f.name).encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def _walk(root: Path) -> list[str]:
    """List the regular files under ``root``: relative '/'-separated paths, sorted, no dotfiles."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        rel_dir = os.path.relpath(dirpath, root)
        for name in sorted(filenames):
            if name.startswith("."):
                continue
            found.append(name if rel_dir == "." else f"{rel_dir}/{name}".replace(os.sep, "/"))
    return found


def _write_json(path: Path, data: dict) -> None:
    """Write JSON atomically."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w") as fh:
        json.dump(data, fh, indent=1, sort_keys=True)
    os.replace(tmp, path)


def plan(root: Path, ruleset: RuleSet) -> tuple[dict[str, Rule], dict[str, list[str]], list[str]]:
    """Split a tree into files to ingest (with their rule), skipped (by reason) and unmapped.

    Parameters
    ----------
    root : Path
        The raw tree.
    ruleset : RuleSet
        What each file is.

    Returns
    -------
    ingest : dict of str to Rule
        Relative path -> rule for the files a parser reads, in tree order.
    skipped : dict of str to list of str
        Reason -> files skipped by a rule, in tree order.
    unmapped : list of str
        Files no rule matches, in tree order.
    """
    ingest: dict[str, Rule] = {}
    skipped: dict[str, list[str]] = {}
    unmapped: list[str] = []
    for rel in _walk(root):
        rule = ruleset.rule_for(rel)
        if rule is None:
            unmapped.append(rel)
        elif rule.tool is None:
            skipped.setdefault(rule.why, []).append(rel)
        else:
            ingest[rel] = rule
    return ingest, skipped, unmapped


@dataclass
class _Context:
    """What a rule says about one file: its place in the study and the parameters it adds."""

    environment: str | None
    variant: str | None
    trial: int | None
    params: dict
    extras: dict


def _context(rel: str, rule: Rule) -> _Context:
    """Evaluate ``rule`` for file ``rel``."""
    ctx = dict(rule.context(rel)) if rule.context else {}
    environment = ctx.pop("environment", rule.environment)
    variant = ctx.pop("variant", rule.variant)
    trial = ctx.pop("trial", None)
    params = {**rule.params, **{k: v for k, v in ctx.items() if k.startswith("p_")}}
    extras = {k: v for k, v in ctx.items() if not k.startswith("p_")}
    return _Context(environment, variant, trial, params, extras)


def _keep(df, rule: Rule):
    """Apply the rule's row filter to a parsed frame; returns (frame, rows dropped)."""
    if rule.keep is None:
        return df, 0
    mask = rule.keep(df).to_numpy(dtype=bool)
    df = df[mask].reset_index(drop=True)
    if df["trial"].notna().any():
        # Renumber the trials that are left 1..n (the file's first half was left out).
        order = {t: i + 1 for i, t in enumerate(sorted(df["trial"].dropna().unique()))}
        df["trial"] = df["trial"].map(order).astype("Int64")
    return df, int((~mask).sum())


def _with_context(table, items: list[tuple[str, Rule, _Context, int]], campaign: str):
    """Add to parsed rows of one or more files the context columns their rules give.

    ``table`` is a pyarrow Table, the files' rows one after another. The context columns are
    campaign, environment, variant, benchmark, run_id, trial (where the rule numbers it) and the
    rules' parameters.

    ``items`` lists (path, rule, context, row count) per file, in table order. Each column is
    built from one value per file repeated by code (a dictionary for strings), so neither
    millions of dstat samples nor a hundred small sysbench files cost a Python loop per row.
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    counts = np.array([n for *_, n in items], dtype=np.int64)
    codes = pa.array(np.repeat(np.arange(len(items), dtype=np.int32), counts))

    def per_file(values, kind):
        if kind == pa.string():
            # distinct non-null values as the dictionary (Parquet cannot store a null in one)
            distinct = [v for v in dict.fromkeys(values) if v is not None]
            index = {v: k for k, v in enumerate(distinct)}
            file_codes = np.array([index.get(v, -1) for v in values], dtype=np.int32)
            row_codes = np.repeat(file_codes, counts)
            return pa.DictionaryArray.from_arrays(pa.array(row_codes, mask=row_codes < 0),
                                                  pa.array(distinct, pa.string()))
        return pa.array(values, kind).take(codes)

    def kind_of(values):
        v = next((x for x in values if x is not None), None)
        return (pa.bool_() if isinstance(v, bool) else pa.int64() if isinstance(v, int)
                else pa.float64() if isinstance(v, float) else pa.string())

    columns = {
        "campaign": per_file([campaign] * len(items), pa.string()),
        "environment": per_file([c.environment for _, _, c, _ in items], pa.string()),
        "variant": per_file([c.variant for _, _, c, _ in items], pa.string()),
        "benchmark": per_file([r.benchmark for _, r, _, _ in items], pa.string()),
    }
    runs = per_file([run_id(rel, campaign) for rel, *_ in items], pa.string())
    if "p_block" in table.column_names and table.column("p_block").null_count < table.num_rows:
        blocks = table.column("p_block")
        joined = pc.binary_join_element_wise(pc.cast(runs, pa.string()), "#block",
                                             pc.cast(blocks, pa.string()), "")
        runs = pc.if_else(pc.is_valid(blocks), joined, pc.cast(runs, pa.string()))
    columns["run_id"] = runs
    trials = [c.trial for _, _, c, _ in items]
    if any(t is not None for t in trials):
        fixed = per_file(trials, pa.int64())
        columns["trial"] = pc.if_else(pc.is_valid(fixed), fixed, table.column("trial"))
    for name in sorted({k for _, _, c, _ in items for k in c.params}):
        values = [c.params.get(name) for _, _, c, _ in items]
        kind = kind_of(values)
        col = per_file(values, kind)
        if name in table.column_names and kind != pa.string():
            # a rule's parameter wins where it gives one; elsewhere the parsed value stays
            col = pc.if_else(pc.is_valid(col), col, pc.cast(table.column(name), kind))
        columns[name] = col
    for name, col in columns.items():
        if name in table.column_names:
            table = table.set_column(table.column_names.index(name), name, col)
        else:
            table = table.append_column(name, col)
    params = sorted(c for c in table.column_names if c.startswith("p_"))
    return table.select([c for c in table.column_names if not c.startswith("p_")] + params)


def _run_ids(df, rel: str, campaign: str):
    """Return the run id of each row of one file's parsed frame (LINPACK blocks are own runs)."""
    base = run_id(rel, campaign)
    if "p_block" in df.columns and df["p_block"].notna().any():
        return (base + "#block" + df["p_block"].astype("string")).fillna(base)
    return None


def run_id(rel: str, campaign: str) -> str:
    """Return a short, stable run id for raw file ``rel``: the campaign and a hash of the path.

    The path itself is in provenance (source_file) and in every row's ``source``; repeating it
    in run_id cost a fifth of the ingest time for the 2.2 million dstat rows.

    Parameters
    ----------
    rel : str
        The raw file's path relative to the tree's root.
    campaign : str
        The campaign, the run id's prefix.

    Returns
    -------
    str
        ``campaign:`` followed by the first 12 hex digits of the path's SHA-256.
    """
    return f"{campaign}:{hashlib.sha256(rel.encode()).hexdigest()[:12]}"


def _provenance(df, rel: str, sha: str, rule: Rule, ctx: _Context, ruleset: RuleSet,
                failure: str | None = None):
    """Build one provenance row per run of a file (JSON-serializable values).

    Parameters
    ----------
    df : pandas.DataFrame
        The parsed (and filtered) rows; no rows for a failed run.
    rel, sha : str
        The raw file: its relative path and SHA-256.
    rule : Rule
        The rule that maps the file.
    ctx : _Context
        What the rule says about the file.
    ruleset : RuleSet
        For the campaign and the environment's facts.
    failure : str, optional
        What the output shows of a run that did not finish (its RunFailed message): the
        file's one run then has status ``failed``; with rows (the complete part of a run cut
        short, :func:`overhead.parsers.cut_short_of`), the file's last run has status
        ``partial``.
    """
    from overhead.schema import PROVENANCE_COLUMNS

    rows = []
    campaign = ruleset.campaign
    facts = dict(ruleset.facts(ctx.environment, ctx.variant)) if ruleset.facts else {}
    facts.update({k: v for k, v in ctx.extras.items() if k in PROVENANCE_COLUMNS})
    ids = _run_ids(df, rel, campaign)
    groups = [(run_id(rel, campaign), df)] if ids is None else [(r, df[(ids == r).to_numpy()]) for r in ids.unique()]
    for i, (run, g) in enumerate(groups):

        def first(col, g=g):
            if col not in g or not g[col].notna().any():
                return None
            v = g[col].dropna().iloc[0]
            return v.item() if hasattr(v, "item") else v

        numa = first("p_numa")
        notes = [rule.why] + (["left out: " + rule.keep_why] if rule.keep_why else [])
        started = g["started_at"].min() if g["started_at"].notna().any() else None
        rows.append({
            "run_id": run, "campaign": campaign, "environment": ctx.environment,
            "variant": ctx.variant, "host": first("host"), "tool": rule.tool,
            "tool_version": first("tool_version"), "source_file": rel, "source_sha256": sha,
            "started_at": started.isoformat() if started is not None else None,
            "cpu_ghz": first("p_cpu_ghz"),
            "command_line": f"numactl {numa}" if numa else None,
            "notes": "; ".join(notes),
            **facts,  # governor, accelerator, ... (schema.conform orders the columns)
            **_status(g, failure if i == len(groups) - 1 else None),
        })
    return rows


def _status(rows, failure: str | None) -> dict:
    """Return a run's provenance status: done, partial (rows, then a failure) or failed (no rows)."""
    if not failure:
        return {"status": "done", "failure": None}
    return {"status": "partial" if len(rows) else "failed", "failure": failure}


def monitor_part(rel: str) -> str:
    """Return the file name of the monitor part written for raw file ``rel`` (readable, unique)."""
    return rel.replace("/", "__") + ".parquet"


def _work(root: Path, rels: list[str], hashes: dict[str, str], monitor_dir: Path, key: int):
    """Parse a chunk of files (in a worker process or in-process).

    Monitor time series are written straight to ``monitor_dir`` (one Parquet part per raw
    file: no need to ship millions of rows back); benchmark rows of the whole chunk are
    concatenated into one Arrow table and returned with the provenance rows, drop counts and
    seconds spent per phase. A ParseError propagates with the file and line.
    """
    from overhead import parsers, schema

    ruleset = _ACTIVE[key]  # rules hold lambdas, which do not pickle: inherited through fork
    frames, items, prov, dropped = [], [], [], {}
    spent: dict[str, float] = {}  # seconds per phase ("parse <tool>", ...), for make bench
    for rel in rels:
        rule = ruleset.rule_for(rel)
        ctx = _context(rel, rule)
        if not ctx.environment:
            raise ParseError(rel, None, "the ingest rule gives this file no environment")
        t0 = time.perf_counter()
        parse = f"parse {rule.tool}"
        try:
            # a monitor format with a wide form is stored as it is (overhead.wide)
            got = (parsers.parse_file_wide(rule.tool, root / rel, name=rel)
                   if rule.tool in MONITOR_TOOLS and rule.keep is None else None)
            df = parsers.parse_file(rule.tool, root / rel, name=rel) if got is None else None
        except parsers.RunFailed as exc:
            # the tool ran and failed: a run of this environment, recorded as failed with what
            # its output shows, not a reason to stop (nor to drop it without a word)
            prov.extend(_provenance(schema.frame([]), rel, hashes[rel], rule, ctx, ruleset,
                                    failure=str(exc)))
            spent[parse] = spent.get(parse, 0.0) + time.perf_counter() - t0
            continue
        if got is not None:
            table, cut = got
            t1 = time.perf_counter()
            spent[parse] = spent.get(parse, 0.0) + t1 - t0
            prov.extend(_provenance(_wide_summary(table), rel, hashes[rel], rule, ctx, ruleset,
                                    failure=cut))
            schema.write_table(_wide_context(table, rel, rule, ctx, ruleset.campaign),
                               monitor_dir / monitor_part(rel))
            spent["write monitor parts"] = spent.get("write monitor parts", 0.0) + time.perf_counter() - t1
            continue
        cut = parsers.cut_short_of(df)
        df, n_dropped = _keep(df, rule)
        t1 = time.perf_counter()
        spent[parse] = spent.get(parse, 0.0) + t1 - t0
        prov.extend(_provenance(df, rel, hashes[rel], rule, ctx, ruleset, failure=cut))
        if n_dropped:
            dropped[rel] = n_dropped
        if rule.tool in MONITOR_TOOLS:
            table = _with_context(schema.to_arrow(schema.validate(df)), [(rel, rule, ctx, len(df))],
                                  ruleset.campaign)
            schema.write_table(table, monitor_dir / monitor_part(rel))
            spent["write monitor parts"] = spent.get("write monitor parts", 0.0) + time.perf_counter() - t1
        elif len(df):
            frames.append(df)
            items.append((rel, rule, ctx, len(df)))
    if not frames:
        return None, prov, dropped, spent
    t1 = time.perf_counter()
    # files of one tool and kind share columns: one check and conversion per group
    table = schema.frames_to_arrow(frames, schema.validate)
    table = _with_context(table, items, ruleset.campaign)
    spent["combine rows"] = time.perf_counter() - t1
    return table, prov, dropped, spent


def _long_rows(part: Path) -> int:
    """Count the tidy (long) rows of a monitor part, wide (:mod:`overhead.wide`) or long."""
    import pyarrow.parquet as pq

    from overhead import wide

    schema = pq.read_schema(part)
    return wide.long_rows(schema) if wide.is_wide(schema) else pq.ParquetFile(part).metadata.num_rows


def _wide_summary(table):
    """Give :func:`_provenance` what it reads of a wide monitor table: host, version, start."""
    import pandas as pd
    import pyarrow.compute as pc

    def first(name):
        if name not in table.column_names:
            return None
        col = table.column(name).drop_null()
        return col[0].as_py() if len(col) else None

    started = pc.min(table.column("started_at")).as_py() if "started_at" in table.column_names else None
    return pd.DataFrame({"host": [first("host")], "tool_version": [first("tool_version")],
                         "started_at": pd.Series([started], dtype="datetime64[ns, UTC]")})


def _wide_context(table, rel: str, rule: Rule, ctx: _Context, campaign: str):
    """Add a rule's context columns (:func:`_with_context`) to a wide monitor table."""
    import pyarrow as pa

    meta = table.schema.metadata  # how to melt it (overhead.wide)
    if ctx.trial is not None and "trial" not in table.column_names:
        table = table.append_column("trial", pa.nulls(table.num_rows, pa.int64()))
    table = _with_context(table, [(rel, rule, ctx, table.num_rows)], campaign)
    return table.replace_schema_metadata(meta)


def _chunks(root: Path, rels: list[str], n: int) -> list[list[str]]:
    """Split files into ``n`` chunks of about equal total size (largest first, greedy)."""
    chunks: list[list[str]] = [[] for _ in range(n)]
    sizes = [0] * n
    for rel in sorted(rels, key=lambda r: -(root / r).stat().st_size):
        k = sizes.index(min(sizes))
        chunks[k].append(rel)
        sizes[k] += (root / rel).stat().st_size
    return [c for c in chunks if c]


def _parse_all(root: Path, files: dict, hashes: dict, monitor_dir: Path, workers: int, key: int,
               meanwhile=None):
    """Parse every planned file in ``workers`` processes.

    ``meanwhile`` runs in this process while the workers parse. Returns (tables, provenance,
    dropped, result of ``meanwhile()``, seconds spent per phase).
    """
    chunks = _chunks(root, list(files), max(1, workers))
    # Import the heavy libraries and the parsers once, before forking: workers inherit them.
    import pandas  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    from overhead import parsers, schema  # noqa: F401

    for tool in {rule.tool for rule in files.values()}:
        parsers.module(tool)
    if len(chunks) <= 1:
        results = [_work(root, c, hashes, monitor_dir, key) for c in chunks]
        extra = meanwhile() if meanwhile else None
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=len(chunks), mp_context=ctx,
                                 initializer=locks.die_with_parent,
                                 initargs=(os.getpid(),)) as pool:
            futures = [pool.submit(_work, root, c, hashes, monitor_dir, key) for c in chunks]
            extra = meanwhile() if meanwhile else None
            results = [f.result() for f in futures]
    tables = [t for t, _, _, _ in results if t is not None]
    prov = [row for _, p, _, _ in results for row in p]
    dropped = {k: v for _, _, d, _ in results for k, v in d.items()}
    spent: dict[str, float] = {}
    for *_, s in results:
        for k, v in s.items():
            spent[k] = spent.get(k, 0.0) + v
    return tables, prov, dropped, extra, spent


def ingest(root: str | os.PathLike[str], out: str | os.PathLike[str], ruleset: RuleSet, *,
           force: bool = False, workers: int | None = None) -> IngestResult:
    """Ingest the raw tree at ``root`` into Parquet tables under ``out``, as ``ruleset`` says.

    Writes measurements.parquet (benchmark results), monitor/ (one Parquet part per
    system-monitor file), provenance.parquet (one row per run) and reference.parquet (the rule
    set's reference rows, if any). Cached on content: a re-run whose inputs, code and outputs
    are unchanged returns at once.

    Parameters
    ----------
    root : path
        The raw tree.
    out : path
        The output folder (created).
    ruleset : RuleSet
        What each file is.
    force : bool
        Re-parse even when nothing changed.
    workers : int, optional
        Parsing processes (default: the CPU count, at most 4).

    Returns
    -------
    IngestResult
        Counts, skipped and unmapped files, and whether nothing changed.

    Raises
    ------
    ParseError
        When a mapped file does not parse (naming file and line); the previous tables are then
        left as they were.
    """
    started = time.perf_counter()
    root, out = Path(root), Path(out)
    out.mkdir(parents=True, exist_ok=True)
    # One ingest per output folder at a time (two notebooks opened together, two test workers):
    # a second one waits, then finds the tables up to date.
    with locks.wait(out / LOCK):
        return _ingest(root, out, ruleset, force, workers, started)


def _ingest(root: Path, out: Path, ruleset: RuleSet, force: bool, workers: int | None,
            started: float) -> IngestResult:
    """Do :func:`ingest`'s work, with the folder's lock held."""
    files_plan, skipped, unmapped = plan(root, ruleset)
    hashes = {rel: file_sha256(root / rel) for rel in files_plan}
    chash = code_hash(ruleset)
    manifest_path = out / MANIFEST
    monitor_dir = out / MONITOR
    if not force and manifest_path.exists():
        try:
            manifest = json.loads(manifest_path.read_text())
        except json.JSONDecodeError:
            manifest = {}
        recorded = manifest.get("outputs", {})
        outputs_ok = bool(recorded) and all(_stamp(out / name) == stamp for name, stamp in recorded.items())
        if (outputs_ok and manifest.get("code") == chash and manifest.get("inputs") == hashes
                and manifest.get("root") == str(root.resolve())):
            r = manifest["result"]
            return IngestResult(out, r["rows"], r["runs"], r["files"], r["skipped"], r["dropped"],
                                r["unmapped"], monitor_rows=r["monitor_rows"], unchanged=True,
                                seconds=time.perf_counter() - started, failed=r.get("failed", {}),
                                partial=r.get("partial", {}))

    # New parts go to a fresh folder that replaces the old one only when everything parsed.
    staging = Path(tempfile.mkdtemp(prefix=".monitor.", dir=out))
    try:
        workers = workers if workers is not None else min(4, os.cpu_count() or 1)
        # The rule set's reference rows (a study's spreadsheets) are read here while the
        # workers parse the raw files.
        key = id(ruleset)
        _ACTIVE[key] = ruleset
        phases = {"plan and hash inputs": time.perf_counter() - started}

        def meanwhile():
            t = time.perf_counter()
            rows = ruleset.reference(root) if ruleset.reference else None
            phases["reference rows (meanwhile)"] = time.perf_counter() - t
            return rows

        t = time.perf_counter()
        tables, prov, dropped, sheets, spent = _parse_all(root, files_plan, hashes, staging, workers, key,
                                                          meanwhile=meanwhile)
        phases[f"parse (wall, {workers} workers)"] = time.perf_counter() - t
        phases.update({f"  {k} (worker CPU)": v for k, v in sorted(spent.items())})
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        _ACTIVE.pop(id(ruleset), None)

    import pandas as pd

    from overhead import schema

    t = time.perf_counter()
    first_seen: dict[str, str] = {}
    by_file = {rel: [] for rel in files_plan}
    for row in prov:
        by_file[row["source_file"]].append(row)
    prov = []
    for rel in files_plan:  # provenance in tree order, duplicates noted against the first copy
        duplicate_of = first_seen.setdefault(hashes[rel], rel)
        for row in by_file[rel]:
            if duplicate_of != rel:
                row["notes"] += f"; byte-identical to {duplicate_of}"
            prov.append(row)
    files: dict[str, int] = {}
    for rule in files_plan.values():
        files[rule.tool] = files.get(rule.tool, 0) + 1
    measurements = schema.concat_arrow(tables)
    provenance = schema.conform(pd.DataFrame.from_records(prov), schema.PROVENANCE_COLUMNS)
    spreadsheets = schema.conform(sheets if sheets is not None else schema.frame([]))
    spreadsheets["campaign"] = ruleset.campaign
    schema.validate(spreadsheets)
    for name, table in zip(TABLES, (measurements, schema.to_arrow(provenance),
                                    schema.to_arrow(spreadsheets)), strict=True):
        schema.write_table(table, out / name)
    old = out / f".{MONITOR}.old"
    shutil.rmtree(old, ignore_errors=True)
    schema.write_schema_part(staging)
    if monitor_dir.exists():
        monitor_dir.rename(old)
    staging.rename(monitor_dir)
    shutil.rmtree(old, ignore_errors=True)
    parts = sorted(monitor_dir.iterdir())
    monitor_rows = sum(_long_rows(p) for p in parts)
    outputs = {name: _stamp(out / name) for name in TABLES}
    outputs.update({f"{MONITOR}/{p.name}": _stamp(p) for p in parts})
    failed, partial = ({row["source_file"]: row["failure"] for row in prov if row.get("status") == s}
                       for s in ("failed", "partial"))
    result = IngestResult(out, measurements.num_rows, provenance["run_id"].nunique(), files, skipped,
                          dropped, unmapped, monitor_rows=monitor_rows, failed=failed,
                          partial=partial)
    _write_json(manifest_path, {"root": str(root.resolve()), "code": chash, "inputs": hashes,
                                "outputs": outputs, "result": result.to_json()})
    phases["combine and write tables"] = time.perf_counter() - t
    result.seconds = time.perf_counter() - started
    result.phases = phases
    return result
