"""Benchmark of the campaign harness: what running a trial costs beyond the trial itself.

100 trials of a runner that sleeps 0.2 s, on the native host of `make hosts-up` (sshd on
127.0.0.1), through the whole executor: manifest records, noise samples, the runner under
`timeout`, fetching the trial directory, trial.json, fsync and rename. Printed as figures:
the median per-trial overhead (goal: under 100 ms) and the campaign's wall time over the sum
of the runners' measured durations, after connection set-up (goal: under 1.03). Then the
remote shell's output reading: 8, 32 and 60 MiB on a command's stdout, read back through one
connection (seconds, MiB/s and the controller's peak memory; goal: linear in the size, and
peak memory a small multiple of it), and 100 MB refused at the 64 MiB cap.

    .venv/bin/python scripts/bench_campaign.py [--trials 100] [--seconds 0.2]
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "lib"))

from overhead.campaign import inventory  # noqa: E402
from overhead.campaign.execute import run_campaign  # noqa: E402
from overhead.environments.connect import connect  # noqa: E402
from overhead.environments.failures import TrialFailed  # noqa: E402
from overhead.environments.remote import Remote  # noqa: E402
from overhead.runners import RUNNERS_DIR  # noqa: E402

SLEEP_RUNNER = """\
#!/bin/sh
# sleep: a runner that does nothing but sleep (the harness benchmark's calibration trial)
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
rn_declare seconds=0.2 i=0
rn_args "$@"
rn_run sleep sleep none "$(sleep --version | head -n 1)" -- sleep "$P_seconds"
"""


def bench_shell_output(port: int, keys: Path) -> None:
    """Time reading large outputs through the persistent remote shell; print the figures."""
    import time

    remote = Remote(connect("127.0.0.1", port, "root", known_hosts=keys / "known_hosts",
                            key_file=keys / "id_ed25519"), keepalive=5, responsive=15)
    try:
        print("remote shell output (one connection to 127.0.0.1):")
        for mib in (8, 32, 60):
            before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            t0 = time.perf_counter()
            status, out, _ = remote.exec(f"head -c {mib << 20} /dev/zero | tr '\\0' x", 300)
            took = time.perf_counter() - t0
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            assert status == 0 and len(out) == mib << 20, (status, len(out))
            print(f"  {mib:>3} MiB: {took:.2f} s, {mib / took:.0f} MiB/s, peak RSS "
                  f"{peak / 1024:.0f} MiB (+{(peak - before) / 1024:.0f} MiB)")
            del out
        t0 = time.perf_counter()
        try:
            remote.exec("head -c 100000000 /dev/zero", 300)
            print("  100 MB: NOT refused (the cap failed)")
        except TrialFailed as exc:
            print(f"  100 MB: refused after {time.perf_counter() - t0:.2f} s: {exc.cause}")
    finally:
        remote.close()


def main() -> int:
    """Run the harness benchmark and print its figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=0.2)
    ap.add_argument("--port", type=int, default=2222, help="the native host's sshd port")
    ap.add_argument("--keys", type=Path, default=ROOT / "data" / "hosts" / "ssh",
                    help="folder with id_ed25519 and known_hosts (make hosts-up's)")
    args = ap.parse_args()
    hosts = args.keys
    if not (hosts / "known_hosts").exists():
        print("bench_campaign: run `make hosts-up` first (needs the local sshd)", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="overhead-bench-"))
    try:
        runners = work / "runners"
        runners.mkdir()
        shutil.copy(RUNNERS_DIR / "common.sh", runners / "common.sh")
        (runners / "sleep.sh").write_text(SLEEP_RUNNER)
        (work / "bench.yml").write_text(f"""\
name: bench-harness
seed: 1
trials: 1
timeout: 30
runners: {runners}
hosts:
  local: {{address: 127.0.0.1, port: {args.port}, key_file: {hosts / 'id_ed25519'},
          known_hosts: {hosts / 'known_hosts'}}}
environments:
  native: {{kind: native, host: local}}
benchmarks:
  sleep: {{runner: sleep, params: {{seconds: {args.seconds}, i: {list(range(args.trials))}}}}}
""")
        campaign = inventory.load(work / "bench.yml")
        result = run_campaign(campaign, raw_root=work / "raw", progress=False)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if result.failed:
        print(f"bench_campaign: {result.failed} trials failed: {result.failures}", file=sys.stderr)
        return 1
    over = sorted(1000 * x for x in result.overheads)
    busy = sum(result.durations)
    after_setup = result.seconds - result.setup_seconds
    print(f"campaign harness: {result.done} trials of a runner sleeping {args.seconds} s "
          f"on the native host (sshd on 127.0.0.1)")
    print(f"  per-trial overhead: median {statistics.median(over):.1f} ms, "
          f"p90 {over[int(0.9 * (len(over) - 1))]:.1f} ms, max {over[-1]:.1f} ms  (goal < 100 ms)")
    print(f"  runner durations: mean {1000 * busy / len(result.durations):.1f} ms "
          f"(sleep {1000 * args.seconds:.0f} ms + the runner's own start and host facts)")
    print(f"  set-up (connect, copy runners, facts): {result.setup_seconds:.2f} s")
    print(f"  wall after set-up / sum of durations: {after_setup:.2f} s / {busy:.2f} s = "
          f"{after_setup / busy:.3f}  (goal < 1.03)")
    bench_shell_output(args.port, hosts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
