"""STREAM parser on the authors' logs (values read off the files by hand)."""

from __future__ import annotations

import pytest

from overhead.parsers import ParseError, detect, parse_file, parse_text
from overhead.parsers._datestamp import sockets, started_at
from overhead.rc25482.files import HOST_NODES
from overhead.rc25482.published import published
from parser_contract import check_all_prefixes, hypothesis_random_bytes

RESULTS = "Stream/results"
ENVS = {"linux": "Native", "docker": "Docker", "vm": "KVM"}


def bandwidth(df):
    return df[df.metric == "bandwidth"]


def test_first_run_of_native_two_socket(ibm):
    df = parse_file("stream", ibm / RESULTS / "linux.two-socket.interleavedalloc.log")
    # line 25: "Copy:          41.2869       0.6440       0.6395       0.6686"
    copy = df[(df.trial == 1) & (df.p_kernel == "copy")].set_index("metric")
    assert copy.value.to_dict() == pytest.approx(
        {"bandwidth": 41.2869e9, "time_avg": 0.6440, "time_min": 0.6395, "time_max": 0.6686})
    assert set(copy.source) == {f"{ibm / RESULTS}/linux.two-socket.interleavedalloc.log:25"}
    assert copy.loc["bandwidth", "raw"] == "41.2869 GB/s" and copy.loc["bandwidth", "unit"] == "B/s"
    first = df[df.trial == 1].iloc[0]
    assert first.p_numa == "--physcpubind=0-31 --interleave=0,1" and first.p_sockets == 2
    assert first.p_threads == 32 and first.p_array_size == 1650163200
    assert first.p_bytes_per_word == 8 and first.p_ntimes == 10 and bool(first.p_validated)
    # "started at Sat Jul 12 10:14:38 CDT 2014" (the program's own "Generated on ... 15:14:38 GMT")
    assert first.started_at.isoformat() == "2014-07-12T15:14:38+00:00"


def test_gigabytes_are_decimal(ibm):
    # HPCC stream.c prints 1e-9 * bytes / min_time: Copy moves 2 arrays of 8-byte words.
    df = parse_file("stream", ibm / RESULTS / "linux.two-socket.interleavedalloc.log")
    copy = df[df.p_kernel == "copy"].pivot(index="trial", columns="metric", values="value")
    moved = 2 * 8 * 1650163200
    assert (moved / copy.time_min).to_numpy() == pytest.approx(copy.bandwidth.to_numpy(), rel=1e-3)


@pytest.mark.parametrize("mode, threads, sockets_", [
    ("two-socket.interleavedalloc", 32, 2), ("single-socket.localalloc", 16, None)])
@pytest.mark.parametrize("env", ENVS)
def test_counts_and_parameters(ibm, env, mode, threads, sockets_):
    df = parse_file("stream", ibm / RESULTS / f"{env}.{mode}.log")
    b = bandwidth(df)
    assert b.groupby("p_kernel").trial.nunique().to_dict() == {k: 10 for k in ("add", "copy", "scale", "triad")}
    assert len(df) == 10 * 4 * 4
    assert set(b.p_threads) == {threads} and b.p_validated.all()
    if env == "linux" and sockets_ is None:  # --physcpubind alone: the host's topology would tell
        assert set(b.p_numa) == {"--physcpubind=0-7,16-23 --localalloc"} and "p_sockets" not in df.columns
    elif env == "linux":  # only the native runs name numactl options
        assert set(b.p_sockets) == {sockets_}
    else:
        assert "p_numa" not in df.columns and "p_sockets" not in df.columns


def _mean_sd(df, kernel):
    v = bandwidth(df)[lambda d: d.p_kernel == kernel].value / 1e9
    return v.mean(), v.std(ddof=0)  # the authors' STREAM summaries use the population SD


@pytest.mark.parametrize("env", ENVS)
def test_two_socket_means_reproduce_table_one(ibm, env):
    pub = published()
    df = parse_file("stream", ibm / RESULTS / f"{env}.two-socket.interleavedalloc.log")
    for kernel in ("Copy", "Scale", "Add", "Triad"):
        row = pub[(pub.metric == f"Stream {kernel} (two-socket, 32 thr, interleaved)") & (pub.env == ENVS[env])]
        mean, sd = _mean_sd(df, kernel.lower())
        assert mean == pytest.approx(row.value.item(), abs=5.01e-5)
        assert sd == pytest.approx(row.err.item(), abs=5.01e-6)
    # the README's Table I, as printed: Native Copy 41.27 (0.06), Docker Add 45.62 (0.55),
    # KVM Triad 45.02 (0.20)
    printed = {"linux": ("copy", 41.27, 0.06), "docker": ("add", 45.62, 0.55), "vm": ("triad", 45.02, 0.20)}
    kernel, mean, sd = printed[env]
    got = _mean_sd(df, kernel)
    assert (round(got[0], 2), round(got[1], 2)) == (mean, sd)


@pytest.mark.parametrize("env", ENVS)
def test_single_socket_means_match_the_spreadsheet(ibm, env):
    pub = published()
    df = parse_file("stream", ibm / RESULTS / f"{env}.single-socket.localalloc.log")
    row = pub[(pub.metric == "Stream Triad (single socket, 16 thr, localalloc)") & (pub.env == ENVS[env])]
    mean, sd = _mean_sd(df, "triad")
    assert mean == pytest.approx(row.value.item(), abs=5.01e-5) and sd == pytest.approx(row.err.item(), abs=5.01e-6)


@pytest.mark.parametrize("env", ENVS)
def test_combined_log_is_two_socket_then_single_socket(ibm, env):
    """{env}.log holds exactly the two-socket file's 10 runs, then the single-socket file's 10."""
    cols = ["p_kernel", "metric", "value", "raw", "started_at", "p_threads"]
    whole = parse_file("stream", ibm / RESULTS / f"{env}.log")
    two = parse_file("stream", ibm / RESULTS / f"{env}.two-socket.interleavedalloc.log")
    one = parse_file("stream", ibm / RESULTS / f"{env}.single-socket.localalloc.log")
    assert whole.trial.max() == 20
    first, second = whole[whole.trial <= 10], whole[whole.trial > 10]
    assert first[cols].reset_index(drop=True).equals(two[cols].reset_index(drop=True))
    assert second[cols].reset_index(drop=True).equals(one[cols].reset_index(drop=True))
    assert (second.trial - 10).tolist() == one.trial.tolist()


def test_sockets_from_numactl_options():
    assert sockets("--physcpubind=0-31 --interleave=0,1") == 2
    assert sockets("--physcpubind=0-7,16-23 --localalloc", HOST_NODES) == 1
    assert sockets("--physcpubind=8-15,24-31 --localalloc", HOST_NODES) == 1
    assert sockets("--physcpubind=0-31 --localalloc", HOST_NODES) == 2
    assert sockets("--physcpubind=0-7,16-23 --localalloc") is None  # a CPU list needs the host's nodes
    assert sockets("--interleave=all") is None
    assert sockets("--physcpubind=0-63 --localalloc", HOST_NODES) is None  # not the authors' host
    assert sockets("") is None and sockets(None) is None


def test_dates():
    assert started_at("Sat Jul 12 10:14:38 CDT 2014").isoformat() == "2014-07-12T15:14:38+00:00"
    assert started_at("02 Jul 2014 11:17:45 CDT").isoformat() == "2014-07-02T16:17:45+00:00"
    assert started_at("Sat Jul 12 10:14:38 XYZ 2014") is None
    assert started_at("yesterday") is None


def test_detect(ibm):
    assert detect((ibm / RESULTS / "vm.log").read_text()) == "stream"


def test_not_stream_is_a_parse_error(ibm):
    # nothing in the file is STREAM output: no line is wrong, none is named
    with pytest.raises(ParseError, match=r"linux\.log: no STREAM output") as exc:
        parse_file("stream", ibm / "RandomAccess/results/linux.log")
    assert exc.value.line is None


@pytest.mark.parametrize(("lineno", "old", "new", "message"), [
    # :42 "Array size = 1650163200, Offset = 0" (the second run); a size too large for the 64-bit
    # parameter was reported at the first row that carried it, :60
    (42, "1650163200", "99999999999999999999", "array_size: '99999999999999999999' is out of range"),
    # :47 "Number of Threads requested = 32"
    (47, "32", "99999999999999999999", "threads: '99999999999999999999' is out of range"),
    # :62 "Add:           45.5677       0.8713       0.8691       0.8742"
    (62, "0.8691", "0.86.91", "Add min time: expected a number, found '0.86.91'"),
])
def test_bad_value_deep_in_a_log_names_its_line(ibm, lineno, old, new, message):
    lines = (ibm / RESULTS / "linux.log").read_text().splitlines(keepends=True)
    assert old in lines[lineno - 1]
    lines[lineno - 1] = lines[lineno - 1].replace(old, new)
    with pytest.raises(ParseError) as exc:
        parse_text("stream", "".join(lines), "s.log")
    assert str(exc.value) == f"s.log:{lineno}: {message}"


def test_malformed_kernel_line_names_the_line():
    text = ("Function      Rate (GB/s)   Avg time     Min time     Max time\n"
            "Copy:          41.2869       0.6440       0.6395       0.6686\n"
            "Scale:         4x.2835       0.6407       0.6395       0.6424\n")
    with pytest.raises(ParseError, match=r"^s\.log:3: Scale rate: expected a number"):
        parse_text("stream", text, "s.log")
    with pytest.raises(ParseError, match=r"^s\.log:3: malformed STREAM result line"):
        parse_text("stream", text.replace("4x.2835", "41.2835").replace("       0.6424", ""), "s.log")


@pytest.mark.parametrize("name", ["linux.two-socket.interleavedalloc.log", "docker.single-socket.localalloc.log"])
def test_every_prefix(ibm, name):
    check_all_prefixes("stream", (ibm / RESULTS / name).read_text(), limit=120)


def test_random_bytes():
    hypothesis_random_bytes("stream")()
