"""iperf 3.12 client (and one server) outputs, text and -J JSON, made here on loopback."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from overhead.cli import app
from overhead.parsers import ParseError, RunFailed, cut_short_of, detect, parse_file, parse_text
from parser_contract import check_all_prefixes, hypothesis_random_bytes, parse_prefix, with_line

TOOL = "iperf3"
KB, MB, GB = 1024, 1024**2, 1024**3
GBIT = 1e9 / 8  # bytes/s per Gbit/s: iperf3's bit rates are 1000-based

GOOD = ["tcp.txt", "tcp.json", "reverse.txt", "reverse.json", "parallel2.txt", "parallel2.json",
        "udp.txt", "udp.json", "verbose.txt", "udp_reverse_verbose.txt", "udp_parallel2.txt",
        "bidir.txt", "bidir.json", "omit.txt", "server_tcp.txt", "interrupted.txt",
        "interrupted.json"]
FAILED = {
    # :1 the only line
    "refused.txt": "refused.txt:1: the run did not finish: iperf3: error - unable to connect to "
                   "server: Connection refused",
    # :10 '"error":	"unable to connect to server: Connection refused"' (exit status 0)
    "refused.json": "refused.json:10: the run did not finish: unable to connect to server: "
                    "Connection refused",
    # server killed 1.5 s into a 5 s run: two interval lines (the same one, printed twice),
    # then :7 "iperf3: error - unable to write to stream socket: Connection reset by peer"
    "killed.txt": "killed.txt:7: the run did not finish: iperf3: error - unable to write to "
                  "stream socket: Connection reset by peer; no summary, 2 interval lines before it",
    # :96 '"error":	"control socket has closed unexpectedly"' after two intervals, "end": {}
    "killed.json": "killed.json:96: the run did not finish: control socket has closed "
                   "unexpectedly; no summary, 2 intervals before it",
}


@pytest.fixture(scope="module")
def fx(fixtures):
    return fixtures / "iperf3"


def parsed(fx, name):
    return parse_file(TOOL, fx / name, name=name)


def summary(df, side, stream="5", **where):
    """metric -> value of the summary rows (no p_time) of one side and stream."""
    sel = df[df.p_time.isna() & (df.p_side == side) & (df.p_stream == stream)]
    for k, v in where.items():
        sel = sel[sel[k] == v]
    assert not sel.metric.duplicated().any()
    return sel.set_index("metric").value.to_dict()


def line_of(df, metric, **where):
    sel = df[df.metric == metric]
    for k, v in where.items():
        sel = sel[sel[k] == v] if v is not None else sel[sel[k].isna()]
    assert len(sel) == 1, (metric, where, len(sel))
    return int(sel.source.iloc[0].rsplit(":", 1)[1])


def test_tcp_text(fx):
    df = parsed(fx, "tcp.txt")
    # :8 "[  5]   0.00-2.00   sec  7.53 GBytes  32.3 Gbits/sec   19             sender"
    assert summary(df, "sender") == pytest.approx({
        "transferred_bytes": 7.53 * GB, "goodput": 32.3 * GBIT, "retransmits": 19})
    # :9 "[  5]   0.00-2.00   sec  7.52 GBytes  32.3 Gbits/sec                  receiver"
    assert summary(df, "receiver") == pytest.approx({"transferred_bytes": 7.52 * GB,
                                                     "goodput": 32.3 * GBIT})
    # :4 "[  5]   0.00-1.00   sec  4.41 GBytes  37.9 Gbits/sec   19    895 KBytes"
    first = df[df.p_time == 1.0].set_index("metric")
    assert first.value.to_dict() == pytest.approx({
        "transferred_bytes": 4.41 * GB, "goodput": 37.9 * GBIT, "retransmits": 19,
        "congestion_window": 895 * KB})
    assert set(first.source) == {"tcp.txt:4"} and set(first.p_side) == {"sender"}
    assert first.raw["congestion_window"] == "895 KBytes"
    assert set(df.p_direction) == {"tx"} and set(df.trial) == {1}
    assert "p_protocol" not in df or df.p_protocol.isna().all()  # plain text does not say TCP
    assert df.tool_version.isna().all()  # no banner without -V


@pytest.mark.parametrize("name", ["tcp.txt", "reverse.txt", "parallel2.txt", "verbose.txt"])
def test_transfer_is_binary_and_bitrate_decimal(fx, name):
    # "7.53 GBytes" over "0.00-2.00 sec" is "32.3 Gbits/sec" only with GBytes = 1024**3 bytes
    # and Gbits = 10**9 bits (with 10**9-byte GBytes the rate would be 7% short)
    df = parsed(fx, name)
    for side in ("sender", "receiver"):
        v = summary(df, side)
        assert v["transferred_bytes"] / 2.0 == pytest.approx(v["goodput"], rel=0.01)


@pytest.mark.parametrize("name", ["tcp.json", "reverse.json", "parallel2.json", "udp.json"])
def test_json_bytes_over_seconds_is_its_bitrate(fx, name):
    doc = json.loads((fx / name).read_text())
    df = parsed(fx, name)
    total = df[df.p_time.isna() & (df.p_side == "sender")
               & (df.p_stream == ("SUM" if name.startswith("parallel") else "5"))]
    v = total.set_index("metric").value
    seconds = doc["end"]["sum_sent"]["seconds"]
    assert v["goodput"] == pytest.approx(v["transferred_bytes"] / seconds, rel=1e-9)


def test_tcp_json(fx):
    df = parsed(fx, "tcp.json")
    assert set(df.tool_version) == {"3.12"}  # :10 '"version":	"iperf 3.12"'
    assert set(df.p_protocol) == {"TCP"} and set(df.p_direction) == {"tx"}
    # end.streams[0].sender: :101 "bytes": 5696389120, :102 "bits_per_second":
    # 22783038954.195564, :103 "retransmits": 1, :106-108 max/min/mean_rtt 55/31/43 (usec)
    assert summary(df, "sender") == pytest.approx({
        "transferred_bytes": 5696389120, "goodput": 22783038954.195564 / 8, "retransmits": 1,
        "rtt_max": 55e-6, "rtt_min": 31e-6, "rtt_mean": 43e-6})
    assert line_of(df, "transferred_bytes", p_side="sender", p_time=None) == 101
    assert line_of(df, "rtt_mean", p_side="sender") == 108
    # end.streams[0].receiver :116-117; the sums repeat the one stream and give no rows
    assert summary(df, "receiver") == pytest.approx({"transferred_bytes": 5696389120,
                                                     "goodput": 22782241663.837914 / 8})
    assert "SUM" not in set(df.p_stream.dropna())
    # intervals[0].streams[0]: :43 "end": 1.000045, :45 "bytes": 2482503680, :50 "rtt": 55
    iv = df[df.p_time == 1.000045].set_index("metric")
    assert iv.value["transferred_bytes"] == 2482503680 and iv.value["rtt"] == pytest.approx(55e-6)
    assert iv.source["transferred_bytes"] == "tcp.json:45" and iv.source["rtt"] == "tcp.json:50"
    assert iv.value["congestion_window"] == 916762  # :48 "snd_cwnd": 916762
    # :139 "host_total": 34.955879673197558, :142 "remote_total": 67.543380775979728
    cpu = df[df.metric.str.startswith("cpu_")].set_index("metric")
    assert cpu.value["cpu_util_local"] == pytest.approx(34.955879673197558)
    assert cpu.value["cpu_util_remote"] == pytest.approx(67.543380775979728)
    assert cpu.source["cpu_util_local"] == "tcp.json:139" and len(cpu) == 6


def test_reverse(fx):
    txt, js = parsed(fx, "reverse.txt"), parsed(fx, "reverse.json")
    for df in (txt, js):
        assert set(df.p_direction) == {"rx"}  # "Reverse mode, remote host 127.0.0.1 is sending"
        # the client receives: its intervals are the receiver's, with no Retr or Cwnd
        iv = df[df.p_time.notna()]
        assert set(iv.p_side) == {"receiver"}
        assert set(iv.metric) == {"transferred_bytes", "goodput"}
    # :9 "[  5]   0.00-2.00   sec  6.81 GBytes  29.3 Gbits/sec    8             sender"
    assert summary(txt, "sender")["retransmits"] == 8
    # :89 "retransmits": 8 (the server's); :90-95 max_snd_cwnd ... mean_rtt all 0: the client
    # did not send, so it measured no RTT: no rtt rows
    assert summary(js, "sender")["retransmits"] == 8
    assert not js.metric.str.startswith("rtt").any()


def test_parallel_streams_and_sums(fx):
    txt = parsed(fx, "parallel2.txt")
    assert set(txt.p_stream) == {"5", "7", "SUM"}
    # :14 "[  5] ... 12 sender", :16 "[  7] ... 4 sender", :18 "[SUM] ... 6.73 GBytes  28.9
    # Gbits/sec   16             sender"
    assert summary(txt, "sender", "SUM") == pytest.approx({
        "transferred_bytes": 6.73 * GB, "goodput": 28.9 * GBIT, "retransmits": 16})
    assert summary(txt, "sender", "5")["retransmits"] + summary(txt, "sender", "7")["retransmits"] == 16
    assert line_of(txt, "retransmits", p_stream="SUM", p_time=None) == 18
    # interval sums: :7 "[SUM]   0.00-1.00   sec  3.37 GBytes  29.0 Gbits/sec   14" = 12 + 2
    iv = txt[(txt.p_time == 1.0) & (txt.metric == "retransmits")].set_index("p_stream").value
    assert iv.to_dict() == {"5": 12, "7": 2, "SUM": 14}
    js = parsed(fx, "parallel2.json")
    s5, s7, tot = (summary(js, "receiver", s) for s in ("5", "7", "SUM"))
    # 3026452480 + 2989752320 = :198 "bytes": 6016204800 (sum_received)
    assert s5["transferred_bytes"] + s7["transferred_bytes"] == tot["transferred_bytes"] == 6016204800
    assert summary(js, "sender", "SUM")["retransmits"] == 26  # :191, = 11 + 15
    # the interval sums are rows too (p_stream SUM), and add up the streams
    iv = js[(js.p_time.notna()) & (js.metric == "transferred_bytes")]
    for _, group in iv.groupby(iv.p_time.round(1)):  # the streams end a few usec apart
        per = group.set_index("p_stream").value
        assert per["5"] + per["7"] == per["SUM"]


def test_udp_text(fx):
    df = parsed(fx, "udp.txt")
    assert set(df.p_protocol) == {"UDP"}
    # :9 "[  5]   0.00-2.00   sec  23.8 MBytes   100 Mbits/sec  0.017 ms  0/763 (0%)  receiver"
    assert summary(df, "receiver") == pytest.approx({
        "transferred_bytes": 23.8 * MB, "goodput": 100e6 / 8, "jitter": 0.017e-3,
        "dropped_packets": 0, "packets": 763, "packet_loss": 0})
    # :8 "... 0.000 ms  0/763 (0%)  sender": iperf3's placeholders for what a sender cannot
    # measure; only its datagram count is a row
    assert summary(df, "sender") == pytest.approx({
        "transferred_bytes": 23.8 * MB, "goodput": 100e6 / 8, "packets": 763})
    # :4 "[  5]   0.00-1.00   sec  11.9 MBytes   100 Mbits/sec  382" (Total Datagrams)
    assert df[(df.p_time == 1.0) & (df.metric == "packets")].value.tolist() == [382]


def test_udp_json(fx):
    df = parsed(fx, "udp.json")
    # end.streams[0].udp: :92 "jitter_ms": 0.00613503301768314, :93 "lost_packets": 10,
    # :95 "lost_percent": 1.3106159895150722 (the receiver's), :94 "packets": 763 (sent)
    rx = summary(df, "receiver")
    assert rx["jitter"] == pytest.approx(0.00613503301768314e-3)
    assert rx["dropped_packets"] == 10 and rx["packet_loss"] == pytest.approx(1.3106159895150722)
    # sum_received, the one stream's: :128 "bytes": 24674304 (received) and :132 "packets": 763
    assert rx["transferred_bytes"] == 24674304 and rx["packets"] == 763
    assert line_of(df, "transferred_bytes", p_side="receiver", p_time=None) == 128
    # sum_sent writes "jitter_ms": 0, "lost_packets": 0: placeholders, no rows
    tx = summary(df, "sender")
    assert set(tx) == {"transferred_bytes", "goodput", "packets"} and tx["transferred_bytes"] == 25001984
    assert not ((df.metric == "jitter") & (df.p_side == "sender")).any()


def test_udp_parallel_losses(fx):
    df = parsed(fx, "udp_parallel2.txt")
    # :15 "[  5] ... 9.66 MBytes  40.5 Mbits/sec  0.080 ms  73/382 (19%)  receiver",
    # :17 "[  7] ... 74/382 (19%)", :19 "[SUM] ... 19.3 MBytes  80.9 Mbits/sec  0.079 ms
    # 147/764 (19%)  receiver"
    lost = {s: summary(df, "receiver", s)["dropped_packets"] for s in ("5", "7", "SUM")}
    assert lost == {"5": 73, "7": 74, "SUM": 147}
    assert summary(df, "receiver", "SUM")["packet_loss"] == 19
    assert summary(df, "receiver", "SUM")["jitter"] == pytest.approx(0.079e-3)
    assert line_of(df, "dropped_packets", p_stream="SUM") == 19


def test_udp_reverse_verbose(fx):
    df = parsed(fx, "udp_reverse_verbose.txt")
    assert set(df.tool_version) == {"3.12"}  # :1 "iperf 3.12"
    assert set(df.p_protocol) == {"UDP"}  # :11 "Starting Test: protocol: UDP, 1 streams, ..."
    # :13 "[  5]   0.00-1.00   sec  11.9 MBytes   100 Mbits/sec  0.039 ms  0/382 (0%)": the
    # client receives, so its intervals carry jitter and loss
    iv = df[df.p_time == 1.0].set_index("metric")
    assert set(iv.p_side) == {"receiver"} and set(iv.p_direction) == {"rx"}
    assert iv.value["jitter"] == pytest.approx(0.039e-3) and iv.value["packets"] == 382
    assert not df.metric.str.startswith("cpu").any()  # iperf 3.12 -R -V prints no CPU line


def test_verbose_cpu(fx):
    df = parsed(fx, "verbose.txt")
    assert set(df.tool_version) == {"3.12"} and set(df.p_protocol) == {"TCP"}
    # :18 "CPU Utilization: local/sender 43.7% (0.4%u/43.3%s), remote/receiver 37.6% (0.8%u/36.8%s)"
    cpu = df[df.metric.str.startswith("cpu_")].set_index("metric")
    assert cpu.value.to_dict() == pytest.approx({
        "cpu_util_local": 43.7, "cpu_util_local_user": 0.4, "cpu_util_local_system": 43.3,
        "cpu_util_remote": 37.6, "cpu_util_remote_user": 0.8, "cpu_util_remote_system": 36.8})
    assert set(cpu.source) == {"verbose.txt:18"} and cpu.raw["cpu_util_remote"] == "37.6%"


def test_bidir(fx):
    for name in ("bidir.txt", "bidir.json"):
        df = parsed(fx, name)
        # "[  5][TX-C]" the client sends on 5, "[  7][RX-C]" it receives on 7
        assert set(df[df.p_stream == "5"].p_direction) == {"tx"}
        assert set(df[df.p_stream == "7"].p_direction) == {"rx"}
        iv = df[df.p_time.notna()]
        assert set(iv[iv.p_stream == "5"].p_side) == {"sender"}
        assert set(iv[iv.p_stream == "7"].p_side) == {"receiver"}
        assert "SUM" not in set(df.p_stream.dropna())
    txt = parsed(fx, "bidir.txt")
    # :13 "[  7][RX-C]   0.00-2.00   sec   701 MBytes  2.94 Gbits/sec    1             sender"
    assert summary(txt, "sender", "7") == pytest.approx({
        "transferred_bytes": 701 * MB, "goodput": 2.94 * GBIT, "retransmits": 1})
    js = parsed(fx, "bidir.json")
    assert not js[(js.p_stream == "7") & js.metric.str.startswith("rtt")].shape[0]  # server sent


def test_omitted_intervals_are_warmup(fx):
    df = parsed(fx, "omit.txt")
    # :4 "[  5]   0.00-1.00   sec  5.40 GBytes  46.4 Gbits/sec   18    895 KBytes       (omitted)"
    warm = df[df.warmup.fillna(False).astype(bool)]
    assert set(warm.source) == {"omit.txt:4"} and len(warm) == 4
    assert warm.set_index("metric").value["transferred_bytes"] == pytest.approx(5.40 * GB)
    # :5 the first measured second, also "0.00-1.00"
    assert df[df.source == "omit.txt:5"].warmup.isna().all()


def test_server_output(fx):
    df = parsed(fx, "server_tcp.txt")
    # :12 "[  5]   0.00-2.00   sec  10.3 GBytes  44.1 Gbits/sec                  receiver"
    assert summary(df, "receiver") == pytest.approx({"transferred_bytes": 10.3 * GB,
                                                     "goodput": 44.1 * GBIT})
    assert set(df[df.p_time.isna()].p_direction) == {"tx"}  # the server received
    assert set(df.p_time.dropna()) == {1.0, 2.0}  # :9 "2.00-2.00 sec  2.13 MBytes  25.3 Gbits/sec"


@pytest.mark.parametrize("pair", [("tcp.txt", "tcp.json"), ("reverse.txt", "reverse.json"),
                                  ("parallel2.txt", "parallel2.json"), ("udp.txt", "udp.json"),
                                  ("bidir.txt", "bidir.json")])
def test_text_and_json_give_the_same_rows(fx, pair):
    """The same kind of run as text and as JSON: the same metrics, sides and streams, apart
    from what only the JSON holds (RTT, CPU without -V, UDP out-of-order count)."""
    json_only = {"rtt", "rtt_min", "rtt_mean", "rtt_max", "out_of_order_packets"}
    txt, js = (parsed(fx, n) for n in pair)
    js = js[~js.metric.isin(json_only) & ~js.metric.str.startswith("cpu_")]

    def shape(df, intervals):
        sel = df[df.p_time.notna() == intervals]
        return set(zip(sel.metric, sel.p_side, sel.p_stream, sel.p_direction, strict=True))

    assert shape(txt, False) == shape(js, False)
    assert shape(txt, True) == shape(js, True)
    cpu = parsed(fx, "verbose.txt")
    assert set(cpu[cpu.metric.str.startswith("cpu_")].metric) == set(
        parsed(fx, "tcp.json").metric[lambda m: m.str.startswith("cpu_")])


@pytest.mark.parametrize("name", GOOD)
def test_every_value_is_on_its_source_line(fx, name):
    lines = (fx / name).read_text().splitlines()
    df = parsed(fx, name)
    for src, raw in zip(df.source, df.raw, strict=True):
        assert raw in lines[int(src.rsplit(":", 1)[1]) - 1], (src, raw)


def test_several_runs_in_one_file(fx):
    text = (fx / "tcp.txt").read_text() + (fx / "reverse.txt").read_text()
    df = parse_text(TOOL, text, "two")
    assert sorted(df.trial.unique()) == [1, 2]
    assert set(df[df.trial == 2].p_direction) == {"rx"} and set(df[df.trial == 1].p_direction) == {"tx"}
    js = (fx / "tcp.json").read_text() + "\n" + (fx / "udp.json").read_text()
    df = parse_text(TOOL, js, "two.json")
    assert set(df[df.trial == 1].p_protocol) == {"TCP"} and set(df[df.trial == 2].p_protocol) == {"UDP"}
    n = len((fx / "tcp.json").read_text().splitlines())
    # udp.json's :90 "bytes": 25001984 is line n + 1 + 90 of the two
    assert f"two.json:{n + 1 + 90}" in set(df[(df.trial == 2) & (df.value == 25001984)].source)


@pytest.mark.parametrize("name", FAILED)
def test_failed_runs(fx, name):
    text = (fx / name).read_text()
    assert detect(text) == TOOL
    with pytest.raises(RunFailed) as exc:
        parsed(fx, name)
    assert str(exc.value) == FAILED[name]
    assert "error" in text.splitlines()[exc.value.line - 1]


def test_failed_run_through_the_cli(fx):
    result = CliRunner().invoke(app, ["parse", "auto", str(fx / "killed.txt")])
    assert result.exit_code == 2
    assert ("killed.txt:7: the run did not finish: iperf3: error - unable to write to stream "
            "socket: Connection reset by peer") in result.output


@pytest.mark.parametrize("name,line,sender,seconds,extra", [
    # :1 "iperf3: interrupt - the client has terminated" (stderr, first), :9 "[  5]   0.00-1.64
    # sec  3.21 GBytes  16.8 Gbits/sec    3             sender", :10 "... 0.00 Bytes  0.00
    # bits/sec                  receiver"
    ("interrupted.txt", 1, 3.21 * GB, 1.64, ""),
    # :101 "bytes": 4501667904 over :100 "seconds": 1.604375; :116 "bytes": 0 (receiver);
    # :142 "remote_total": 0; :148 '"error":	"interrupt - the client has terminated"'
    ("interrupted.json", 148, 4501667904, 1.604375, " and the remote CPU"),
])
def test_an_interrupted_client_keeps_its_summary_and_says_it_was_cut_short(
        fx, name, line, sender, seconds, extra):
    df = parsed(fx, name)
    error = "iperf3: interrupt" if name.endswith(".txt") else "interrupt"
    assert cut_short_of(df) == (
        f"{name}:{line}: the run was cut short: {error} - the client has terminated; after a "
        f"summary, which is kept; the receiver summary{extra} never came from the server "
        "(iperf3 prints 0): left out")
    s = summary(df, "sender")
    assert s["transferred_bytes"] == pytest.approx(sender)
    assert s["goodput"] == pytest.approx(sender / seconds, rel=0.01)  # 16.8 Gbit/s in the text
    # the zeros the server never sent are not measurements: no receiver summary, no remote CPU
    summ = df[df.p_time.isna()]
    assert "receiver" not in set(summ.p_side.dropna())
    assert not df.metric.str.startswith("cpu_util_remote").any()
    # the intervals are all kept ("0.00-1.00" and "1.00-1.64" / "1.604375")
    assert df.p_time.dropna().nunique() == 2
    for finished in ("tcp.txt", "tcp.json", "udp.json"):
        assert cut_short_of(parsed(fx, finished)) is None


def test_an_interrupted_client_through_the_cli(fx):
    result = CliRunner().invoke(app, ["parse", "auto", str(fx / "interrupted.json")])
    assert result.exit_code == 0
    assert "interrupted.json:148: the run was cut short: interrupt - the client has terminated" \
        in result.stderr
    assert "goodput" in result.stdout


def test_a_cut_run_keeps_its_intervals(fx):
    # killed.txt up to :6, before the error: a report cut short, not a failure it shows
    df = parse_prefix(TOOL, (fx / "killed.txt").read_text(), 6)
    # :4 "[  5]   0.00-1.01   sec  1.19 GBytes  10.2 Gbits/sec    5   4.25 MBytes"
    assert set(df.p_time) == {1.01} and df[df.source == "prefix:4"].shape[0] == 4
    # the header alone: no result (the parsers' backstop says so)
    with pytest.raises(RunFailed, match=r"^h: the run did not finish: no iperf3 result"):
        parse_text(TOOL, "Connecting to host 127.0.0.1, port 45201\n", "h")


def test_errors_name_the_line(fx):
    lines = (fx / "tcp.txt").read_text().splitlines(keepends=True)
    with pytest.raises(ParseError, match=r"^b:8: bitrate: expected a number, found 'x'$"):
        parse_text(TOOL, with_line(lines, 8, "[  5]   0.00-2.00   sec  7.53 GBytes  x Gbits/sec   19  sender\n"), "b")
    with pytest.raises(ParseError, match=r"^b:8: transfer: unknown unit 'QBytes'$"):
        parse_text(TOOL, with_line(lines, 8, "[  5]   0.00-2.00   sec  7.53 QBytes  32.3 Gbits/sec   19  sender\n"), "b")
    with pytest.raises(ParseError, match=r"^b:9: unexpected text in iperf3 report line: '7 bogus'$"):
        parse_text(TOOL, with_line(lines, 9, "[  5]   0.00-2.00   sec  7.52 GBytes  32.3 Gbits/sec   7 bogus  receiver\n"), "b")
    with pytest.raises(ParseError, match=r"^b:5: malformed iperf3 report line"):
        parse_text(TOOL, with_line(lines, 5, "[  5]   1.00-2.00   sec  lots\n"), "b")
    with pytest.raises(ParseError, match=r"^n: no iperf3 output found"):
        parse_text(TOOL, "hello\nworld\n", "n")
    js = (fx / "tcp.json").read_text().splitlines(keepends=True)
    # :101 "bytes": 5696389120
    with pytest.raises(ParseError, match=r"^j:101: end\.streams\[0\]\.sender\.bytes: expected a number"):
        parse_text(TOOL, with_line(js, 101, js[100].replace("5696389120", '"many"')), "j")
    cut = "".join((fx / "tcp.json").read_text().splitlines(keepends=True)[:60])
    with pytest.raises(ParseError, match=r"^j:\d+: malformed or truncated JSON"):
        parse_text(TOOL, cut, "j")


def test_detect(fx):
    for name in [*GOOD, *FAILED]:
        assert detect((fx / name).read_text()) == TOOL, name


@pytest.mark.parametrize("name", GOOD)
def test_every_prefix(fx, name):
    check_all_prefixes(TOOL, (fx / name).read_text())


def test_random_bytes():
    hypothesis_random_bytes(TOOL)()
