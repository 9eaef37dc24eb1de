"""nuttcp 6.1.2 client outputs made on this machine against a loopback server."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from conftest import free_ports, nuttcp_server

from overhead.parsers import ParseError, RunFailed, detect, parse_file, parse_text
from parser_contract import check_all_prefixes, hypothesis_random_bytes

TOOL = "nuttcp"
MB = 1024**2


@pytest.fixture(scope="module")
def fx(fixtures):
    return fixtures / "nuttcp"


def final(df, trial=1):
    sel = df[(df.trial == trial) & df.p_time.isna()] if "p_time" in df else df[df.trial == trial]
    return sel.set_index("metric").value.to_dict()


def test_brief_transmit(fx):
    df = parse_file(TOOL, fx / "tx.txt")
    # " 3566.7480 MB /   2.00 sec = 14952.3101 Mbps 43 %TX 33 %RX 0 retrans 0.04 msRTT"
    assert final(df) == pytest.approx({
        "transferred_bytes": 3566.7480 * MB, "real_time": 2.00, "goodput": 14952.3101e6 / 8,
        "cpu_tx": 43, "cpu_rx": 33, "retransmits": 0, "rtt": 0.04e-3})
    assert {s.rsplit("/", 1)[-1] for s in df.source} == {"tx.txt:1"} and set(df.trial) == {1}
    assert df.set_index("metric").raw["goodput"] == "14952.3101 Mbps"


@pytest.mark.parametrize("name", ["tx.txt", "rx.txt", "tx_parse.txt", "rx_parse.txt"])
def test_megabytes_are_binary(fx, name):
    # nuttcp's own rate agrees with MB = 1024**2 bytes (man nuttcp, -b): with 10**6-byte MB
    # the bytes would be 4.6% short of the printed Mbps; the residue is the rounding of "2.00 sec"
    v = final(parse_file(TOOL, fx / name))
    assert v["transferred_bytes"] / v["real_time"] == pytest.approx(v["goodput"], rel=0.005)


def test_parse_format_and_receive_direction(fx):
    df = parse_file(TOOL, fx / "tx_parse.txt")
    # "megabytes=6082.2669 real_seconds=2.00 rate_Mbps=25482.6033 tx_cpu=13 rx_cpu=86 retrans=0 rtt_ms=0.05"
    assert final(df) == pytest.approx({
        "transferred_bytes": 6082.2669 * MB, "real_time": 2.0, "goodput": 25482.6033e6 / 8,
        "cpu_tx": 13, "cpu_rx": 86, "retransmits": 0, "rtt": 0.05e-3})
    rx = final(parse_file(TOOL, fx / "rx_parse.txt"))
    assert "rtt" not in rx  # -r -fparse prints no rtt_ms
    assert rx["cpu_rx"] == 30 and rx["transferred_bytes"] == pytest.approx(4383.6875 * MB)


def test_intervals_sum_to_the_final_line(fx):
    df = parse_file(TOOL, fx / "tx_interval.txt")
    iv = df[df.p_time.notna()]
    mb = iv[iv.metric == "transferred_bytes"].set_index("p_time").value / MB
    # 2134.9375 + 2432.6250 + 2741.8125 MB in the three 1.00 sec intervals
    assert mb.to_dict() == pytest.approx({1.0: 2134.9375, 2.0: 2432.6250, 3.0: 2741.8125})
    assert mb.sum() == pytest.approx(final(df)["transferred_bytes"] / MB)  # " 7309.3750 MB"
    assert "cpu_tx" not in set(iv.metric)
    rt = parse_file(TOOL, fx / "tx_interval_runningtotal.txt")
    # "... Tot:  3884.6250 MB /   2.00 sec ..." on line 2: p_time from the running total
    second = rt[(rt.metric == "transferred_bytes") & (rt.p_time == 2.0)]
    assert second.source.iloc[0].endswith(":2")
    parse_rt = parse_file(TOOL, fx / "tx_interval_runningtotal_parse.txt")
    assert sorted(parse_rt.p_time.dropna().unique()) == [1.0, 2.0]
    assert len(parse_rt[(parse_rt.metric == "retransmits")]) == 3  # one per interval + final


def test_udp(fx):
    df = parse_file(TOOL, fx / "udp_interval.txt")
    # "   23.8438 MB /   2.00 sec =  100.1301 Mbps 99 %TX 0 %RX 0 / 3052 drop/pkt 0.00 %loss"
    v = final(df)
    assert v["dropped_packets"] == 0 and v["packets"] == 3052 and v["packet_loss"] == 0
    assert v["cpu_rx"] == 0
    iv = df[df.p_time == 1.0].set_index("metric").value  # "0 /  1529 ~drop/pkt  0.00 ~%loss"
    assert iv["packets"] == 1529
    p = final(parse_file(TOOL, fx / "udp_interval_parse.txt"))
    assert p["packets"] == 3052 and p["packet_loss"] == 0  # "drop=0 pkt=3052 data_loss=0.00000"


def test_verbose_sides(fx):
    for name in ("tx_verbose.txt", "tx_verbose_parse.txt"):
        df = parse_file(TOOL, fx / name)
        assert set(df.tool_version) == {"6.1.2"}  # "nuttcp-t: v6.1.2: socket"
        tx = df[df.p_side == "transmitter"].set_index("metric").value
        rx = df[df.p_side == "receiver"].set_index("metric").value
        assert tx["transferred_bytes"] == rx["transferred_bytes"]
        assert "cpu_tx" in tx and "cpu_rx" in rx and "retransmits" in tx
    v = parse_file(TOOL, fx / "tx_verbose.txt")
    tx = v[v.p_side == "transmitter"].set_index("metric")
    # "nuttcp-t: connect to 127.0.0.1 with mss=32741, RTT=0.026 ms"
    # "nuttcp-t: 0.0user 1.9sys 0:02real 97% 0i+0d 936maxrss 0+0pf 89+182csw"
    assert tx.value["rtt"] == pytest.approx(0.026e-3) and tx.value["cpu_tx"] == 97
    assert tx.source["cpu_tx"].endswith(":10")
    assert tx.value["goodput"] == pytest.approx(13208.7513e6 / 8)


def test_two_streams_have_no_retrans(fx):
    v = final(parse_file(TOOL, fx / "tx_2streams.txt"))
    assert "retransmits" not in v and v["cpu_tx"] == 97


def test_several_runs_in_one_file(fx):
    text = (fx / "tx.txt").read_text() + (fx / "tx_interval.txt").read_text()
    df = parse_text(TOOL, text, "two")
    assert sorted(df.trial.unique()) == [1, 2]
    assert len(df[(df.trial == 2) & (df.metric == "goodput")]) == 4  # 3 intervals + final


def test_errors(fx):
    # no server on the port: a failed run, named at nuttcp's own error line
    # (:3 "nuttcp-t: v6.1.2: Error: connect: Connection refused")
    with pytest.raises(RunFailed) as exc:
        parse_file(TOOL, fx / "refused.txt", name="refused.txt")
    assert str(exc.value) == ("refused.txt:3: the run did not finish: "
                              "nuttcp-t: v6.1.2: Error: connect: Connection refused")
    assert detect((fx / "refused.txt").read_text()) == TOOL
    with pytest.raises(ParseError, match=r"^b\.txt:1: "):
        parse_text(TOOL, " 3566.7480 MB /   2.00 sec = x Mbps 43 %TX 33 %RX\n", "b.txt")
    with pytest.raises(ParseError, match=r"^b\.txt:2: unexpected text in nuttcp line"):
        parse_text(TOOL, "\n 1.0 MB /   2.00 sec = 4.0 Mbps 43 %TX 33 %RX bogus\n", "b.txt")
    with pytest.raises(ParseError, match=r"^b\.txt:1: malformed nuttcp -fparse line"):
        parse_text(TOOL, "megabytes=1.0 rate_Mbps=3\n", "b.txt")
    with pytest.raises(ParseError, match=r"^n\.txt: no nuttcp result") as exc:
        parse_text(TOOL, "hello\n", "n.txt")
    assert type(exc.value) is ParseError and exc.value.line is None  # no line of it is wrong


@pytest.mark.parametrize(("name", "lineno", "old", "new", "message"), [
    # tx_interval.txt:3 " 2741.8125 MB /   1.00 sec = 23000.4503 Mbps     0 retrans"
    ("tx_interval.txt", 3, "23000.4503", "23000.45.3", "goodput: expected a number, found '23000.45.3'"),
    # tx_interval.txt:5, the final line: "... 69 %TX 33 %RX 0 retrans 0.03 msRTT"
    ("tx_interval.txt", 5, "0.03 msRTT", "0.0x msRTT", "rtt: expected a number, found '0.0x'"),
    # tx_verbose.txt:17 "nuttcp-r: 3149.3125 MB in 2.00 real seconds = ... = 13212.3119 Mbps"
    ("tx_verbose.txt", 17, "13212.3119", "1321x.3119", "goodput: expected a number, found '1321x.3119'"),
])
def test_bad_value_names_its_own_line(fx, name, lineno, old, new, message):
    lines = (fx / name).read_text().splitlines(keepends=True)
    assert old in lines[lineno - 1]
    lines[lineno - 1] = lines[lineno - 1].replace(old, new)
    with pytest.raises(ParseError) as exc:
        parse_text(TOOL, "".join(lines), "x.txt")
    assert str(exc.value) == f"x.txt:{lineno}: {message}"


def test_detect(fx):
    for name in ("tx.txt", "rx_parse.txt", "tx_verbose.txt"):
        assert detect((fx / name).read_text()) == TOOL


@pytest.mark.parametrize("name", [
    "tx.txt", "rx.txt", "tx_parse.txt", "rx_interval_parse.txt", "tx_interval.txt",
    "tx_interval_runningtotal.txt", "tx_interval_runningtotal_parse.txt", "udp_interval.txt",
    "udp_interval_parse.txt", "tx_2streams.txt", "tx_verbose.txt", "tx_verbose_parse.txt",
])
def test_every_prefix(fx, name):
    check_all_prefixes(TOOL, (fx / name).read_text())


def test_random_bytes():
    hypothesis_random_bytes(TOOL)()


@pytest.mark.tool
def test_live_nuttcp():
    if shutil.which("nuttcp") is None:
        pytest.skip("nuttcp is not installed")
    ctl, data = free_ports(2)
    with nuttcp_server(ctl):
        proc = subprocess.run(["nuttcp", f"-P{ctl}", f"-p{data}", "-T1", "-fparse", "127.0.0.1"],
                              capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    v = final(parse_text(TOOL, proc.stdout, "live"))
    assert v["goodput"] > 0 and v["real_time"] > 0
