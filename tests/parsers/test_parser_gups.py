"""GUPS (RandomAccess) parser on the authors' logs (values read off the files by hand)."""

from __future__ import annotations

import pytest

from overhead.parsers import ParseError, detect, parse_file, parse_text
from overhead.rc25482.published import published
from parser_contract import check_all_prefixes, hypothesis_random_bytes

RESULTS = "RandomAccess/results"
ENVS = {"linux": "Native", "docker": "Docker", "vm": "KVM"}
TWO_SOCKETS = "--physcpubind=0-31 --interleave=0,1"


def _published_row(pub, metric_prefix, env):
    return pub[pub.metric.str.startswith(metric_prefix, na=False) & pub.env.eq(env).fillna(False)]


def rates(df):
    return df[df.metric == "update_rate"]


def test_first_run(ibm):
    df = parse_file("gups", ibm / RESULTS / "linux.single-socket.localalloc.log")
    run = df[df.trial == 1].set_index("metric")
    # lines 6-9: "CPU time used  = 78.895082 seconds", "Real time used = 78.895083 seconds",
    # "0.012675061 Billion(10^9) Updates    per second [GUP/s]",
    # "Found 1 errors in 8589934592 locations (passed)."
    assert run.value.to_dict() == pytest.approx({
        "cpu_time": 78.895082, "real_time": 78.895083, "update_rate": 0.012675061e9,
        "validation_errors": 1})
    assert run.loc["update_rate", "source"].endswith("linux.single-socket.localalloc.log:8")
    assert run.loc["update_rate", "raw"] == "0.012675061 GUP/s"
    assert run.loc["update_rate", "unit"] == "update/s" and run.loc["validation_errors", "unit"] == "count"
    first = run.iloc[0]
    assert first.p_table_size == 8589934592 and first.p_table_log2 == 33
    assert first.p_updates == 1_000_000_000 and first.p_validation == "passed"
    assert first.started_at.isoformat() == "2014-07-12T16:19:40+00:00"  # 11:19:40 CDT


def test_rate_is_updates_over_real_time(ibm):
    df = parse_file("gups", ibm / RESULTS / "vm.log")
    wide = df.pivot(index="trial", columns="metric", values="value")
    assert (1e9 / wide.real_time).to_numpy() == pytest.approx(wide.update_rate.to_numpy(), rel=1e-6)


@pytest.mark.parametrize("env", ENVS)
def test_mislabelled_file_holds_the_two_socket_runs_of_table_one(ibm, env):
    """*.single-socket.localalloc.log are the Table I (two-socket) runs; only the native one says so."""
    df = parse_file("gups", ibm / RESULTS / f"{env}.single-socket.localalloc.log")
    r = rates(df)
    assert len(r) == 10 and set(df.p_validation) == {"passed"}
    if env == "linux":
        assert set(r.p_numa) == {TWO_SOCKETS} and set(r.p_sockets) == {2}
    else:  # "Running gups, started at ...": no numactl options, nothing to derive sockets from
        assert "p_numa" not in df.columns and "p_sockets" not in df.columns
    pub = published()
    row = _published_row(pub, "RandomAccess (two-socket", ENVS[env])
    assert r.value.mean() / 1e9 == pytest.approx(row.value.item(), abs=1e-10)
    assert r.value.std(ddof=1) / 1e9 == pytest.approx(row.err.item(), abs=1e-9)  # sample SD
    if env == "linux":  # README Table I: Native 0.01261 (0.00029)
        assert round(r.value.mean() / 1e9, 5) == 0.01261
        assert round(r.value.std(ddof=1) / 1e9, 5) == 0.00029


@pytest.mark.parametrize("env", ENVS)
def test_combined_log_is_the_two_socket_runs_then_the_single_socket_runs(ibm, env):
    """{env}.log = the 10 runs of {env}.single-socket.localalloc.log, then 10 single-socket runs."""
    cols = ["metric", "value", "raw", "started_at"]
    whole = parse_file("gups", ibm / RESULTS / f"{env}.log")
    labelled = parse_file("gups", ibm / RESULTS / f"{env}.single-socket.localalloc.log")
    assert rates(whole).trial.tolist() == list(range(1, 21))
    first, second = whole[whole.trial <= 10], whole[whole.trial > 10]
    assert first[cols].reset_index(drop=True).equals(labelled[cols].reset_index(drop=True))
    if env == "linux":
        assert set(second.p_numa) == {"--physcpubind=0-7,16-23 --localalloc"}
        # --interleave states two nodes; a --physcpubind list alone does not say how many
        # sockets without the host's topology (the study's rules add it: test_rc25482_files.py)
        assert second.p_sockets.isna().all() and set(first.p_sockets) == {2}
    else:  # only the position (and the dates: Sun Jul 13) tells the halves apart
        assert "p_sockets" not in whole.columns
    assert second.started_at.min() > first.started_at.max()
    pub = published()
    row = _published_row(pub, "RandomAccess (single socket", ENVS[env])
    r = rates(second)
    assert r.value.mean() / 1e9 == pytest.approx(row.value.item(), abs=1e-10)
    assert r.value.std(ddof=1) / 1e9 == pytest.approx(row.err.item(), abs=1e-9)


def test_detect(ibm):
    assert detect((ibm / RESULTS / "docker.log").read_text()) == "gups"


def test_not_gups_is_a_parse_error(ibm):
    # nothing in the file is RandomAccess output: no line is wrong, none is named
    with pytest.raises(ParseError, match=r"linux\.log: no RandomAccess output") as exc:
        parse_file("gups", ibm / "Stream/results/linux.log")
    assert exc.value.line is None


@pytest.mark.parametrize(("lineno", "old", "new", "message"), [
    # :25 "Number of updates = 1000000000" (the third run); a count too large for the 64-bit
    # parameter was reported at the first row that carried it, :26
    (25, "1000000000", "99999999999999999999",
     "number of updates: '99999999999999999999' is out of range"),
    # :34 "Main table size   = 2^33 = 8589934592 words"
    (34, "8589934592", "99999999999999999999", "table size: '99999999999999999999' is out of range"),
    # :38 "0.013083277 Billion(10^9) Updates    per second [GUP/s]"
    (38, "0.013083277", "0.0130x3277", "GUP/s: expected a number, found '0.0130x3277'"),
])
def test_bad_value_deep_in_a_log_names_its_line(ibm, lineno, old, new, message):
    lines = (ibm / RESULTS / "linux.log").read_text().splitlines(keepends=True)
    assert old in lines[lineno - 1]
    lines[lineno - 1] = lines[lineno - 1].replace(old, new)
    with pytest.raises(ParseError) as exc:
        parse_text("gups", "".join(lines), "g.log")
    assert str(exc.value) == f"g.log:{lineno}: {message}"


def test_malformed_numbers_name_the_line():
    text = ("Main table size   = 2^33 = 8589934592 words\n"
            "Number of updates = 1000000000\n"
            "CPU time used  = 78.8950x2 seconds\n")
    with pytest.raises(ParseError, match=r"^g\.log:3: CPU time used: expected a number"):
        parse_text("gups", text, "g.log")
    with pytest.raises(ParseError, match=r"^g\.log:2: malformed GUP/s line"):
        parse_text("gups", "Main table size   = 2^33 = 8589934592 words\nabc Billion [GUP/s]\n", "g.log")


def test_failed_validation_is_reported():
    # the verification line in the format of the passed runs, with "failed"
    text = ("0.012675061 Billion(10^9) Updates    per second [GUP/s]\n"
            "Found 90000000 errors in 8589934592 locations (failed).\n")
    df = parse_text("gups", text, "g.log")
    assert set(df.p_validation) == {"failed"}
    assert df.set_index("metric").value["validation_errors"] == 90_000_000


@pytest.mark.parametrize("name", ["linux.log", "vm.single-socket.localalloc.log"])
def test_every_prefix(ibm, name):
    check_all_prefixes("gups", (ibm / RESULTS / name).read_text(), limit=200)


def test_random_bytes():
    hypothesis_random_bytes("gups")()
