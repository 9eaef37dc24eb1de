"""netperf 2.7.0 outputs made on this machine against a loopback netserver."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pandas as pd
import pytest
from conftest import free_port, netserver

from overhead.parsers import ParseError, RunFailed, detect, parse_file, parse_text
from overhead.parsers.netperf import throughput_scale
from parser_contract import check_all_prefixes, hypothesis_random_bytes

TOOL = "netperf"
NCPU = 2  # CPUs of the machine the fixtures were made on (netperf scales service demand by it)
NEW = ["p0_tcp_rr.txt", "p0_tcp_rr_cpu.txt", "p0_udp_rr.txt", "p0_udp_rr_cpu.txt",
       "p0_tcp_stream.txt", "p0_tcp_stream_cpu.txt", "p0_udp_stream_no_protocols.txt",
       "v2_tcp_rr.txt", "v2_tcp_stream.txt", "sh_x_tcp_rr.txt", "sh_x_p0_tcp_stream_fg.txt",
       "sh_x_p0_udp_rr_cpu.txt", "sh_x_p0_tcp_rr_v2.txt", "udp_stream_no_protocols.txt"]
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
    # "31.352" us/Tr: CPU seconds per transaction
    assert rr.value["service_demand_local"] == pytest.approx(31.352e-6)
    assert rr.unit["service_demand_local"] == "s/tx" and rr.raw["service_demand_local"] == "31.352 us/Tr"
    # netperf's own definition (netlib.c): SD = CPU time used / work done, the CPU time being
    # util% of NCPU CPUs; here in s per transaction
    sd = rr.value["cpu_util_local"] / 100 * NCPU / rr.value["transaction_rate"]
    assert rr.value["service_demand_local"] == pytest.approx(sd, abs=1e-9)
    st = by_metric(parse_file(TOOL, fx / "tcp_stream_cpu.txt"))
    # "131072  16384  16384  2.00  17511.28  70.57  70.57  0.660  0.660" (10^6bits/s, us/KB):
    # netperf's KB is 1024 bytes, so 0.660 us/KB is 0.660e-6 / 1024 s of CPU per byte
    assert st.unit["service_demand_remote"] == "s/B" and st.unit["throughput"] == "B/s"
    assert st.value["service_demand_local"] == pytest.approx(0.660e-6 / 1024)
    # the same quantity from the other columns of the line: CPU seconds per second / bytes per
    # second (70.57% of 2 CPUs over 17511.28e6 / 8 B/s = 6.448e-10 s/B; netperf rounds to 0.660)
    assert st.value["service_demand_local"] == pytest.approx(
        st.value["cpu_util_local"] / 100 * NCPU / st.value["throughput"], rel=1e-3)
    fk = by_metric(parse_file(TOOL, fx / "udp_rr_cpu_fk.txt"))
    # -f k: "Tput 10^3bits per sec" = 3775.47 -> 3775.47e3 / 8 B/s; "4339.589" us/KB
    assert fk.value["throughput"] == pytest.approx(3775.47e3 / 8)
    assert fk.value["service_demand_local"] == pytest.approx(4339.589e-6 / 1024)
    assert fk.unit["service_demand_local"] == "s/B"
    assert fk.value["service_demand_local"] == pytest.approx(
        fk.value["cpu_util_local"] / 100 * NCPU / fk.value["throughput"], rel=1e-4)
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
    assert kv.value["service_demand_local"] == pytest.approx(0.658e-6 / 1024)  # LOCAL_SD=0.658
    assert kv.unit["service_demand_local"] == "s/B"  # SD_UNITS=usec/KB
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


def test_refused_connection_is_a_failed_run(fx):
    # refused.txt line 1, netperf's own words when no netserver listens on the port
    with pytest.raises(RunFailed) as exc:
        parse_file(TOOL, fx / "refused.txt", name="refused.txt")
    assert str(exc.value) == ("refused.txt:1: the run did not finish: establish control: are you "
                              "sure there is a netserver listening on 127.0.0.1 at port 12899?")
    # through sh -x, the trace "+ timeout 10 netperf ... -P 0" is line 1, netperf's error line 2
    with pytest.raises(RunFailed) as exc:
        parse_file(TOOL, fx / "refused_sh_x_p0.txt", name="r.txt")
    assert exc.value.line == 2 and exc.value.what == (
        "establish control: are you sure there is a netserver listening on 127.0.0.1 at port 45115?")
    # a banner and nothing after it (netperf killed before its result): failed, no line
    banner = (fx / "tcp_rr.txt").read_text().splitlines()[0] + "\n"
    with pytest.raises(RunFailed, match=r"^b\.txt: the run did not finish: netperf printed no "
                                         r"result after 'MIGRATED TCP REQUEST/RESPONSE TEST"):
        parse_text(TOOL, banner, "b.txt")


def test_errors(fx):
    rr = (fx / "tcp_rr.txt").read_text()
    with pytest.raises(ParseError, match=r"^b\.txt:7: request/response result: expected a number"):
        parse_text(TOOL, rr.replace("51641.32", "51641.x2"), "b.txt")
    with pytest.raises(ParseError, match=r"^b\.txt:7: netperf request/response result line: expected 6 fields"):
        parse_text(TOOL, rr.replace(" 51641.32", ""), "b.txt")
    stream = (fx / "tcp_stream.txt").read_text()
    with pytest.raises(ParseError, match=r"^b\.txt:5: unknown netperf throughput unit"):
        parse_text(TOOL, stream.replace("10^6bits/sec", "furlongs/sec"), "b.txt")
    with pytest.raises(ParseError, match=r"^n\.txt: no netperf result") as exc:
        parse_text(TOOL, "hello\n", "n.txt")  # not netperf output at all: no line to blame
    assert not isinstance(exc.value, RunFailed)


def test_error_names_the_header_line_after_a_warning(fx):
    # netperf's "enable_enobufs failed: getprotobyname" (line 2) sits between the banner and
    # the header; a bad unit in the header's third line is line 5, not line 4
    text = (fx / "udp_stream_no_protocols.txt").read_text().replace("10^6bits/sec", "furlongs/sec")
    with pytest.raises(ParseError, match=r"^u\.txt:5: UDP_STREAM throughput in|^u\.txt:5: unknown"):
        parse_text(TOOL, text, "u.txt")
    # a -P 0 line that does not have the shape its command (-t TCP_STREAM) says: that line
    bad = (fx / "sh_x_p0_tcp_stream_fg.txt").read_text().replace("8.40", "8.40 1")
    with pytest.raises(ParseError, match=r"^s\.txt:2: netperf -P 0 TCP_STREAM result line: "
                                         r"expected 5 or 9 fields, found 6"):
        parse_text(TOOL, bad, "s.txt")


def test_p0_without_command_states_only_what_the_numbers_say(fx):
    # -P 0 prints no banner and no header: which test ran and the unit of the rate (-f) are
    # not in the file. The shape tells request/response (6 or 10 fields, then the 2 remote
    # socket sizes) from stream (5 or 9): elapsed time, CPU %, socket and message sizes are
    # read; the rate is not (it could be Trans/s or any -f unit), nor RR service demand.
    rr = parse_file(TOOL, fx / "p0_tcp_rr_cpu.txt")
    # "16384  131072 1       1      2.00    37152.87  100.00 100.00 53.832  53.832"
    assert by_metric(rr).value.to_dict() == {"elapsed_time": 2.00, "cpu_util_local": 100.00,
                                             "cpu_util_remote": 100.00}
    row = rr.iloc[0]
    assert (row.p_send_socket, row.p_recv_socket, row.p_request_size, row.p_response_size,
            row.p_remote_send_socket, row.p_remote_recv_socket) == (16384, 131072, 1, 1, 16384, 131072)
    assert rr.p_test.isna().all() and set(rr.trial) == {1}
    udp = parse_file(TOOL, fx / "p0_udp_rr.txt")  # "212992 212992 1  1  2.00  35778.01" + "212992 212992"
    assert by_metric(udp).value.to_dict() == {"elapsed_time": 2.00}
    assert udp.p_remote_recv_socket.iloc[0] == 212992
    st = by_metric(parse_file(TOOL, fx / "p0_tcp_stream_cpu.txt"))
    # "131072  16384  16384    2.00       11524.98   100.00   100.00   1.422   1.422": stream
    # service demand is per KB whatever -f is, so it is read
    assert st.value["service_demand_local"] == pytest.approx(1.422e-6 / 1024)
    assert st.unit["service_demand_remote"] == "s/B"
    assert "throughput" not in st.index and st.p_message_size.iloc[0] == 16384
    assert set(by_metric(parse_file(TOOL, fx / "p0_tcp_stream.txt")).index) == {"elapsed_time"}


def test_p0_with_command_from_a_shell_trace(fx):
    # "+ timeout 10 netperf -H 127.0.0.1 -p 43131 -l 2 -t TCP_STREAM -P 0 -f g" (sh -x), then
    # "131072  16384  16384    2.00        8.40": -t and -f are known, so is the unit
    st = parse_file(TOOL, fx / "sh_x_p0_tcp_stream_fg.txt")
    m = by_metric(st)
    assert m.value["throughput"] == 8.40e9 / 8 and m.raw["throughput"] == "8.40 10^9bits/s"
    assert set(st.p_test) == {"TCP_STREAM"} and m.source["throughput"].endswith(":2")
    rr = by_metric(parse_file(TOOL, fx / "sh_x_p0_udp_rr_cpu.txt"))
    # "-t UDP_RR -P 0 -c -C" without -f: Trans/s and service demand per transaction
    # "212992 212992 1       1      2.00    33753.18   100.00 100.00 59.254  59.254"
    assert rr.value["transaction_rate"] == 33753.18
    assert rr.value["service_demand_local"] == pytest.approx(59.254e-6)
    assert rr.unit["service_demand_local"] == "s/tx"
    assert set(rr.p_test) == {"UDP_RR"}
    # netperf's own definition (netlib.c): SD [us/Tr] = util% * 10000 / (Tr/s) * CPUs
    assert 59.254 == pytest.approx(100.00 * 1e4 / 33753.18 * NCPU, abs=0.001)


def test_verbose_block(fx):
    rr = by_metric(parse_file(TOOL, fx / "v2_tcp_rr.txt"))
    # line 12: "    8      0       0      0   13.494   74108.408 0.593     0.593" under
    # "RoundTrip Latency usec/Tran", "Trans Rate per sec", "Throughput 10^6bits/s Outbound Inbound"
    assert rr.value["rt_latency"] == pytest.approx(13.494e-6)
    assert rr.value["throughput_outbound"] == 0.593e6 / 8 and rr.value["throughput_inbound"] == 0.593e6 / 8
    assert rr.source["rt_latency"].endswith(":12")
    assert rr.value["transaction_rate"] == 74108.41  # the result line's (line 7), not again at 12
    assert rr.value["rt_latency"] == pytest.approx(1 / rr.value["transaction_rate"], rel=1e-4)
    # one transaction of 1 byte each way: outbound = rate * 8 bits
    assert 0.593e6 == pytest.approx(74108.408 * 8, rel=1e-3)
    st = parse_file(TOOL, fx / "v2_tcp_stream.txt")
    m = by_metric(st)
    # line 12: "    8       8      0       0 6035685376  16384.00    368389   127631.33  47290"
    assert m.value["bytes_transferred"] == 6035685376 and m.unit["bytes_transferred"] == "B"
    assert (m.value["bytes_per_send"], m.value["sends"]) == (16384.00, 368389)
    assert (m.value["bytes_per_recv"], m.value["recvs"]) == (127631.33, 47290)
    assert m.value["mss"] == 65483 and m.source["mss"].endswith(":17")  # " 65483" under "Size (bytes)"
    assert m.value["bytes_transferred"] / m.value["sends"] == pytest.approx(m.value["bytes_per_send"])
    assert set(st.trial) == {1} and set(st.p_test) == {"TCP_STREAM"}
    # -P 0 -v 2 through sh -x: the -v 2 block's rows belong to the result's trial
    p0 = parse_file(TOOL, fx / "sh_x_p0_tcp_rr_v2.txt")
    assert set(p0.trial) == {1} and set(p0.p_test) == {"TCP_RR"}
    assert by_metric(p0).value["rt_latency"] == pytest.approx(38.567e-6)  # "38.567" usec/Tran


def test_stray_lines_before_and_inside_the_report(fx):
    # netperf's "enable_enobufs failed: getprotobyname" (no /etc/protocols) after the banner
    df = parse_file(TOOL, fx / "udp_stream_no_protocols.txt")
    recv = by_metric(df, p_side="recv")
    assert recv.value["throughput"] == 18525.75e6 / 8  # line 8: "212992  2.00  70706  18525.75"
    assert recv.value["messages"] == 70706
    assert by_metric(df, p_side="send").value["messages"] == 136327
    p0 = parse_file(TOOL, fx / "p0_udp_stream_no_protocols.txt")  # the warning is line 1
    send = by_metric(p0, p_side="send")
    # "212992   65507   2.00       115902      0    30366.9     100.00   0.540"
    assert send.value["messages"] == 115902 and send.value["cpu_util_local"] == 100.00
    assert send.source["messages"].endswith(":2") and "throughput" not in send.index
    # a shell trace line before the banner
    traced = by_metric(parse_file(TOOL, fx / "sh_x_tcp_rr.txt"))
    assert traced.value["transaction_rate"] == 34876.46 and traced.source["transaction_rate"].endswith(":8")


def test_detect(fx):
    # a failed run is still netperf's output: auto-detection must give its RunFailed message
    for name in ("tcp_rr.txt", "omni_tcp_rr_keyval.txt", "udp_stream.txt", "refused.txt",
                 "refused_sh_x_p0.txt", *NEW):
        assert detect((fx / name).read_text()) == TOOL, name


@pytest.mark.parametrize("name", [
    "tcp_rr.txt", "udp_rr.txt", "tcp_stream.txt", "tcp_maerts.txt", "udp_stream.txt",
    "tcp_rr_cpu.txt", "tcp_stream_cpu.txt", "tcp_maerts_cpu.txt", "udp_stream_cpu.txt",
    "udp_rr_cpu_fk.txt", "tcp_stream_fM.txt", "tcp_rr_confidence.txt", "omni_tcp_rr_csv.txt",
    "omni_tcp_rr_human.txt", "omni_tcp_rr_keyval.txt", "omni_tcp_stream_cpu_keyval.txt",
    "omni_tcp_stream_human_fg.txt", "omni_tcp_rr_human_all.txt", *NEW,
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


# ------------------------------------------------------------------ issue 26: -P 0 without -f


def test_p0_rate_of_unknown_unit_is_named_not_dropped_silently(fx):
    from overhead.parsers import notes_of

    # p0_tcp_rr.txt line 1: "16384  131072 1        1       2.00     34421.50"
    df = parse_file(TOOL, fx / "p0_tcp_rr.txt")
    assert "transaction_rate" not in set(df.metric)
    (msg,) = notes_of(df)
    assert msg.startswith(f"{fx / 'p0_tcp_rr.txt'}:1: netperf -P 0 result: the rate ('34421.50', field 6)")
    assert "--unit" in msg and "sh -x" in msg
    # given its unit, the rate is kept and nothing is said
    df = parse_text(TOOL, (fx / "p0_tcp_rr.txt").read_text(), "p0", unit="Trans/s")
    assert by_metric(df).value.to_dict() == pytest.approx({"elapsed_time": 2.00,
                                                           "transaction_rate": 34421.50})
    assert notes_of(df) == []


def test_p0_unit_option_letter_and_text(fx):
    # p0_tcp_stream_fk.txt (netperf ... -P 0 -f k): "131072  16384  16384    1.00     18632273.18"
    text = (fx / "p0_tcp_stream_fk.txt").read_text()
    for unit in ("k", "10^3bits/s", "10^3bits/sec"):
        m = by_metric(parse_text(TOOL, text, "fk", unit=unit))
        assert m.value["throughput"] == pytest.approx(18632273.18 * 1e3 / 8)
        assert m.value["elapsed_time"] == 1.00
    with pytest.raises(ParseError, match=r"fk:1: --unit Trans/s: this -P 0 result line is a stream"):
        parse_text(TOOL, text, "fk", unit="Trans/s")
    with pytest.raises(ValueError, match="not a netperf unit"):
        parse_text(TOOL, text, "fk", unit="Mbit/s")


def test_p0_unit_option_contradicting_the_command_line(fx):
    # sh_x_p0_tcp_stream_fg.txt line 1: "+ timeout 10 netperf ... -t TCP_STREAM -P 0 -f g"
    with pytest.raises(ParseError, match=r":2: --unit 10\^6bits contradicts .*10\^9bits/s"):
        parse_text(TOOL, (fx / "sh_x_p0_tcp_stream_fg.txt").read_text(), "fg", unit="m")


def test_p0_omni_csv_named_by_the_command_line(fx):
    # line 1: "+ timeout 10 netperf -H 127.0.0.1 -p 43177 -l 1 -t TCP_RR -P 0 -- -o MIN_LATENCY,..."
    # line 2: "14,15.77,15,16,34,2229,16.95,62815.272,62815.27,Trans/s,1,1,1.00,TCP,Send|Recv"
    df = parse_file(TOOL, fx / "sh_x_p0_omni_tcp_rr_csv.txt")
    assert set(df.source.str.rsplit(":", n=1).str[1]) == {"2"}
    assert set(df.p_test) == {"TCP_RR"} and set(df.p_protocol) == {"TCP"}
    assert set(df.p_data_direction) == {"Send|Recv"} and set(df.trial) == {1}
    pct = df[df.metric == "latency_percentile"].set_index("p_percentile").value.to_dict()
    assert pct == pytest.approx({50.0: 15e-6, 90.0: 16e-6, 99.0: 34e-6})
    rates = df[df.metric == "transaction_rate"].set_index("p_selector").value.to_dict()
    assert rates == pytest.approx({"TRANSACTION_RATE": 62815.272, "THROUGHPUT": 62815.27})
    m = by_metric(df[~df.metric.isin(["transaction_rate", "latency_percentile"])])
    assert m.value.to_dict() == pytest.approx({
        "latency_min": 14e-6, "latency_mean": 15.77e-6, "latency_max": 2229e-6,
        "latency_sd": 16.95e-6, "elapsed_time": 1.00})
    assert set(df.p_request_size) == {1} and set(df.p_response_size) == {1}
    # line 2: "19236.69,10^6bits/s,1.00,16384,16384,131072,TCP,Send"
    m = by_metric(parse_file(TOOL, fx / "sh_x_p0_omni_tcp_stream_csv.txt"))
    assert m.value.to_dict() == pytest.approx({"throughput": 19236.69e6 / 8, "elapsed_time": 1.00})
    assert m.p_message_size.tolist() == [16384, 16384] and m.p_send_socket.tolist() == [16384] * 2
    assert m.p_remote_recv_socket.tolist() == [131072] * 2
    assert detect((fx / "sh_x_p0_omni_tcp_rr_csv.txt").read_text()) == TOOL


@pytest.mark.parametrize("name", ["p0_omni_tcp_rr_csv.txt", "p0_omni_tcp_stream_csv.txt",
                                  "p0_omni_all_csv.txt"])
def test_p0_omni_csv_without_the_command_line_is_refused_clearly(fx, name):
    # the same runs without a shell trace: values only, nothing names them
    with pytest.raises(ParseError, match=rf"{name}:1: netperf omni CSV values without their "
                       r"header \(-P 0 with -o\).*sh -x"):
        parse_file(TOOL, fx / name)


def test_cli_unit_option(fx):
    def run(*args: str) -> subprocess.CompletedProcess:  # `overhead parse ...` as a user types it
        return subprocess.run([sys.executable, "-m", "overhead.cli", *args], capture_output=True,
                              text=True)

    r = run("parse", "netperf", str(fx / "p0_tcp_rr.txt"))
    assert r.returncode == 0 and "elapsed_time" in r.stdout and "transaction_rate" not in r.stdout
    assert r.stderr.count("\n") == 1 and ":1: netperf -P 0 result: the rate ('34421.50'" in r.stderr
    r = run("parse", "netperf", str(fx / "p0_tcp_rr.txt"), "--unit", "Trans/s")
    assert r.returncode == 0 and r.stderr == "" and '"value": 34421.5' in r.stdout
    r = run("parse", "wrk", str(fx / "p0_tcp_rr.txt"), "--unit", "Trans/s")
    assert r.returncode == 2 and r.stderr.strip() == "--unit applies to netperf output only, not wrk"
    r = run("parse", "netperf", str(fx / "p0_tcp_rr.txt"), "--unit", "Mbit/s")
    assert r.returncode == 2 and r.stderr.startswith("--unit 'Mbit/s': not a netperf unit")


@pytest.mark.parametrize("name", ["omni_tcp_rr_human_all.txt", "omni_all_csv.txt"])
def test_omni_all_closes_with_its_command_line(fx, name):
    from overhead.parsers import cut_short_of

    text = (fx / name).read_text()
    # the last value of -O all / -o all is the quoted command line, e.g. omni_all_csv.txt line 3
    # ends '"netperf -H 127.0.0.1 -p 43177 -l 1 -t omni -- -o all"'
    assert text.rstrip().endswith(' -- -O all"' if "human" in name else ' -- -o all"')
    df = parse_text(TOOL, text, name)
    assert cut_short_of(df) is None and len(df)
    # the same output without its closing command line (cut in it, or before its group)
    cut = text[:text.rindex('"netperf') + 10] + "\n"
    short = parse_text(TOOL, cut, name)
    assert cut_short_of(short).startswith(f"{name}:{len(cut.splitlines())}: the run was cut "
                                          "short: omni -")
    if "human" in name:  # line 19 is the blank line before the last group of columns
        lines = text.splitlines(keepends=True)
        before = parse_text(TOOL, "".join(lines[:19]), name)
        assert "without its closing command line" in cut_short_of(before)
        assert len(before) == len(df[df.source.str.rsplit(":", n=1).str[1].astype(int) <= 18])


def test_p0_omni_columns_named_by_the_command_line(fx):
    # line 1: "+ timeout 10 netperf ... -t TCP_RR -P 0 -- -O MIN_LATENCY,MEAN_LATENCY,P99_LATENCY,
    # TRANSACTION_RATE,THROUGHPUT_UNITS,ELAPSED_TIME,PROTOCOL,DIRECTION"
    # line 2: "12           18.03        30           55114.116   Trans/s    1.00    TCP      Send|Recv"
    text = (fx / "sh_x_p0_omni_tcp_rr_human.txt").read_text()
    assert detect(text) == TOOL
    df = parse_text(TOOL, text, "h")
    assert set(df.source) == {"h:2"} and set(df.p_protocol) == {"TCP"}
    pct = df[df.metric == "latency_percentile"]
    assert pct.p_percentile.tolist() == [99.0] and pct.value.tolist() == pytest.approx([30e-6])
    m = by_metric(df[df.metric != "latency_percentile"])
    assert m.value.to_dict() == pytest.approx({"latency_min": 12e-6, "latency_mean": 18.03e-6,
                                               "transaction_rate": 55114.116, "elapsed_time": 1.00})


# ------------------------------------------------------------------ issue 45: wrapper lines


def _without_wrapper_lines(text: str) -> str:
    """The same capture with the lines the wrapper script printed deleted."""
    return "".join(ln for ln in text.splitlines(keepends=True)
                   if ln.strip() not in ("TCP_RR", "UDP_RR", "Experiment completed"))


def _values(df) -> list:
    cols = ["metric", "value", "p_test", "trial"]
    return sorted(map(tuple, df[cols].astype(str).to_numpy()))


@pytest.mark.parametrize(("name", "rates"), [
    # the test's name on a line of its own before netperf (`echo UDP_RR; netperf ...`):
    # "23  64.04 ... 15598.581   15598.58   Trans/s ..." under the -O header
    ("wrap_name_omni_udp_rr_human.txt", {("UDP_RR", 1): 15598.581}),
    # "Experiment completed" after the run: "14  68.89 ... 14493.521   14493.52   Trans/s ..."
    ("wrap_done_omni_tcp_rr_human.txt", {("TCP_RR", 1): 14493.521}),
    # both, around two runs of a loop, in every output form
    ("wrap_loop_omni_human.txt", {("TCP_RR", 1): 20141.943, ("UDP_RR", 1): 15129.169}),
    ("wrap_loop_omni_csv.txt", {("TCP_RR", 1): 15239.416, ("UDP_RR", 1): 15690.369}),
    ("wrap_loop_keyval.txt", {("TCP_RR", 1): 14399.207, ("UDP_RR", 1): 18076.192}),
    ("wrap_loop_classic.txt", {("TCP_RR", 1): 16122.55, ("UDP_RR", 1): 15965.55}),
    ("wrap_sh_x_p0_omni_tcp_rr_csv.txt", {("TCP_RR", 1): 14291.043}),
    ("wrap_sh_x_p0_omni_udp_rr_human.txt", {("UDP_RR", 1): 15461.887}),
])
def test_wrapper_lines_around_a_complete_run_never_flag_it(fx, name, rates):
    from overhead.parsers import cut_short_of, notes_of

    text = (fx / name).read_text()
    df = parse_text(TOOL, text, name)
    assert cut_short_of(df) is None and notes_of(df) == []
    tr = df[df.metric == "transaction_rate"]
    if "p_selector" in df:  # omni output selecting both: TRANSACTION_RATE's, not THROUGHPUT's
        tr = tr[tr.p_selector == "TRANSACTION_RATE"]
    got = {(r.p_test, r.trial): r.value for r in tr.itertuples()}
    assert got == pytest.approx(rates)
    # deleting the wrapper's lines changes nothing but the line numbers
    bare = parse_text(TOOL, _without_wrapper_lines(text), name)
    assert bare.shape == df.shape and _values(bare) == _values(df)
    assert cut_short_of(bare) is None


def test_wrapper_lines_after_omni_all_columns(fx):
    from overhead.parsers import cut_short_of

    # -O all closes with its quoted command line; "Experiment completed" after it is the
    # wrapper's (the genuine -O all output, a wrapper's line appended as the scripts print it)
    text = (fx / "omni_tcp_rr_human_all.txt").read_text()
    df = parse_text(TOOL, text + "Experiment completed\n", "all")
    assert cut_short_of(df) is None and len(df) == len(parse_text(TOOL, text, "all"))


# ------------------------------------------------------------------ issue 45: cut captures


def _head(text: str, n: int) -> str:
    return "".join(text.splitlines(keepends=True)[:n])


def test_cut_in_a_two_line_result_is_cut_short(fx):
    from overhead.parsers import cut_short_of

    # tcp_rr.txt line 7 "16384  131072 1 1 2.00 51641.32", line 8 the remote socket sizes
    rr = parse_text(TOOL, _head((fx / "tcp_rr.txt").read_text(), 7), "rr")
    assert cut_short_of(rr).startswith("rr:7: the run was cut short: the request/response "
                                       "result without its second line")
    assert by_metric(rr).value["transaction_rate"] == 51641.32
    # udp_stream.txt line 6 the sending side, line 7 the receiving side
    udp = parse_text(TOOL, _head((fx / "udp_stream.txt").read_text(), 6), "u")
    assert "UDP_STREAM result without its receiving side" in cut_short_of(udp)
    assert set(udp.p_side) == {"send"} and by_metric(udp).value["messages"] == 265216
    # -P 0 with its command line: "212992 212992 1 1 2.00 33753.18 ..." then the remote line
    p0 = parse_text(TOOL, _head((fx / "sh_x_p0_udp_rr_cpu.txt").read_text(), 2), "p")
    assert cut_short_of(p0).startswith("p:2: the run was cut short: the -P 0 request/response")
    assert by_metric(p0).value["transaction_rate"] == 33753.18


def test_cut_in_a_verbose_block_is_cut_short(fx):
    from overhead.parsers import cut_short_of

    # v2_tcp_rr_cpu.txt: lines 9-11 the -v 2 header, line 12 its values
    text = (fx / "v2_tcp_rr_cpu.txt").read_text()
    assert cut_short_of(parse_text(TOOL, text, "v")) is None
    short = parse_text(TOOL, _head(text, 11), "v")
    assert cut_short_of(short).startswith("v:11: the run was cut short: a -v 2 block's header")
    assert by_metric(short).value["transaction_rate"] == 23448.66  # line 7, kept
    assert "rt_latency" not in set(short.metric)
    # TCP_MAERTS -v 2: the alignment block (line 12 "... 2455310645  67173.09  36552 ...") is
    # followed by the "Maximum Segment Size" block (line 17 " 32768"); a capture without it
    maerts = (fx / "v2_tcp_maerts.txt").read_text()
    whole = by_metric(parse_text(TOOL, maerts, "m"))
    assert whole.value["mss"] == 32768 and whole.value["recvs"] == 36552
    assert whole.value["bytes_per_send"] == 16384.00 and whole.value["sends"] == 150194
    cut = parse_text(TOOL, _head(maerts, 13), "m")
    assert "without its 'Maximum Segment Size' block" in cut_short_of(cut)
    assert by_metric(cut).value["bytes_transferred"] == 2455310645
    # netperf prints no -v 2 block for UDP_RR and UDP_STREAM: their whole output is finished
    for name in ("v2_udp_rr.txt", "v2_udp_stream.txt", "v2_tcp_crr.txt", "v2_tcp_stream_cpu.txt"):
        assert cut_short_of(parse_file(TOOL, fx / name)) is None, name


def test_last_line_without_its_end(fx):
    from overhead.parsers import cut_short_of

    # keyval_udp_rr.txt line 9 "TRANSACTION_RATE=12267.166", cut in the middle of it
    text = (fx / "keyval_udp_rr.txt").read_text()
    lines = text.splitlines(keepends=True)
    cut = "".join(lines[:8]) + "TRANSACTION_RATE=122"
    df = parse_text(TOOL, cut, "k")
    assert cut_short_of(df).startswith("k:9: the run was cut short: the last line has no line end")
    assert "transaction_rate" not in set(df.metric)
    assert by_metric(df[df.metric != "latency_percentile"]).value["latency_max"] == pytest.approx(2066e-6)
    assert cut_short_of(parse_text(TOOL, "".join(lines[:8]) + "TRANSACT", "k"))  # a key cut
    # a wrapper's last line printed without its line end is not a cut
    wrapped = (fx / "wrap_done_omni_tcp_rr_human.txt").read_text().rstrip("\n")
    assert wrapped.endswith("Experiment completed")
    assert cut_short_of(parse_text(TOOL, wrapped, "w")) is None


def test_keyval_cut_at_a_line_boundary(fx):
    from overhead.parsers import cut_short_of

    # netperf prints one line per -k selector and nothing after: a capture that stops between
    # two lines is the whole output of a run with fewer selectors, unless the list is known
    text = (fx / "keyval_tcp_stream.txt").read_text()
    head = _head(text, 4)  # banner, THROUGHPUT=..., THROUGHPUT_UNITS=..., ELAPSED_TIME=...
    assert cut_short_of(parse_text(TOOL, head, "k")) is None
    sel = "THROUGHPUT,THROUGHPUT_UNITS,ELAPSED_TIME,LSS_SIZE,RSR_SIZE,LOCAL_SEND_SIZE,PROTOCOL,DIRECTION"
    cut = parse_text(TOOL, head, "k", columns=sel)
    assert cut_short_of(cut) == ("k:4: the run was cut short: omni -k output without LSS_SIZE, "
                                 "RSR_SIZE, LOCAL_SEND_SIZE, PROTOCOL, DIRECTION (the -k list "
                                 "names 8 selectors): the capture ends before them")
    assert by_metric(cut).value["throughput"] == pytest.approx(23420.24e6 / 8)  # THROUGHPUT=23420.24 10^6bits/s
    whole = parse_text(TOOL, text, "k", columns=sel)
    assert cut_short_of(whole) is None and set(whole.p_protocol) == {"TCP"}
    # a shell trace of the command names the list too
    traced = f"+ netperf -H 127.0.0.1 -l 1 -t TCP_STREAM -- -k {sel}\n" + head
    assert "without LSS_SIZE" in cut_short_of(parse_text(TOOL, traced, "k"))


# ------------------------------------------------------------------ issue 45: -P 0 omni, --columns

SEL = LAT + ",TRANSACTION_RATE,THROUGHPUT,THROUGHPUT_UNITS,REQUEST_SIZE,RESPONSE_SIZE,ELAPSED_TIME,PROTOCOL,DIRECTION"


def test_p0_omni_values_named_by_columns(fx):
    from overhead.parsers import cut_short_of

    # p0_omni_loop_csv.txt (a loop of -t TCP_RR and -t UDP_RR, -P 0 -- -o SEL):
    # line 1 "14,57.92,58,71,89,3720,33.08,17246.637,17246.64,Trans/s,1,1,1.00,TCP,Send|Recv"
    # line 2 "12,55.25,54,74,96,1479,25.79,18075.065,18075.07,Trans/s,1,1,1.00,UDP,Send|Recv"
    df = parse_text(TOOL, (fx / "p0_omni_loop_csv.txt").read_text(), "loop", columns=SEL)
    assert cut_short_of(df) is None and df.p_test.isna().all()
    rate = df[(df.metric == "transaction_rate") & (df.p_selector == "TRANSACTION_RATE")]
    assert rate.set_index("trial").value.to_dict() == pytest.approx({1: 17246.637, 2: 18075.065})
    assert rate.set_index("trial").p_protocol.to_dict() == {1: "TCP", 2: "UDP"}
    first = df[df.trial == 1]
    pct = first[first.metric == "latency_percentile"].set_index("p_percentile").value.to_dict()
    assert pct == pytest.approx({50.0: 58e-6, 90.0: 71e-6, 99.0: 89e-6})
    assert by_metric(first[first.metric.isin(["latency_max", "elapsed_time"])]).value.to_dict() \
        == pytest.approx({"latency_max": 3720e-6, "elapsed_time": 1.00})
    # -O columns without header: "23  64.87  59  87  117  2239  29.73  15395.614  15395.61 ..."
    cols = parse_text(TOOL, (fx / "p0_omni_tcp_rr_human.txt").read_text(), "h", columns=SEL.lower())
    assert cols[cols.metric == "latency_min"].value.tolist() == pytest.approx([23e-6])
    assert set(cols.p_data_direction) == {"Send|Recv"} and set(cols.source.str[-2:]) == {":1"}
    # the same values as the run's own CSV would give them: the command line names them too
    traced = parse_file(TOOL, fx / "sh_x_p0_omni_tcp_rr_csv.txt")
    again = parse_text(TOOL, "".join((fx / "sh_x_p0_omni_tcp_rr_csv.txt").read_text()
                                     .splitlines(keepends=True)[1:]), "x", columns=SEL)
    assert _values(again) == _values(traced.assign(p_test=pd.NA))


@pytest.mark.parametrize("name", ["p0_omni_loop_csv.txt", "p0_omni_tcp_rr_human.txt"])
def test_p0_omni_without_columns_says_how_to_give_them(fx, name):
    with pytest.raises(ParseError, match=rf"{name}:1: netperf omni (CSV|-O) values without "
                       r"their header .*--columns MIN_LATENCY"):
        parse_file(TOOL, fx / name)
    assert detect((fx / name).read_text()) == TOOL  # so `overhead parse auto --columns` reads it


def test_columns_option_errors(fx):
    with pytest.raises(ParseError, match=r"c:1: netperf omni -P 0 line has 15 values, the -o "
                                         r"list \(the command line's or --columns\) names 2"):
        parse_text(TOOL, (fx / "p0_omni_loop_csv.txt").read_text(), "c",
                   columns="MIN_LATENCY,MEAN_LATENCY")
    with pytest.raises(ValueError, match="'all' cannot name the columns"):
        parse_text(TOOL, (fx / "p0_omni_loop_csv.txt").read_text(), "c", columns="all")
    r = subprocess.run([sys.executable, "-m", "overhead.cli", "parse", "netperf",
                        str(fx / "p0_omni_loop_csv.txt"), "--columns", "MIN LATENCY"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.startswith("--columns 'MIN LATENCY': not a netperf omni selector")
    r = subprocess.run([sys.executable, "-m", "overhead.cli", "parse", "netperf",
                        str(fx / "p0_omni_loop_csv.txt"), "--columns", SEL],
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr == "" and '"value": 17246.637' in r.stdout


def test_omni_value_whose_unit_selector_is_absent_is_named(fx):
    from overhead.parsers import cut_short_of, notes_of

    # omni_tcp_stream_cpu_keyval.txt: LOCAL_SD=0.658 (line 6), REMOTE_SD=0.658 (7), and their
    # unit SD_UNITS=usec/KB on line 8: the first 7 lines are a -k list without SD_UNITS
    text = (fx / "omni_tcp_stream_cpu_keyval.txt").read_text()
    assert notes_of(parse_text(TOOL, text, "k")) == []
    df = parse_text(TOOL, _head(text, 7), "k")
    assert cut_short_of(df) is None and "service_demand_local" not in set(df.metric)
    assert notes_of(df) == ["k:6: netperf omni LOCAL_SD and 1 more not kept: its unit is "
                            "SD_UNITS's, which is not in the output; select SD_UNITS too"]
    # THROUGHPUT (line 2) without THROUGHPUT_UNITS: the same output with line 3 deleted
    lines = text.splitlines(keepends=True)
    df = parse_text(TOOL, "".join(lines[:2] + lines[3:]), "t")
    assert notes_of(df)[0].startswith("t:2: netperf omni THROUGHPUT not kept: its unit is "
                                      "THROUGHPUT_UNITS's")
    assert "throughput" not in set(df.metric) and "service_demand_local" in set(df.metric)
