"""runners/sockperf.sh run for real against a sockperf server on a free loopback port, its trial
read through overhead.runners.read_trial: the parser's values are checked against the numbers
in the report sockperf wrote and against each other, and a trial with no server is kept as a
failed trial. Under CI=true a missing sockperf fails (conftest.require)."""

from __future__ import annotations

import contextlib
import re
import socket
import subprocess
import time

import pytest
from conftest import free_port, require, serving, stop_process, value
from test_runners import finished, run

from overhead import runners
from overhead.parsers import parse_file

pytestmark = pytest.mark.tool

US = 1e-6


@contextlib.contextmanager
def udp_server(port: int):
    """``sockperf server`` on UDP 127.0.0.1:port, yielded once it has bound the port (it
    listens on no TCP port, so readiness is its UDP socket: our own bind then fails)."""
    server = subprocess.Popen(["sockperf", "server", "-i", "127.0.0.1", "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
                try:
                    probe.bind(("127.0.0.1", port))
                except OSError:
                    break  # the server holds it
            if server.poll() is not None:
                pytest.fail(f"sockperf server exited with {server.returncode} before binding {port}")
            if time.monotonic() > deadline:
                pytest.fail(f"sockperf server did not bind UDP 127.0.0.1:{port} within 10 s")
            time.sleep(0.05)
        yield server
    finally:
        stop_process(server)


def sockperf_server(port: int, tcp: str):
    """A loopback sockperf server for the client's protocol."""
    if tcp == "on":
        return serving(["sockperf", "server", "--tcp", "-i", "127.0.0.1", "-p", str(port)], port)
    return udp_server(port)


def number(text: str, pattern: str) -> float:
    """The number ``pattern``'s group 1 finds in sockperf's report (read without the parser)."""
    m = re.search(pattern, re.sub(r"\x1b\[[0-9;]*m", "", text), re.M)
    assert m, pattern
    return float(m.group(1))


def test_sockperf_declares_its_parameters():
    assert "sockperf" in runners.available()
    assert runners.declared_params(runners.script("sockperf")) == [
        "host", "port", "test", "tcp", "time", "message_size", "mps"]


@pytest.mark.parametrize("tcp", ["on", "off"])
def test_ping_pong_over_loopback(tmp_path, tcp):
    require("sockperf")
    port = free_port()
    out = tmp_path / "t"
    with sockperf_server(port, tcp):
        trial = finished("sockperf", out, port=port, test="ping-pong", tcp=tcp, time=1,
                         message_size=64)
    meta, df = trial.meta, trial.measurements
    assert meta["command"] == (f"sockperf ping-pong -i 127.0.0.1 -p {port} -t 1"
                               f"{' --tcp' if tcp == 'on' else ''} -m 64")
    assert meta["tool_version"].startswith("sockperf, version 3.7")
    assert meta["p_message_size"] == "64" and "p_mps" not in meta  # mps=default passes none
    assert set(df.tool_version) == {"3.7-no.git"}  # the report's banner
    # the parser tells ping-pong from its counts; the runner knows it: they must agree (the
    # runner's test= and the parser's p_test are one column)
    assert set(parse_file("sockperf", out / "output").p_test) == {meta["p_test"]} == {"ping-pong"}
    assert set(df.p_test) == {"ping-pong"} and set(df.p_message_size) == {64}
    assert set(df.p_protocol) == {"TCP" if tcp == "on" else "UDP"}
    text = (out / "output").read_text()
    # the values are the report's numbers
    assert value(df, "latency_mean") == pytest.approx(number(text, r"avg-latency=([\d.]+)") * US)
    assert value(df, "messages_received", p_window="valid") == number(
        text, r"\[Valid Duration\] .*ReceivedMessages=(\d+)") > 0
    # and agree with each other as sockperf's statistics must
    lat = df[df.metric == "latency_percentile"].set_index("p_percentile").value
    lo, mean, hi = (value(df, m) for m in ("latency_min", "latency_mean", "latency_max"))
    assert lo <= lat[25.0] <= lat[50.0] <= lat[90.0] <= lat[99.0] <= lat[99.999] <= hi
    assert lo <= mean <= hi and value(df, "latency_sd") >= 0
    total = value(df, "elapsed_time", p_window="total")
    assert 1.0 <= total < 2.0  # -t 1 (the warm-up is not counted)
    assert value(df, "elapsed_time", p_window="valid") < total
    assert value(df, "messages_sent", p_window="valid") <= (
        value(df, "messages_received", p_window="valid") + value(df, "dropped_messages")
        + value(df, "out_of_order_messages"))  # every ping-pong message asks a reply


def test_under_load_and_throughput(tmp_path):
    require("sockperf")
    port = free_port()
    with sockperf_server(port, "on"):
        load = finished("sockperf", tmp_path / "ul", port=port, test="under-load", time=1,
                        mps=5000)
        tp = finished("sockperf", tmp_path / "tp", port=port, test="throughput", time=1,
                      message_size=1400, mps=20000)
    df = load.measurements
    assert set(df.p_test) == {"under-load"} and set(df.p_mps) == {5000}
    # one reply every 100 messages (sockperf's --reply-every default)
    assert value(df, "messages_sent", p_window="valid") > 50 * value(
        df, "messages_received", p_window="valid")
    t = tp.measurements
    # "NOTE: test was performed, using msg-size=1400, mps=20000": the report's own statement
    assert set(t.p_test) == {"throughput"} and set(t.p_message_size) == {1400}
    assert set(t.p_mps) == {20000}
    text = (tmp_path / "tp" / "output").read_text()
    # the rate is the count over the measured time, so a paced run can report a message above
    # the pace (CI once read "Message Rate is 20001 [msg/sec]" with --mps 20000): within 0.1%
    assert value(t, "message_rate") == number(text, r"Message Rate is (\d+)") <= 20000 * 1.001
    # BandWidth is message rate x size in MB of 1024**2 bytes (to its 3 decimals)
    assert value(t, "throughput") == pytest.approx(value(t, "message_rate") * 1400, rel=1e-4)


@pytest.mark.parametrize(("tcp", "line", "message"), [
    ("on", 2, "sockperf: ERROR: Can`t connect socket (errno=111 Connection refused)"),
    ("off", 9, "No messages were received from the server. Is the server down?"),
])
def test_no_server_is_a_failed_trial_kept(tmp_path, tcp, line, message):
    require("sockperf")
    out = tmp_path / "t"
    proc = run("sockperf", out, port=free_port(), tcp=tcp, time=1)
    assert proc.returncode == 0  # sockperf exits 0 all the same
    assert sorted(p.name for p in out.iterdir()) == ["meta", "output", "stderr"]
    trial = runners.read_trial(out)
    assert not trial.ok and trial.exit_status == 0 and trial.measurements is None
    assert trial.failure == f"{out}/output:{line}: the run did not finish: {message}"


@pytest.mark.parametrize(("params", "message"), [
    ({"test": "playback"}, "test='playback' must be one of: ping-pong under-load throughput"),
    ({"tcp": "yes"}, "tcp='yes' must be one of: on off"),
    ({"mps": "0"}, "mps must be at least 1 (or max)"),
    ({"message_size": "64k"}, "message_size='64k' is not a non-negative integer"),
    ({"time": "0"}, "time must be at least 1 s"),
])
def test_bad_values_are_usage_errors(tmp_path, params, message):
    require("sockperf")
    proc = run("sockperf", tmp_path / "t", **params)
    assert proc.returncode == 2 and message in proc.stderr
    assert list(tmp_path.iterdir()) == []
