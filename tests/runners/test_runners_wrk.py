"""runners/wrk.sh run for real against server-nginx.sh on a loopback port (the nginx helper of
test_runners_suite), its trial read through overhead.runners.read_trial: the parser's values are
checked against the numbers in the report wrk wrote and against each other, and a trial with
nothing answering is kept as a failed trial. Under CI=true a missing wrk or nginx fails."""

from __future__ import annotations

import re
import time

import pytest
from conftest import require, value
from test_runners_suite import field, finished, nginx, refused, run, suite_port

from overhead import runners

pytestmark = pytest.mark.tool

#: nginx's keep-alive response to GET /file.bin of 1600 bytes: the body and 247 header bytes.
RESPONSE = 1847


@pytest.fixture(scope="module")
def web():
    """One nginx serving 1600 bytes for the wrk tests of this module."""
    require("nginx", "wrk")
    with nginx(suite_port()) as server:
        yield server


def test_wrk_declares_its_parameters():
    assert "wrk" in runners.available()
    assert runners.declared_params(runners.script("wrk")) == [
        "url", "host", "port", "path", "threads", "connections", "duration", "latency", "timeout"]


@pytest.mark.parametrize("latency", ["on", "off"])
def test_wrk_against_nginx_parses_what_wrk_printed(tmp_path, web, latency):
    out = tmp_path / "t"
    start = time.monotonic()
    trial = finished("wrk", out, port=web.port, threads=2, connections=8, duration=2,
                     latency=latency)
    assert time.monotonic() - start < 30
    text = (out / "output").read_text()
    df = trial.measurements
    meta = trial.meta
    assert meta["command"] == (f"wrk -t 2 -c 8 -d 2s --timeout 2s"
                               f"{' --latency' if latency == 'on' else ''} {web.url()}")
    assert meta["tool_version"].startswith("wrk debian/4.1.0") and set(df.tool_version) == {"4.1.0"}
    assert meta["p_url"] == web.url() and meta["p_latency"] == latency
    # the output's own statements of threads and connections, and the runner's parameters
    assert set(df.p_threads) == {2} and set(df.p_connections) == {8}
    assert set(df.p_duration) == {2} and set(df.p_url) == {web.url()}
    # the values are the report's numbers
    done = re.search(r"^\s+(\d+) requests in ([\d.]+)s, ([\d.]+)MB read$", text, re.M)
    assert done, text
    requests, seconds, mbytes = int(done.group(1)), float(done.group(2)), float(done.group(3))
    assert value(df, "complete_requests") == requests > 0
    assert value(df, "test_time") == pytest.approx(seconds)
    assert value(df, "total_transferred") == pytest.approx(mbytes * 1024**2)
    rate = field(text, r"^Requests/sec:\s+([\d.]+)$")
    assert value(df, "request_rate") == pytest.approx(rate)
    # consistency: requests / duration = requests/sec (the duration printed to 10 ms), bytes
    # read per request = the response size (wrk's MB: 1024**2 bytes), and the run lasted ~2 s
    assert requests / seconds == pytest.approx(rate, rel=0.006)
    assert value(df, "total_transferred") / requests == pytest.approx(RESPONSE, abs=0.006 * 1024**2 / requests)
    assert seconds == pytest.approx(2.0, abs=0.3)
    assert value(df, "transfer_rate") == pytest.approx(value(df, "total_transferred") / seconds, rel=0.006)
    assert value(df, "latency_mean") <= value(df, "latency_max")
    pct = df[df.metric == "latency_percentile"].set_index("p_percentile").value
    if latency == "on":
        printed = {float(p): t for p, t in re.findall(r"^\s+(\d+)%\s+(\S+)$", text, re.M)}
        assert set(printed) == set(pct.index) == {50.0, 75.0, 90.0, 99.0}
        assert pct.is_monotonic_increasing and pct[99.0] <= value(df, "latency_max")
    else:
        assert pct.empty and "Latency Distribution" not in text
    assert not [m for m in df.metric if m.startswith("socket_errors")]  # nothing went wrong
    assert "non_2xx_responses" not in set(df.metric)


def test_wrk_url_with_the_engines_host(tmp_path, web):
    trial = finished("wrk", tmp_path / "t", url=f"http://{{host}}:{web.port}/file.bin",
                     host="127.0.0.1", duration=1, threads=1, connections=2, latency="off")
    assert trial.meta["p_url"] == web.url() and "p_port" not in trial.meta
    assert trial.meta["command"].endswith(f" {web.url()}")
    assert value(trial.measurements, "complete_requests") > 0


def test_wrk_failed_trial_is_kept_when_nothing_answers(tmp_path):
    require("nginx", "wrk")
    with nginx(suite_port()) as server:
        port = server.port
        assert server.stop() == 0  # nginx is gone: nothing answers on its port
    out = tmp_path / "t"
    proc = run("wrk", out, port=port, duration=1)
    assert proc.returncode == 1
    trial = runners.read_trial(out)
    assert not trial.ok and trial.exit_status == 1 and trial.measurements is None
    assert trial.stderr == f"unable to connect to 127.0.0.1:{port} Connection refused\n"
    assert (out / "output").read_text() == ""
    assert trial.meta["p_port"] == str(port)


@pytest.mark.parametrize("params, message", [
    ({"threads": 4, "connections": 2}, "connections=2 is fewer than threads=4"),
    ({"duration": 0}, "duration must be at least 1"),
    ({"url": "http://127.0.0.1:18080"}, "must be http://HOST[:PORT]/PATH"),
    ({"url": "http://{server}:18080/"}, "holds a placeholder other than {host}"),
    ({"path": "file.bin"}, "path='file.bin' must start with /"),
    ({"latency": "yes"}, "latency='yes' must be one of: off on"),
])
def test_wrk_refuses_bad_parameters(tmp_path, params, message):
    require("wrk")
    refused("wrk", tmp_path / "t", message, **params)
