"""`overhead plan | run | status` on campaign files: output, JSON, and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import SHARED_MACHINE, free_port, require
from sshd_helper import keygen, make_sshd, require_sshd

from overhead.paths import ROOT

OVERHEAD = [sys.executable, "-m", "overhead.cli"]
SMOKE = ROOT / "data" / "campaigns" / "local-smoke.yml"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*OVERHEAD, *args], capture_output=True, text=True, timeout=300)


def test_plan_text_and_json_agree():
    text = run("plan", str(SMOKE))
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[1].startswith("8 cells x 3 rounds = 24 trials (0 warm-up)")
    js = run("plan", str(SMOKE), "--format", "json")
    plan = json.loads(js.stdout)
    assert len(plan["trials"]) == 24 and plan["seed"] == 20261123
    ids = [line.split()[2] for line in lines[3:]]
    assert ids == [t["id"] for t in plan["trials"]]
    assert run("plan", str(SMOKE)).stdout == text.stdout  # the same file, the same plan


def test_bad_campaign_file_is_one_line_naming_file_line_field(tmp_path):
    bad = tmp_path / "bad.yml"
    bad.write_text(SMOKE.read_text().replace("trials: 3 ", "trials: three "))
    r = run("plan", str(bad))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().startswith(f"{bad}:6: trials:")
    r = run("plan", str(tmp_path / "none.yml"))
    assert r.returncode == 2 and "no such campaign file" in r.stderr


def test_run_refuses_an_unknown_host_key_naming_host_and_fix(tmp_path):
    require_sshd()
    sshd = make_sshd(tmp_path / "sshd", free_port())
    try:
        stranger = tmp_path / "known_hosts"
        stranger.write_text(f"[127.0.0.1]:{sshd.port} {keygen(tmp_path / 'other')}\n")
        path = tmp_path / "c.yml"
        path.write_text(f"""\
name: keys
seed: 1
{SHARED_MACHINE}hosts:
  h: {{address: 127.0.0.1, port: {sshd.port}, key_file: {sshd.client_key}, known_hosts: {stranger}}}
environments:
  native: {{kind: native, host: h}}
benchmarks:
  cpu: {{runner: sysbench, params: {{test: cpu, time: 1}}}}
""")
        r = run("run", str(path), "--raw", str(tmp_path / "raw"), "--no-progress", "--no-ingest")
        assert r.returncode == 2, r.stdout + r.stderr
        assert "Traceback" not in r.stderr
        assert f"[127.0.0.1]:{sshd.port}: host key CHANGED" in r.stderr
        assert "ssh-keygen -R" in r.stderr
        # nothing ran; the campaign can be resumed once the key is fixed
        stranger.write_text(sshd.known_hosts.read_text())
        r = run("run", str(path), "--raw", str(tmp_path / "raw"), "--no-progress", "--no-ingest")
        assert r.returncode == 0, r.stderr
        s = run("status", str(path), "--raw", str(tmp_path / "raw"))
        assert s.stdout.startswith("keys: 3 done, 0 failed")
    finally:
        sshd.stop()


def test_run_says_how_to_run_failed_trials_again(tmp_path):
    """Issue 46: a resume alone keeps a failed trial failed; the summary says --retries."""
    require_sshd()
    require("hyperfine")
    sshd = make_sshd(tmp_path / "sshd", free_port())
    try:
        path = tmp_path / "c.yml"
        path.write_text(f"""\
name: fails
seed: 1
trials: 2
warmup: 0
{SHARED_MACHINE}hosts:
  h: {sshd.host_yaml()}
environments:
  native: {{kind: native, host: h}}
benchmarks:
  bad: {{runner: hyperfine, params: {{command: 'false', runs: 2}}}}
""")
        r = run("run", str(path), "--raw", str(tmp_path / "raw"), "--no-progress", "--no-ingest")
        assert r.returncode == 1 and "Traceback" not in r.stderr, r.stdout + r.stderr
        assert "0 trials run now, 0 done before, 2 failed, of 2 planned" in r.stdout
        assert ("a failed trial stays failed when the run resumes: run the same command with "
                "--retries 1 to run the failed ones again") in r.stdout
        r = run("run", str(path), "--raw", str(tmp_path / "raw"), "--no-progress", "--no-ingest",
                "--retries", "1")
        assert r.returncode == 1 and "--retries 2 to run the failed ones again" in r.stdout
    finally:
        sshd.stop()


@pytest.mark.parametrize("fmt", ["yaml"])
def test_plan_rejects_unknown_format(fmt):
    r = run("plan", str(SMOKE), "--format", fmt)
    assert r.returncode == 2 and "use text or json" in r.stderr


@pytest.mark.parametrize("argv", [
    ["run", str(SMOKE), "--raw", "/dev/null", "--no-progress"],
    ["run", str(SMOKE), "--raw", "/proc", "--no-progress"],
    ["run", str(SMOKE), "--raw", str(ROOT / "README.md" / "x"), "--no-progress"],
    ["status", str(SMOKE), "--raw", "/dev/null"],
    ["run", str(SMOKE), "--retries", "-1"],
    ["run", str(SMOKE), "--retries", "1000000000000"],
    ["parse", "fio", "/dev/zero"],
])
def test_hostile_arguments_are_refused_in_one_line(argv):
    """Issue 46's command-line attacks: exit 2, one line, no traceback, nothing run or read."""
    r = run(*argv)
    assert r.returncode == 2, (argv, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_a_fifo_is_refused_unread_and_an_empty_authors_tree_is_no_ingest(tmp_path):
    """parse on a FIFO would block forever; ingest-ibm of an empty folder said nothing."""
    import os

    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    r = run("parse", "auto", str(fifo))  # run() has a timeout: a block fails the test
    assert r.returncode == 2 and "not a regular file" in r.stderr, r.stderr
    (tmp_path / "empty").mkdir()
    r = run("ingest-ibm", str(tmp_path / "empty"), "--out", str(tmp_path / "out"))
    assert r.returncode == 2 and "no result file of the authors' tree" in r.stderr, r.stderr
