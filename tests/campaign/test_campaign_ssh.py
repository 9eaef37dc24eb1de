"""SSH connections: host keys checked against the campaign's known_hosts, bounded timeouts."""

from __future__ import annotations

import time

import pytest
from conftest import free_port
from sshd_helper import keygen, make_sshd, require_sshd

from overhead.campaign.connect import HostKeyError, SSHError, connect
from overhead.campaign.shell import RemoteShell


@pytest.fixture(scope="module")
def sshd(tmp_path_factory):
    require_sshd()
    server = make_sshd(tmp_path_factory.mktemp("sshd"), free_port())
    yield server
    server.stop()


def test_known_key_connects_and_runs(sshd):
    conn = connect("127.0.0.1", sshd.port, "root", known_hosts=sshd.known_hosts,
                   key_file=sshd.client_key)
    try:
        assert conn.run("echo hello", hide=True, in_stream=False).stdout == "hello\n"
        shell = RemoteShell(conn.transport)
        assert shell.run("echo out; echo err >&2; exit 3") == (3, "out\n", "err\n")
        assert shell.run("cd /tmp; pwd")[1] == "/tmp\n"
        assert shell.run("pwd")[1] != "/tmp\n"  # each command in its own subshell
    finally:
        conn.close()


def test_unknown_host_key_is_refused_naming_host_and_fix(sshd, tmp_path):
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    with pytest.raises(HostKeyError) as err:
        connect("127.0.0.1", sshd.port, "root", known_hosts=empty, key_file=sshd.client_key)
    msg = str(err.value)
    assert f"[127.0.0.1]:{sshd.port}: unknown host key" in msg
    assert str(empty) in msg and "ssh-keyscan" in msg and "SHA256:" in msg


def test_changed_host_key_is_refused(sshd, tmp_path):
    other = keygen(tmp_path / "other")
    changed = tmp_path / "known_hosts"
    changed.write_text(f"[127.0.0.1]:{sshd.port} {other}\n")
    with pytest.raises(HostKeyError) as err:
        connect("127.0.0.1", sshd.port, "root", known_hosts=changed, key_file=sshd.client_key)
    msg = str(err.value)
    assert f"[127.0.0.1]:{sshd.port}: host key CHANGED" in msg and "ssh-keygen -R" in msg


def test_host_key_alias(sshd, tmp_path):
    aliased = tmp_path / "known_hosts"
    aliased.write_text(f"my-vm {sshd.host_key}\n")
    conn = connect("127.0.0.1", sshd.port, "root", known_hosts=aliased, key_file=sshd.client_key,
                   host_key_alias="my-vm")
    conn.close()
    aliased.write_text(f"my-vm {keygen(tmp_path / 'k2')}\n")
    with pytest.raises(HostKeyError, match="CHANGED.*'my-vm'"):
        connect("127.0.0.1", sshd.port, "root", known_hosts=aliased, key_file=sshd.client_key,
                host_key_alias="my-vm")


def test_missing_known_hosts_and_dead_port_fail_fast(sshd, tmp_path):
    with pytest.raises(SSHError, match="known_hosts file .* does not exist"):
        connect("127.0.0.1", sshd.port, "root", known_hosts=tmp_path / "none",
                key_file=sshd.client_key)
    started = time.monotonic()
    with pytest.raises(SSHError, match="cannot connect"):
        connect("127.0.0.1", free_port(), "root", known_hosts=sshd.known_hosts,
                key_file=sshd.client_key, timeout=2)
    assert time.monotonic() - started < 10
    with pytest.raises(SSHError, match="login refused"):
        connect("127.0.0.1", sshd.port, "root", known_hosts=sshd.known_hosts,
                key_file=keygen_path(tmp_path))


def keygen_path(tmp_path):
    keygen(tmp_path / "stranger")
    return tmp_path / "stranger"


def _remote(sshd, interrupt=None):
    from overhead.environments.remote import Remote

    return Remote(connect("127.0.0.1", sshd.port, "root", known_hosts=sshd.known_hosts,
                          key_file=sshd.client_key, timeout=5, keepalive=2),
                  keepalive=2, responsive=7, interrupt=interrupt)


def test_output_is_read_whole_below_the_cap_and_refused_above_it(sshd):
    """32 MiB on stdout come back byte for byte (the marker is searched only in what arrived,
    so reading is linear: `make bench` prints the rate); 100 MB on stdout, or 70 MiB on
    stderr, fail with a cause naming the stream and the cap, and the connection goes on."""
    from overhead.environments.failures import TrialFailed
    from overhead.environments.shell import MAX_OUTPUT

    r = _remote(sshd)
    try:
        status, out, err = r.exec("head -c 33554432 /dev/zero | tr '\\0' x; echo; echo e >&2",
                                  60)
        assert (status, len(out), out[:3], out[-2:], err) == (0, 33554433, "xxx", "x\n", "e\n")
        with pytest.raises(TrialFailed, match=r"more than 64 MiB to its stdout \(the cap"):
            r.exec("head -c 100000000 /dev/zero", 60)
        with pytest.raises(TrialFailed, match=r"more than 64 MiB to its stderr"):
            r.exec(f"head -c {MAX_OUTPUT + 1024} /dev/zero >&2", 60)
        assert r.exec("echo still here", 10) == (0, "still here\n", "")
    finally:
        r.close()


def test_a_marker_split_across_reads_is_found(sshd):
    """Output that ends right before the marker, in many small writes: every command's status
    and output come back intact (the search resumes where the last one stopped)."""
    r = _remote(sshd)
    try:
        for n in (1, 4095, 65536, 1048575):
            status, out, _ = r.exec(f"head -c {n} /dev/zero | tr '\\0' y; exit {n % 7}", 30)
            assert (status, len(out), set(out)) == (n % 7, n, {"y"})
    finally:
        r.close()


def test_stop_now_ends_a_command_in_progress_but_not_a_clean_up(sshd):
    """The run's stop-now event ends a running command within moments (Interrupted, not a
    failure); a command run with interruptible=False still runs while it is set."""
    import threading

    from overhead.environments.failures import Interrupted

    event = threading.Event()
    r = _remote(sshd, event)
    try:
        threading.Timer(1.0, event.set).start()
        t0 = time.monotonic()
        with pytest.raises(Interrupted, match="stopped now"):
            r.exec("sleep 29.1", 60)
        assert time.monotonic() - t0 < 5
        assert r.exec("pkill -f 'sleep 29.1'; echo cleaned", 10,
                      interruptible=False) == (0, "cleaned\n", "")
    finally:
        r.close()
