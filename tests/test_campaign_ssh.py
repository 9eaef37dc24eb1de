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
