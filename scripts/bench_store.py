"""Every campaign at once: one query over 100 campaigns and 10 million rows, DuckDB vs pandas.

A store is built from copies of genuine trial outputs: the real runners run here once
(sysbench cpu at one and two threads, fio randread; ``scripts/bench_campaign_ingest.py``), a raw
campaign of such trials is ingested as a user's campaign is, and its tidy tables (measurements
in parts, trials) are copied into 100 campaign folders (campaign name and run ids rewritten,
values as measured times a seeded 1% normal jitter, so that copies do not compress into each
other) until the store holds 10 million rows.

The query is a cross-campaign comparison of one metric: per campaign and environment, the
count, mean and SD of sysbench's event rate over the done, non-warm-up trials (measurements
joined to trials). Timed:

- DuckDB (:class:`overhead.store.Store`): cold = a fresh interpreter after the page cache is
  dropped (``/proc/sys/vm/drop_caches``, as root; otherwise said), the store opened and the
  query run; warm = the same query again in that interpreter;
- pandas: the same result from ``pandas.read_parquet`` of each campaign's folder with the
  filters pushed down to pyarrow, merged with its trials, grouped; cold and warm alike.

Imports are timed apart (they are paid once per interpreter). Goals: DuckDB warm < 1 s, cold
< 3 s. Three runs each: median [min-max].

usage: python scripts/bench_store.py [--campaigns 100] [--rows 10000000] [--runs 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import bench_campaign_ingest as bci  # noqa: E402

BENCHMARK, METRIC = "sysbench-cpu", "event_rate"

_DUCK = """
import json, sys, time
t0 = time.perf_counter()
from overhead.store import Store
t1 = time.perf_counter()
s = Store(sys.argv[1])
sql = ("SELECT campaign, env_name, count(*) AS n, avg(value) AS mean, stddev_samp(value) AS sd "
       "FROM usable WHERE benchmark = ? AND metric = ? GROUP BY ALL ORDER BY ALL")
out = s.query(sql, [sys.argv[2], sys.argv[3]])
t2 = time.perf_counter()
again = s.query(sql, [sys.argv[2], sys.argv[3]])
t3 = time.perf_counter()
print(json.dumps({"imports": t1 - t0, "cold": t2 - t1, "warm": t3 - t2, "groups": len(out),
                  "trials": int(out["n"].sum()), "mean": float(out["mean"].mean()),
                  "same": bool(out.equals(again))}))
"""

_PANDAS = """
import json, sys, time
t0 = time.perf_counter()
import pandas as pd
from pathlib import Path
t1 = time.perf_counter()

def query(root, bench, metric):
    parts = []
    for folder in sorted(Path(root).iterdir()):
        m = pd.read_parquet(folder / "measurements.parquet", columns=["run_id", "value", "warmup"],
                            filters=[("benchmark", "==", bench), ("metric", "==", metric)])
        t = pd.read_parquet(folder / "trials.parquet",
                            columns=["run_id", "campaign", "env_name", "status", "warmup"])
        t = t[(t["status"] == "done") & ~t["warmup"].fillna(False).astype(bool)]
        m = m[~m["warmup"].fillna(False).astype(bool)].merge(t.drop(columns="warmup"), on="run_id")
        parts.append(m)
    rows = pd.concat(parts, ignore_index=True).dropna(subset=["value"])
    return (rows.groupby(["campaign", "env_name"])["value"].agg(["count", "mean", "std"])
            .reset_index().sort_values(["campaign", "env_name"]))

out = query(sys.argv[1], sys.argv[2], sys.argv[3])
t2 = time.perf_counter()
again = query(sys.argv[1], sys.argv[2], sys.argv[3])
t3 = time.perf_counter()
print(json.dumps({"imports": t1 - t0, "cold": t2 - t1, "warm": t3 - t2, "groups": len(out),
                  "trials": int(out["count"].sum()), "mean": float(out["mean"].mean())}))
"""


def _spread(xs: list[float]) -> str:
    return f"{statistics.median(xs):.3f} s [{min(xs):.3f}-{max(xs):.3f}]"


def drop_caches() -> bool:
    """Drop the page cache (root only); whether it was dropped."""
    try:
        subprocess.run(["sync"], check=True)
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
        return True
    except OSError:
        return False


def build_store(work: Path, campaigns: int, rows: int) -> tuple[Path, int]:
    """Ingest a campaign of genuine trials, copy it into ``campaigns`` folders; (root, rows)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from overhead import schema

    sources = bci.genuine_outputs(work / "genuine")
    raw = work / "raw" / "base"
    bci.build(raw, sources, 600)
    base = work / "base"
    bci.ingest(raw, base)
    parts = schema.parts_of(base / "measurements.parquet")
    unified = schema.dataset_schema(base / "measurements.parquet")
    m = pa.concat_tables([pq.read_table(p).cast(pa.schema([unified.field(n) for n in pq.read_schema(p).names]))
                          for p in parts], promote_options="default")
    trials = pq.read_table(base / "trials.parquet")
    per = math.ceil(rows / campaigns)
    reps = math.ceil(per / m.num_rows)
    root = work / "store"
    total = 0
    rng = np.random.default_rng(20261128)
    for i in range(campaigns):
        name = f"store-{i:03d}"
        folder = root / name
        (folder / "measurements.parquet").mkdir(parents=True)
        t_parts = []
        for r in range(reps):
            def rename(col, name=name, r=r):
                col = pc.replace_substring_regex(col, pattern="^[^/]+", replacement=name)
                return pc.binary_join_element_wise(col, pa.scalar(f"-{r}"), "")
            rows_here = min(m.num_rows, per - r * m.num_rows)  # the last copy cut to the total
            src = m.slice(0, rows_here)
            part = src.set_column(src.schema.get_field_index("run_id"), "run_id", rename(src["run_id"]))
            part = part.set_column(part.schema.get_field_index("campaign"), "campaign",
                                   pa.array([name] * part.num_rows, pa.string()))
            # each copy's values moved by a seeded 1% (normal) so that no copy compresses into
            # another: the Parquet holds as many distinct values as a real store would
            noise = rng.normal(1.0, 0.01, part.num_rows)
            part = part.set_column(part.schema.get_field_index("value"), "value",
                                   pc.multiply(part["value"].cast(pa.float64()), pa.array(noise)))
            pq.write_table(part, folder / "measurements.parquet" / f"part-{r:05d}.parquet",
                           compression="zstd")
            total += part.num_rows
            tp = trials.set_column(trials.schema.get_field_index("run_id"), "run_id",
                                   rename(trials["run_id"]))
            t_parts.append(tp.set_column(tp.schema.get_field_index("campaign"), "campaign",
                                         pa.array([name] * tp.num_rows, pa.string())))
        schema.write_schema_part(folder / "measurements.parquet")
        pq.write_table(pa.concat_tables(t_parts), folder / "trials.parquet", compression="zstd")
    return root, total


def _child(code: str, root: Path, cold: bool) -> dict:
    dropped = drop_caches() if cold else False
    done = subprocess.run([sys.executable, "-c", code, str(root), BENCHMARK, METRIC], check=True,
                          capture_output=True, text=True)
    out = json.loads(done.stdout.strip().splitlines()[-1])
    out["dropped"] = dropped
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--campaigns", type=int, default=100)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keep", default="", help="build the store in this folder and keep it")
    args = ap.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="overhead-store-"))
    try:
        t = time.perf_counter()
        root, total = build_store(work, args.campaigns, args.rows)
        size = sum(p.stat().st_size for p in root.rglob("*.parquet"))
        print(f"store of all campaigns (scripts/bench_store.py): {args.campaigns} campaigns, "
              f"{total:,} rows, {size / 2**20:.0f} MiB of Parquet, built in "
              f"{time.perf_counter() - t:.0f} s from copies of genuine trials")
        print(f"  query: per campaign and environment, n / mean / SD of {BENCHMARK} {METRIC} over "
              "done, non-warm-up trials (measurements joined to trials)")
        results = {}
        for label, code in (("DuckDB (overhead.store)", _DUCK), ("pandas.read_parquet + merge", _PANDAS)):
            runs = [_child(code, root, cold=True) for _ in range(args.runs)]
            results[label] = runs
            dropped = "page cache dropped" if all(r["dropped"] for r in runs) else "page cache NOT dropped"
            print(f"  {label:<30} cold {_spread([r['cold'] for r in runs])} ({dropped}), "
                  f"warm {_spread([r['warm'] for r in runs])}, imports {_spread([r['imports'] for r in runs])}; "
                  f"{runs[0]['groups']} groups, {runs[0]['trials']:,} trials")
        duck, pand = results["DuckDB (overhead.store)"], results["pandas.read_parquet + merge"]
        agree = (duck[0]["groups"] == pand[0]["groups"] and duck[0]["trials"] == pand[0]["trials"]
                 and math.isclose(duck[0]["mean"], pand[0]["mean"], rel_tol=1e-9))
        warm, cold = statistics.median(r["warm"] for r in duck), statistics.median(r["cold"] for r in duck)
        print(f"  the two agree (groups, trials, mean of means): {'yes' if agree else 'NO'}; "
              f"goals: warm < 1 s {'MET' if warm < 1 else 'MISSED'}, cold < 3 s "
              f"{'MET' if cold < 3 else 'MISSED'}; pandas / DuckDB: cold "
              f"{statistics.median(r['cold'] for r in pand) / cold:.1f}x, warm "
              f"{statistics.median(r['warm'] for r in pand) / warm:.1f}x")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
