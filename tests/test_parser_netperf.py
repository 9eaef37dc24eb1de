"""netperf 2.7.0 outputs made on this machine against a loopback netserver."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from conftest import free_port, netserver

from overhead.parsers import ParseError, detect, parse_file, parse_text
from overhead.parsers.netperf import throughput_scale
from parser_contract import check_all_prefixes, hypothesis_random_bytes

TOOL = "netperf"
NCPU = 2  # CPUs of the machine the fixtures were made on (netperf scales service demand by it)
LAT = "MIN_LATENCY,MEAN_LATENCY,P50_LATENCY,P90_LATENCY,P99_LATENCY,MAX_LATENCY,STDDEV_LATENCY"


@pytest.fixture(scope="module")
def fx(fixtures):
    return fixtures / "netperf"


def by_metric(df, **params):
    for k, v in params.items():
        df = df[df[k] == v]
    assert df.metric.is_unique, df.metric.tolist()
    return df.set_index("metric")


def test_classic_tcp_rr(fx):
    df = parse_file(TOOL, fx / "tcp_rr.txt")
    # line 7: "16384  131072 1        1       2.00     51641.32"; line 8: "16384  131072"
    m = by_metric(df)
    assert m.value.to_dict() == pytest.approx({"elapsed_time": 2.00, "transaction_rate": 51641.32})
    assert m.unit["transaction_rate"] == "tx/s" and m.source["transaction_rate"].endswith("tcp_rr.txt:7")
    row = df.iloc[0]
    assert (row.p_send_socket, row.p_recv_socket, row.p_request_size, row.p_response_size) == (
        16384, 131072, 1, 1)
    assert (row.p_remote_send_socket, row.p_remote_recv_socket) == (16384, 131072)
    assert row.p_test == "TCP_RR" and row.trial == 1
    udp = parse_file(TOOL, fx / "udp_rr.txt")
    assert set(udp.p_test) == {"UDP_RR"}
    assert by_metric(udp).value["transaction_rate"] == pytest.approx(86981.65)


def test_classic_stream_and_maerts(fx):
    df = parse_file(TOOL, fx / "tcp_stream.txt")
    # "131072  16384  16384    2.00     24090.66" in 10^6bits/sec -> bytes/s exactly
    m = by_metric(df)
    assert m.value["throughput"] == 24090.66e6 / 8 and m.unit["throughput"] == "B/s"
    assert m.raw["throughput"] == "24090.66 10^6bits/sec"
    row = df.iloc[0]
    assert (row.p_recv_socket, row.p_send_socket, row.p_message_size) == (131072, 16384, 16384)
    maerts = parse_file(TOOL, fx / "tcp_maerts.txt")
    assert set(maerts.p_test) == {"TCP_MAERTS"}
    assert by_metric(maerts).value["throughput"] == pytest.approx(22830.74e6 / 8)
    mbytes = parse_file(TOOL, fx / "tcp_stream_fM.txt")  # -f M: "2053.14" MBytes/sec
    assert by_metric(mbytes).value["throughput"] == pytest.approx(2053.14 * 1024**2)


def test_classic_cpu_and_service_demand(fx):
    rr = by_metric(parse_file(TOOL, fx / "tcp_rr_cpu.txt"))
    # "16384  131072 1       1      2.00    17580.46  27.56  27.56  31.352   31.352"
    assert rr.value["cpu_util_local"] == 27.56 and rr.value["cpu_util_remote"] == 27.56
    assert rr.value["service_demand_local"] == pytest.approx(31.352e-6)
    assert rr.p_service_demand_per["service_demand_local"] == "transaction"
    # netperf's own definition (netlib.c): SD [us/unit] = util% * 10000 / (units/s) * CPUs
    sd = rr.value["cpu_util_local"] * 1e4 / rr.value["transaction_rate"] * NCPU
    assert rr.value["service_demand_local"] * 1e6 == pytest.approx(sd, abs=0.001)
    st = by_metric(parse_file(TOOL, fx / "tcp_stream_cpu.txt"))
    assert st.p_service_demand_per["service_demand_remote"] == "KB"
    kb_per_s = st.value["throughput"] / 1024  # netperf's KB is 1024 bytes
    assert st.value["service_demand_local"] * 1e6 == pytest.approx(
        st.value["cpu_util_local"] * 1e4 / kb_per_s * NCPU, abs=0.0006)
    fk = by_metric(parse_file(TOOL, fx / "udp_rr_cpu_fk.txt"))
    # -f k: "Tput 10^3bits per sec" = 3775.47 -> 3775.47e3 / 8 B/s; "4339.589" us/KB
    assert fk.value["throughput"] == pytest.approx(3775.47e3 / 8)
    assert fk.value["service_demand_local"] * 1e6 == pytest.approx(
        fk.value["cpu_util_local"] * 1e4 / (fk.value["throughput"] / 1024) * NCPU, abs=0.005)
    assert "transaction_rate" not in fk.index


def test_udp_stream_sides(fx):
    df = parse_file(TOOL, fx / "udp_stream.txt")
    send, recv = by_metric(df, p_side="send"), by_metric(df, p_side="recv")
    # line 7: "212992           2.00       237052           62111.43"
    assert recv.value["messages"] == 237052 and recv.value["throughput"] == pytest.approx(62111.43e6 / 8)
    assert send.value["message_errors"] == 0 and send.value["messages"] == 265216
    # throughput = messages * message size / elapsed (netperf's elapsed is rounded to 2.00)
    size = df.p_message_size.iloc[0]
    assert recv.value["messages"] * size / recv.value["elapsed_time"] == pytest.approx(
        recv.value["throughput"], rel=1e-4)
    cpu = parse_file(TOOL, fx / "udp_stream_cpu.txt")
    assert "cpu_util_local" in set(cpu[cpu.p_side == "send"].metric)
    assert "service_demand_remote" in set(cpu[cpu.p_side == "recv"].metric)


def test_confidence_warning(fx):
    df = parse_file(TOOL, fx / "tcp_rr_confidence.txt")
    # banner ": +/-2.500% @ 99% conf." and "!!! Desired confidence was not achieved ..."
    assert set(df.p_confidence_level) == {99.0} and set(df.p_confidence_achieved) == {False}
    assert by_metric(df).value["transaction_rate"] == pytest.approx(16310.12)


@pytest.mark.parametrize("name", ["omni_tcp_rr_csv.txt", "omni_tcp_rr_human.txt", "omni_tcp_rr_keyval.txt"])
def test_omni_latency_selectors(fx, name):
    df = parse_file(TOOL, fx / name)
    pct = df[df.metric == "latency_percentile"].set_index("p_percentile").value
    assert sorted(pct.index) == [50.0, 90.0, 99.0]
    rate = df[(df.metric == "transaction_rate") & (df.p_selector == "TRANSACTION_RATE")].value.iloc[0]
    mean = df[df.metric == "latency_mean"].value.iloc[0]
    # one transaction in flight: mean latency ~ 1 / rate
    assert mean == pytest.approx(1 / rate, rel=0.02)
    assert df[df.metric == "latency_min"].value.iloc[0] <= pct[50.0] <= pct[90.0] <= pct[99.0]
    assert set(df.p_test) == {"TCP_RR"} and set(df.p_protocol) == {"TCP"}
    assert set(df.p_data_direction) == {"Send|Recv"} and set(df.p_request_size) == {1}


def test_omni_values_read_by_hand(fx):
    human = parse_file(TOOL, fx / "omni_tcp_rr_human.txt")
    # line 6: "4  59.60  64  73  102  1789  27.44  16763.171  16763.17  Trans/s  1  1  2.00 ..."
    got = {(r.metric, r.p_percentile if r.metric == "latency_percentile" else None): r.value
           for r in human.itertuples()}
    assert got[("latency_min", None)] == pytest.approx(4e-6)
    assert got[("latency_mean", None)] == pytest.approx(59.60e-6)
    assert got[("latency_percentile", 99.0)] == pytest.approx(102e-6)
    assert got[("latency_max", None)] == pytest.approx(1789e-6)
    assert got[("latency_sd", None)] == pytest.approx(27.44e-6)
    keyval = by_metric(parse_file(TOOL, fx / "omni_tcp_rr_keyval.txt"), p_selector="TRANSACTION_RATE")
    assert keyval.value["transaction_rate"] == pytest.approx(21929.241)  # TRANSACTION_RATE=21929.241
    # THROUGHPUT=21929.24 with THROUGHPUT_UNITS=Trans/s is the same rate, kept apart by p_selector
    kv = parse_file(TOOL, fx / "omni_tcp_rr_keyval.txt")
    assert set(kv[kv.metric == "transaction_rate"].p_selector) == {"THROUGHPUT", "TRANSACTION_RATE"}


def test_omni_stream_cpu_and_columns(fx):
    kv = by_metric(parse_file(TOOL, fx / "omni_tcp_stream_cpu_keyval.txt"))
    assert kv.value["throughput"] == pytest.approx(20672.17e6 / 8)  # THROUGHPUT=20672.17 10^6bits/s
    assert kv.value["service_demand_local"] == pytest.approx(0.658e-6)
    assert kv.p_service_demand_per["service_demand_local"] == "KB"
    assert kv.p_message_size.iloc[0] == 16384 and kv.p_remote_recv_socket.iloc[0] == 131072
    cols = parse_file(TOOL, fx / "omni_tcp_stream_human_fg.txt")
    m = by_metric(cols)
    assert m.value["throughput"] == pytest.approx(14.71e9 / 8)  # "14.71  10^9bits/s"
    assert "cpu_util_local" not in m.index  # "-1.00": not measured
    assert cols.p_send_socket.iloc[0] == 16384  # "Local Send Socket Size Initial" split over columns
    wide = parse_file(TOOL, fx / "omni_tcp_rr_human_all.txt")  # -O all: four groups of columns
    rt = wide[wide.metric == "rt_latency"].value.iloc[0]
    rate = wide[(wide.metric == "transaction_rate") & (wide.p_selector == "TRANSACTION_RATE")].value.iloc[0]
    assert rt == pytest.approx(1 / rate, rel=1e-4)  # RT_LATENCY is netperf's 1e6 / rate (usec)
    assert "cpu_util_local" not in set(wide.metric)


def test_several_tests_in_one_file(fx):
    text = "".join((fx / n).read_text() for n in ("tcp_rr.txt", "tcp_stream.txt", "tcp_rr.txt"))
    df = parse_text(TOOL, text, "all.txt")
    rates = df[df.metric == "transaction_rate"]
    assert rates.trial.tolist() == [1, 2] and set(rates.p_test) == {"TCP_RR"}
    assert df[df.metric == "throughput"].trial.tolist() == [1]


def test_throughput_units():
    assert throughput_scale("10^6bits/sec") == 125000.0
    assert throughput_scale("10^9bits/s") == 1.25e8
    assert throughput_scale("KBytes/s") == 1024.0 and throughput_scale("GBytes") == 1024.0**3
    assert throughput_scale("Trans/s") is None
    with pytest.raises(ValueError):
        throughput_scale("furlongs")


def test_errors(fx):
    with pytest.raises(ParseError, match=r"refused\.txt:1: netperf reported an error.*establish control"):
        parse_file(TOOL, fx / "refused.txt")
    rr = (fx / "tcp_rr.txt").read_text()
    with pytest.raises(ParseError, match=r"^b\.txt:7: request/response result: expected a number"):
        parse_text(TOOL, rr.replace("51641.32", "51641.x2"), "b.txt")
    with pytest.raises(ParseError, match=r"^b\.txt:7: netperf request/response result line: expected 6 fields"):
        parse_text(TOOL, rr.replace(" 51641.32", ""), "b.txt")
    stream = (fx / "tcp_stream.txt").read_text()
    with pytest.raises(ParseError, match=r"^b\.txt:5: unknown netperf throughput unit"):
        parse_text(TOOL, stream.replace("10^6bits/sec", "furlongs/sec"), "b.txt")
    with pytest.raises(ParseError, match=r"^n\.txt:1: no netperf result"):
        parse_text(TOOL, "hello\n", "n.txt")


def test_detect(fx):
    for name in ("tcp_rr.txt", "omni_tcp_rr_keyval.txt", "udp_stream.txt"):
        assert detect((fx / name).read_text()) == TOOL


@pytest.mark.parametrize("name", [
    "tcp_rr.txt", "udp_rr.txt", "tcp_stream.txt", "tcp_maerts.txt", "udp_stream.txt",
    "tcp_rr_cpu.txt", "tcp_stream_cpu.txt", "tcp_maerts_cpu.txt", "udp_stream_cpu.txt",
    "udp_rr_cpu_fk.txt", "tcp_stream_fM.txt", "tcp_rr_confidence.txt", "omni_tcp_rr_csv.txt",
    "omni_tcp_rr_human.txt", "omni_tcp_rr_keyval.txt", "omni_tcp_stream_cpu_keyval.txt",
    "omni_tcp_stream_human_fg.txt", "omni_tcp_rr_human_all.txt",
])
def test_every_prefix(fx, name):
    check_all_prefixes(TOOL, (fx / name).read_text())


def test_random_bytes():
    hypothesis_random_bytes(TOOL)()


@pytest.mark.tool
def test_live_netperf():
    if shutil.which("netperf") is None or shutil.which("netserver") is None:
        pytest.skip("netperf is not installed")
    port = free_port()
    with netserver(port):
        base = ["netperf", "-H", "127.0.0.1", "-p", str(port), "-l", "1"]
        classic = subprocess.run([*base, "-t", "TCP_RR"], capture_output=True, text=True, timeout=30)
        omni = subprocess.run([*base, "-t", "TCP_RR", "--", "-k", LAT + ",TRANSACTION_RATE"],
                              capture_output=True, text=True, timeout=30)
    assert classic.returncode == 0 and omni.returncode == 0, classic.stderr + omni.stderr
    assert by_metric(parse_text(TOOL, classic.stdout, "classic")).value["transaction_rate"] > 0
    df = parse_text(TOOL, omni.stdout, "omni")
    assert len(df[df.metric == "latency_percentile"]) == 3
