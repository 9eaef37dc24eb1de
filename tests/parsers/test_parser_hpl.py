"""HPL (xhpl) outputs from public repositories: HPL 2.1, 2.2 and 2.3 (see fixtures/hpl/README.md).

Values are read off the files by hand (the line is quoted in a comment).
"""

from __future__ import annotations

import pytest

from overhead.parsers import ParseError, RunFailed, detect, parse_file, parse_text, read_text
from overhead.parsers import hpcc as hpcc_parser
from overhead.parsers import hpl as hpl_parser
from parser_contract import check_all_prefixes, hypothesis_random_bytes, with_line

TOOL = "hpl"
FILES = ["hpl21_asc_report.out", "hpl22_lbnl_progress_timing.out", "hpl23_three_tests_interrupted.out"]


@pytest.fixture(scope="module")
def fx(fixtures):
    return fixtures / "hpl"


def by_metric(df):
    return df.set_index("metric").value.to_dict()


def test_hpl21_one_test(fx):
    df = parse_file(TOOL, fx / "hpl21_asc_report.out")
    # line 47 "WC23C2C4       35000   256     1     1              16.66            1.71587e+03"
    # line 53 "||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)=        0.0041314 ...... PASSED"
    assert by_metric(df) == pytest.approx({"flop_rate": 1.71587e12, "solve_time": 16.66,
                                           "residual": 0.0041314})
    row = df.iloc[0]
    assert (row.p_n, row.p_nb, row.p_p, row.p_q) == (35000, 256, 1, 1)
    assert (row.p_variant, row.p_check, row.tool_version, row.trial) == ("WC23C2C4", "PASSED", "2.1", 1)
    assert row.unit == "FLOP/s" and row.raw == "1.71587e+03 Gflops"
    assert [s.rsplit(":", 1)[1] for s in df.source] == ["47", "47", "53"]
    assert set(df.benchmark) == {"hpl"} and set(df.tool) == {"hpl"}


def test_hpl22_progress_and_detailed_timing_are_not_results(fx):
    df = parse_file(TOOL, fx / "hpl22_lbnl_progress_timing.out")
    # 436 "Column=... Fraction=... Gflops=3.770e+02" progress lines and a --VVV-- timing block:
    # only the result line 483 "WR00C2R4       83904   192     2     4            2310.54              1.704e+02"
    assert by_metric(df) == pytest.approx({"flop_rate": 170.4e9, "solve_time": 2310.54,
                                           "residual": 0.0015945})  # line 496
    assert {s.rsplit(":", 1)[1] for s in df.source} == {"483", "496"}
    assert set(df.tool_version) == {"2.2"} and set(df.p_check) == {"PASSED"}
    assert (df.p_p.iloc[0], df.p_q.iloc[0]) == (2, 4)


def test_hpl23_complete_tests_kept_when_mpiexec_interrupts(fx):
    df = parse_file(TOOL, fx / "hpl23_three_tests_interrupted.out")
    flops = df[df.metric == "flop_rate"]
    # lines 47, 57, 67: "WR00L2L2 ... 4.6178e-06", "WR00L2L4 ... 4.4728e-06", "WR00L2C2 ... 3.9376e-06"
    assert dict(zip(flops.p_variant, flops.value, strict=True)) == pytest.approx(
        {"WR00L2L2": 4.6178e3, "WR00L2L4": 4.4728e3, "WR00L2C2": 3.9376e3})
    assert df[df.metric == "solve_time"].value.tolist() == [3.79, 3.92, 4.45]
    # every test's check: "||Ax-b||_oo/(...)=   1.72533487e-02 ...... PASSED"
    assert df[df.metric == "residual"].value.tolist() == pytest.approx([1.72533487e-2] * 3)
    assert set(df.p_check) == {"PASSED"} and set(df.p_n) == {29} and set(df.p_nb) == {1}
    # then "[mpiexec@archlinux] Sending Ctrl-C ..." and "BAD TERMINATION ...": no row, no error
    assert df.source.str.rsplit(":", n=1).str[1].astype(int).max() == 73


def test_run_without_a_finished_test_is_a_failed_run(fx):
    lines = read_text(fx / "hpl23_three_tests_interrupted.out").splitlines(keepends=True)
    # what HPL had printed before its first result (lines 1-43: banner and parameters)
    with pytest.raises(RunFailed, match=r"^h\.out: the run did not finish: no HPL test finished"):
        parse_text(TOOL, "".join(lines[:43]), "h.out")
    # the same, followed by the launcher's own lines 74-86 of the file: its
    # "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES" is line 43 + 5 = 48
    with pytest.raises(RunFailed) as err:
        parse_text(TOOL, "".join(lines[:43] + lines[73:]), "h.out")
    assert str(err.value) == ("h.out:48: the run did not finish: HPL stopped before any test "
                              "finished: '=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES'")


def test_result_line_cut_before_its_check_gives_no_row(fx):
    lines = read_text(fx / "hpl21_asc_report.out").splitlines(keepends=True)
    with pytest.raises(RunFailed):  # line 47 printed, its residual check (line 53) not yet
        parse_text(TOOL, "".join(lines[:50]), "c.out")


def test_errors_name_the_line(fx):
    lines = read_text(fx / "hpl21_asc_report.out").splitlines(keepends=True)
    with pytest.raises(ParseError, match=r"^b\.out:47: Gflops: expected a number, found '1\.7l587e\+03'"):
        parse_text(TOOL, with_line(lines, 47, "WC23C2C4       35000   256     1     1              "
                                              "16.66            1.7l587e+03\n"), "b.out")
    # a result line cut short
    with pytest.raises(ParseError, match=r"^b\.out:47: malformed HPL result line"):
        parse_text(TOOL, with_line(lines, 47, "WC23C2C4       35000   256     1\n"), "b.out")
    with pytest.raises(ParseError, match=r"^b\.out:53: HPL scaled residual: expected a number"):
        parse_text(TOOL, with_line(lines, 53, lines[52].replace("0.0041314", "0.00413.14")), "b.out")
    with pytest.raises(ParseError, match=r"^n\.out:1: not HPL output"):
        parse_text(TOOL, "Copy: 1 2 3 4\n", "n.out")


def test_hpcc_output_is_hpccs_not_hpls(fixtures, fx):
    hpcc_text = read_text(fixtures / "hpcc" / "hpccoutf_np1.txt")
    # HPCC's file embeds HPL's banner and table, but it is HPCC's output: detection picks hpcc,
    # and the HPL parser names the line of HPCC's banner
    assert "HPLinpack 2.0" in hpcc_text and hpl_parser.detect(hpcc_text) == 0.0
    assert detect(hpcc_text) == "hpcc"
    with pytest.raises(ParseError, match=r"^h\.txt:2: this is HPCC output"):
        parse_text(TOOL, hpcc_text, "h.txt")
    for name in FILES:
        text = read_text(fx / name)
        assert hpcc_parser.detect(text) == 0.0 and detect(text) == TOOL


@pytest.mark.parametrize("name", FILES)
def test_every_prefix(fx, name):
    check_all_prefixes(TOOL, read_text(fx / name), limit=150)


def test_random_bytes():
    hypothesis_random_bytes(TOOL)()
