"""Turn a tree of raw outputs into the tidy Parquet tables.

:func:`ingest_ibm` walks the IBM authors' repository, decides per file with
:mod:`overhead.ibm`'s rules what it is, parses it, adds the context (campaign, environment,
variant, run_id), and writes ``measurements.parquet``, ``provenance.parquet`` and
``reference.parquet`` (the values that exist only in the authors' spreadsheets).

Caching works on content: every mapped file is hashed (SHA-256) and the hashes are kept in
``manifest.json`` with the hashes of the outputs and of the code. A re-run whose files, code
and outputs are unchanged returns at once without importing pandas; any change re-parses the
tree (two processes; about two seconds for the authors' 26 MB).
All writes go to a temporary file renamed into place, so an interrupted ingest leaves the
previous tables intact. pandas is imported inside functions for that fast path.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from overhead import ibm
from overhead.errors import ParseError

__all__ = ["IngestResult", "ParseError", "ingest_ibm", "summary_table"]

MANIFEST = "manifest.json"
TABLES = ("measurements.parquet", "provenance.parquet", "reference.parquet")
MONITOR = "monitor"
LOCK = ".ingest.lock"
#: Tools whose output is a system-monitor time series (one row per sample and counter). Their
#: rows keep the tidy schema but go to monitor/, one Parquet part per raw file: they are 97% of
#: the IBM rows, share no parameters with the benchmarks, and would otherwise make every
#: benchmark query scan them (and every ingest copy them between processes).
MONITOR_TOOLS = frozenset({"dstat", "mpstat", "vmstat"})
_CODE_FILES = ("schema.py", "ibm.py", "ingest.py", "reference.py")


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

    def describe(self) -> str:
        """A short human report."""
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
        if self.unmapped:
            lines.append(f"  UNMAPPED {len(self.unmapped)} files (no rule): " + ", ".join(self.unmapped[:5]))
        return "\n".join(lines)

    def to_json(self) -> dict:
        """The serializable part, stored in the manifest."""
        return {"rows": self.rows, "monitor_rows": self.monitor_rows, "runs": self.runs, "files": self.files, "skipped": self.skipped,
                "dropped": self.dropped, "unmapped": self.unmapped}


def _sha256(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def _stamp(path: Path) -> list[int] | None:
    """Size and modification time of an output we wrote (inputs are hashed; our own outputs
    only need to be the files we wrote, which size and mtime tell without reading them)."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return [st.st_size, st.st_mtime_ns]


def code_hash() -> str:
    """A hash of the code that decides what ingest produces (parsers, rules, schema)."""
    here = Path(__file__).parent
    h = hashlib.sha256()
    files = sorted((here / "parsers").glob("*.py")) + [here / f for f in _CODE_FILES]
    for f in files:
        if f.exists():
            h.update(f.name.encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def _walk(root: Path) -> list[str]:
    """Relative '/'-separated paths of all regular files under ``root``, sorted, dotfiles excluded."""
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


def _plan(root: Path) -> tuple[dict[str, ibm.Rule], dict[str, list[str]], list[str]]:
    """Split the tree into files to ingest (with their rule), skipped (by reason) and unmapped."""
    ingest: dict[str, ibm.Rule] = {}
    skipped: dict[str, list[str]] = {}
    unmapped: list[str] = []
    for rel in _walk(root):
        rule = ibm.rule_for(rel)
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


def _context(rel: str, rule: ibm.Rule) -> _Context:
    """Evaluate ``rule`` for file ``rel``."""
    ctx = dict(rule.context(rel)) if rule.context else {}
    environment = ctx.pop("environment", rule.environment)
    variant = ctx.pop("variant", rule.variant)
    trial = ctx.pop("trial", None)
    params = {**rule.params, **{k: v for k, v in ctx.items() if k.startswith("p_")}}
    extras = {k: v for k, v in ctx.items() if not k.startswith("p_")}
    return _Context(environment, variant, trial, params, extras)


def _keep(df, rule: ibm.Rule):
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


def _with_context(table, items: list[tuple[str, ibm.Rule, _Context, int]]):
    """Parsed rows of one or more files (a pyarrow Table, the files' rows one after another)
    with the context columns their rules give: campaign, environment, variant, benchmark,
    run_id, trial (where the rule numbers it) and the rules' parameters.

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
        "campaign": per_file([ibm.CAMPAIGN] * len(items), pa.string()),
        "environment": per_file([c.environment for _, _, c, _ in items], pa.string()),
        "variant": per_file([c.variant for _, _, c, _ in items], pa.string()),
        "benchmark": per_file([r.benchmark for _, r, _, _ in items], pa.string()),
    }
    runs = per_file([run_id(rel) for rel, *_ in items], pa.string())
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


def _run_ids(df, rel: str):
    """The run id of every row of one file's parsed frame (LINPACK blocks are runs of their own)."""
    base = run_id(rel)
    if "p_block" in df.columns and df["p_block"].notna().any():
        return (base + "#block" + df["p_block"].astype("string")).fillna(base)
    return None


def run_id(rel: str) -> str:
    """A short, stable run id for raw file ``rel``: the campaign and a hash of the path.

    The path itself is in provenance (source_file) and in every row's ``source``; repeating it
    in run_id cost a fifth of the ingest time for the 2.2 million dstat rows.
    """
    return f"{ibm.CAMPAIGN}:{hashlib.sha256(rel.encode()).hexdigest()[:12]}"


def _provenance(df, rel: str, sha: str, rule: ibm.Rule, ctx: _Context):
    """One provenance row per run of a file (JSON-serializable values).

    Parameters: df, the parsed (and filtered) rows; rel and sha, the raw file; rule and ctx,
    what the rule says about it.
    """
    rows = []
    ids = _run_ids(df, rel)
    groups = [(run_id(rel), df)] if ids is None else [(r, df[(ids == r).to_numpy()]) for r in ids.unique()]
    for run, g in groups:

        def first(col, g=g):
            if col not in g or not g[col].notna().any():
                return None
            v = g[col].dropna().iloc[0]
            return v.item() if hasattr(v, "item") else v

        numa = first("p_numa")
        notes = [rule.why] + (["left out: " + rule.keep_why] if rule.keep_why else [])
        started = g["started_at"].min() if g["started_at"].notna().any() else None
        rows.append({
            "run_id": run, "campaign": ibm.CAMPAIGN, "environment": ctx.environment,
            "variant": ctx.variant, "host": first("host"), "tool": rule.tool,
            "tool_version": first("tool_version"), "source_file": rel, "source_sha256": sha,
            "started_at": started.isoformat() if started is not None else None,
            "cpu_ghz": first("p_cpu_ghz"), "governor": ctx.extras.get("governor"),
            # The authors ran KVM with hardware acceleration; no TCG anywhere in their data.
            "accelerator": "kvm" if ctx.environment == "kvm" else None,
            "command_line": f"numactl {numa}" if numa else None,
            "notes": "; ".join(notes),
        })
    return rows


def monitor_part(rel: str) -> str:
    """File name of the monitor part written for raw file ``rel`` (readable, unique)."""
    return rel.replace("/", "__") + ".parquet"


def _work(root: Path, rels: list[str], hashes: dict[str, str], monitor_dir: Path):
    """Parse a chunk of files (in a worker process or in-process).

    Monitor time series are written straight to ``monitor_dir`` (one Parquet part per raw
    file: no need to ship millions of rows back); benchmark rows of the whole chunk are
    concatenated into one Arrow table and returned with the provenance rows and drop counts.
    A ParseError propagates with the file and line.
    """
    import numpy as np
    import pandas as pd

    from overhead import parsers, schema

    frames, items, prov, dropped = [], [], [], {}
    for rel in rels:
        rule = ibm.rule_for(rel)  # rules hold lambdas, which do not pickle: look up by path
        ctx = _context(rel, rule)
        if not ctx.environment:
            raise ParseError(rel, None, "the ingest rule gives this file no environment")
        df = parsers.parse_file(rule.tool, root / rel, name=rel)
        df, n_dropped = _keep(df, rule)
        prov.extend(_provenance(df, rel, hashes[rel], rule, ctx))
        if n_dropped:
            dropped[rel] = n_dropped
        if rule.tool in MONITOR_TOOLS:
            table = _with_context(schema.to_arrow(schema.validate(df)), [(rel, rule, ctx, len(df))])
            schema.write_table(table, monitor_dir / monitor_part(rel))
        elif len(df):
            frames.append(df)
            items.append((rel, rule, ctx, len(df)))
    if not frames:
        return None, prov, dropped
    # Files of one tool and kind have the same columns: concatenate those groups in pandas
    # (no reindexing), validate and convert each group once, and let Arrow unify the groups'
    # parameter columns (a missing column is free there). Per file, validate/to_arrow would cost
    # more than parsing a small sysbench file; one pandas concat over all files spent most of its
    # time filling the columns each file lacks.
    groups: dict[tuple, list[int]] = {}
    for i, f in enumerate(frames):
        groups.setdefault(tuple(zip(f.columns, map(str, f.dtypes), strict=True)), []).append(i)
    order = [i for members in groups.values() for i in members]
    tables = [schema.to_arrow(schema.validate(pd.concat([frames[i] for i in members], ignore_index=True)))
              for members in groups.values()]
    table = schema.concat_arrow(tables)
    # back to the files' order (rows in tree order, as one concat over all files gave them)
    starts = np.cumsum([0] + [len(frames[i]) for i in order])
    where = dict(zip(order, starts[:-1], strict=True))
    table = table.take(np.concatenate([np.arange(where[i], where[i] + len(f)) for i, f in enumerate(frames)]))
    return _with_context(table, items), prov, dropped


def _chunks(root: Path, rels: list[str], n: int) -> list[list[str]]:
    """Split files into ``n`` chunks of about equal total size (largest first, greedy)."""
    chunks: list[list[str]] = [[] for _ in range(n)]
    sizes = [0] * n
    for rel in sorted(rels, key=lambda r: -(root / r).stat().st_size):
        k = sizes.index(min(sizes))
        chunks[k].append(rel)
        sizes[k] += (root / rel).stat().st_size
    return [c for c in chunks if c]


def _parse_all(root: Path, plan: dict, hashes: dict, monitor_dir: Path, workers: int, meanwhile=None):
    """Parse every planned file in ``workers`` processes; returns (tables, provenance, dropped,
    result of ``meanwhile()``), running ``meanwhile`` in this process while the workers parse."""
    chunks = _chunks(root, list(plan), max(1, workers))
    # Import the heavy libraries and the parsers once, before forking: workers inherit them.
    import pandas  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    from overhead import parsers, schema  # noqa: F401

    for tool in {rule.tool for rule in plan.values()}:
        parsers.module(tool)
    if len(chunks) <= 1:
        results = [_work(root, c, hashes, monitor_dir) for c in chunks]
        extra = meanwhile() if meanwhile else None
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=len(chunks), mp_context=ctx) as pool:
            futures = [pool.submit(_work, root, c, hashes, monitor_dir) for c in chunks]
            extra = meanwhile() if meanwhile else None
            results = [f.result() for f in futures]
    tables = [t for t, _, _ in results if t is not None]
    prov = [row for _, p, _ in results for row in p]
    dropped = {k: v for _, _, d in results for k, v in d.items()}
    return tables, prov, dropped, extra


def ingest_ibm(root: str | os.PathLike[str], out: str | os.PathLike[str], *, force: bool = False,
               workers: int | None = None) -> IngestResult:
    """Ingest the IBM authors' tree at ``root`` into Parquet tables under ``out``.

    Writes measurements.parquet (benchmark results), monitor/ (one Parquet part per dstat
    file: the system-monitor samples), provenance.parquet and reference.parquet.
    Parameters: root, the checkout of thewmf/kvm-docker-comparison; out, the output folder;
    force, re-parse even when nothing changed; workers, parsing processes (default: the CPU
    count, at most 4). Raises ParseError (naming file and line) when a mapped file does not
    parse; the previous tables are then left as they were.
    """
    started = time.perf_counter()
    root, out = Path(root), Path(out)
    out.mkdir(parents=True, exist_ok=True)
    # One ingest per output folder at a time (two notebooks opened together, two test workers):
    # a second one waits, then finds the tables up to date.
    with _locked(out / LOCK):
        return _ingest(root, out, force, workers, started)


@contextlib.contextmanager
def _locked(path: Path):
    """Hold an exclusive advisory lock (flock) on ``path`` for the duration of the block."""
    import fcntl

    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _ingest(root: Path, out: Path, force: bool, workers: int | None, started: float) -> IngestResult:
    """ingest_ibm's work, with the folder's lock held."""
    plan, skipped, unmapped = _plan(root)
    hashes = {rel: _sha256(root / rel) for rel in plan}
    chash = code_hash()
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
                                seconds=time.perf_counter() - started)

    # New parts go to a fresh folder that replaces the old one only when everything parsed.
    staging = Path(tempfile.mkdtemp(prefix=".monitor.", dir=out))
    try:
        workers = workers if workers is not None else min(4, os.cpu_count() or 1)
        # The authors' spreadsheets are read here while the workers parse the raw files.
        from overhead import reference

        tables, prov, dropped, sheets = _parse_all(root, plan, hashes, staging, workers,
                                                   meanwhile=lambda: reference.ibm_spreadsheets(root))
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise

    import pandas as pd
    import pyarrow.parquet as pq

    from overhead import schema

    first_seen: dict[str, str] = {}
    by_file = {rel: [] for rel in plan}
    for row in prov:
        by_file[row["source_file"]].append(row)
    prov = []
    for rel in plan:  # provenance in tree order, duplicates noted against the first copy
        duplicate_of = first_seen.setdefault(hashes[rel], rel)
        for row in by_file[rel]:
            if duplicate_of != rel:
                row["notes"] += f"; byte-identical to {duplicate_of}"
            prov.append(row)
    files: dict[str, int] = {}
    for rule in plan.values():
        files[rule.tool] = files.get(rule.tool, 0) + 1
    measurements = schema.concat_arrow(tables)
    provenance = schema.conform(pd.DataFrame.from_records(prov), schema.PROVENANCE_COLUMNS)
    spreadsheets = schema.conform(sheets)
    spreadsheets["campaign"] = ibm.CAMPAIGN
    schema.validate(spreadsheets)
    for name, table in zip(TABLES, (measurements, schema.to_arrow(provenance),
                                    schema.to_arrow(spreadsheets)), strict=True):
        schema.write_table(table, out / name)
    old = out / f".{MONITOR}.old"
    shutil.rmtree(old, ignore_errors=True)
    if monitor_dir.exists():
        monitor_dir.rename(old)
    staging.rename(monitor_dir)
    shutil.rmtree(old, ignore_errors=True)
    parts = sorted(monitor_dir.iterdir())
    monitor_rows = sum(pq.ParquetFile(p).metadata.num_rows for p in parts)
    outputs = {name: _stamp(out / name) for name in TABLES}
    outputs.update({f"{MONITOR}/{p.name}": _stamp(p) for p in parts})
    result = IngestResult(out, measurements.num_rows, provenance["run_id"].nunique(), files, skipped,
                          dropped, unmapped, monitor_rows=monitor_rows)
    _write_json(manifest_path, {"root": str(root.resolve()), "code": chash, "inputs": hashes,
                                "outputs": outputs, "result": result.to_json()})
    result.seconds = time.perf_counter() - started
    return result


def summary_table(path: str | os.PathLike[str]) -> str:
    """Rows per benchmark and environment (the paper's labels) of a measurements table, as text."""
    import pandas as pd

    df = pd.read_parquet(path, columns=["benchmark", "environment", "variant", "run_id"])
    df["label"] = [ibm.label(e, v) for e, v in zip(df["environment"], df["variant"], strict=True)]
    counts = df.pivot_table(index="benchmark", columns="label", values="run_id", aggfunc="size",
                            fill_value=0)
    counts = counts[[c for c in ibm.LABEL_ORDER if c in counts.columns]
                    + sorted(c for c in counts.columns if c not in ibm.LABEL_ORDER)]
    counts["total"] = counts.sum(axis=1)
    counts.loc["total"] = counts.sum(axis=0)
    runs = df.groupby("benchmark")["run_id"].nunique()
    counts["runs"] = runs.reindex(counts.index)
    counts.loc["total", "runs"] = df["run_id"].nunique()
    counts["runs"] = counts["runs"].astype(int)
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        return "Rows per benchmark and environment (tidy rows; runs = distinct run_id)\n" + counts.to_string()

