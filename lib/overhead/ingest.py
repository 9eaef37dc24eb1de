"""Turn a tree of raw outputs into the tidy Parquet tables.

:func:`ingest_ibm` walks the IBM authors' repository, decides per file with
:mod:`overhead.ibm`'s rules what it is, parses it, adds the context (campaign, environment,
variant, run_id), and writes ``measurements.parquet``, ``provenance.parquet`` and
``reference.parquet`` (the values that exist only in the authors' spreadsheets).

Caching works on content: every mapped file is hashed (SHA-256). A re-run whose files, code
and outputs are unchanged returns at once without importing pandas; a re-run where some files
changed re-parses only those (per-file results are cached under ``<out>/.cache/``).
All writes go to a temporary file renamed into place, so an interrupted ingest leaves the
previous tables intact. pandas is imported inside functions for that fast path.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from overhead import ibm
from overhead.parsers._common import ParseError

__all__ = ["IngestResult", "ParseError", "ingest_ibm", "summary_table"]

MANIFEST = "manifest.json"
TABLES = ("measurements.parquet", "provenance.parquet", "reference.parquet")
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
    reparsed: int = 0
    unchanged: bool = False
    seconds: float = 0.0

    def describe(self) -> str:
        """A short human report."""
        if self.unchanged:
            head = f"{self.out}: up to date ({self.rows} rows from {sum(self.files.values())} files; nothing changed)"
            return head
        lines = [
            f"{self.out}: {self.rows} rows, {self.runs} runs from {sum(self.files.values())} files "
            f"({self.reparsed} parsed, the rest from cache) in {self.seconds:.2f} s",
            "  files per tool: " + ", ".join(f"{t} {n}" for t, n in sorted(self.files.items())),
            f"  skipped {sum(len(v) for v in self.skipped.values())} files (reasons in provenance notes and manifest.json)",
        ]
        if self.unmapped:
            lines.append(f"  UNMAPPED {len(self.unmapped)} files (no rule): " + ", ".join(self.unmapped[:5]))
        return "\n".join(lines)

    def to_json(self) -> dict:
        """The serializable part, stored in the manifest."""
        return {"rows": self.rows, "runs": self.runs, "files": self.files, "skipped": self.skipped,
                "dropped": self.dropped, "unmapped": self.unmapped}


def _sha256(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


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


def _apply_rule(df, rel: str, rule: ibm.Rule):
    """Add the context a rule gives to one parsed file; returns (frame, rows dropped, extras)."""
    import pandas as pd

    ctx = dict(rule.context(rel)) if rule.context else {}
    environment = ctx.pop("environment", rule.environment)
    variant = ctx.pop("variant", rule.variant)
    trial = ctx.pop("trial", None)
    params = {**rule.params, **{k: v for k, v in ctx.items() if k.startswith("p_")}}
    extras = {k: v for k, v in ctx.items() if not k.startswith("p_")}
    dropped = 0
    if rule.keep is not None:
        mask = rule.keep(df).to_numpy(dtype=bool)
        dropped = int((~mask).sum())
        df = df[mask].reset_index(drop=True)
        if "trial" in df.columns and df["trial"].notna().any():
            # Renumber the trials that are left 1..n (the file's first half was left out).
            order = {t: i + 1 for i, t in enumerate(sorted(df["trial"].dropna().unique()))}
            df["trial"] = df["trial"].map(order).astype("Int64")
    df = df.copy()
    df["campaign"] = ibm.CAMPAIGN
    df["environment"] = environment
    df["variant"] = variant
    df["benchmark"] = rule.benchmark
    if trial is not None:
        df["trial"] = trial
    for k, v in params.items():
        df[k] = v
    run = pd.Series(f"{ibm.CAMPAIGN}:{rel}", index=df.index, dtype="string")
    if "p_block" in df.columns and df["p_block"].notna().any():
        run = run + "#block" + df["p_block"].astype("string").fillna("")
    df["run_id"] = run
    return df, dropped, extras


def _provenance(df, rel: str, sha: str, rule: ibm.Rule, extras: dict, duplicate_of: str | None):
    """One provenance row per run_id of a file's frame."""
    import pandas as pd

    rows = []
    for run_id, g in df.groupby("run_id", sort=False):
        numa = g["p_numa"].dropna().iloc[0] if "p_numa" in g and g["p_numa"].notna().any() else None
        notes = [rule.why]
        if rule.keep_why:
            notes.append("left out: " + rule.keep_why)
        if duplicate_of:
            notes.append(f"byte-identical to {duplicate_of}")
        rows.append({
            "run_id": run_id,
            "campaign": ibm.CAMPAIGN,
            "environment": g["environment"].iloc[0],
            "variant": g["variant"].iloc[0],
            "host": g["host"].dropna().iloc[0] if g["host"].notna().any() else None,
            "tool": rule.tool,
            "tool_version": g["tool_version"].dropna().iloc[0] if g["tool_version"].notna().any() else None,
            "source_file": rel,
            "source_sha256": sha,
            "started_at": g["started_at"].min() if g["started_at"].notna().any() else pd.NaT,
            "cpu_ghz": float(g["p_cpu_ghz"].dropna().iloc[0]) if "p_cpu_ghz" in g and g["p_cpu_ghz"].notna().any() else None,
            "governor": extras.get("governor"),
            # The authors ran KVM with hardware acceleration; no TCG anywhere in their data.
            "accelerator": "kvm" if g["environment"].iloc[0] == "kvm" else None,
            "command_line": f"numactl {numa}" if numa else None,
            "notes": "; ".join(notes),
        })
    return rows


def _parse_one(root: Path, rel: str, rule: ibm.Rule, sha: str, cache: Path, chash: str):
    """Parse one file with its rule, through the per-file cache. Returns (frame, dropped, extras, hit)."""
    import pandas as pd

    from overhead import parsers, schema

    key = _cache_key(chash, rel, sha)
    cached = cache / f"{key}.parquet"
    meta = cache / f"{key}.json"
    if cached.exists() and meta.exists():
        info = json.loads(meta.read_text())
        return pd.read_parquet(cached), info["dropped"], info["extras"], True
    df = parsers.parse_file(rule.tool, root / rel, name=rel)
    df, dropped, extras = _apply_rule(df, rel, rule)
    df = schema.conform(df)
    schema.write_parquet(df, cached)
    _write_json(meta, {"dropped": dropped, "extras": extras})
    return df, dropped, extras, False


def ingest_ibm(root: str | os.PathLike[str], out: str | os.PathLike[str], *, force: bool = False) -> IngestResult:
    """Ingest the IBM authors' tree at ``root`` into Parquet tables under ``out``.

    Parameters: root, the checkout of thewmf/kvm-docker-comparison; out, the output folder;
    force, ignore every cache. Raises ParseError (naming file and line) when a mapped file does
    not parse; the previous tables are then left as they were.
    """
    started = time.perf_counter()
    root, out = Path(root), Path(out)
    out.mkdir(parents=True, exist_ok=True)
    plan, skipped, unmapped = _plan(root)
    hashes = {rel: _sha256(root / rel) for rel in plan}
    chash = code_hash()
    manifest_path = out / MANIFEST
    if not force and manifest_path.exists():
        try:
            manifest = json.loads(manifest_path.read_text())
        except json.JSONDecodeError:
            manifest = {}
        outputs_ok = all(
            (out / t).exists() and manifest.get("outputs", {}).get(t) == _sha256(out / t) for t in TABLES
        )
        if (outputs_ok and manifest.get("code") == chash and manifest.get("inputs") == hashes
                and manifest.get("root") == str(root.resolve())):
            r = manifest["result"]
            return IngestResult(out, r["rows"], r["runs"], r["files"], r["skipped"], r["dropped"],
                                r["unmapped"], reparsed=0, unchanged=True,
                                seconds=time.perf_counter() - started)

    from overhead import reference, schema

    cache = out / ".cache"
    if force and cache.exists():
        for f in cache.iterdir():
            f.unlink()
    cache.mkdir(exist_ok=True)
    first_seen: dict[str, str] = {}
    frames, prov, dropped, files = [], [], {}, {}
    reparsed = 0
    for rel, rule in plan.items():
        sha = hashes[rel]
        df, n_dropped, extras, hit = _parse_one(root, rel, rule, sha, cache, chash)
        reparsed += not hit
        if n_dropped:
            dropped[rel] = n_dropped
        duplicate_of = first_seen.setdefault(sha, rel)
        prov.extend(_provenance(df, rel, sha, rule, extras, duplicate_of if duplicate_of != rel else None))
        frames.append(df)
        files[rule.tool] = files.get(rule.tool, 0) + 1
    measurements = schema.concat(frames)
    schema.validate(measurements, require_context=True)
    import pandas as pd

    provenance = schema.conform(pd.DataFrame.from_records(prov), schema.PROVENANCE_COLUMNS)
    spreadsheets = reference.ibm_spreadsheets(root)
    spreadsheets = schema.conform(spreadsheets)
    spreadsheets["campaign"] = ibm.CAMPAIGN
    schema.validate(spreadsheets)
    outputs = {}
    for name, table in zip(TABLES, (measurements, provenance, spreadsheets), strict=True):
        schema.write_parquet(table, out / name)
        outputs[name] = _sha256(out / name)
    result = IngestResult(out, len(measurements), provenance["run_id"].nunique(), files, skipped,
                          dropped, unmapped, reparsed=reparsed)
    _prune_cache(cache, keep={_cache_key(chash, rel, hashes[rel]) for rel in plan})
    _write_json(manifest_path, {"root": str(root.resolve()), "code": chash, "inputs": hashes,
                                "outputs": outputs, "result": result.to_json()})
    result.seconds = time.perf_counter() - started
    return result


def _cache_key(chash: str, rel: str, sha: str) -> str:
    """File stem of a per-file cache entry."""
    return hashlib.sha256(f"{chash}\0{rel}\0{sha}".encode()).hexdigest()[:32]


def _prune_cache(cache: Path, keep: set[str]) -> None:
    """Remove per-file cache entries that no current input uses."""
    for f in cache.iterdir():
        if f.name.split(".", 1)[0] not in keep:
            f.unlink(missing_ok=True)


def summary_table(path: str | os.PathLike[str]) -> str:
    """Rows per benchmark and environment (the paper's labels) of a measurements table, as text."""
    import pandas as pd

    df = pd.read_parquet(path, columns=["benchmark", "environment", "variant", "run_id"])
    df["label"] = [ibm.label(e, v) for e, v in zip(df["environment"], df["variant"], strict=True)]
    counts = df.pivot_table(index="benchmark", columns="label", values="run_id", aggfunc="size",
                            fill_value=0)
    counts["total"] = counts.sum(axis=1)
    counts.loc["total"] = counts.sum(axis=0)
    runs = df.groupby("benchmark")["run_id"].nunique()
    counts["runs"] = runs.reindex(counts.index)
    counts.loc["total", "runs"] = df["run_id"].nunique()
    counts["runs"] = counts["runs"].astype(int)
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        return "Rows per benchmark and environment (tidy rows; runs = distinct run_id)\n" + counts.to_string()

