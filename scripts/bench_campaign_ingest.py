"""Campaign ingest at scale: a cold ingest of 10,000 trials, then an incremental one of 10 more.

Genuine trial directories are made by running the real runners here (sysbench cpu with one and
two threads, fio randread: about 1.5 s each), then copied into a raw tree of 10,000 trials
spread over four environments (native, docker-nat, docker-host, vm under TCG) and two
benchmarks, with trial.json, facts/<environment>.json and a manifest.jsonl holding a running and
a done record per trial (plus a few failed trials), as the executor writes them (see
``/tmp/work/engine.md``, the engine's shared contracts).

Each ingest runs in a fresh interpreter, as a user runs it, so its wall time includes the
interpreter's start and the imports: reading even one trial needs pandas and the parsers, whose
import alone (the "import floor", timed here too) takes about half a second on this machine.
Printed: the cold and incremental wall times, rows per second of the cold ingest, how many
trials each incremental run read (it must be 10), runs where nothing changed, and the phases of
a cold and an incremental run. The incremental step is repeated (``--repeat``, each time with
10 new trials) and given as median [min-max]. Goal: incremental < 1 s. Where
PYTHONDONTWRITEBYTECODE is set (this project's sandbox sets it), every run compiles the
project's modules anew; the incremental step is then also timed with bytecode cached, as in a
user's checkout (PYTHONPYCACHEPREFIX in the temporary folder, nothing written to lib/).

usage: python scripts/bench_campaign_ingest.py [--trials 10000] [--add 10] [--repeat 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: (environment, kind, tidy environment, variant)
ENVIRONMENTS = [
    ("native", "native", "native", None),
    ("docker-nat", "docker", "docker", "net=nat,storage=overlay,runtime=runc"),
    ("docker-host", "docker", "docker", "net=host,storage=volume,runtime=runc"),
    ("vm", "vm", "vm", "untuned,accel=tcg"),
]
#: benchmark -> (runner, [runner arguments of each genuine output])
BENCHMARKS = {
    "sysbench-cpu": ("sysbench", [["test=cpu", "time=1", "threads=1"], ["test=cpu", "time=1", "threads=2"]]),
    "fio-randread": ("fio", [["rw=randread", "bs=4k", "size=4m", "runtime=1"]]),
}

# One ingest in a fresh interpreter; prints the result as JSON.
_CHILD = """
import json, sys, time
t0 = time.perf_counter()
from overhead.campaign.ingest import ingest_campaign
r = ingest_campaign(sys.argv[1], sys.argv[2])
print(json.dumps({"trials_total": r.trials_total, "trials_read": r.trials_read, "rows": r.rows,
                  "rows_read": r.rows_read, "failed": r.failed, "unparsed": r.unparsed,
                  "parts_written": r.parts_written, "full_rebuild": r.full_rebuild,
                  "unchanged": r.unchanged, "seconds": r.seconds, "phases": r.phases,
                  "in_process": time.perf_counter() - t0}))
"""


def genuine_outputs(folder: Path) -> dict[str, list[Path]]:
    """Run the real runners once per argument set; benchmark -> trial directories."""
    found: dict[str, list[Path]] = {}
    for bench, (runner, variants) in BENCHMARKS.items():
        for i, args in enumerate(variants):
            out = folder / f"{bench}-{i}"
            subprocess.run(["sh", str(ROOT / "runners" / f"{runner}.sh"), str(out), *args], check=True,
                           capture_output=True)
            found.setdefault(bench, []).append(out)
    return found


def _id(*parts) -> str:
    """A trial id as the planner makes them (a hash of what the trial is)."""
    return "t-" + hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:12]


def add_trials(raw: Path, sources: dict[str, list[Path]], start: int, count: int) -> list[dict]:
    """Copy genuine trials into the raw tree as trials ``start``..``start+count-1``; manifest records."""
    records = []
    cells = [(env, bench, v) for env in ENVIRONMENTS for bench in BENCHMARKS for v in range(len(sources[bench]))]
    for n in range(start, start + count):
        (name, kind, tidy, variant), bench, v = cells[n % len(cells)]
        rnd = n // len(cells)
        tid = _id(name, bench, v, rnd)
        d = raw / name / bench / tid
        d.mkdir(parents=True)
        for f in ("meta", "output", "stderr"):
            shutil.copyfile(sources[bench][v] / f, d / f)
        ts = f"2026-11-23T{n // 3600 % 24:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000000Z"
        (d / "trial.json").write_text(json.dumps({
            "id": tid, "campaign": raw.name, "environment": name, "kind": kind, "tidy_environment": tidy,
            "variant": variant, "host": "local", "benchmark": bench, "runner": BENCHMARKS[bench][0],
            "params": {}, "cell": f"c-{v}", "round": rnd, "position": n, "plan_position": n,
            "warmup": rnd == 0, "previous": "native", "attempt": 1, "status": "done", "started_at": ts,
            "finished_at": ts, "duration_s": 1.2,
            "noise": {"before": {"load1": 0.1, "pswpin": 0, "pswpout": 0, "throttle": None},
                      "after": {"load1": 0.4, "pswpin": 0, "pswpout": 0, "throttle": None}},
            "noise_flags": ["load"] if n % 7 == 0 else []}, indent=1))
        common = {"environment": name, "benchmark": bench, "round": rnd, "host": "local"}
        records += [{"ts": ts, "trial": tid, "state": "running", "attempt": 1, **common},
                    {"ts": ts, "trial": tid, "state": "done", "attempt": 1, "duration_s": 1.2,
                     "noise_flags": [], **common}]
    return records


def build(raw: Path, sources: dict[str, list[Path]], trials: int) -> None:
    """Write a raw tree of ``trials`` trial directories, facts and a manifest."""
    raw.mkdir(parents=True)
    (raw / "facts").mkdir()
    for name, kind, tidy, variant in ENVIRONMENTS:
        facts = {"environment": name, "kind": kind, "tidy_environment": tidy, "variant": variant,
                 "host": "local", "kernel": "Linux 6.1.0", "cpu_model": "bench CPU", "cores": 2,
                 "docker_version": "24.0.7" if kind == "docker" else None,
                 "docker_storage_driver": "overlay2" if kind == "docker" else None,
                 "docker_network_mode": (variant or "").split(",")[0][4:] if kind == "docker" else None,
                 "qemu_version": "7.2.9" if kind == "vm" else None,
                 "accelerator": "tcg" if kind == "vm" else None,
                 "vcpu_pinning": "none" if kind == "vm" else None, "hugepages": "no",
                 "git_sha": "0" * 40, "campaign_hash": "sha256:" + "0" * 64}
        (raw / "facts" / f"{name}.json").write_text(json.dumps(facts, indent=1))
    records = add_trials(raw, sources, 0, trials)
    for k in range(3):  # failed trials that left no directory
        records.append({"ts": "2026-11-23T23:00:00.000000Z", "trial": f"t-failed{k:06d}", "state": "failed",
                        "cause": "timeout: the runner ran past 120 s and was killed", "exit_status": 124,
                        "stderr": "killed", "environment": "vm", "benchmark": "fio-randread", "round": k})
    with open(raw / "manifest.jsonl", "w") as fh:
        for rec in records:
            fh.write(json.dumps(rec) + "\n")


def ingest(raw: Path, out: Path, env: dict | None = None) -> tuple[float, dict]:
    """Ingest in a fresh interpreter; (wall seconds of the whole process, its result)."""
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _CHILD, str(raw), str(out)], check=True,
                          capture_output=True, text=True, env=env)
    return time.perf_counter() - t, json.loads(done.stdout.strip().splitlines()[-1])


_WARM = ("import pandas, pyarrow.parquet, pyarrow.compute\n"
         "from overhead import parsers, runners, schema, tidy\n"
         "from overhead.campaign import ingest\n"
         "parsers.module('fio'), parsers.module('sysbench')")


def _floor(env: dict | None = None) -> float:
    """Wall time of a fresh interpreter that only imports what reading a trial needs."""
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import pandas, pyarrow.parquet; from overhead import parsers, runners"],
                   check=True, env=env)
    return time.perf_counter() - t


def incremental(raw: Path, out: Path, sources: dict, start: int, args, env: dict | None, title: str) -> int:
    """Add ``args.add`` trials ``args.repeat`` times, ingesting after each; print the figures.

    Returns the number of trials added.
    """
    warm, read, results = [], [], []
    for k in range(args.repeat):
        manifest = add_trials(raw, sources, start + k * args.add, args.add)
        with open(raw / "manifest.jsonl", "a") as fh:
            for rec in manifest:
                fh.write(json.dumps(rec) + "\n")
        seconds, r = ingest(raw, out, env)
        warm.append(seconds)
        read.append(r["trials_read"])
        results.append(r)
    ok = all(n == args.add for n in read) and not any(r["full_rebuild"] for r in results)
    r = results[-1]
    print(f"  incremental (+{args.add}), {title}: {_spread(warm)} wall, {args.repeat} runs, read {read} trials "
          f"({'as it must' if ok else f'WRONG: must be {args.add}'}), {r['rows_read']:,} new rows; "
          f"goal < 1 s: {'MET' if statistics.median(warm) < 1 else 'MISSED'}")
    print(f"      ingest_campaign() in-process   {_spread([x['seconds'] for x in results])}")
    print("\n".join(_phases(r)))
    floors = [_floor(env) for _ in range(args.repeat)]
    print(f"      import floor (a fresh interpreter importing pandas, pyarrow, parsers)  {_spread(floors)}")
    return args.repeat * args.add


def _spread(xs: list[float]) -> str:
    """median [min-max] of a list of seconds, formatted."""
    return f"{statistics.median(xs):.2f} s [{min(xs):.2f}-{max(xs):.2f}]"


def _phases(result: dict) -> list[str]:
    """Format a run's phases."""
    return [f"      {k:<44} {v:7.3f} s" for k, v in result["phases"].items()]


def main() -> None:
    """Build the tree, time the ingests, print the figures."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=10_000)
    ap.add_argument("--add", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3, help="incremental runs, each adding --add trials")
    ap.add_argument("--keep", default="", help="build in this folder and keep it (default: a temporary one)")
    args = ap.parse_args()
    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="overhead-bench-campaign-"))
    try:
        t = time.perf_counter()
        sources = genuine_outputs(tmp / "genuine")
        made = time.perf_counter() - t
        raw, out = tmp / "raw" / "bench-campaign", tmp / "tidy" / "bench-campaign"
        t = time.perf_counter()
        build(raw, sources, args.trials)
        built = time.perf_counter() - t
        print(f"campaign ingest at scale ({args.trials:,} trials; genuine outputs made in {made:.1f} s, "
              f"tree built in {built:.1f} s)")
        cold, r = ingest(raw, out)
        print(f"  cold ingest         {cold:8.2f} s wall  read {r['trials_read']:,} trials, {r['rows']:,} rows, "
              f"{r['rows'] / cold:,.0f} rows/s, {r['parts_written']} part files")
        print("\n".join(_phases(r)))
        added = incremental(raw, out, sources, args.trials, args, None,
                            "as this environment runs Python" if os.environ.get("PYTHONDONTWRITEBYTECODE")
                            else "fresh interpreter")
        if os.environ.get("PYTHONDONTWRITEBYTECODE"):
            env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
            env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
            # compile once what an incremental ingest imports, as a checkout's first run does
            subprocess.run([sys.executable, "-c", _WARM], check=True, env=env)
            incremental(raw, out, sources, args.trials + added, args, env, "bytecode cached")
        same = []
        for _ in range(args.repeat):
            seconds, r = ingest(raw, out)
            same.append(seconds)
        print(f"  nothing changed     {_spread(same)} wall  read {r['trials_read']} trials "
              f"(unchanged={r['unchanged']}); in-process {r['seconds']:.3f} s")
        print(f"  tables: {r['trials_total']:,} trials ({r['failed']} failed, {r['unparsed']} unparsed), "
              f"{r['rows']:,} rows")
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
