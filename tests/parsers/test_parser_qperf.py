"""qperf 0.4.11 client outputs made on this machine against a loopback server."""

from __future__ import annotations

import pytest
from conftest import value

from overhead.parsers import ParseError, RunFailed, detect, parse_file, parse_text
from parser_contract import check_all_prefixes, hypothesis_random_bytes, with_line

TOOL = "qperf"
US = 1e-6

RESULTS = ["lat_bw.txt", "lat_bw_v.txt", "tcp_vv.txt", "udp_m1400_v.txt", "unify_bits.txt",
           "conf_tcp_lat.txt", "loop_msg_size.txt", "killed_after_first.txt"]
FAILED = ["refused_tcp.txt", "refused_udp.txt", "killed.txt"]


@pytest.fixture(scope="module")
def fx(fixtures):
    return fixtures / "qperf"


def test_four_tests_brief(fx):
    df = parse_file(TOOL, fx / "lat_bw.txt")
    # "tcp_lat:" / "    latency  =  8.32 us"
    assert value(df, "latency_mean", p_test="tcp_lat") == pytest.approx(8.32 * US)
    assert df[df.p_test == "tcp_lat"].source.iloc[0].endswith("lat_bw.txt:2")
    # "tcp_bw:" / "    bw  =  2.3 GB/sec" (qperf's GB is 10**9 bytes)
    assert value(df, "throughput", p_test="tcp_bw") == pytest.approx(2.3e9)
    assert value(df, "latency_mean", p_test="udp_lat") == pytest.approx(6.96 * US)  # "6.96 us"
    # "udp_bw:" / "    send_bw  =  4.5 GB/sec" / "    recv_bw  =  1.9 GB/sec"
    assert value(df, "throughput", p_test="udp_bw", p_side="send") == pytest.approx(4.5e9)
    assert value(df, "throughput", p_test="udp_bw", p_side="recv") == pytest.approx(1.9e9)
    assert df[df.p_test == "tcp_bw"].p_side.isna().all()  # "bw": qperf's receive bandwidth
    assert set(df.trial) == {1} and df.tool_version.isna().all()  # no "conf" block
    assert len(df) == 5


def test_verbose(fx):
    df = parse_file(TOOL, fx / "lat_bw_v.txt")
    lat = df[df.p_test == "tcp_lat"]
    # "latency = 14 us", "msg_rate = 71.3 K/sec", "time = 2 sec", "loc_cpus_used = 199 % cpus"
    assert value(lat, "latency_mean") == pytest.approx(14 * US)
    assert value(lat, "message_rate") == pytest.approx(71.3e3)
    assert value(lat, "cpu_util", p_side="local") == 199
    assert value(lat, "cpu_util", p_side="remote") == 199
    assert set(df.p_duration) == {2.0}  # the -t 2 qperf shows as "time = 2 sec"
    assert "elapsed_time" not in set(df.metric)
    bw = df[df.p_test == "tcp_bw"]
    # "send_cost = 834 ms/GB", "recv_cost = 832 ms/GB": CPU seconds per 10**9 bytes, stored
    # per byte (s/B) as netperf's service demand is
    assert value(bw, "service_demand", p_side="send") == pytest.approx(0.834e-9)
    assert value(bw, "service_demand", p_side="recv") == pytest.approx(0.832e-9)
    assert set(bw[bw.metric == "service_demand"].unit) == {"s/B"}
    # the same from the other lines: "send_cpus_used = 200 % cpus" (2 CPUs busy) over
    # "bw = 2.41 GB/sec" is 0.83e-9 s of CPU per byte
    assert value(bw, "service_demand", p_side="send") == pytest.approx(
        value(bw, "cpu_util", p_side="send") / 100 / value(bw, "throughput"), rel=0.005)
    assert value(bw, "cpu_util", p_side="send") == 200  # "send_cpus_used = 200 % cpus"
    udp = df[df.p_test == "udp_bw"]
    assert value(udp, "throughput", p_side="recv") == pytest.approx(2.61e9)  # "2.61 GB/sec"
    assert value(udp, "message_rate") == pytest.approx(79.4e3)  # "msg_rate = 79.4 K/sec"


def test_units_are_decimal(fx):
    df = parse_file(TOOL, fx / "tcp_vv.txt")
    bw = df[df.p_test == "tcp_bw"]
    # "msg_size = 64 KiB (65,536)": the exact count in parentheses
    assert set(bw.p_message_size) == {65536} and set(bw.p_timeout) == {5.0}
    # "bw = 3.04 GB/sec" = "msg_rate = 46.3 K/sec" x 65536 B with GB = 10**9 (to qperf's 3
    # digits); with 2**30 the bandwidth would be 7% above msg_rate x msg_size
    assert value(bw, "throughput") == pytest.approx(46.3e3 * 65536, rel=0.005)
    # "send_bytes = 6.07 GB", "send_msgs = 92,670": 65,501 bytes a message with GB = 10**9
    assert value(bw, "bytes_sent", p_side="send") / value(bw, "messages_sent", p_side="send") \
        == pytest.approx(65536, rel=0.001)
    assert value(bw, "messages_received", p_side="recv") == 92671  # "recv_msgs = 92,671"
    lat = df[df.p_test == "tcp_lat"]
    # "loc_send_bytes = 143 KB" for "loc_send_msgs = 143,003" one-byte messages
    assert value(lat, "bytes_sent", p_side="local") == 143e3
    assert value(lat, "messages_received", p_side="remote") == 143004  # "rem_recv_msgs = 143,004"
    assert value(lat, "cpu_user", p_side="local") == 42.5  # "loc_cpus_user = 42.5 % cpus"
    assert value(lat, "cpu_time", p_side="remote") == 3.99  # "rem_cpu_time = 3.99 sec"
    assert set(lat.p_message_size) == {1}  # "msg_size = 1 bytes"
    udp = parse_file(TOOL, fx / "udp_m1400_v.txt")
    # "msg_size = 1.4 KB" (-m 1400), "recv_bw = 318 MB/sec", "msg_rate = 227 K/sec"
    assert set(udp.p_message_size) == {1400}
    ub = udp[udp.p_test == "udp_bw"]
    assert value(ub, "throughput", p_side="recv") == pytest.approx(
        value(ub, "message_rate") * 1400, rel=0.005)
    assert value(ub, "service_demand", p_side="recv") == pytest.approx(4.32e-9)  # "4.32 sec/GB"


def test_unified_units_and_bits(fx):
    df = parse_file(TOOL, fx / "unify_bits.txt")
    # -uu -ub: "latency  =  13863 ns", "send_bw  =  32647282688 bits/sec"
    assert value(df, "latency_mean") == pytest.approx(13863e-9)
    assert value(df, "throughput", p_side="send") == pytest.approx(32647282688 / 8)
    assert value(df, "throughput", p_side="recv") == pytest.approx(21754019840 / 8)


def test_conf_gives_the_version(fx):
    df = parse_file(TOOL, fx / "conf_tcp_lat.txt")
    assert set(df.tool_version) == {"0.4.11"}  # "    loc_qperf  =  0.4.11"
    assert set(df.p_test) == {"tcp_lat"} and len(df) == 1  # the conf block gives no row
    assert value(df, "latency_mean") == pytest.approx(27.1 * US)  # "latency  =  27.1 us"
    assert df.source.iloc[0].endswith(":11")


def test_loop_repeats_a_test_as_trials(fx):
    df = parse_file(TOOL, fx / "loop_msg_size.txt")
    # -oo msg_size:1:4K:*8: "msg_size = 1 bytes" ... "msg_size = 4 KiB (4,096)"
    got = df.set_index("trial")[["p_message_size", "value"]].to_dict("index")
    assert got == {1: {"p_message_size": 1, "value": pytest.approx(1.88e6)},
                   2: {"p_message_size": 8, "value": pytest.approx(15e6)},
                   3: {"p_message_size": 64, "value": pytest.approx(113e6)},
                   4: {"p_message_size": 512, "value": pytest.approx(833e6)},
                   5: {"p_message_size": 4096, "value": pytest.approx(2.38e9)}}
    assert set(df.p_duration) == {1.0}


@pytest.mark.parametrize(("name", "line", "message"), [
    ("refused_tcp.txt", 2, "127.0.0.1: failed to connect"),
    ("refused_udp.txt", 2, "127.0.0.1: failed to connect"),
    ("killed.txt", 2, "failed to receive results: server not responding"),
])
def test_failed_runs(fx, name, line, message):
    with pytest.raises(RunFailed) as err:
        parse_file(TOOL, fx / name, name=name)
    assert str(err.value) == f"{name}:{line}: the run did not finish: {message}"


def test_a_test_completed_before_the_server_died_is_kept(fx):
    df = parse_file(TOOL, fx / "killed_after_first.txt")
    # "tcp_lat:" / "    latency  =  8.74 us", then "tcp_bw:" /
    # "failed to receive port: Connection reset by peer"
    assert set(df.p_test) == {"tcp_lat"}
    assert value(df, "latency_mean") == pytest.approx(8.74 * US)


def test_errors_name_the_wrong_line(fx):
    lines = (fx / "lat_bw_v.txt").read_text().splitlines(keepends=True)
    with pytest.raises(ParseError, match=r"^b\.txt:3: msg_rate: unit 'Q/sec' is not one of qperf's"):
        parse_text(TOOL, with_line(lines, 3, "    msg_rate       =  71.3 Q/sec\n"), "b.txt")
    with pytest.raises(ParseError, match=r"^b\.txt:8: bw: expected a number and a unit"):
        parse_text(TOOL, with_line(lines, 8, "    bw              =  2.4x GB/sec\n"), "b.txt")
    with pytest.raises(ParseError, match=r"^b\.txt:9: malformed qperf line: 'msg_rate 36\.6 K/sec'"):
        parse_text(TOOL, with_line(lines, 9, "    msg_rate 36.6 K/sec\n"), "b.txt")
    vv = (fx / "tcp_vv.txt").read_text().splitlines(keepends=True)
    # line 4, after the rows' lines
    with pytest.raises(ParseError, match=r"^b\.txt:4: msg_size: '9+ bytes' is out of range"):
        parse_text(TOOL, with_line(vv, 4, "    msg_size         =  99999999999999999999 bytes\n"),
                   "b.txt")
    with pytest.raises(ParseError, match=r"^n\.txt:1: not qperf output"):
        parse_text(TOOL, "hello:\n    x = 1\n", "n.txt")
    with pytest.raises(RunFailed, match=r"^h\.txt: the run did not finish: qperf printed "
                       r"'tcp_lat:' and no result$"):
        parse_text(TOOL, "tcp_lat:\n", "h.txt")


def test_lines_before_the_output_are_skipped(fx):
    text = "Unable to find image 'qperf' locally\n" + (fx / "lat_bw.txt").read_text()
    df = parse_text(TOOL, text, "w")
    assert value(df, "latency_mean", p_test="tcp_lat") == pytest.approx(8.32 * US)
    assert df[df.p_test == "tcp_lat"].source.iloc[0] == "w:3"
    assert detect(text) == TOOL


@pytest.mark.parametrize("name", RESULTS + FAILED)
def test_detect(fx, name):
    assert detect((fx / name).read_text()) == TOOL


@pytest.mark.parametrize("name", RESULTS)
def test_every_prefix(fx, name):
    check_all_prefixes(TOOL, (fx / name).read_text())


def test_random_bytes():
    hypothesis_random_bytes(TOOL)()


def test_verbose_single_block_cut_before_its_cpu_lines(fx):
    from overhead.parsers import cut_short_of, parse_text

    # v_udp_lat.txt: "udp_lat:", "latency = 6.49 us", "msg_rate = 154 K/sec", "time = 1 sec",
    # "loc_cpus_used = 199 % cpus", "rem_cpus_used = 199 % cpus": msg_rate says -v
    text = (fx / "v_udp_lat.txt").read_text()
    assert cut_short_of(parse_text(TOOL, text, "v")) is None
    lines = text.splitlines(keepends=True)
    cut = parse_text(TOOL, "".join(lines[:4]), "v")
    assert cut_short_of(cut).startswith("v:4: the run was cut short: the 'udp_lat:' block (-v) "
                                        "ends before its remote CPU line")
    assert value(cut, "latency_mean") == pytest.approx(6.49 * US)
    assert value(cut, "message_rate") == pytest.approx(154e3)
    # -vu prints the parameters used (time, msg_size) and no CPU lines: not -v, not cut
    assert cut_short_of(parse_file(TOOL, fx / "loop_msg_size.txt")) is None
    # tcp_bw cut after its send_cpus_used line (line 7), before recv_cpus_used
    bw = (fx / "v_tcp_bw_lat.txt").read_text().splitlines(keepends=True)
    short = parse_text(TOOL, "".join(bw[:7]), "b")
    assert "'tcp_bw:' block (-v) ends before its remote CPU line" in cut_short_of(short)
    assert value(short, "throughput") == pytest.approx(2.59e9)  # "bw = 2.59 GB/sec"
