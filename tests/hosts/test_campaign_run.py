"""The executor on a private sshd: trials run, crash safety under SIGKILL, host faults.

Native environments only (the Docker and VM environments are exercised by
test_campaign_local.py against `make hosts-up`'s hosts).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections import Counter
from pathlib import Path
from unittest import mock

import pytest
from conftest import SHARED_MACHINE, free_port, require
from sshd_helper import SLEEPY, make_sshd, require_sshd, runners_dir

from overhead.campaign import execute, inventory, manifest, plan
from overhead.campaign.execute import REMOTE_BASE, run_campaign, trial_dir
from overhead.runners import read_trial


@pytest.fixture(scope="module")
def sshd(tmp_path_factory):
    require_sshd()
    server = make_sshd(tmp_path_factory.mktemp("sshd"), free_port())
    yield server
    server.stop()


def campaign_file(tmp_path: Path, name: str, hosts: str, envs: str, benchmarks: str,
                  extra: str = "") -> Path:
    path = tmp_path / f"{name}.yml"
    path.write_text(f"name: {name}\nseed: 11\ntimeout: 60\n{SHARED_MACHINE}{extra}"
                    f"hosts:\n{textwrap.indent(hosts, '  ')}\n"
                    f"environments:\n{textwrap.indent(envs, '  ')}\n"
                    f"benchmarks:\n{textwrap.indent(benchmarks, '  ')}\n")
    return path


def check_complete(raw: Path, p: plan.Plan) -> None:
    """Every planned trial exactly once, complete; nothing partial; one done record each."""
    records = manifest.read_records(raw / "manifest.jsonl")
    done = Counter(r["trial"] for r in records if r.get("state") == "done")
    assert set(done) == {t.id for t in p.trials}
    assert max(done.values()) == 1, [t for t, n in done.items() if n > 1]
    dirs = {d for d in raw.glob("*/*/*") if d.parent.parent.name not in ("facts", "failed")}
    assert {d.name for d in dirs} == {t.id for t in p.trials}
    assert not list(raw.rglob("*.partial*"))
    for t in p.trials:
        d = trial_dir(raw, t)
        assert {f.name for f in d.iterdir()} == {"meta", "output", "stderr", "trial.json"}
        info = json.loads((d / "trial.json").read_text())
        assert (info["id"], info["round"], info["warmup"]) == (t.id, t.round, t.warmup)
        tr = read_trial(d)
        assert tr.ok and not tr.measurements.empty


def test_run_then_nothing_left(sshd, tmp_path):
    path = campaign_file(tmp_path, "basic", f"local: {sshd.host_yaml()}",
                         "native: {kind: native, host: local}",
                         "cpu: {runner: sysbench, params: {test: cpu, threads: [1, 2], time: 1}}",
                         "trials: 2\nwarmup: 1\n")
    c = inventory.load(path)
    result = run_campaign(c, raw_root=tmp_path / "raw", progress=False)
    p = plan.make_plan(c)
    assert (result.planned, result.done, result.failed) == (6, 6, 0)
    raw = tmp_path / "raw" / "basic"
    check_complete(raw, p)
    facts = json.loads((raw / "facts" / "native.json").read_text())
    assert facts["campaign_hash"] == c.sha256 and facts["cores"].isdigit()
    assert facts["kernel"].startswith("Linux ")
    info = json.loads((trial_dir(raw, p.trials[1]) / "trial.json").read_text())
    assert info["previous"] == "native" and info["position"] == 1
    assert set(info["noise"]["before"]) >= {"load1"}
    # a second run finds everything done and runs nothing
    again = run_campaign(c, raw_root=tmp_path / "raw", progress=False)
    assert (again.done, again.skipped_done) == (0, 6)
    # nothing of the campaign is left on the host
    assert not Path(f"{REMOTE_BASE}/basic/trials").exists()
    # no secret in what was recorded: the client key's body never appears
    key_body = sshd.client_key.read_text().splitlines()[1]
    for f in raw.rglob("*"):
        if f.is_file():
            assert key_body not in f.read_text(errors="replace")


def test_sigkill_at_random_moments_then_resume(sshd, tmp_path):
    path = campaign_file(tmp_path, "crash", f"local: {sshd.host_yaml()}",
                         "native: {kind: native, host: local}",
                         "cpu: {runner: sysbench, params: {test: cpu, threads: [1, 2], time: 1}}\n"
                         "io: {runner: fio, params: {rw: randread, bs: 4k, size: 2m, runtime: 1}}",
                         "trials: 3\nwarmup: 0\n")
    raw_root = tmp_path / "raw"
    argv = [sys.executable, "-m", "overhead.cli", "run", str(path), "--raw", str(raw_root),
            "--no-progress", "--no-ingest"]
    rng = random.Random(20261123)
    mfile = raw_root / "crash" / "manifest.jsonl"
    kills = 0
    for _ in range(12):
        starts_before = mfile.read_text().count('"event": "start"') if mfile.exists() else 0
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        # a kill at a random moment after the controller started (not during Python's imports)
        while time.monotonic() < deadline and proc.poll() is None and (
                not mfile.exists() or mfile.read_text().count('"event": "start"') == starts_before):
            time.sleep(0.02)
        time.sleep(rng.uniform(0.0, 2.5))
        if proc.poll() is not None:
            break
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        kills += 1
    assert kills >= 10
    final = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert final.returncode == 0, final.stderr
    c = inventory.load(path)
    check_complete(raw_root / "crash", plan.make_plan(c))
    records = manifest.read_records(raw_root / "crash" / "manifest.jsonl")
    starts = [r for r in records if r.get("event") == "start"]
    assert len(starts) == kills + 1
    # trials interrupted by a kill were run again from scratch
    running = Counter(r["trial"] for r in records if r.get("state") == "running")
    assert sum(running.values()) > len(plan.make_plan(c).trials)
    # and no runner of an interrupted attempt is left running on the host
    left = subprocess.run(["pgrep", "-f", f"{REMOTE_BASE}/crash/"], capture_output=True, text=True)
    assert left.stdout == ""


def test_stopping_rule_runs_rounds_until_precise_or_capped(sshd, tmp_path):
    path = campaign_file(
        tmp_path, "stopping", f"local: {sshd.host_yaml()}",
        "native: {kind: native, host: local}",
        "cpu: {runner: sysbench, params: {test: cpu, threads: 1, time: 0, events: 2000}}\n"
        "io: {runner: fio, params: {rw: randread, bs: 4k, size: 2m, runtime: 1}}",
        "stopping: {metric: events, target: 0.10, min_rounds: 2, max_rounds: 4}\n")
    c = inventory.load(path)
    result = run_campaign(c, raw_root=tmp_path / "raw", progress=False)
    assert result.failed == 0
    saved = json.loads((tmp_path / "raw" / "stopping" / "plan.json").read_text())
    cells = {v["benchmark"]: k for k, v in saved["cells"].items()}
    # sysbench with a fixed event count reports exactly 2000 events each time: the interval is
    # within 10% after the minimum two rounds (a rule check, not a claim about precision)
    assert saved["stops"][cells["cpu"]].startswith("target 10% met: half-width 0.00%")
    # fio reports no `events`: its interval is unknown, so it runs to the cap
    assert saved["stops"][cells["io"]].startswith("cap of 4 rounds reached: half-width unknown")
    rounds = Counter(t["benchmark"] for t in saved["trials"])
    assert rounds == {"cpu": 2, "io": 4}
    assert result.done == 6 == len(saved["trials"])


def test_verdicts_rule_runs_rounds_until_each_comparison_is_decided_or_capped(sshd, tmp_path):
    """Two native environments on one host, compared on sysbench's event rate (decided: the two
    are the same machine) and on a metric no runner reports (never testable: runs to the cap);
    the executor extends the plan from the trials' parsed outputs and plan.json says why each
    comparison stopped; the plan re-derived from the same trials is the one that ran."""
    path = campaign_file(
        tmp_path, "verdicts", f"local: {sshd.host_yaml()}",
        "native: {kind: native, host: local}\nagain: {kind: native, host: local}",
        "cpu: {runner: sysbench, params: {test: cpu, threads: 1, time: 0, events: 3000},\n"
        "      judge: [{metric: event_rate, name: rate}, {metric: no_such_metric, name: ghost}]}",
        "stopping: {rule: verdicts, baseline: native, min_rounds: 2, max_rounds: 4, max_minutes: 10}\n")
    c = inventory.load(path)
    result = run_campaign(c, raw_root=tmp_path / "raw", progress=False)
    assert result.failed == 0
    saved = json.loads((tmp_path / "raw" / "verdicts" / "plan.json").read_text())
    rate = next(v for k, v in saved["decisions"].items() if k.endswith("#rate"))
    ghost = next(v for k, v in saved["decisions"].items() if k.endswith("#ghost"))
    assert rate["environment"] == "again" and rate["baseline"] == "native"
    # the ghost quantity keeps both cells running to the last look (4 trials), so the rate is
    # decided at a look along the way (same machine: equivalent within +-5%, or a difference
    # if the host was disturbed) or at the last; each says which
    assert ghost["verdict"] == "not tested"
    assert ghost["why"].startswith("its last planned look (4 trials a side) reached")
    assert rate["why"].startswith(("decided at look", "its last planned look (4 trials a side)"))
    # looks at 2 and 4 trials: 1 - 0.05 (2/4)^2, then the rest of the 5%
    assert rate["sequential"] and rate["level"] == pytest.approx({1: 0.9875, 2: 0.9625}[rate["look"]])
    assert saved["rounds"] == 4 and result.done == 8 == len(saved["trials"])
    # the same trials give the same plan (what a resumed run re-derives)
    from overhead.campaign.execute import _cell_values

    again = plan.make_plan(c)
    for _ in range(3):
        again = plan.extend(again, c, _cell_values(tmp_path / "raw" / "verdicts", again, c)[0])
    assert [t.id for t in again.trials] == [t["id"] for t in saved["trials"]]


def test_prepare_kills_a_stale_attempt_and_clears_its_files(tmp_path):
    """A trial whose controller died is run again from scratch, never beside its old self."""
    from overhead.environments import native

    out = tmp_path / "trials" / "t-1"
    pgid = f"{out}.pgid"
    (tmp_path / "trials").mkdir()
    (tmp_path / "trials" / "t-1.partial.99").mkdir()
    cmd = native.runner_command("/nonexistent", "x", str(out), {}, 60, pgid_file=pgid)
    # the old attempt: the runner's session, here a sleep standing in for the tool
    stale = subprocess.Popen(["sh", "-c", cmd.replace("timeout -k 10 60 sh /nonexistent/x.sh",
                                                      "sleep 300 #")])
    deadline = time.monotonic() + 10
    while not Path(pgid).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    subprocess.run(["sh", "-c", native.prepare_command(str(out), pgid)], check=True)
    assert stale.wait(timeout=10) != 0  # killed with its process group
    assert not Path(pgid).exists() and list((tmp_path / "trials").iterdir()) == []


def test_prepare_of_a_trial_never_started_only_removes_files(tmp_path):
    """No runner of a trial that never started can be left: its preparation removes its files
    and reads no process's environment (the sweep was most of the command's time)."""
    from overhead.environments import docker, lxc, native

    out = tmp_path / "trials" / "t-1"
    (tmp_path / "trials").mkdir()
    (tmp_path / "trials" / "t-1.partial.7").mkdir()
    out.mkdir()
    Path(f"{out}.pgid").write_text("1\n")     # even a pgid file is not acted on: only removed
    light = native.prepare_command(str(out), f"{out}.pgid", sweep=False)
    assert "grep" not in light and "kill" not in light
    subprocess.run(["sh", "-c", light], check=True)
    assert list((tmp_path / "trials").iterdir()) == []
    for cmd in (docker.prepare_command("c", "t-1", "/x/trials", sweep=False),
                lxc.prepare_command("c", "t-1", "/x/trials", sweep=False)):
        assert cmd == "rm -rf /x/trials/t-1 /x/trials/t-1.partial.* /x/trials/t-1.pgid"
    assert "docker exec" in docker.prepare_command("c", "t-1", "/x/trials")


def test_only_trials_started_before_are_swept_for_leftovers(sshd, tmp_path):
    """The executor sweeps before a trial the manifest says was started (its controller may have
    died with its runner running), and only removes files before the others."""
    path = campaign_file(tmp_path, "sweeps", f"local: {sshd.host_yaml()}",
                         "native: {kind: native, host: local}",
                         "cpu: {runner: sysbench, params: {test: cpu, threads: 1, time: 1}}",
                         "trials: 3\nwarmup: 0\n")
    c = inventory.load(path)
    ids = [t.id for t in plan.make_plan(c).trials]
    raw = tmp_path / "raw"
    (raw / "sweeps").mkdir(parents=True)
    # an earlier run started the second trial and died
    with manifest.Manifest(raw / "sweeps" / "manifest.jsonl") as m:
        m.trial(ids[1], "running", attempt=1)
    preps: dict[str, str] = {}
    real = execute._Worker._execute

    def spy(self, env, trial):
        preps[trial.id] = env.prepare(trial, sweep=trial.id in self.run.started)
        return real(self, env, trial)

    with mock.patch.object(execute._Worker, "_execute", spy):
        result = run_campaign(c, raw_root=raw, progress=False)
    assert (result.done, result.failed) == (3, 0), result.failures
    assert ["grep -lxzF" in preps[i] for i in ids] == [False, True, False]
def test_a_server_left_by_an_interrupted_run_is_stopped_before_the_next_starts(tmp_path):
    """A native server started by an earlier (killed) run still runs with its pid file: the
    next run stops that session before starting its own; a pid file naming a process that
    does not lead a session (a pid reused since) stops nothing."""
    from types import SimpleNamespace

    from overhead.campaign.execute import _Env

    files = (str(tmp_path / "server-native-redis.pid"), str(tmp_path / "server.log"))
    env = SimpleNamespace(server_files=lambda _name: files, joins=None)
    start = _Env.server_command(env, "redis", "sleep 300")
    subprocess.run(["sh", "-c", start], check=True, timeout=30)
    deadline = time.monotonic() + 10
    while not Path(files[0]).exists() or not Path(files[0]).read_text().strip():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    pid, start = map(int, Path(files[0]).read_text().split())  # "PID STARTTIME"
    assert str(start) == Path(f"/proc/{pid}/stat").read_text().split(") ")[1].split()[19]
    assert Path(f"/proc/{pid}").exists()
    out = subprocess.run(["sh", "-c", _Env.stale_server_command(env, "redis")],
                         capture_output=True, text=True, timeout=60).stdout
    assert out.strip() == f"stale server session {pid}"
    state = Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] if Path(f"/proc/{pid}").exists() else "gone"
    assert state in ("gone", "Z") and not Path(files[0]).exists()
    # a pid file naming a process that is not that server is left alone: a child of this
    # test leads no session; a session leader with another start time got the pid later
    # (or is the host's process of a number that a container wrote)
    other = subprocess.Popen(["sleep", "300"])
    leader = subprocess.Popen(["sleep", "300"], start_new_session=True)
    try:
        fields = Path(f"/proc/{leader.pid}/stat").read_text().split(") ")[1].split()
        for line in (f"{other.pid}", f"{other.pid} {fields[19]}", f"{leader.pid} 12345"):
            Path(files[0]).write_text(line + "\n")
            out = subprocess.run(["sh", "-c", _Env.stale_server_command(env, "redis")],
                                 capture_output=True, text=True, timeout=60).stdout
            assert out == "" and not Path(files[0]).exists(), line
            assert other.poll() is None and leader.poll() is None, line
        # the leader with its own start time is the server the file names
        Path(files[0]).write_text(f"{leader.pid} {fields[19]}\n")
        out = subprocess.run(["sh", "-c", _Env.stale_server_command(env, "redis")],
                             capture_output=True, text=True, timeout=60).stdout
        assert out.strip() == f"stale server session {leader.pid}"
        assert leader.wait(timeout=10) is not None
    finally:
        for proc in (other, leader):
            proc.kill()
            proc.wait()


def test_a_port_already_held_where_a_server_would_listen_is_found_in_real_ss_output():
    import socket

    from overhead.campaign.execute import listening_conflicts

    held = socket.socket()
    wild = socket.socket()
    try:
        held.bind(("127.0.0.7", 0))
        held.listen()
        wild.bind(("0.0.0.0", 0))  # noqa: S104 - a test listener, closed below
        wild.listen()
        p_held, p_wild = held.getsockname()[1], wild.getsockname()[1]
        out = subprocess.run(["ss", "-Hltn"], capture_output=True, text=True, check=True).stdout
        # the same address and port; any address where a wildcard listener holds the port
        assert [ln.split()[3] for ln in listening_conflicts(out, "127.0.0.7", [p_held])] == \
            [f"127.0.0.7:{p_held}"]
        assert listening_conflicts(out, "127.0.0.8", [p_held]) == []
        assert [ln.split()[3] for ln in listening_conflicts(out, "127.0.0.8", [p_wild])] == \
            [f"0.0.0.0:{p_wild}"]
        # a server that would listen on every address conflicts with any listener of its port
        assert len(listening_conflicts(out, "0.0.0.0", [p_held, p_wild])) == 2  # noqa: S104
    finally:
        held.close()
        wild.close()


def _failure_cause(raw: Path) -> dict:
    """The one failed record of a campaign's manifest."""
    failed = [r for r in manifest.read_records(raw / "manifest.jsonl")
              if r.get("state") == "failed"]
    assert len(failed) == 1, failed
    return failed[0]


@pytest.mark.tool
def _sleeping_campaign(sshd, tmp_path, name: str, benchmark: str) -> Path:
    """A campaign of one hyperfine trial (``benchmark``: its YAML) on the test's sshd."""
    require("hyperfine")
    return campaign_file(tmp_path, name, f"local: {sshd.host_yaml()}",
                         "native: {kind: native, host: local}", benchmark, "trials: 1\n")


def test_a_runner_past_its_timeout_is_a_timeout(sshd, tmp_path):
    path = _sleeping_campaign(sshd, tmp_path, "slow", "slow: {runner: hyperfine, timeout: 3, "
                              "params: {command: 'sleep 29.7', runs: 2}}")
    t0 = time.monotonic()
    result = run_campaign(inventory.load(path), raw_root=tmp_path / "raw", progress=False)
    assert result.failed == 1 and time.monotonic() - t0 < 40
    rec = _failure_cause(tmp_path / "raw" / "slow")
    assert rec["cause"] == "timeout: the runner ran past 3 s and was killed", rec
    subprocess.run(["pkill", "-KILL", "-f", "sleep 29.7"], capture_output=True)


@pytest.mark.tool
def test_a_runner_killed_before_its_timeout_is_not_called_a_timeout(sshd, tmp_path):
    """SIGKILL from outside (a container stopped under it, the OOM killer) is said as such."""
    path = _sleeping_campaign(sshd, tmp_path, "killed",
                              "slow: {runner: hyperfine, params: {command: 'sleep 29.3', runs: 2}}")
    killed = []

    def kill_the_runner():
        for _ in range(300):   # 30 s at most
            time.sleep(0.1)
            if subprocess.run(["pgrep", "-f", "sleep 29.3"], capture_output=True).returncode:
                continue
            # the runner's own shell (not the `timeout` around it, nor the trial's wrapper)
            pids = subprocess.run(["pgrep", "-f", r"^sh [^ ]*/hyperfine\.sh [^ ]*/killed/"],
                                  capture_output=True, text=True)
            for pid in pids.stdout.split():
                subprocess.run(["kill", "-KILL", pid])
                killed.append(pid)
            if killed:
                return

    killer = threading.Thread(target=kill_the_runner, daemon=True)
    killer.start()
    try:
        result = run_campaign(inventory.load(path), raw_root=tmp_path / "raw", progress=False)
    finally:
        killer.join(35)
        subprocess.run(["pkill", "-KILL", "-f", "sleep 29.3"], capture_output=True)
    assert killed and result.failed == 1
    cause = _failure_cause(tmp_path / "raw" / "killed")["cause"]
    assert cause.startswith("the runner was killed (SIGKILL, exit 137) after "), cause
    assert cause.endswith("s, before its 60 s timeout"), cause


def _args(pid: int) -> str:
    """A process's command line ("" once it is gone)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _tree(pid: int) -> list[int]:
    """A process and all its descendants (from /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


@pytest.mark.tool
def test_a_hung_host_fails_its_trials_in_bounded_time_and_the_other_host_goes_on(
        sshd, tmp_path):
    """SIGSTOP of one host's sshd and everything under it (its sessions, shell, runner), never
    resumed during the run: the trial in flight there is found not responding within
    connect_timeout + 2 x keepalive (5 + 2 x 2 = 9 s) of the stop, waits the host's hang_wait
    (3 s here) for it, then fails saying so; the host's later trials fail at once, the other
    host's trials are all done; after SIGCONT a resume with a retry runs the failed ones."""
    require("hyperfine")
    other = make_sshd(tmp_path / "sshd-b", free_port())
    path = campaign_file(tmp_path, "hung", f"a: {sshd.host_yaml(hang_wait=3)}\nb: {other.host_yaml()}",
                         "na: {kind: native, host: a}\nnb: {kind: native, host: b}",
                         "slow: {runner: hyperfine, params: {command: 'sleep 1.37', runs: 2}}",
                         "trials: 4\nwarmup: 0\n")
    raw = tmp_path / "raw"
    mfile = raw / "hung" / "manifest.jsonl"
    stopped: list[int] = []
    when: list[float] = []
    done = threading.Event()

    def hang_host_a():
        """Once host a's runner runs (a `sleep 1.37` under its sshd), stop the whole tree."""
        deadline = time.monotonic() + 60
        listener = int(sshd.pidfile.read_text())
        while not done.is_set() and time.monotonic() < deadline:
            time.sleep(0.05)
            tree = _tree(listener)
            if any(_args(p).startswith("sleep 1.37") for p in tree):
                time.sleep(0.5)
                stopped.extend(_tree(listener))
                for pid in stopped:
                    os.kill(pid, signal.SIGSTOP)
                when.append(time.time())
                return

    hanger = threading.Thread(target=hang_host_a, daemon=True)
    hanger.start()
    t0 = time.monotonic()
    try:
        result = run_campaign(inventory.load(path), raw_root=raw, progress=False)
        took = time.monotonic() - t0
    finally:
        done.set()
        hanger.join(5)
        for pid in stopped:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        other.stop()
    assert len(stopped) >= 3, stopped  # the listener, the session's sshd, its shell...
    records = manifest.read_records(mfile)
    last = {r["trial"]: r for r in records if "trial" in r}
    a = [t for t, r in last.items() if r["environment"] == "na"]
    b = [t for t, r in last.items() if r["environment"] == "nb"]
    assert len(b) == 4 and all(last[t]["state"] == "done" for t in b)
    assert len(a) == 4 and all(last[t]["state"] == "failed" for t in a), [last[t] for t in a]
    assert all(last[t]["cause"].startswith("host not responding") for t in a), \
        [last[t]["cause"] for t in a]
    assert all("waited 3 s (hosts.a.hang_wait) for it to answer again" in last[t]["cause"]
               for t in a), [last[t]["cause"] for t in a]
    # the first failure came within the stated bound of the stop and the wait (plus 2 s of slack)
    from datetime import datetime
    first = min(datetime.fromisoformat(last[t]["ts"].replace("Z", "+00:00")).timestamp()
                for t in a)
    assert 0 < first - when[0] <= 5 + 2 * 2 + 3 + 2, first - when[0]
    assert result.failed == 4 and result.done == 4 and took < 90, took
    # the host answers again: a resume with one retry runs the four failed trials
    again = run_campaign(inventory.load(path), raw_root=raw, retries=1, progress=False)
    assert again.done == 4 and again.failures == {}


# ---------------------------------------------------------------------------------------------
# issue 25: one run of a campaign at a time, a runner's stray children, a TERM-ignoring runner,
# a full disk

def test_a_second_run_of_a_running_campaign_refuses_in_one_line_naming_the_first(sshd, tmp_path):
    """The attack: two `overhead run` of one campaign at once. The second refuses before it
    writes anything, naming the first's pid; the first completes, each trial done once."""
    runners = runners_dir(tmp_path, sleepy=SLEEPY)
    path = campaign_file(tmp_path, "twice", f"local: {sshd.host_yaml()}",
                         "native: {kind: native, host: local}",
                         "nap: {runner: sleepy, params: {secs: 4}}",
                         f"trials: 3\nwarmup: 0\nrunners: {runners}\n")
    raw_root = tmp_path / "raw"
    argv = [sys.executable, "-m", "overhead.cli", "run", str(path), "--raw", str(raw_root),
            "--no-progress", "--no-ingest"]
    mfile = raw_root / "twice" / "manifest.jsonl"
    first = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not (mfile.exists() and '"state": "running"' in mfile.read_text()):
            assert first.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        from overhead import locks

        # the lock file names the first run while it runs (read now: it ends in about 12 s)
        assert locks.holder(raw_root / "twice" / ".run.lock")["pid"] == first.pid
        # status says the trial in flight runs now (not "interrupted"), and its counts add up
        from overhead.campaign import status as campaign_status

        now = campaign_status.status(inventory.load(path), raw_root)
        assert now.run_by["pid"] == first.pid and now.running == 1
        assert now.done + now.failed + now.running + now.left == now.planned == 3
        assert f"1 running now (pid {first.pid} since " in now.text()
        before = mfile.read_bytes()
        second = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        assert first.poll() is None  # the first still runs: the refusal came at once
        assert second.returncode == 2, second.stderr
        lines = second.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in second.stderr, second.stderr
        assert f"campaign twice is in use by pid {first.pid} on " in lines[0], lines[0]
        assert lines[0].startswith(str(raw_root / "twice" / ".run.lock")), lines[0]
        # it wrote nothing: the manifest is the first run's alone so far
        assert mfile.read_bytes().startswith(before)
    finally:
        _, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    records = manifest.read_records(mfile)
    assert sum(r.get("event") == "start" for r in records) == 1
    done = Counter(r["trial"] for r in records if r.get("state") == "done")
    assert len(done) == 3 and set(done.values()) == {1}


def test_a_lock_left_by_a_killed_run_is_taken_over(sshd, tmp_path):
    """The holder was SIGKILLed: the kernel released its flock, the file still names it; the
    next run takes the lock and writes its own pid."""
    from overhead import locks
    from overhead.errors import LockHeld

    raw = tmp_path / "raw" / "stale"
    raw.mkdir(parents=True)
    lock = raw / ".run.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom overhead import locks\n"
         f"with locks.hold({str(lock)!r}, 'campaign stale'):\n"
         "    print('held', flush=True)\n    time.sleep(300)\n"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(LockHeld, match=f"in use by pid {holder.pid} "), \
                locks.hold(lock, "campaign stale"):
            pass
    finally:
        holder.kill()
        holder.wait()
    assert locks.holder(lock)["pid"] == holder.pid  # left behind by the killed holder
    with locks.hold(lock, "campaign stale"):
        assert locks.holder(lock)["pid"] == os.getpid()
    # and a run of the campaign takes it over as well
    runners = runners_dir(tmp_path, sleepy=SLEEPY)
    path = campaign_file(tmp_path, "stale", f"local: {sshd.host_yaml()}",
                         "native: {kind: native, host: local}",
                         "nap: {runner: sleepy, params: {secs: 0}}",
                         f"trials: 1\nwarmup: 0\nrunners: {runners}\n")
    result = run_campaign(inventory.load(path), raw_root=tmp_path / "raw", progress=False)
    assert (result.done, result.failed) == (1, 0)


def test_a_lock_is_closed_in_forked_children_and_never_passed_on(tmp_path):
    """A child forked while the lock is held holds no copy of it (its parent's death frees
    the lock), and unlocks nothing of its parent's."""
    from overhead import locks
    from overhead.errors import LockHeld

    lock = tmp_path / "x.lock"
    with locks.hold(lock, "x"):
        (fd,) = locks.held_fds()
        pid = os.fork()
        if pid == 0:  # the child: no lock descriptor left, the parent's lock still held
            ok = not locks.held_fds()
            try:
                os.fstat(fd)
                ok = False
            except OSError:
                pass
            try:
                with locks.hold(lock, "x"):
                    ok = False
            except LockHeld:
                pass
            os._exit(0 if ok else 1)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert os.get_inheritable(fd) is False
        with pytest.raises(LockHeld):  # still held after the child exited
            with locks.hold(lock, "x"):
                pass


def test_a_runner_ignoring_term_is_a_timeout_naming_the_kill(sshd, tmp_path):
    """A runner that ignores SIGTERM is killed by `timeout -k`'s SIGKILL 10 s after its
    timeout: a timeout, saying so (not 'runner exited with status 9')."""
    runners = runners_dir(tmp_path, stubborn="trap '' TERM\nsleep 40\n")
    path = campaign_file(tmp_path, "stubborn", f"local: {sshd.host_yaml()}",
                         "native: {kind: native, host: local}",
                         "hang: {runner: stubborn, timeout: 1}",
                         f"trials: 1\nwarmup: 0\nrunners: {runners}\n")
    result = run_campaign(inventory.load(path), raw_root=tmp_path / "raw", progress=False)
    assert result.failed == 1
    cause = _failure_cause(tmp_path / "raw" / "stubborn")["cause"]
    assert cause.startswith("timeout: the runner ran past 1 s, ignored SIGTERM and was killed "
                            "with SIGKILL 10 s later (after 1"), cause


def _strays(marker: str) -> list[str]:
    """The running processes whose command line is ``marker`` (zombies excluded)."""
    out = subprocess.run(["pgrep", "-f", f"^{marker}$"], capture_output=True, text=True).stdout
    return [p for p in out.split() if Path(f"/proc/{p}/stat").exists()
            and Path(f"/proc/{p}/stat").read_text().split(") ")[1][0] != "Z"]


def test_a_runners_setsid_child_is_killed_when_its_trial_ends(sshd, tmp_path):
    """`setsid sleep &` leaves the runner's session (the process-group kill misses it); it
    carries the trial's mark in its environment, and is killed when the runner ends."""
    runners = runners_dir(tmp_path, escaper='setsid sleep 1234.5 &\nmkdir -p "$1"\n'
                                            'echo tool=escaper > "$1/meta"\n')
    path = campaign_file(tmp_path, "escape", f"local: {sshd.host_yaml()}",
                         "native: {kind: native, host: local}", "esc: {runner: escaper}",
                         f"trials: 2\nwarmup: 0\nrunners: {runners}\n")
    try:
        result = run_campaign(inventory.load(path), raw_root=tmp_path / "raw", progress=False)
        assert (result.done, result.failed) == (2, 0)
        assert _strays("sleep 1234.5") == []
    finally:
        subprocess.run(["pkill", "-KILL", "-f", "^sleep 1234.5$"], capture_output=True)


@pytest.fixture
def small_disk(tmp_path):
    """A 1 MiB tmpfs (root only), unmounted at the end."""
    import os as _os

    if _os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mnt = tmp_path / "small"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)], check=True)
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_a_full_disk_stops_the_run_in_one_line_and_spends_no_attempt(sshd, tmp_path, small_disk):
    """Trials of 300 KiB each on a 1 MiB disk: the fourth does not fit. The run stops with one
    line naming what it was writing; that trial is recorded running, never failed, so after
    space is freed the next run (no retries allowed) runs it and completes the campaign."""
    from overhead.errors import DiskFull

    runners = runners_dir(tmp_path, sleepy=SLEEPY)
    path = campaign_file(tmp_path, "full", f"local: {sshd.host_yaml()}",
                         "native: {kind: native, host: local}",
                         "big: {runner: sleepy, params: {secs: 0, size: 300}}",
                         f"trials: 5\nwarmup: 0\nrunners: {runners}\n")
    c = inventory.load(path)
    with pytest.raises(DiskFull) as err:
        run_campaign(c, raw_root=small_disk, progress=False)
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(f"disk full writing {small_disk / 'full'}/"), msg
    assert msg.endswith(": free space and run again; nothing recorded is lost "
                        "(the trial under way runs again)"), msg
    raw = small_disk / "full"
    records = manifest.read_records(raw / "manifest.jsonl")
    assert not [r for r in records if r.get("state") == "failed"], records
    assert not list(raw.rglob("*.partial*")) and not list(raw.rglob(".*.tmp.*"))
    done = {r["trial"] for r in records if r.get("state") == "done"}
    assert 1 <= len(done) < 5
    subprocess.run(["mount", "-o", "remount,size=4m", str(small_disk)], check=True)
    again = run_campaign(c, raw_root=small_disk, progress=False, retries=0)
    assert again.failures == {} and again.done + len(done) == 5
    p = plan.make_plan(c)
    assert all((trial_dir(raw, t) / "meta").exists() for t in p.trials)
    assert json.loads((raw / "plan.json").read_text())["trials"]


def test_plan_json_on_a_full_disk_is_one_line_and_the_old_file_is_kept(small_disk):
    from overhead.campaign.durable import write_atomic
    from overhead.errors import DiskFull

    target = small_disk / "plan.json"
    write_atomic(target, '{"old": true}')
    with pytest.raises(DiskFull, match=f"^disk full writing {target}: free space and run again"):
        write_atomic(target, "x" * (2 << 20))
    assert target.read_text() == '{"old": true}'
    assert [f.name for f in small_disk.iterdir()] == ["plan.json"]


# ---------------------------------------------------------------------------------------------
# issue 24: the load generator on another host (client: other), or on CPUs of its own beside
# its server; the other environments of the host paused during a trial

#: A runner that records where it ran: the SSH server it came through (its port tells the
#: inventory host), the CPUs it may use and its cgroup.
WHERE = """\
    out=$1; shift
    mkdir -p "$out"
    { echo "ssh=$SSH_CONNECTION"; grep Cpus_allowed_list /proc/self/status;
      grep cpuacct /proc/self/cgroup; } > "$out/output"
    echo "tool=where" > "$out/meta"
"""


def _server_state(pidfile: Path) -> str:
    pid = pidfile.read_text().split()[0]
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def test_client_other_runs_the_load_generator_on_the_other_host(sshd, tmp_path):
    other = make_sshd(tmp_path / "other", free_port())
    try:
        runners = runners_dir(tmp_path, where=WHERE)
        path = campaign_file(
            tmp_path, "twohosts", f"a: {sshd.host_yaml()}\nb: {other.host_yaml()}",
            "native: {kind: native, host: a}",
            "probe: {runner: where, client: other, server: 'sleep 300', ready: 'true'}",
            f"trials: 1\nrunners: {runners}\n")
        c = inventory.load(path)
        assert c.client_host("probe", "native") == "b"
        result = run_campaign(c, raw_root=tmp_path / "raw", progress=False)
        assert result.failures == {} and result.done == 1
        d = next((tmp_path / "raw" / "twohosts" / "native" / "probe").iterdir())
        info = json.loads((d / "trial.json").read_text())
        assert info["client"] == "b"
        assert info["placement"]["shares_host"] is False
        assert info["placement"]["client_cpus"] is None  # not on the server's host: anywhere
        ssh = (d / "output").read_text().split("ssh=", 1)[1].split()
        assert ssh[3] == str(other.port)  # the runner came in through b's SSH server
    finally:
        other.stop()


def test_a_client_beside_its_server_gets_cpus_of_its_own_and_idle_servers_stand_still(sshd, tmp_path):
    if os.cpu_count() < 2:
        pytest.skip("placement needs two CPUs")
    runners = runners_dir(tmp_path, where=WHERE)
    path = campaign_file(
        tmp_path, "placed", f"local: {sshd.host_yaml()}",
        "one: {kind: native, host: local}\ntwo: {kind: native, host: local}",
        "probe: {runner: where, client: local, server: 'sleep 300', ready: 'true'}",
        f"trials: 2\nrunners: {runners}\n")
    c = inventory.load(path)
    seen: dict[str, list[str]] = {}
    folder = Path(f"{REMOTE_BASE}/placed/trials")
    original = execute._Worker._execute

    def spy(self, env, trial):
        # while a trial of one environment runs, the other's server is stopped (state T)
        other = "two" if trial.environment == "one" else "one"
        pidfile = folder / f"server-{other}-probe.pid"
        if pidfile.exists():
            seen.setdefault(trial.environment, []).append(_server_state(pidfile))
        return original(self, env, trial)

    with mock.patch.object(execute._Worker, "_execute", spy):
        result = run_campaign(c, raw_root=tmp_path / "raw", progress=False)
    assert result.failures == {} and result.done == 4
    assert seen and all(s == ["T"] * len(s) for s in seen.values()), seen
    half = os.cpu_count() // 2
    client_cpus = "0" if half == 1 else f"0-{half - 1}"
    for d in (tmp_path / "raw" / "placed").glob("*/probe/*"):
        info = json.loads((d / "trial.json").read_text())
        assert info["placement"]["client_cpus"] == client_cpus
        out = (d / "output").read_text()
        assert f"Cpus_allowed_list:\t{client_cpus}" in out
        # the load generator is accounted in its environment's cgroup, where cgroups exist
        if info["interference"]["measured_s"] is not None:
            assert f"/overhead/placed/{info['environment']}" in out
        other = "two" if info["environment"] == "one" else "one"
        assert info["idle"] == {other: "paused"} or info["round"] == 1
    # the servers ran on the other half
    events = [json.loads(x) for x in (tmp_path / "raw" / "placed" / "manifest.jsonl").read_text().splitlines()]
    started = [e for e in events if e.get("event") == "server-started"]
    assert len(started) == 2 and all(e["cpus"] == (str(half) if os.cpu_count() - half == 1
                                                   else f"{half}-{os.cpu_count() - 1}")
                                     for e in started)


#: A runner that burns two seconds of CPU in a child it moves out of its own cgroup (CPU time
#: outside the trial, as another job beside it would spend; needs root and cgroups), then runs
#: the project's sysbench runner for a second.
ESCAPING_BURNER = """\
    out=$1; shift
    ( for d in /sys/fs/cgroup/cpuacct /sys/fs/cgroup/cpu,cpuacct /sys/fs/cgroup; do
        [ -w "$d/cgroup.procs" ] && { echo $(sh -c 'echo $PPID') > "$d/cgroup.procs"; break; }
      done 2>/dev/null
      e=$(($(date +%s) + 2)); while [ "$(date +%s)" -lt "$e" ]; do :; done ) &
    wait
    exec sh RUNNERS/sysbench.sh "$out" test=cpu threads=1 time=1
"""


def test_a_disturbed_trial_is_rerun_then_excluded_and_ingest_leaves_its_rows_out(sshd, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("moving a process between cgroups needs root")
    from overhead.runners import RUNNERS_DIR

    runners = runners_dir(tmp_path, burner=ESCAPING_BURNER.replace("RUNNERS", str(RUNNERS_DIR)))
    path = tmp_path / "disturbed.yml"
    path.write_text(f"name: disturbed\nseed: 3\ntimeout: 60\ntrials: 1\nrunners: {runners}\n"
                    "isolation: {reruns: 1}\n"
                    f"hosts:\n  local: {sshd.host_yaml()}\n"
                    "environments:\n  native: {kind: native, host: local}\n"
                    "benchmarks:\n  burn: {runner: burner}\n")
    c = inventory.load(path)
    result = run_campaign(c, raw_root=tmp_path / "raw", progress=False)
    raw = tmp_path / "raw" / "disturbed"
    tid = plan.make_plan(c).trials[0].id
    facts = json.loads((raw / "facts" / "native.json").read_text())
    if facts.get("cgroup", "unavailable").startswith("unavailable"):
        pytest.skip("no CPU-accounting cgroup on this host")
    assert result.done == 1 and result.failures == {}
    states = [r["state"] for r in manifest.read_records(raw / "manifest.jsonl")
              if r.get("trial") == tid]
    assert states == ["running", "interfered", "running", "done"]
    moved = json.loads((raw / "interfered" / "native" / "burn" / f"{tid}.1" / "trial.json")
                       .read_text())
    assert moved["status"] == "interfered" and "outside" in moved["noise_flags"]
    assert moved["interference"]["outside_s"] > 1.0  # about the 2 s it burned
    kept = json.loads((trial_dir(raw, plan.make_plan(c).trials[0]) / "trial.json").read_text())
    assert kept["excluded"] == ["outside"] and kept["attempt"] == 1
    import pandas as pd

    from overhead.campaign.ingest import ingest_campaign

    ingest_campaign(raw, tmp_path / "tidy")
    trials = pd.read_parquet(tmp_path / "tidy" / "trials.parquet").set_index("status")
    assert sorted(trials.index) == ["excluded", "interfered"]
    assert trials.loc["excluded", "rows"] == 0
    assert trials.loc["excluded", "cause"].startswith("interference: outside ")
    assert trials.loc["interfered", "run_id"] == f"disturbed/interfered/native/burn/{tid}.1"
    # on request, the excluded trial's rows are kept (a full rebuild)
    again = ingest_campaign(raw, tmp_path / "tidy", include_excluded=True)
    assert "include_excluded changed" in again.describe()
    trials = pd.read_parquet(tmp_path / "tidy" / "trials.parquet").set_index("status")
    assert sorted(trials.index) == ["done", "interfered"]
    assert trials.loc["done", "rows"] > 0
    assert trials.loc["done", "cause"].startswith("interference: outside ")


def test_a_benchmark_whose_work_runs_outside_its_cgroup_is_recorded_not_judged(sshd, tmp_path):
    """The same escaping burner, declared ``works_outside`` (as docker run is in the startup
    campaign): its 2 s outside are recorded, the trial is neither re-run nor excluded, and the
    reason reaches trial.json, trials.parquet and the report's noise section."""
    if os.geteuid() != 0:
        pytest.skip("moving a process between cgroups needs root")
    import pandas as pd

    from overhead.campaign import results
    from overhead.campaign.ingest import ingest_campaign
    from overhead.runners import RUNNERS_DIR

    runners = runners_dir(tmp_path, burner=ESCAPING_BURNER.replace("RUNNERS", str(RUNNERS_DIR)))
    path = tmp_path / "outside.yml"
    why = "its child moves itself out of the trial's cgroup, as dockerd's containers are"
    path.write_text(f"name: outside\nseed: 3\ntimeout: 60\ntrials: 1\nrunners: {runners}\n"
                    f"hosts:\n  local: {sshd.host_yaml()}\n"
                    "environments:\n  native: {kind: native, host: local}\n"
                    f"benchmarks:\n  burn: {{runner: burner, works_outside: \"{why}\"}}\n")
    c = inventory.load(path)
    result = run_campaign(c, raw_root=tmp_path / "raw", progress=False)
    raw = tmp_path / "raw" / "outside"
    facts = json.loads((raw / "facts" / "native.json").read_text())
    if facts.get("cgroup", "unavailable").startswith("unavailable"):
        pytest.skip("no CPU-accounting cgroup on this host")
    assert result.done == 1 and result.failures == {} and not (raw / "interfered").exists()
    kept = json.loads((trial_dir(raw, plan.make_plan(c).trials[0]) / "trial.json").read_text())
    assert kept["interference"]["outside_s"] > 1.0 and kept.get("excluded") is None
    assert "outside" not in kept["noise_flags"]
    assert kept["interference"]["outside_judged"] is False
    assert kept["interference"]["works_outside"] == why
    ingest_campaign(raw, tmp_path / "tidy" / "outside")
    trials = pd.read_parquet(tmp_path / "tidy" / "outside" / "trials.parquet")
    assert list(trials["status"]) == ["done"] and trials["noise_works_outside"].iloc[0] == why
    live = results.open_results("outside", tidy_root=tmp_path / "tidy", out=tmp_path / "figures")
    page = "".join(results.noise_html(live))
    assert "Not judged on CPU time outside their cgroup" in page and "burn, because its child" in page


def _session_processes(sid: int) -> list[str]:
    """The processes still alive in session ``sid`` or started by its papermill (its kernel)."""
    import psutil

    left = []
    for proc in psutil.process_iter(["pid", "cmdline"]):
        try:
            if os.getsid(proc.pid) == sid and proc.status() != psutil.STATUS_ZOMBIE:
                left.append(f"{proc.pid} {' '.join(proc.info['cmdline'] or [])}")
        except (ProcessLookupError, psutil.Error):
            continue
    return left


def test_ctrl_c_in_a_terminal_stops_the_campaign_notebook_after_its_trial_in_flight(sshd, tmp_path):
    """A terminal's Ctrl-C (SIGINT to the foreground process group: a shell as make demo's, and
    papermill) during the campaign notebook: papermill's overhead engine passes it to the kernel
    (in a session of its own), which lets the trial in flight finish and stops; nothing of the
    run is left; run again, the notebook resumes and only the rest runs."""
    import psutil

    from overhead.notebook_engine import kernels_of
    from overhead.paths import ROOT

    require("sysbench")
    path = campaign_file(tmp_path, "ctrlc", f"local: {sshd.host_yaml()}",
                         "native: {kind: native, host: local}",
                         "cpu: {runner: sysbench, params: {test: cpu, threads: 1, time: 3}}",
                         "trials: 8\nwarmup: 0\n")
    raw, tidy = tmp_path / "raw", tmp_path / "tidy"
    papermill = [str(Path(sys.executable).parent / "papermill"), "--engine", "overhead",
                 "--cwd", str(tmp_path), "--no-progress-bar", "-p", "campaign", str(path),
                 "-p", "raw", str(raw), "-p", "tidy", str(tidy),
                 str(ROOT / "notebooks" / "campaign.ipynb")]
    mfile = raw / "ctrlc" / "manifest.jsonl"
    script = f"trap 'exit 130' INT; {' '.join(map(repr, papermill))} {tmp_path / 'run1.ipynb'}"
    # a session and process group of its own, as a terminal's foreground job
    shell = subprocess.Popen(["sh", "-c", script], start_new_session=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 180
        while not (mfile.exists() and mfile.read_text().count('"state": "done"') >= 2):
            assert shell.poll() is None and time.monotonic() < deadline, shell.stderr.read()
            time.sleep(0.1)
        papermill_pid = next(p.pid for p in psutil.Process(shell.pid).children()
                             if "papermill" in " ".join(p.cmdline()))
        kernels = kernels_of(papermill_pid)
        assert kernels and os.getsid(kernels[0]) != shell.pid  # the kernel's own session
        pressed = time.monotonic()
        os.killpg(shell.pid, signal.SIGINT)
        out, err = shell.communicate(timeout=60)
        took = time.monotonic() - pressed
    finally:
        if shell.poll() is None:
            os.killpg(shell.pid, signal.SIGKILL)
    # the trial in flight (3 s) finished, then it stopped: within that and 10 s
    assert took < 3 + 10, (took, err[-2000:])
    assert shell.returncode != 0
    assert "Ctrl-C passed to the kernel" in err, err[-2000:]
    records = manifest.read_records(mfile)
    done = [r for r in records if r.get("state") == "done"]
    assert 2 <= len(done) < 8
    assert not [r for r in records if r.get("state") == "interrupted"]
    assert any(r.get("event") == "stop-requested" for r in records)
    assert any(r.get("event") == "stop" and r.get("interrupted") for r in records)
    assert "interrupted: run the notebook again to resume" in (tmp_path / "run1.ipynb").read_text()
    # nothing left running: not the kernel (in its own session), not the shell's group
    time.sleep(1)
    assert not [k for k in kernels if psutil.pid_exists(k)
                and psutil.Process(k).status() != psutil.STATUS_ZOMBIE]
    assert _session_processes(shell.pid) == []
    # run again: it resumes, the finished trials are not run again
    again = subprocess.run([*papermill, str(tmp_path / "run2.ipynb")], capture_output=True,
                           text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-3000:]
    text = (tmp_path / "run2.ipynb").read_text()
    assert f"{8 - len(done)} trials run now, {len(done)} done before, 0 failed, of 8 planned" in text
