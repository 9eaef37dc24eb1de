"""Intel LINPACK parser on the authors' logs (values read off the files by hand)."""

from __future__ import annotations

import pytest

from overhead.parsers import ParseError, parse_file, parse_text
from parser_contract import check_all_prefixes, hypothesis_random_bytes, with_line


def flops(df):
    return df[df.metric == "flop_rate"]


def test_two_socket_native_block(ibm):
    df = parse_file("linpack", ibm / "linpack/results/linux.two-socket.interleavedalloc.log")
    f = flops(df)
    assert len(f) == 10
    # first trial line: "45000  45000  1      208.417    291.5018 1.876477e-09 3.301464e-02   pass"
    first = df[df.source.str.endswith(":28")]
    assert first.set_index("metric")["value"].to_dict() == pytest.approx(
        {"flop_rate": 291.5018e9, "solve_time": 208.417, "residual": 1.876477e-09,
         "residual_norm": 3.301464e-02})
    # the file's own "Performance Summary": Average 290.8286, Maximal 292.3367
    assert f.value.mean() / 1e9 == pytest.approx(290.8286, abs=5e-5)
    assert f.value.max() / 1e9 == pytest.approx(292.3367)
    assert set(f.p_numa) == {"--physcpubind=0-31 --interleave=0,1"}
    assert f.p_problem_size.iloc[0] == 45000 and f.p_threads.iloc[0] == 32
    assert f.p_cpu_ghz.iloc[0] == pytest.approx(3.098)
    assert f.unit.unique().tolist() == ["FLOP/s"]
    assert f.started_at.iloc[0].isoformat() == "2014-07-18T03:17:38+00:00"  # 22:17:38 CDT


def test_vm_log_blocks_and_aborted_block(ibm):
    f = flops(parse_file("linpack", ibm / "linpack/results/vm.log"))
    per_block = f.groupby("p_block").agg(n=("value", "size"), done=("p_block_complete", "first"))
    # block 1: a one-trial run (132.2345); block 2: ten untuned trials, summary average 130.2833;
    # block 6 (line 147): six trials, then the file moves on without a summary -> aborted;
    # block 7: the last ten trials (tuned), summary average 284.1987.
    assert per_block.n.to_dict() == {1: 1, 2: 10, 6: 6, 7: 10}
    assert per_block.done.to_dict() == {1: True, 2: True, 6: False, 7: True}
    assert f[f.p_block == 2].value.mean() / 1e9 == pytest.approx(130.2833, abs=5e-5)
    assert f[f.p_block == 7].value.mean() / 1e9 == pytest.approx(284.1987, abs=5e-5)
    assert f[f.p_block == 2].value.min() / 1e9 == pytest.approx(108.7559)  # the outlier trial
    assert f[f.p_block == 7].p_cpus.iloc[0] == 2  # tuned VM exposes two sockets


def test_performance_summary_average_and_maximum(ibm):
    df = parse_file("linpack", ibm / "linpack/results/linux.two-socket.interleavedalloc.log")
    # line 41 "Size   LDA    Align.  Average  Maximal", line 42 "45000  45000  1       290.8286 292.3367"
    summ = df[df.metric.isin(["flop_rate_mean", "flop_rate_max"])]
    assert summ.set_index("metric").value.to_dict() == {"flop_rate_mean": 290.8286e9,
                                                        "flop_rate_max": 292.3367e9}
    assert set(summ.source.str.rsplit(":", n=1).str[1]) == {"42"}
    assert (summ.p_problem_size == 45000).all() and (summ.p_lda == 45000).all() and (summ.p_align == 1).all()
    assert summ.trial.isna().all() and summ.p_check.isna().all() and summ.p_block_complete.all()
    assert set(summ.unit) == {"FLOP/s"} and summ.raw.tolist() == [
        "290.8286 GFlops (Average)", "292.3367 GFlops (Maximal)"]
    # LINPACK's own average and maximum agree with the ten trials above them
    f = flops(df)
    assert summ.set_index("metric").value["flop_rate_mean"] == pytest.approx(f.value.mean(), abs=5e4)
    assert summ.set_index("metric").value["flop_rate_max"] == f.value.max()


def test_performance_summary_per_block(ibm):
    df = parse_file("linpack", ibm / "linpack/results/vm.log")
    mean = df[df.metric == "flop_rate_mean"].set_index("p_block").value / 1e9
    # lines 33, 82, 220: "132.2345 132.2345", "130.2833 132.9015", "284.1987 286.1081";
    # block 6 (line 147) was aborted before its summary: no row
    assert mean.to_dict() == {1: 132.2345, 2: 130.2833, 7: 284.1987}
    top = df[df.metric == "flop_rate_max"].set_index("p_block").value / 1e9
    assert top.to_dict() == {1: 132.2345, 2: 132.9015, 7: 286.1081}
    assert df[df.metric == "flop_rate_mean"].source.str.rsplit(":", n=1).str[1].tolist() == ["33", "82", "220"]


def test_malformed_summary_and_header_lines_name_their_line(ibm):
    lines = (ibm / "linpack/results/vm.log").read_text().splitlines(keepends=True)
    # line 82 without its Maximal
    with pytest.raises(ParseError, match=r"^v\.log:82: malformed LINPACK performance summary line"):
        parse_text("linpack", with_line(lines, 82, "45000  45000  1       130.2833\n"), "v.log")
    # a letter O for a zero
    with pytest.raises(ParseError, match=r"^v\.log:82: Average GFlops: expected a number"):
        parse_text("linpack", with_line(lines, 82, "45000  45000  1       13O.2833 132.9015\n"), "v.log")
    # line 20 "Number of trials to run                     : 1" cut before its colon
    # (an IndexError before: the header reader assumed the colon)
    with pytest.raises(ParseError, match=r"^v\.log:20: Number of trials to run has no value"):
        parse_text("linpack", with_line(lines, 20, "Number of trials to run      \n"), "v.log")


def test_not_linpack_is_a_parse_error(ibm):
    with pytest.raises(ParseError) as err:
        parse_file("linpack", ibm / "Stream/results/linux.log")
    assert "linux.log:1:" in str(err.value)


def test_malformed_trial_line_names_the_line():
    text = ("Intel(R) Optimized LINPACK Benchmark data\n"
            "Size   LDA    Align. Time(s)    GFlops   Residual     Residual(norm) Check\n"
            "45000  45000  1      208.417    2x1.5018 1.876477e-09 3.301464e-02   pass\n")
    with pytest.raises(ParseError, match=r"^x\.log:3: malformed"):
        parse_text("linpack", text, "x.log")


@pytest.mark.parametrize("name", ["vm.log", "docker.log", "linux.two-socket.interleavedalloc.log"])
def test_every_prefix(ibm, name):
    check_all_prefixes("linpack", (ibm / "linpack/results" / name).read_text())


def test_random_bytes():
    hypothesis_random_bytes("linpack")()
