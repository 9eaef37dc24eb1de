"""Intel LINPACK parser on the authors' logs (values read off the files by hand)."""

from __future__ import annotations

import pytest

from overhead.parsers import ParseError, parse_file, parse_text
from parser_contract import check_all_prefixes, hypothesis_random_bytes


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
