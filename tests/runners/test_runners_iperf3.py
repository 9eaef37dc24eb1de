"""runners/iperf3.sh against a real iperf3 server on a free loopback port: its -J trial parses
into rows whose values agree with each other as iperf3's report says they must, and a run
with no server is kept as a failed trial."""

from __future__ import annotations

import json

import pytest
from conftest import free_port, require, serving, value
from test_runners import finished, run

from overhead import runners

pytestmark = pytest.mark.tool


def iperf3_server(port: int):
    """iperf3's server on 127.0.0.1:port, in the foreground, as a campaign's `server:` runs it."""
    return serving(["iperf3", "-s", "-B", "127.0.0.1", "-p", str(port)], port)


def end(trial: runners.Trial) -> dict:
    """The "end" object of the trial's JSON output."""
    return json.loads((trial.path / "output").read_text())["end"]


def totals(df, side: str) -> dict:
    """metric -> value of the summary (no p_time) SUM rows of one side."""
    sel = df[df.p_time.isna() & (df.p_side == side) & (df.p_stream == "SUM")]
    assert not sel.metric.duplicated().any()
    return sel.set_index("metric").value.to_dict()


@pytest.mark.parametrize("reverse", ["off", "on"])
def test_tcp_two_streams(tmp_path, reverse):
    require("iperf3")
    port = free_port()
    with iperf3_server(port):
        trial = finished("iperf3", tmp_path / "t", port=port, time=1, streams=2, reverse=reverse)
    df = trial.measurements
    assert trial.meta["command"].startswith(f"iperf3 -c 127.0.0.1 -p {port} -t 1 -P 2 -J")
    assert (" -R" in trial.meta["command"]) == (reverse == "on")
    # the JSON's "version": "iperf 3.12", as the runner's `iperf3 --version` line says
    assert set(df.tool_version) == {runners.version_number(trial.meta["tool_version"])}
    assert set(df.p_direction.dropna()) == {"rx" if reverse == "on" else "tx"}
    assert (df.p_streams == 2).all() and (df.p_reverse == reverse).all()  # the runner's meta
    sent, received = totals(df, "sender"), totals(df, "receiver")
    assert received["transferred_bytes"] > 0
    # the receiver cannot have more than was sent (what is in flight at the end is not counted)
    assert sent["transferred_bytes"] >= received["transferred_bytes"]
    # the two streams add up to the sums, byte for byte
    streams = df[df.p_time.isna() & (df.p_side == "receiver") & (df.metric == "transferred_bytes")
                 & (df.p_stream != "SUM")]
    assert len(streams) == 2 and streams.value.sum() == received["transferred_bytes"]
    # goodput is bytes over the seconds iperf3 states for the same sum
    seconds = end(trial)["sum_received"]["seconds"]
    assert received["goodput"] == pytest.approx(received["transferred_bytes"] / seconds, rel=1e-9)
    for metric in ("cpu_util_local", "cpu_util_remote"):
        assert 0 <= value(df, metric) <= 100


def test_udp_at_a_set_bitrate(tmp_path):
    require("iperf3")
    port = free_port()
    with iperf3_server(port):
        trial = finished("iperf3", tmp_path / "t", port=port, time=1, udp="on", bitrate="10M",
                         length=1000)
    df = trial.measurements
    assert set(df.p_protocol) == {"UDP"} and (df.p_bitrate == "10M").all()
    summ = df[df.p_time.isna() & (df.p_stream == "5")]
    tx = summ[summ.p_side == "sender"].set_index("metric").value
    rx = summ[summ.p_side == "receiver"].set_index("metric").value
    # every datagram carries length=1000 bytes of payload
    assert tx["transferred_bytes"] == 1000 * tx["packets"]
    # -b 10M: iperf3 paces its sender to 10 Mbit/s
    assert tx["goodput"] == pytest.approx(10e6 / 8, rel=0.05)
    assert rx["transferred_bytes"] <= tx["transferred_bytes"]
    assert 0 <= rx["packet_loss"] <= 100 and rx["jitter"] >= 0
    # loss is the lost datagrams over the datagrams sent, as iperf3 computes it
    assert rx["packet_loss"] == pytest.approx(100 * rx["dropped_packets"] / tx["packets"], abs=1e-9)
    # the sender's summary carries no jitter or loss (iperf3 writes placeholder zeros there)
    assert not summ[(summ.p_side == "sender") & summ.metric.isin(["jitter", "packet_loss"])].shape[0]


def test_no_server_is_a_kept_failed_trial(tmp_path):
    require("iperf3")
    out = tmp_path / "t"
    port = free_port()  # nothing listens there
    proc = run("iperf3", out, port=port, time=1)
    trial = runners.read_trial(out)
    # the trial is kept, with iperf3's own exit status: 0 from iperf3 3.12 in -J mode (1 from
    # 3.14 on); either way the output's "error" makes it a failed trial
    assert trial.exit_status == proc.returncode == int(trial.meta["exit_status"])
    assert not trial.ok and trial.measurements is None
    assert trial.failure == (f"{out / 'output'}:10: the run did not finish: unable to connect to "
                             "server: Connection refused")
    assert json.loads((out / "output").read_text())["error"].endswith("Connection refused")


def test_bad_parameters_are_usage_errors(tmp_path):
    require("iperf3")  # checked first: a host without it is told so
    assert runners.declared_params(runners.script("iperf3")) == [
        "host", "port", "time", "streams", "reverse", "udp", "bitrate", "length"]
    for params, message in [({"bitrate": "fast"}, "bitrate='fast' is not a rate"),
                            ({"length": "1.5K"}, "length='1.5K' is not a size"),
                            ({"streams": 0}, "streams must be at least 1"),
                            ({"udp": "yes"}, "udp='yes' must be one of: on off")]:
        proc = run("iperf3", tmp_path / "t", **params)
        assert proc.returncode == 2 and message in proc.stderr
        assert list(tmp_path.iterdir()) == []
