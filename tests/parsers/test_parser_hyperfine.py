"""hyperfine parser on JSON exports and text reports made here, and on text from a seed article."""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess

import pandas as pd
import pytest

from overhead.parsers import ParseError, RunFailed, detect, parse_file, parse_text
from parser_contract import check_all_prefixes, hypothesis_random_bytes

TOOL = "hyperfine"
EXPORTS = ["export_sleep_true.csv", "export_sleep_true.md", "export_sleep_true.json",
           "export_sleep_true.txt", "export_scan.csv", "export_scan.md", "export_true_n.csv",
           "export_true_n.md", "export_sleep_s.csv", "export_sleep_s.md"]


@pytest.fixture(scope="module")
def fx(fixtures):
    return fixtures / "hyperfine"


def one(df, metric, **params):
    sel = df[df.metric == metric]
    for k, v in params.items():
        sel = sel[sel[k] == v]
    assert len(sel) == 1, f"{metric} {params}: {len(sel)} rows"
    return sel.iloc[0]


def test_json_every_time_and_summary(fx):
    df = parse_file(TOOL, fx / "true_shell_none_runs10.json")
    walls = df[df.metric == "wall_time"].sort_values("trial")
    assert walls.trial.tolist() == list(range(1, 11))
    # line 13: "        0.006487101," (the first timed run)
    first = walls.iloc[0]
    assert first.value == pytest.approx(0.006487101)
    assert first.raw == "0.006487101" and first.source.endswith(":13")
    assert set(walls.p_exit_code) == {0}
    assert (df.p_command == "true").all() and (df.p_runs == 10).all()
    assert (df.p_failed_runs == 0).all()
    # hyperfine's own summary agrees with the individual times (stddev is the sample SD)
    times = walls.value.tolist()
    assert one(df, "wall_time_mean").value == pytest.approx(statistics.mean(times))  # "mean": 0.0027179836
    assert one(df, "wall_time_sd").value == pytest.approx(statistics.stdev(times))
    assert one(df, "wall_time_percentile", p_percentile=50.0).value == pytest.approx(statistics.median(times))
    assert one(df, "wall_time_min").value == min(times)
    assert one(df, "wall_time_max").value == max(times)
    assert one(df, "user_time_mean").value == pytest.approx(0.0007737)  # "user": 0.0007737
    assert one(df, "system_time_mean").value == 0.0 and one(df, "system_time_mean").raw == "0.0"
    assert set(df.unit) == {"s"}


def test_json_parameter_scan(fx):
    df = parse_file(TOOL, fx / "sleep_scan.json")
    means = df[df.metric == "wall_time_mean"].set_index("p_n")
    # -P n 1 3 'sleep 0.0{n}': parameters {"n": "1"} .. {"n": "3"} become integers
    assert means.index.tolist() == [1, 2, 3]
    assert means.loc[1, "p_command"] == "sleep 0.01"
    assert means.loc[1, "value"] == pytest.approx(0.011207985200000001)
    assert means.loc[3, "value"] == pytest.approx(0.0316933886)
    assert len(df[df.metric == "wall_time"]) == 15


def test_json_failures_are_kept(fx):
    df = parse_file(TOOL, fx / "failing_ignored.json")
    false = df[df.p_command == "false"]
    # hyperfine -i: "exit_codes": [1, 1, 1, 1, 1] for 'false'
    assert set(false[false.metric == "wall_time"].p_exit_code) == {1}
    assert (false.p_failed_runs == 5).all()
    ok = df[df.p_command == "sleep 0.01"]
    assert set(ok[ok.metric == "wall_time"].p_exit_code) == {0} and (ok.p_failed_runs == 0).all()
    # printed zeros stay zeros ("0.0" runs of 'false')
    zeros = false[(false.metric == "wall_time") & (false.value == 0)]
    assert len(zeros) == 3 and set(zeros.raw) == {"0.0"}


def test_json_single_run_has_no_sd(fx):
    df = parse_file(TOOL, fx / "true_single_run.json")
    assert "wall_time_sd" not in set(df.metric)  # "stddev": null
    assert one(df, "wall_time").value == pytest.approx(0.000735319)


def test_text_from_seed_article(fx):
    # seed 001 lines 23-26:
    #   Time (mean ± σ):     159.2 ms ±  21.8 ms    [User: 43.0 ms, System: 16.3 ms]
    #   Range (min … max):    73.9 ms … 194.9 ms    39 runs
    df = parse_file(TOOL, fx / "seed001_L23-26.txt")
    got = df.set_index("metric").value.to_dict()
    assert got == pytest.approx({"wall_time_mean": 0.1592, "wall_time_sd": 0.0218,
                                 "user_time_mean": 0.0430, "system_time_mean": 0.0163,
                                 "wall_time_min": 0.0739, "wall_time_max": 0.1949})
    assert set(df.p_runs) == {39} and set(df.p_command) == {"'crun run foo'"}
    assert one(df, "wall_time_mean").source.endswith("seed001_L23-26.txt:3")


def test_text_seed_zero_minimum(fx):
    # seed 001 line 56: "Range (min … max):     0.0 ms … 190.5 ms    365 runs"
    df = parse_file(TOOL, fx / "seed001_L53-56.txt")
    assert one(df, "wall_time_min").value == 0.0 and one(df, "wall_time_min").raw == "0.0 ms"
    assert one(df, "wall_time_max").value == pytest.approx(0.1905)
    assert set(df.p_runs) == {365}


def test_text_agrees_with_json_of_the_same_run(fx):
    text = parse_file(TOOL, fx / "sleep_scan.txt")
    js = parse_file(TOOL, fx / "sleep_scan.json")
    for cmd in ("sleep 0.01", "sleep 0.02", "sleep 0.03"):
        for metric in ("wall_time_mean", "wall_time_min", "wall_time_max", "user_time_mean"):
            t = one(text, metric, p_command=cmd).value
            j = one(js, metric, p_command=cmd).value
            assert t == pytest.approx(j, abs=0.05e-3), (cmd, metric)  # text rounds to 0.1 ms


def test_text_units_single_run_and_warnings(fx):
    secs = parse_file(TOOL, fx / "sleep_seconds.txt")
    assert one(secs, "wall_time_mean").value == pytest.approx(1.101)  # "1.101 s ±  0.001 s"
    single = parse_file(TOOL, fx / "true_single_run.txt")
    # "Time (abs ≡):          0.7 ms               [User: 0.7 ms, System: 0.0 ms]"
    assert one(single, "wall_time_mean").value == pytest.approx(0.0007)
    assert "wall_time_sd" not in set(single.metric) and set(single.p_runs) == {1}
    failing = parse_file(TOOL, fx / "failing_ignored.txt")
    assert one(failing, "wall_time_mean", p_command="false").p_nonzero_exit
    assert pd.isna(one(failing, "wall_time_mean", p_command="sleep 0.01").p_nonzero_exit)


def test_aborted_run_is_a_failed_run(fx):
    """The failed-run form (issue 26): RunFailed 'the run did not finish', quoting line 2
    ("Error: Command terminated with non-zero exit code: 1. ..."). The empty export hyperfine
    left holds nothing that says whose it is: a plain ParseError."""
    with pytest.raises(RunFailed, match=r"failing_aborted\.txt:2: the run did not finish: "
                                        r"hyperfine reported an error.*non-zero exit code: 1"):
        parse_file(TOOL, fx / "failing_aborted.txt")
    with pytest.raises(ParseError, match=r"failing_aborted\.json: no hyperfine result"):  # empty file: no line
        parse_file(TOOL, fx / "failing_aborted.json")  # hyperfine left an empty export


def test_malformed_input_names_the_line(fx):
    text = "Benchmark 1: x\n  Time (mean ± σ):      1.0 ms ±   abc ms    [User: 1.0 ms, System: 0.0 ms]\n"
    with pytest.raises(ParseError, match=r"^t\.txt:2: σ: expected a number, found .abc."):
        parse_text(TOOL, text, "t.txt")
    with pytest.raises(ParseError, match=r"^t\.txt:2: malformed Range line"):
        parse_text(TOOL, "Benchmark 1: x\n  Range (min … max):   1.0 ms\n", "t.txt")
    js = (fx / "sleep_seconds.json").read_text()
    with pytest.raises(ParseError, match=r"^t\.json:9: "):
        parse_text(TOOL, "\n".join(js.splitlines()[:9]), "t.json")  # cut inside the document
    with pytest.raises(ParseError, match=r"^t\.json:13: times\[0\]: expected a number"):
        parse_text(TOOL, js.replace("1.10062679966", '"x"'), "t.json")
    with pytest.raises(ParseError, match=r"^t\.json:1: not a hyperfine JSON export"):
        parse_text(TOOL, '{"jobs": []}', "t.json")
    with pytest.raises(ParseError, match=r"^t\.txt: no hyperfine result"):
        parse_text(TOOL, "hello\n", "t.txt")  # not hyperfine output: no line is the wrong one


def test_error_lines_point_at_the_wrong_line(fx):
    js = (fx / "sleep_seconds.json").read_text()
    n = len(js.splitlines())
    # text after the document: the line where it starts (after two blank lines), not the
    # document's last line
    with pytest.raises(ParseError, match=rf"^t\.json:{n + 3}: malformed JSON: text after the end"):
        parse_text(TOOL, js.rstrip("\n") + "\n\n\nwarning: x\n", "t.json")
    csv = (fx / "export_sleep_true.csv").read_text().splitlines()
    csv[2] = csv[2].replace("0.00005420533600000001", "x")
    with pytest.raises(ParseError, match=r"^c\.csv:3: mean: expected a number, found 'x'"):
        parse_text(TOOL, "\n".join(csv), "c.csv")
    md = (fx / "export_sleep_true.md").read_text().replace("| 0.1 ± 0.1 |", "| 0.1 ± |")
    with pytest.raises(ParseError, match=r"^m\.md:4: Mean \[ms\]: expected"):
        parse_text(TOOL, md, "m.md")


def test_csv_export_same_names_as_json(fx):
    csv = parse_file(TOOL, fx / "export_sleep_true.csv")
    js = parse_file(TOOL, fx / "export_sleep_true.json")  # the same run's JSON export
    summary = js[js.metric != "wall_time"]
    for df in (csv, summary):
        assert set(df.metric) == {"wall_time_mean", "wall_time_sd", "wall_time_percentile",
                                  "wall_time_min", "wall_time_max", "user_time_mean",
                                  "system_time_mean"}
    for cmd in ("sleep 0.01", "true"):
        for metric in set(csv.metric):
            assert one(csv, metric, p_command=cmd).value == one(summary, metric, p_command=cmd).value
    # line 2: "sleep 0.01,0.01146531734,0.0000893084832112832,0.01151309234,..."
    mean = one(csv, "wall_time_mean", p_command="sleep 0.01")
    assert mean.value == 0.01146531734 and mean.raw == "0.01146531734" and mean.source.endswith(":2")
    assert one(csv, "wall_time_percentile", p_command="sleep 0.01").p_percentile == 50.0
    # line 3: "true,...,0,0.00010657999999999978,0,0,..." (median, system, min printed as 0)
    assert one(csv, "wall_time_percentile", p_command="true").value == 0.0
    scan = parse_file(TOOL, fx / "export_scan.csv")  # "parameter_n" column: p_n, as in JSON
    assert one(scan, "wall_time_mean", p_n=2).value == 0.20181122435333335
    assert one(scan, "wall_time_mean", p_n=2).p_command == "sleep 0.2"


def test_markdown_export_units(fx):
    md = parse_file(TOOL, fx / "export_sleep_true.md")
    # "| Command | Mean [ms] | Min [ms] | Max [ms] | Relative |"
    # "| `sleep 0.01` | 11.5 ± 0.1 | 11.3 | 11.5 | 211.52 ± 317.80 |"
    assert one(md, "wall_time_mean", p_command="sleep 0.01").value == pytest.approx(0.0115)
    assert one(md, "wall_time_sd", p_command="sleep 0.01").value == pytest.approx(0.0001)
    assert one(md, "wall_time_min", p_command="sleep 0.01").value == pytest.approx(0.0113)
    assert one(md, "wall_time_max", p_command="true").raw == "0.2 ms"
    assert set(md.metric) == {"wall_time_mean", "wall_time_sd", "wall_time_min", "wall_time_max"}
    # the same run's JSON, rounded to the 0.1 ms the table prints
    js = parse_file(TOOL, fx / "export_sleep_true.json")
    for metric in ("wall_time_mean", "wall_time_min", "wall_time_max"):
        assert one(md, metric, p_command="sleep 0.01").value == pytest.approx(
            one(js, metric, p_command="sleep 0.01").value, abs=0.05e-3)
    secs = parse_file(TOOL, fx / "export_sleep_s.md")  # --time-unit second: "Mean [s]"
    # "| `sleep 0.3` | 0.302 ± 0.001 | 0.301 | 0.303 | 1.00 |"
    assert one(secs, "wall_time_mean").value == 0.302 and one(secs, "wall_time_sd").value == 0.001
    assert one(secs, "wall_time_mean").value == pytest.approx(
        one(parse_file(TOOL, fx / "export_sleep_s.csv"), "wall_time_mean").value, abs=0.0005)


def test_detect(fx):
    assert detect((fx / "sleep_scan.json").read_text()) == TOOL
    assert detect((fx / "seed001_L109-112.txt").read_text()) == TOOL
    for name in EXPORTS:  # CSV: no tie with the other CSV parsers (dstat, perf -x, ...)
        assert detect((fx / name).read_text()) == TOOL, name


@pytest.mark.parametrize("name", [
    "true_runs10.json", "true_runs10.txt", "true_shell_none_runs10.json", "sleep_scan.json",
    "sleep_scan.txt", "failing_ignored.json", "failing_ignored.txt", "sleep_seconds.txt",
    "true_single_run.txt", "seed001_L23-26.txt", "seed001_L145-148.txt", "seed001_L315-318.txt",
    *EXPORTS,
])
def test_every_prefix(fx, name):
    check_all_prefixes(TOOL, (fx / name).read_text())


def test_random_bytes():
    hypothesis_random_bytes(TOOL)()


@pytest.mark.tool
def test_live_hyperfine(tmp_path):
    if shutil.which("hyperfine") is None:
        pytest.skip("hyperfine is not installed")
    out = tmp_path / "h.json"
    proc = subprocess.run(["hyperfine", "--style", "basic", "-N", "--runs", "3", "--export-json",
                           str(out), "true"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    df = parse_file(TOOL, out)
    assert len(df[df.metric == "wall_time"]) == 3
    assert json.loads(out.read_text())["results"][0]["mean"] == pytest.approx(
        one(df, "wall_time_mean").value)
    text = parse_text(TOOL, proc.stdout, "stdout")
    assert set(text.p_runs) == {3}


@pytest.mark.parametrize(("keep", "line", "what"), [
    # three_commands_default_style.txt: three benchmarks (lines 1-11), warnings, then the
    # Summary (line 16), "'true' ran" and two "times faster than" lines (18, 19)
    (15, 1, "has 3 benchmarks and no 'Summary'"),  # cut before the Summary
    (18, 16, "the Summary has 1 of its 2 'times faster than' lines"),
    (6, 5, "'Benchmark 2: sleep 0.02' has its Time line but not its Range line"),
    (9, 9, "'Benchmark 3: true' has no times"),
])
def test_terminal_output_cut_before_its_summary(fixtures, keep, line, what):
    from overhead.parsers import cut_short_of, parse_text

    text = (fixtures / "hyperfine" / "three_commands_default_style.txt").read_text()
    whole = parse_text("hyperfine", text, "t")
    assert cut_short_of(whole) is None
    # "Time (mean ± σ):  21.3 ms ± 0.0 ms" (line 6), "Range ...: 21.2 ms … 21.3 ms" (line 7)
    b2 = whole[whole.p_command == "sleep 0.02"].set_index("metric").value
    assert b2["wall_time_mean"] == pytest.approx(21.3e-3) and b2["wall_time_max"] == pytest.approx(21.3e-3)
    cut = parse_text("hyperfine", "".join(text.splitlines(keepends=True)[:keep]), "t")
    assert cut_short_of(cut).startswith(f"t:{line}: the run was cut short: ")
    assert what in cut_short_of(cut)
    kept = whole[whole.source.str.rsplit(":", n=1).str[1].astype(int) <= keep]
    assert sorted(cut.value) == sorted(kept.value)


def test_terminal_output_cut_mid_line_and_one_benchmark(fixtures):
    from overhead.parsers import cut_short_of, parse_text

    text = (fixtures / "hyperfine" / "basic_two_N.txt").read_text()
    assert cut_short_of(parse_text("hyperfine", text, "b")) is None
    # the last line "   13.52 ± 5.02 times faster than 'sleep 0.01'" cut in its middle
    assert "no line end" in cut_short_of(parse_text("hyperfine", text[:-20], "b"))
    # one benchmark and no Summary: the whole output of a one-command run (nothing tells it
    # from a two-command run cut after its first benchmark)
    one = parse_text("hyperfine", "".join(text.splitlines(keepends=True)[:4]), "b")
    assert cut_short_of(one) is None and set(one.p_command) == {"true"}
    assert one.set_index("metric").value["wall_time_mean"] == pytest.approx(0.8e-3)
