"""runners/wrk2.sh run for real against server-nginx.sh on a loopback port, its trial read
through overhead.runners.read_trial: a constant rate, the whole HdrHistogram (the spectrum the
latency CDF is drawn from) checked against the percentiles and counts wrk2 printed, and bad
parameters refused. wrk2 is built by images/wrk2/build.sh (make debian); under CI=true a
missing wrk2 or nginx fails."""

from __future__ import annotations

import re

import pytest
from conftest import require, value
from test_runners_suite import field, finished, nginx, refused, suite_port

from overhead import runners

pytestmark = pytest.mark.tool


@pytest.fixture(scope="module")
def web():
    require("nginx", "wrk2")
    with nginx(suite_port()) as server:
        yield server


def test_wrk2_declares_its_parameters():
    assert "wrk2" in runners.available()
    assert runners.declared_params(runners.script("wrk2")) == [
        "url", "host", "port", "path", "rate", "threads", "connections", "duration", "timeout"]


def test_wrk2_at_a_constant_rate_gives_its_whole_latency_distribution(tmp_path, web):
    out = tmp_path / "t"
    trial = finished("wrk2", out, port=web.port, rate=200, connections=4, duration=3)
    text = (out / "output").read_text()
    df = trial.measurements
    assert trial.meta["command"] == f"wrk2 -t 1 -c 4 -d 3s -R 200 --timeout 2s -L {web.url()}"
    assert trial.meta["tool_version"].startswith("wrk 4.0.0") and "wrk2 44a94c1" in trial.meta["tool_version"]
    done = re.search(r"^\s+(\d+) requests in ([\d.]+)s", text, re.M)
    assert done, text
    assert value(df, "complete_requests") == int(done.group(1)) > 0
    served = field(text, r"^Requests/sec:\s+([\d.]+)$")
    assert value(df, "request_rate") == pytest.approx(served)
    # nginx keeps up with 200 requests/s: wrk2 served about the rate asked for
    assert served == pytest.approx(200, rel=0.15)
    # the spectrum: one row per line between its header and its "#[Mean" lines
    lines = re.findall(r"^\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+(?:[\d.]+|inf)$", text, re.M)
    spec = df[df.metric == "latency_spectrum"]
    counts = df[df.metric == "latency_spectrum_count"]
    assert len(spec) == len(lines) >= 20
    assert spec.value.tolist() == pytest.approx([float(v) * 1e-3 for v, _, _ in lines])
    assert spec.p_percentile.tolist() == pytest.approx([100 * float(p) for _, p, _ in lines])
    assert counts.value.tolist() == [float(c) for _, _, c in lines]
    total = value(df, "latency_spectrum_total_count")
    assert total == int(field(text, r"Total count\s+=\s+(\d+)")) == counts.value.iloc[-1]
    # the summary's 50% is the spectrum's value at 0.5 (printed to 2 decimals of its unit)
    p50 = df[(df.metric == "latency_percentile") & (df.p_percentile == 50.0)].value.item()
    at = spec[spec.p_percentile == 50.0].value.item()
    assert abs(at - p50) <= 0.005e-3 * (1 + 1e-9) or abs(at - p50) <= 0.005 * (1 + 1e-9)
    assert set(df.p_histogram.dropna()) == {"recorded"}


@pytest.mark.parametrize("params, message", [
    ({"rate": 0}, "rate must be at least 1"),
    ({"threads": 4, "connections": 2}, "connections=2 is fewer than threads=4"),
    ({"duration": 0}, "duration must be at least 1"),
    ({"url": "http://127.0.0.1:18080"}, "must be http://HOST[:PORT]/PATH"),
])
def test_wrk2_refuses_bad_parameters(tmp_path, params, message):
    require("wrk2")
    refused("wrk2", tmp_path / "t", message, **params)
