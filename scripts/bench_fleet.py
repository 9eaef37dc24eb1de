"""Benchmark of the engine over many hosts: trials per second and harness overhead by host count.

A fleet of 16 hosts in network namespaces (scripts/fleet-up.sh, with this benchmark's own names:
prefix ``ovb``, 10.231.2.0/24, a temporary state folder), timed cold (namespaces, keys and sshds
made) and warm (all running). Then a campaign of the sleep runner (scripts/bench_campaign.py's,
``--seconds`` each) on the first 1, 2, 4, 8 and 16 hosts, ``--trials`` trials per host, one
worker per host. Printed per host count: the campaign's wall time and trials per second (with
the set-up: connections, runners copied, host facts), trials per second after set-up (from
when every host had finished its first trial), the median and 90th-percentile per-trial
harness overhead (a trial's wall time in its worker less the runner's own duration and the
environment's set-up), and, per host after its first trial, its worker's wall time over the
sum of its runners' durations (median and worst host; 1.00 would be no harness cost at all).
The fleet is stopped at the end.

Every host is this machine (2 cores here): the controller's threads and 16 sshds share it,
which is what the growth with host count shows.

    .venv/bin/python scripts/bench_fleet.py [--trials 20] [--seconds 0.2] [--hosts 1,2,4,8,16]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "lib"))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_campaign import SLEEP_RUNNER  # noqa: E402

from overhead.campaign import inventory  # noqa: E402
from overhead.campaign.execute import run_campaign  # noqa: E402
from overhead.runners import RUNNERS_DIR  # noqa: E402

PREFIX, NET = "ovb", "10.231.2"


def _fleet(state: Path, script: str, *args: str) -> float:
    """Run a fleet script with this benchmark's names; return its wall seconds."""
    env = {**os.environ, "OVERHEAD_FLEET": str(state), "OVERHEAD_FLEET_PREFIX": PREFIX,
           "OVERHEAD_FLEET_NET": NET}
    t = time.perf_counter()
    done = subprocess.run(["sh", str(ROOT / "scripts" / script), *args], env=env,
                          capture_output=True, text=True, timeout=600)
    if done.returncode:
        raise SystemExit(f"{script} {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return time.perf_counter() - t


def _campaign(work: Path, state: Path, n: int, trials: int, seconds: float) -> str:
    """Write a campaign of the sleep runner on the first ``n`` fleet hosts; return its path."""
    hosts = "".join(f"  fleet-{i:02d}: {{address: {NET}.{10 + i}, key_file: {state / 'ssh' / 'id_ed25519'}, "
                    f"known_hosts: {state / 'ssh' / 'known_hosts'}}}\n" for i in range(1, n + 1))
    envs = "".join(f"  native-{i:02d}: {{kind: native, host: fleet-{i:02d}}}\n" for i in range(1, n + 1))
    path = work / f"fleet-{n}.yml"
    path.write_text(f"name: bench-fleet-{n}\nseed: 1\ntrials: 1\nwarmup: 0\ntimeout: 60\n"
                    "isolation: {outside: 1, steal: 1}\n"  # the hosts share this machine's CPUs
                    f"runners: {work / 'runners'}\nhosts:\n{hosts}environments:\n{envs}"
                    f"benchmarks:\n  sleep: {{runner: sleep, params: {{seconds: {seconds}, "
                    f"i: {list(range(trials))}}}}}\n")
    return str(path)


def _spans(raw: Path) -> dict[str, list[tuple[float, float, float]]]:
    """Per host, its done trials as (started, finished, runner seconds), in order of start."""
    out: dict[str, list[tuple[float, float, float]]] = {}
    for f in raw.rglob("trial.json"):
        t = json.loads(f.read_text())
        if t.get("status") == "done":
            out.setdefault(t["host"], []).append(
                (datetime.fromisoformat(t["started_at"]).timestamp(),
                 datetime.fromisoformat(t["finished_at"]).timestamp(), float(t["duration_s"])))
    return {h: sorted(v) for h, v in out.items()}


def main() -> int:
    """Bring the fleet up, run the campaigns, print the figures, stop the fleet."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=20, help="trials per host")
    ap.add_argument("--seconds", type=float, default=0.2)
    ap.add_argument("--hosts", default="1,2,4,8,16")
    args = ap.parse_args()
    counts = [int(x) for x in args.hosts.split(",")]
    if os.geteuid() != 0:
        print("bench_fleet: needs root (network namespaces, sshd)", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="overhead-bench-fleet-"))
    state = work / "fleet"
    try:
        (work / "runners").mkdir()
        shutil.copy(RUNNERS_DIR / "common.sh", work / "runners" / "common.sh")
        (work / "runners" / "sleep.sh").write_text(SLEEP_RUNNER)
        top = max(counts)
        cold = _fleet(state, "fleet-up.sh", str(top))
        warm = _fleet(state, "fleet-up.sh", str(top))
        print(f"fleet of {top} hosts in network namespaces: fleet-up cold {cold:.2f} s "
              f"(namespaces, links, host keys, sshds), warm {warm:.2f} s (all running, checked)")
        print(f"campaigns of the sleep runner ({args.seconds} s), {args.trials} trials per host, one "
              "worker per host:")
        print(f"  {'hosts':>5} {'trials':>6} {'wall':>8} {'trials/s':>9} {'after set-up':>13} "
              f"{'overhead median':>16} {'p90':>9} {'span/busy median':>17} {'max':>6}")
        for n in counts:
            campaign = inventory.load(_campaign(work, state, n, args.trials, args.seconds))
            result = run_campaign(campaign, raw_root=work / "raw", progress=False)
            if result.failed:
                print(f"  {n:>5}: {result.failed} trials failed: {result.failures}")
                continue
            per_host = _spans(work / "raw" / campaign.name)
            # after set-up: from the moment every host had finished its first trial (connect,
            # runners copied, facts: its worker's set-up) to the last trial's end
            start = max(t[0][1] for t in per_host.values())
            end = max(t[-1][1] for t in per_host.values())
            later = sum(1 for t in per_host.values() for a, _, _ in t if a >= start)
            # each host's worker, after its first trial: wall from then to its last trial's end
            # over the sum of its runners' durations (1.00: no harness cost at all)
            ratios = sorted((t[-1][1] - t[0][1]) / sum(d for _, _, d in t[1:]) for t in per_host.values())
            over = sorted(1000 * x for x in result.overheads)
            print(f"  {n:>5} {result.done:>6} {result.seconds:>6.2f} s {result.done / result.seconds:>9.1f} "
                  f"{later / (end - start):>10.1f}/s {statistics.median(over):>13.1f} ms "
                  f"{over[int(0.9 * (len(over) - 1))]:>6.1f} ms {statistics.median(ratios):>17.3f} "
                  f"{ratios[-1]:>6.3f}")
    finally:
        down = _fleet(state, "fleet-down.sh") if state.exists() else 0.0
        print(f"fleet-down: {down:.2f} s")
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
