"""sockperf 3.7 client outputs made on this machine against loopback servers."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import value

from overhead.parsers import ParseError, RunFailed, detect, parse_file, parse_text
from parser_contract import check_all_prefixes, hypothesis_random_bytes, with_line

TOOL = "sockperf"
US = 1e-6
MIB = 1024**2

RESULTS = ["pp_tcp.txt", "pp_udp.txt", "pp_tcp_fullrtt.txt", "pp_udp_burst.txt", "ul_tcp.txt",
           "ul_udp.txt", "tp_tcp.txt", "tp_udp.txt", "tp_tcp_frags.txt", "tp_udp_giga.txt",
           "tp_udp_precision.txt", "tp_udp_noserver.txt"]
FAILED = ["pp_tcp_refused.txt", "tp_tcp_refused.txt", "pp_tcp_killed.txt", "pp_udp_noserver.txt",
          "ul_udp_noserver.txt", "ul_udp_novalid.txt"]


@pytest.fixture(scope="module")
def fx(fixtures):
    return fixtures / "sockperf"


def test_ping_pong_tcp(fx):
    df = parse_file(TOOL, fx / "pp_tcp.txt")
    assert set(df.p_test) == {"ping-pong"} and set(df.p_protocol) == {"TCP"}  # "[ 0] ... # TCP"
    assert set(df.tool_version) == {"3.7-no.git"}  # "sockperf: == version #3.7-no.git =="
    assert set(df.trial) == {1} and set(df.p_warmup_time) == {0.4}  # "Warm up time=400 msec"
    # "sockperf: ====> avg-latency=26.883 (std-dev=42.274)" (ANSI colour codes around it)
    assert value(df, "latency_mean") == pytest.approx(26.883 * US)
    assert value(df, "latency_sd") == pytest.approx(42.274 * US)
    assert df.set_index("metric").source["latency_mean"].endswith("pp_tcp.txt:12")
    # "---> <MAX> observation = 2392.520" ... "---> <MIN> observation =    6.199"
    assert value(df, "latency_max") == pytest.approx(2392.520 * US)
    assert value(df, "latency_min") == pytest.approx(6.199 * US)
    pct = df[df.metric == "latency_percentile"].set_index("p_percentile").value / US
    assert pct.to_dict() == pytest.approx({99.999: 2392.520, 99.99: 2047.038, 99.9: 559.898,
                                           99.0: 44.090, 90.0: 29.363, 75.0: 28.001,
                                           50.0: 26.219, 25.0: 22.152})
    assert df[df.p_percentile == 50.0].source.iloc[0].endswith(":23")  # "percentile 50.000 = 26.219"
    assert set(df[df.metric.str.startswith("latency")].p_round_trip) == {False}
    # "[Total Run] RunTime=2.000 sec; Warm up time=400 msec; SentMessages=43233; ReceivedMessages=43232"
    assert value(df, "elapsed_time", p_window="total") == 2.0
    assert value(df, "messages_sent", p_window="total") == 43233
    assert value(df, "messages_received", p_window="total") == 43232
    # "[Valid Duration] RunTime=1.550 sec; SentMessages=28825; ReceivedMessages=28825"
    assert value(df, "elapsed_time", p_window="valid") == 1.55
    assert value(df, "messages_received", p_window="valid") == 28825
    assert set(df[df.p_window == "valid"].p_server) == {0}  # "Printing statistics for Server No: 0"
    # "# dropped messages = 0; # duplicated messages = 0; # out-of-order messages = 0"
    for metric in ("dropped_messages", "duplicated_messages", "out_of_order_messages"):
        assert value(df, metric) == 0
    assert "message_rate" not in set(df.metric)  # a latency report prints none


def test_ping_pong_udp_and_its_order(fx):
    df = parse_file(TOOL, fx / "pp_udp.txt")
    assert set(df.p_protocol) == {"UDP"} and set(df.p_test) == {"ping-pong"}
    assert value(df, "latency_mean") == pytest.approx(6.138 * US)  # "avg-latency=6.138"
    assert value(df, "latency_percentile", p_percentile=99.0) == pytest.approx(6.905 * US)
    for name in RESULTS[:6]:
        d = parse_file(TOOL, fx / name)
        lat = d[d.metric == "latency_percentile"].set_index("p_percentile").value
        # sockperf's table: MIN <= p25 <= ... <= p99.999 <= MAX, the mean between MIN and MAX
        assert value(d, "latency_min") <= lat[25.0] <= lat[50.0] <= lat[99.0] <= lat[99.999]
        assert lat[99.999] <= value(d, "latency_max")
        assert value(d, "latency_min") <= value(d, "latency_mean") <= value(d, "latency_max")


def test_under_load_is_told_from_its_counts(fx):
    df = parse_file(TOOL, fx / "ul_tcp.txt")
    # "[Valid Duration] RunTime=1.500 sec; SentMessages=7501; ReceivedMessages=76": one reply
    # every 100 messages (75 x 100 + 1), so not a ping-pong
    assert set(df.p_test) == {"under-load"}
    assert value(df, "messages_sent", p_window="valid") == 7501
    assert value(df, "latency_mean") == pytest.approx(167.600 * US)  # "avg-latency=167.600"
    assert value(df, "latency_percentile", p_percentile=50.0) == pytest.approx(27.112 * US)
    udp = parse_file(TOOL, fx / "ul_udp.txt")
    assert set(udp.p_test) == {"under-load"} and set(udp.p_protocol) == {"UDP"}
    assert value(udp, "messages_received", p_window="valid") == 153  # "ReceivedMessages=153"


def test_full_rtt_and_burst(fx):
    df = parse_file(TOOL, fx / "pp_tcp_fullrtt.txt")
    # "====> avg-rtt=34.630 (std-dev=727.070)": --full-rtt, the whole round trip
    assert value(df, "latency_mean") == pytest.approx(34.630 * US)
    assert set(df[df.metric.str.startswith("latency")].p_round_trip) == {True}
    assert value(df, "latency_max") == pytest.approx(98471.694 * US)
    burst = parse_file(TOOL, fx / "pp_udp_burst.txt")
    # "Summary: Latency of burst of 4 messages is 34.200 usec"
    assert set(burst.p_burst) == {4}
    assert value(burst, "latency_mean") == pytest.approx(34.200 * US)
    assert "p_burst" not in parse_file(TOOL, fx / "pp_tcp.txt")


def test_throughput_bandwidth_is_binary_megabytes(fx):
    df = parse_file(TOOL, fx / "tp_tcp.txt")
    assert set(df.p_test) == {"throughput"} and set(df.p_protocol) == {"TCP"}
    # "Total of 693989 messages sent in 2.001 sec"
    assert value(df, "messages_sent") == 693989 and value(df, "elapsed_time") == 2.001
    # "Summary: Message Rate is 346844 [msg/sec]"; "Summary: BandWidth is 463.087 MBps (3704.694 Mbps)"
    assert value(df, "message_rate") == 346844
    assert value(df, "throughput") == pytest.approx(463.087 * MIB)
    # "NOTE: test was performed, using msg-size=1400. ..."; with MB = 1024**2 the rate times
    # the size is the printed bandwidth (with 10**6 it would be 4.6% off)
    assert set(df.p_message_size) == {1400} and "p_mps" not in df
    assert value(df, "message_rate") * 1400 == pytest.approx(value(df, "throughput"), rel=2e-6)
    udp = parse_file(TOOL, fx / "tp_udp.txt")
    # "NOTE: test was performed, using msg-size=1400, mps=100000. ..."; "BandWidth is 133.514 MBps"
    assert set(udp.p_mps) == {100000} and set(udp.p_protocol) == {"UDP"}
    assert value(udp, "throughput") == pytest.approx(133.514 * MIB)
    assert value(udp, "message_rate") * 1400 == pytest.approx(value(udp, "throughput"), rel=5e-6)


def test_throughput_packet_rate_and_giga_units(fx):
    df = parse_file(TOOL, fx / "tp_tcp_frags.txt")
    # "Summary: Message Rate is 213616 [msg/sec], Packet Rate is about 1281696 [pkt/sec] (6 ip frags / msg)"
    assert value(df, "packet_rate") == 1281696 and value(df, "message_rate") == 213616
    assert value(df, "throughput") == pytest.approx(1629.761 * MIB)  # "BandWidth is 1629.761 MBps"
    giga = parse_file(TOOL, fx / "tp_udp_giga.txt")
    # --giga-size: "BandWidth is 0.001 GBps (0.008 Gbps)" = MBps / 1000
    assert value(giga, "throughput") == pytest.approx(0.001 * 1000 * MIB)
    assert value(giga, "message_rate") * 14 / MIB / 1000 == pytest.approx(0.001, abs=5e-4)
    precise = parse_file(TOOL, fx / "tp_udp_precision.txt")
    # --increase_output_precision: "BandWidth is 1.485935211 GBps (11.887481689 Gbps)" is the
    # MBps figure (111294 msg/s x 14 B / 1024**2 = 1.485935211): sockperf 3.7 mislabels it
    assert value(precise, "throughput") == pytest.approx(111294 * 14, rel=1e-9)


def test_udp_throughput_without_a_server_still_reports_a_rate(fx):
    # UDP sends without knowing whether anything listens: sockperf reports what it sent
    df = parse_file(TOOL, fx / "tp_udp_noserver.txt")
    assert value(df, "message_rate") == 86763  # "Summary: Message Rate is 86763 [msg/sec]"


@pytest.mark.parametrize(("name", "line", "message"), [
    ("pp_tcp_refused.txt", 2, "sockperf: ERROR: Can`t connect socket (errno=111 Connection refused)"),
    ("tp_tcp_refused.txt", 2, "sockperf: ERROR: Can`t connect socket (errno=111 Connection refused)"),
    # line 7: "IP = 127.0.0.1       PORT = 15014 # TCP sockperf: ERROR: A connection was ..."
    ("pp_tcp_killed.txt", 7, "sockperf: ERROR: A connection was forcibly closed by a peer "
                             "(errno=0 Success)"),
    ("pp_udp_noserver.txt", 9, "No messages were received from the server. Is the server down?"),
    ("ul_udp_noserver.txt", 9, "No messages were received from the server. Is the server down?"),
    ("ul_udp_novalid.txt", 12, "No valid observations found. Try tune parameters: "
                               "--time/--mps/--reply-every"),
])
def test_failed_runs(fx, name, line, message):
    with pytest.raises(RunFailed) as err:
        parse_file(TOOL, fx / name, name=name)
    assert str(err.value) == f"{name}:{line}: the run did not finish: {message}"
    assert detect((fx / name).read_text()) == TOOL


def test_failed_run_from_the_command_line(fx):
    r = subprocess.run([sys.executable, "-m", "overhead.cli", "parse", "auto",
                        str(fx / "pp_tcp_refused.txt")], capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.strip().endswith("pp_tcp_refused.txt:2: the run did not finish: sockperf: "
                                     "ERROR: Can`t connect socket (errno=111 Connection refused)")


def test_a_failed_run_beside_a_complete_one_keeps_the_complete_one(fx):
    text = (fx / "pp_tcp_refused.txt").read_text() + (fx / "ul_tcp.txt").read_text()
    df = parse_text(TOOL, text, "two")
    assert set(df.trial) == {1} and set(df.p_test) == {"under-load"}
    assert df.source.iloc[0] == "two:11"  # the [Total Run] line of the second run (2 + 9)


def test_several_runs_in_one_file(fx):
    text = (fx / "pp_tcp.txt").read_text() + (fx / "tp_udp.txt").read_text()
    df = parse_text(TOOL, text, "two")
    assert df.groupby("trial").p_test.unique().map(list).to_dict() == {
        1: ["ping-pong"], 2: ["throughput"]}
    assert set(df[df.trial == 2].p_protocol) == {"UDP"} and "p_mps" in df
    assert df[df.trial == 1].p_mps.isna().all()  # the NOTE line is the second run's


def test_errors_name_the_wrong_line(fx):
    lines = (fx / "pp_tcp.txt").read_text().splitlines(keepends=True)
    with pytest.raises(ParseError, match=r"^b\.txt:21: percentile value: expected a number"):
        parse_text(TOOL, with_line(lines, 21, "sockperf: ---> percentile 90.000 =   x29.363\n"),
                   "b.txt")
    with pytest.raises(ParseError, match=r"^b\.txt:13: malformed sockperf line: '# dropped"):
        parse_text(TOOL, with_line(
            lines, 13, "sockperf: # dropped messages = 0; # duplicated messages = -1\n"), "b.txt")
    tp = (fx / "tp_tcp.txt").read_text().splitlines(keepends=True)
    with pytest.raises(ParseError, match=r"^b\.txt:12: malformed sockperf line: 'Summary: BandWidth"):
        parse_text(TOOL, with_line(
            tp, 12, "sockperf: Summary: BandWidth is 463.087 kBps (3704.694 Mbps)\n"), "b.txt")
    with pytest.raises(ParseError, match=r"^b\.txt:10: server number: '9+' is out of range"):
        parse_text(TOOL, with_line(lines, 10, "sockperf: ========= Printing statistics for Server "
                                              "No: 99999999999999999999\n"), "b.txt")
    with pytest.raises(ParseError, match=r"^n\.txt:1: no sockperf output found"):
        parse_text(TOOL, "hello\nworld\n", "n.txt")


def test_cut_off_outputs_are_failed_runs(fx):
    lines = (fx / "pp_tcp.txt").read_text().splitlines(keepends=True)
    # cut after the avg-latency line (12), before "# dropped messages" tells the mode
    with pytest.raises(RunFailed, match=r"^c\.txt: the run did not finish: sockperf printed no "
                       r"complete report"):
        parse_text(TOOL, "".join(lines[:12]), "c.txt")
    df = parse_text(TOOL, "".join(lines[:13]), "c.txt")  # up to "# dropped messages"
    assert set(df.p_test) == {"ping-pong"} and "latency_percentile" not in set(df.metric)
    with pytest.raises(RunFailed, match=r"^c\.txt: the run did not finish"):
        parse_text(TOOL, lines[0], "c.txt")  # the banner only


@pytest.mark.parametrize("name", RESULTS + FAILED)
def test_detect(fx, name):
    assert detect((fx / name).read_text()) == TOOL


@pytest.mark.parametrize("name", RESULTS)
def test_every_prefix(fx, name):
    check_all_prefixes(TOOL, (fx / name).read_text())


def test_random_bytes():
    hypothesis_random_bytes(TOOL)()
