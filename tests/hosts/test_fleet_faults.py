"""Faults a fleet has, injected into a running campaign on namespace hosts (scripts/fleet-*.sh).

Three hosts (prefix ``ovu``, 10.231.3.0/24, a state folder of the module's own); a campaign
of four 2-second trials per host; the fault hits host 02 while its runner runs. Each test
checks: host 02's affected trials failed with a cause that names the fault, found within a
stated bound; hosts 01 and 03 finished every trial; a later ``run_campaign`` (one retry)
finishes the campaign; the manifest and the raw tree hold each planned trial exactly once.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import textwrap
import threading
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest
from conftest import SHARED_MACHINE, require
from fleet_helper import Fleet, module_fleet
from sshd_helper import SLEEPY

from overhead.campaign import inventory, manifest, plan
from overhead.campaign.execute import run_campaign, trial_dir
from overhead.runners import RUNNERS_DIR

pytestmark = pytest.mark.xdist_group("fleet-faults")

N, PREFIX, NET = 3, "ovu", "10.231.3"


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    yield from module_fleet(tmp_path_factory, "fleet-faults", PREFIX, NET, N, "nsenter")


def _campaign(tmp_path: Path, fleet: Fleet, name: str, size: int = 1, hang_wait: float = 0) -> Path:
    """A campaign of 4 trials per host; ``hang_wait`` 0: a trial whose host stops answering
    fails at once (what these fault tests look at: detection, and the others going on)."""
    # the campaign's own copy of the host keys: fleet-up rewrites the fleet's file
    known = tmp_path / "known_hosts"
    shutil.copy(fleet.state / "ssh" / "known_hosts", known)
    runners = tmp_path / "runners"
    runners.mkdir(exist_ok=True)
    shutil.copy(RUNNERS_DIR / "common.sh", runners / "common.sh")
    (runners / "sleepy.sh").write_text(textwrap.dedent(SLEEPY))
    hosts = "".join(f"  fleet-{i:02d}: {{address: {NET}.{10 + i}, key_file: {fleet.state / 'ssh' / 'id_ed25519'}, "
                    f"known_hosts: {known}, connect_timeout: 3, keepalive: 1, hang_wait: {hang_wait:g}}}\n"
                    for i in range(1, N + 1))
    envs = "".join(f"  native-{i:02d}: {{kind: native, host: fleet-{i:02d}}}\n" for i in range(1, N + 1))
    path = tmp_path / f"{name}.yml"
    path.write_text(f"name: {name}\nseed: 3\ntrials: 4\nwarmup: 0\ntimeout: 60\n{SHARED_MACHINE}"
                    f"runners: {runners}\nhosts:\n{hosts}environments:\n{envs}"
                    f"benchmarks:\n  nap: {{runner: sleepy, params: {{secs: 2, size: {size}}}}}\n")
    return path


def _netns_pids(i: int) -> list[int]:
    out = subprocess.run(["ip", "netns", "pids", f"{PREFIX}-{i:02d}"], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _when_running(i: int, fault, timeout: float = 60) -> tuple[threading.Thread, list[float]]:
    """Call ``fault()`` once host i runs a trial's `sleep 2`; return the thread and the time."""
    when: list[float] = []

    def watch():
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(_cmdline(p).startswith("sleep 2") for p in _netns_pids(i)):
                time.sleep(0.3)
                when.append(time.time())
                fault()
                return
            time.sleep(0.05)

    t = threading.Thread(target=watch, daemon=True)
    t.start()
    return t, when


def _last(raw: Path) -> dict[str, dict]:
    records = manifest.read_records(raw / "manifest.jsonl")
    return {r["trial"]: r for r in records if "trial" in r}


def _check_complete(raw: Path, path: Path) -> None:
    """Every planned trial done exactly once, its directory once in the raw tree."""
    p = plan.make_plan(inventory.load(path))
    records = manifest.read_records(raw / "manifest.jsonl")
    done = Counter(r["trial"] for r in records if r.get("state") == "done")
    assert set(done) == {t.id for t in p.trials} and max(done.values()) == 1, done
    for t in p.trials:
        assert (trial_dir(raw, t) / "trial.json").exists()
    dirs = [d.name for d in raw.glob("*/*/*") if d.parent.parent.name not in ("facts", "failed")]
    assert sorted(dirs) == sorted(t.id for t in p.trials)


def _run_with_fault(tmp_path, fleet, name: str, fault, *, after=None):
    """Run the campaign with ``fault`` on host 02 mid-trial; ``after`` undoes it. Returns
    (last manifest record per trial, seconds from the fault to host 02's first failure)."""
    path = _campaign(tmp_path, fleet, name)
    raw = tmp_path / "raw"
    watcher, when = _when_running(2, fault)
    try:
        result = run_campaign(inventory.load(path), raw_root=raw, progress=False)
    finally:
        watcher.join(5)
        if after is not None:
            after()
    assert when, "the fault was never injected"
    last = _last(raw / name)
    others = [r for r in last.values() if r["environment"] != "native-02"]
    assert len(others) == 8 and all(r["state"] == "done" for r in others), others
    mine = [r for r in last.values() if r["environment"] == "native-02"]
    failed = [r for r in mine if r["state"] == "failed"]
    assert failed and result.failed == len(failed)
    first = min(datetime.fromisoformat(r["ts"].replace("Z", "+00:00")).timestamp() for r in failed)
    # the host's own trials afterwards: the fault is over, a resume with one retry finishes
    again = run_campaign(inventory.load(path), raw_root=raw, retries=1, progress=False)
    assert again.failures == {}, again.failures
    _check_complete(raw / name, path)
    print(f"{name}: {len(failed)} trial(s) of host 02 failed, the first {first - when[0]:.1f} s after "
          f"the fault: {sorted({r['cause'] for r in failed})}")
    return failed, first - when[0]


def test_a_partition_fails_the_trial_in_flight_and_the_link_coming_back_finishes(fleet, tmp_path):
    """The host's link cut while its runner runs, back 8 s later."""
    def cut():
        fleet.script("fleet-link.sh", "2", "cut")
        threading.Timer(8, lambda: fleet.script("fleet-link.sh", "2", "restore")).start()

    failed, detect = _run_with_fault(tmp_path, fleet, "partition", cut,
                                     after=lambda: fleet.script("fleet-link.sh", "2", "clear"))
    causes = {r["cause"] for r in failed}
    assert all(re.match(r"(host not responding|lost host)", c) for c in causes), causes
    # found within the host's responsiveness bound: connect_timeout + 2 x keepalive (3 + 2) + slack
    assert 0 < detect <= 3 + 2 * 1 + 3, detect


def test_a_host_that_reboots_fails_the_trial_in_flight_then_runs_again(fleet, tmp_path):
    """Its sshd and every process in its namespace killed, its sshd started again (same key)."""
    def reboot():
        for pid in _netns_pids(2):
            os.kill(pid, signal.SIGKILL)
        time.sleep(1)
        fleet.script("fleet-up.sh", str(N))

    failed, detect = _run_with_fault(tmp_path, fleet, "reboot", reboot)
    assert len(failed) >= 1
    assert all(re.match(r"(lost host|host not responding)", r["cause"]) for r in failed), \
        [r["cause"] for r in failed]
    assert 0 < detect <= 5, detect


def test_a_host_back_with_a_new_key_fails_its_trials_naming_the_key_and_the_others_go_on(fleet, tmp_path):
    """Rebooted with a new host key: every later trial there is refused, naming the changed key."""
    key = fleet.state / "hosts" / "02" / "ssh_host_ed25519_key"
    saved = (key.read_bytes(), key.with_suffix(".pub").read_bytes())

    def rekey():
        for pid in _netns_pids(2):
            os.kill(pid, signal.SIGKILL)
        key.unlink()
        key.with_suffix(".pub").unlink()
        fleet.script("fleet-up.sh", str(N))  # a new key (the campaign's copy has the old one)

    def restore():
        key.write_bytes(saved[0])
        key.with_suffix(".pub").write_bytes(saved[1])
        for pid in _netns_pids(2):
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.5)
        fleet.script("fleet-up.sh", str(N))

    path = _campaign(tmp_path, fleet, "rekey")
    raw = tmp_path / "raw"
    watcher, when = _when_running(2, rekey)
    try:
        result = run_campaign(inventory.load(path), raw_root=raw, progress=False)
    finally:
        watcher.join(5)
    last = _last(raw / "rekey")
    others = [r for r in last.values() if r["environment"] != "native-02"]
    assert len(others) == 8 and all(r["state"] == "done" for r in others), others
    mine = [r for r in last.values() if r["environment"] == "native-02"]
    failed = [r for r in mine if r["state"] == "failed"]
    assert failed and result.failed == len(failed)
    assert any("host key" in r["cause"] for r in failed), [r["cause"] for r in failed]
    first = min(datetime.fromisoformat(r["ts"].replace("Z", "+00:00")).timestamp() for r in failed)
    print(f"rekey: {len(failed)} trial(s) of host 02 failed, the first {first - when[0]:.1f} s after "
          f"the fault: {sorted({r['cause'] for r in failed})}")
    restore()
    again = run_campaign(inventory.load(path), raw_root=raw, retries=1, progress=False)
    assert again.failures == {}, again.failures
    _check_complete(raw / "rekey", path)


def test_a_hung_host_fails_its_trials_in_bounded_time_and_the_others_go_on(fleet, tmp_path):
    """Every process of the host (its sshd, sessions, runner) SIGSTOPped, resumed 8 s later."""
    stopped: list[int] = []

    def hang():
        stopped.extend(_netns_pids(2))
        for pid in stopped:
            os.kill(pid, signal.SIGSTOP)

    def resume():
        for pid in stopped:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass

    def hang_then_resume():
        hang()
        threading.Timer(8, resume).start()

    failed, detect = _run_with_fault(tmp_path, fleet, "hung", hang_then_resume, after=resume)
    assert all(r["cause"].startswith("host not responding") for r in failed), [r["cause"] for r in failed]
    assert 0 < detect <= 3 + 2 * 1 + 3, detect


def test_a_host_that_hangs_and_comes_back_within_its_wait_finishes_every_trial(fleet, tmp_path):
    """Issue 46: every process of host 02 (its sshd, sessions, runner) SIGSTOPped for 20 s,
    then resumed. Its trials wait for it (hang_wait, 300 s by default): the trial in flight is
    run again once the host answers, what was left of its first attempt killed first; the run
    ends with every trial done exactly once, none failed, without --retries, and nothing of
    the first attempt still running on the host."""
    stopped: list[int] = []
    # 20 s here; the 120 s by hand: OVERHEAD_HANG_S=120 pytest -s -k hangs_and_comes_back
    seconds = float(os.environ.get("OVERHEAD_HANG_S", "20"))

    def hang():
        stopped.extend(_netns_pids(2))
        for pid in stopped:
            os.kill(pid, signal.SIGSTOP)
        threading.Timer(seconds, resume).start()

    def resume():
        for pid in stopped:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass

    path = _campaign(tmp_path, fleet, "hangback", hang_wait=300)
    raw = tmp_path / "raw"
    watcher, when = _when_running(2, hang)
    t0 = time.monotonic()
    try:
        result = run_campaign(inventory.load(path), raw_root=raw, progress=False)
    finally:
        watcher.join(5)
        resume()
    took = time.monotonic() - t0
    assert when, "the fault was never injected"
    assert result.failures == {} and result.failed == 0, result.failures
    _check_complete(raw / "hangback", path)
    records = manifest.read_records(raw / "hangback" / "manifest.jsonl")
    events = [r["event"] for r in records if "event" in r]
    assert events.count("host-hung") == 1 and events.count("host-back") == 1, events
    again = [r for r in records if r.get("event") == "trial-again-host-back"]
    assert len(again) == 1 and again[0]["cause"].startswith("host not responding")
    back = next(r for r in records if r.get("event") == "host-back")
    assert seconds - 10 <= back["silent_s"] <= seconds + 3 + 1 + 5, back  # tried every 4 s
    # nothing of the first attempt runs on the host any more (its sleep was killed)
    assert not [p for p in _netns_pids(2) if _cmdline(p).startswith("sleep 2")]
    print(f"hangback: host 02 silent {back['silent_s']} s, its trial run again; campaign "
          f"{took:.0f} s, {result.done} trials done, 0 failed")


def test_a_slow_lossy_link_is_survived_or_named(fleet, tmp_path):
    """The host's link at 256 kbit/s dropping 20% of its packets: its trials finish slowly or
    fail as a host not responding; nothing else."""
    def degrade():
        fleet.script("fleet-link.sh", "2", "rate", "256kbit")
        fleet.script("fleet-link.sh", "2", "loss", "20")
        threading.Timer(10, lambda: fleet.script("fleet-link.sh", "2", "clear")).start()

    path = _campaign(tmp_path, fleet, "lossy")
    raw = tmp_path / "raw"
    watcher, when = _when_running(2, degrade)
    try:
        run_campaign(inventory.load(path), raw_root=raw, progress=False)
    finally:
        watcher.join(5)
        time.sleep(10)
        fleet.script("fleet-link.sh", "2", "clear")
    last = _last(raw / "lossy")
    assert all(r["state"] == "done" for r in last.values() if r["environment"] != "native-02")
    mine = [r for r in last.values() if r["environment"] == "native-02"]
    assert all(r["state"] == "done" or re.match(r"(host not responding|lost host)", r["cause"])
               for r in mine), mine
    print(f"lossy: host 02 {Counter(r['state'] for r in mine)}; causes "
          f"{sorted({r.get('cause') for r in mine if r['state'] == 'failed'})}")
    again = run_campaign(inventory.load(path), raw_root=raw, retries=1, progress=False)
    assert again.failures == {}, again.failures
    _check_complete(raw / "lossy", path)


def test_a_host_whose_disk_fills_fails_its_trials_naming_it_and_the_others_go_on(fleet, tmp_path):
    """Host 02's campaign folder on a 2 MiB loop-mounted ext4 (in its own mount namespace);
    each trial writes 600 KiB: the third does not fit."""
    require("mkfs.ext4", "losetup", root=True)
    image = fleet.state / "hosts" / "02" / "disk.img"
    subprocess.run(["truncate", "-s", "2M", str(image)], check=True)
    subprocess.run(["mkfs.ext4", "-q", "-F", str(image)], check=True)
    sshd = int((fleet.state / "hosts" / "02" / "sshd.pid").read_text())
    folder = "/var/tmp/overhead/diskfull"
    ns = ["nsenter", "-t", str(sshd), "-m", "--"]
    subprocess.run([*ns, "mkdir", "-p", folder], check=True)
    subprocess.run([*ns, "mount", "-o", "loop", str(image), folder], check=True)
    path = _campaign(tmp_path, fleet, "diskfull", size=600)
    raw = tmp_path / "raw"
    try:
        run_campaign(inventory.load(path), raw_root=raw, progress=False)
        last = _last(raw / "diskfull")
        assert all(r["state"] == "done" for r in last.values() if r["environment"] != "native-02")
        failed = [r for r in last.values() if r["environment"] == "native-02" and r["state"] == "failed"]
        print(f"diskfull: {len(failed)} trial(s) of host 02 failed: {sorted({r['cause'] for r in failed})}")
        assert failed and all(r["cause"].startswith("disk full on host fleet-02 (No space left on device)")
                              for r in failed), failed
    finally:
        subprocess.run([*ns, "umount", folder], check=False)
        subprocess.run(["sh", "-c", f"losetup -j {image} | cut -d: -f1 | xargs -r -n1 losetup -d"], check=False)
        image.unlink(missing_ok=True)
    again = run_campaign(inventory.load(path), raw_root=raw, retries=1, progress=False)
    assert again.failures == {}, again.failures
    _check_complete(raw / "diskfull", path)
