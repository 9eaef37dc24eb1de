"""The exploration notebook's library (overhead.explore) on the authors' real tidy data.

Every number is checked against a computation of its own on the tidy rows (pandas and scipy
directly), not against the library's output; the views are the ones a reader of RC25482 asks
for (MySQL throughput over threads, Linpack per environment, Redis over clients). The verdicts
are checked against Fieller's interval computed here and the margins read from
data/reference/margins.yml here.
"""

from __future__ import annotations

import fnmatch
import math

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import papermill_cli
from scipy import stats as sps

from overhead import stats, tidy
from overhead.explore import (
    MISSING,
    SUMMARY_COLUMNS,
    Explorer,
    View,
    ViewError,
    parse_environments,
    parse_fixed,
)
from overhead.paths import ROOT

MARGINS = yaml.safe_load((ROOT / "data" / "reference" / "margins.yml").read_text())


def _margin_pct(**fields) -> float:
    """The margin (percent) margins.yml gives a comparison, looked up here: the first rule one
    of whose alternatives names only given fields and matches each (fnmatch, any case), else
    the default."""
    for rule in MARGINS["rules"]:
        for alt in rule["match"]:
            if all(f in fields and any(fnmatch.fnmatchcase(str(fields[f]).lower(), p.lower())
                                       for p in pats) for f, pats in alt.items()):
                return rule["margin_pct"]
    return MARGINS["default"]["margin_pct"]

def _fieller(x, y, level: float = 0.95) -> tuple[float, float]:
    """Fieller's interval of mean(x) / mean(y), independent samples, Welch-Satterthwaite df."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    a, b = x.mean(), y.mean()
    va, vb = x.var(ddof=1) / x.size, y.var(ddof=1) / y.size
    r = a / b
    df = (va + r * r * vb) ** 2 / (va ** 2 / (x.size - 1) + (r * r * vb) ** 2 / (y.size - 1))
    t = sps.t.ppf(0.5 + level / 2, df)
    big_a, big_b, big_c = b * b - t * t * vb, a * b, a * a - t * t * va
    root = math.sqrt(big_b * big_b - big_a * big_c)
    return (big_b - root) / big_a, (big_b + root) / big_a


def _verdict(low: float, high: float, margin_pct: float, higher_is_better: bool) -> str:
    """The verdict rule, stated here: equivalent inside the margin, a difference when the
    interval excludes 1, inconclusive otherwise."""
    if 1 - margin_pct / 100 <= low and high <= 1 + margin_pct / 100:
        return "equivalent"
    if low > 1 or high < 1:
        return "faster" if (low > 1) == higher_is_better else "slower"
    return "inconclusive"


@pytest.fixture(scope="module")
def explorer(ibm_tidy, tmp_path_factory):
    return Explorer(tmp_path_factory.mktemp("no-campaigns"), tmp_path_factory.mktemp("explore"),
                    authors=ibm_tidy)


@pytest.fixture(scope="module")
def rows(ibm_tidy):
    return tidy.load(ibm_tidy)


def test_sources_and_choices(explorer):
    assert explorer.sources() == ["ibm"]
    assert explorer.benchmarks("ibm") == ["fio", "linpack", "mysql", "randomaccess", "redis",
                                          "stream"]
    assert "transaction_rate" in explorer.metrics("ibm", "mysql")
    assert {"p_threads", "p_series"} <= set(explorer.parameters("ibm", "mysql", "transaction_rate"))
    assert explorer.environments("ibm", "linpack", "flop_rate") == \
        ["Native", "Docker", "KVM-untuned", "KVM-tuned"]


def test_mysql_over_threads_holds_the_series_and_matches_the_rows(explorer, rows):
    view = explorer.resolve(View("ibm", "mysql", "transaction_rate", "p_threads"))
    # one series at a time: holding the report number instead would keep one thread count
    assert view.fixed == (("p_series", "performance-governor"),)
    table = explorer.summary(view)
    assert set(table["environment"]) == {"Native", "Docker net=host volume", "Docker NAT volume",
                                         "Docker NAT AUFS", "KVM qcow2,pinned"}
    assert table.groupby("environment").size().min() == 15  # 15 thread counts each
    sel = rows[(rows.benchmark == "mysql") & (rows.metric == "transaction_rate")
               & (rows.p_series == "performance-governor")]
    for (env, threads), g in sel.groupby(["label", "p_threads"]):
        r = table[(table.environment == env) & (table.p_threads == threads)].iloc[0]
        assert r["n"] == len(g)
        assert r["mean"] == pytest.approx(g.value.mean())
    # every point against Native at its thread count: Fieller's interval and the verdict at
    # the margin margins.yml gives mysql, computed here from the rows
    assert sel["higher_is_better"].eq(True).all()  # tx/s: higher is faster
    m = _margin_pct(study="rc25482", benchmark="mysql", metric="transaction_rate", tool="sysbench")
    checked = 0
    for (env, threads), g in sel[sel.label != "Native"].groupby(["label", "p_threads"]):
        native = sel[(sel.label == "Native") & (sel.p_threads == threads)].value
        r = table[(table.environment == env) & (table.p_threads == threads)].iloc[0]
        low, high = _fieller(g.value, native)
        assert r["ratio"] == pytest.approx(g.value.mean() / native.mean())
        assert (r["ratio_low"], r["ratio_high"]) == pytest.approx((low, high), rel=1e-9)
        assert (r["margin_low_pct"], r["margin_high_pct"]) == (-m, m)
        assert r["verdict"] == _verdict(low, high, m, True), (env, threads)
        assert f"n={len(g)}/{len(native)}" in r["verdict_detail"]
        checked += 1
    assert checked == 4 * 15
    # at 70 threads (read off the rows: -60.8% [-62.2%, -59.3%]) the VM is slower beyond the
    # margin; Docker net=host (-8.2% [-13.3%, -3.0%]) is slower too
    t70 = table[table.p_threads == 70].set_index("environment")
    assert t70.loc["KVM qcow2,pinned", "verdict_detail"] == (
        f"slower: -60.8% [-62.2%, -59.3%] (95% CI, n=10/10), beyond the \u00b1{m:g}% margin")
    assert t70.loc["Docker net=host volume", "verdict"] == "slower"
    assert t70.loc["Docker net=host volume", "verdict_detail"].startswith(
        "slower: -8.2% [-13.3%, -3.0%] (95% CI, n=10/10)")
    assert t70.loc["Native", "verdict"] == "baseline"
    assert stats.check_verdicts(table) == []


def test_the_table_a_reader_sees_is_the_summary_in_words(explorer):
    view = explorer.resolve(View("ibm", "mysql", "transaction_rate", "p_threads"))
    shown = explorer.shown(view)
    assert shown.index.names == ["environment", "threads"]
    assert list(shown.columns) == ["n", "mean [95% CI]", "vs Native [95% CI of the ratio]",
                                   "margin", "verdict"]
    m = _margin_pct(study="rc25482", benchmark="mysql", metric="transaction_rate", tool="sysbench")
    # the same comparison as the summary's verdict_detail at 70 threads: -60.8% [-62.2, -59.3]
    vm = shown.loc[("KVM qcow2,pinned", 70)]
    assert (vm["n"], vm["vs Native [95% CI of the ratio]"]) == (10, "-60.8% [-62.2, -59.3]")
    assert vm["verdict"] == "slower, beyond the margin" and vm["margin"] == f"\u00b1{m:g}%"
    assert shown.loc[("Native", 70), "verdict"] == "baseline"
    assert shown.loc[("Native", 70), "mean [95% CI]"].endswith(" tx/s")


def test_linpack_bars_keep_every_environment(explorer, rows):
    view, fig, table = explorer.render(View("ibm", "linpack", "flop_rate"))
    assert list(table["environment"]) == ["Native", "Docker", "KVM-untuned", "KVM-tuned"]
    assert (table["n"] == 10).all()
    sel = explorer.select(view)
    native = sel[sel.label == "Native"].value.to_numpy()
    margin = _margin_pct(study="rc25482", benchmark="linpack", metric="flop_rate", tool="linpack")
    assert margin == 3  # the cpu-memory rule: RC25482's "almost identical" Linpack
    for _, r in table.iterrows():
        values = sel[sel.label == r["environment"]].value.to_numpy()
        assert r["mean"] == pytest.approx(values.mean())
        # a rate is positive: the log-t interval, [mean / f, mean * f]
        f = np.exp(sps.t.ppf(0.975, len(values) - 1) * values.std(ddof=1)
                   / (values.mean() * np.sqrt(len(values))))
        assert (r["ci_low"], r["ci_high"]) == pytest.approx((values.mean() / f, values.mean() * f))
        assert r["ci_low"] > 0
        if r["environment"] != "Native":
            low, high = _fieller(values, native)
            assert (r["ratio_low"], r["ratio_high"]) == pytest.approx((low, high), rel=1e-9)
            assert r["margin_high_pct"] == margin
            assert r["verdict"] == _verdict(low, high, margin, True)
    t = table.set_index("environment")
    assert t.loc["Native", "verdict"] == "baseline"
    # read off the rows: Docker +0.0% [-0.3%, +0.4%] and KVM tuned -2.3% [-2.7%, -1.9%] lie
    # inside +-3%; KVM untuned -55.2% [-57.1%, -53.3%] lies beyond it
    assert t.loc["Docker", "verdict"] == "equivalent"
    assert t.loc["KVM-tuned", "verdict"] == "equivalent"
    assert "(a difference smaller than the margin)" in t.loc["KVM-tuned", "verdict_detail"]
    assert t.loc["KVM-untuned", "verdict_detail"] == (
        f"slower: -55.2% [-57.1%, -53.3%] (95% CI, n=10/10), beyond the \u00b1{margin:g}% margin")
    assert [t.name for t in fig.data] == ["Native", "Docker", "KVM-untuned", "KVM-tuned"]
    # hovering a bar gives its verdict in words
    hover = {tr.name: tr.hovertemplate for tr in fig.data}
    assert t.loc["KVM-untuned", "verdict_detail"] in hover["KVM-untuned"]
    assert "vs Native: baseline" in hover["Native"]


def test_linpack_summary_with_one_value_each_gives_the_point_ratio(explorer, rows):
    # the "Performance Summary" block prints one average per log: n = 1 per environment, so no
    # interval and no test, but the ratio of the two values is still what was measured
    view, _, table = explorer.render(View("ibm", "linpack", "flop_rate_mean"))
    assert (table["n"] == 1).all()
    sel = explorer.select(view)
    native = sel[sel.label == "Native"].value.iloc[0]
    for _, r in table.iterrows():
        value = sel[sel.label == r["environment"]].value.iloc[0]
        assert r["ratio"] == pytest.approx(value / native)
        assert r["pct"] == pytest.approx(100 * (value / native - 1))
        assert np.isnan(r["ratio_low"]) and np.isnan(r["ratio_high"]) and np.isnan(r["ci_low"])
    t = table.set_index("environment")
    # read off linux.*.log's summaries: 290.8286 (native) and 130.3 GFlops (KVM untuned)
    assert t.loc["KVM-untuned", "ratio"] == pytest.approx(0.448, abs=0.001)
    assert t.loc["KVM-untuned", "verdict"] == "not tested"
    assert t.loc["KVM-untuned", "verdict_detail"].startswith("not tested: n=1, 1")


def test_redis_over_clients_lets_connections_and_runs_follow(explorer):
    view = explorer.resolve(View("ibm", "redis", "throughput", "p_clients",
                                 fixed=parse_fixed("p_command=GET")))
    held = dict(view.fixed)
    # connections equal clients and p_run numbers the repetitions: neither is held
    assert "p_connections" not in held and "p_run" not in held
    assert held["p_command"] == "GET"
    table = explorer.summary(view)
    assert table.groupby("environment")["p_clients"].nunique().min() == 18
    # every point's verdict is the one its printed interval and margin give
    m = _margin_pct(study="rc25482", benchmark="redis", metric="throughput",
                    tool="redis-benchmark")
    assert list(table.columns) == ["environment", "p_clients", *SUMMARY_COLUMNS]
    assert stats.check_verdicts(table) == []
    rows = explorer.select(view)
    for _, r in table[table.environment != "Native"].iterrows():
        x = rows[(rows.label == r["environment"]) & (rows.p_clients == r["p_clients"])].value
        y = rows[(rows.label == "Native") & (rows.p_clients == r["p_clients"])].value
        low, high = _fieller(x, y)
        assert (r["ratio_low"], r["ratio_high"]) == pytest.approx((low, high), rel=1e-9)
        assert r["margin_high_pct"] == m
        assert r["verdict"] == _verdict(low, high, m, True)
    # Docker net=host at 1 client (read off the rows: -2.5% [-6.1%, +1.2%], n=10/12) neither
    # shows a difference nor lies inside the margin: inconclusive, and says what would decide it
    one = table[(table.environment == "Docker net=host") & (table.p_clients == 1)].iloc[0]
    assert one["verdict"] == "inconclusive"
    assert one["verdict_detail"].startswith(
        "inconclusive: -2.5% [-6.1%, +1.2%] (95% CI, n=10/12) holds both no difference and "
        f"differences beyond the \u00b1{m:g}% margin; about ")
    assert "trials per side would decide it" in one["verdict_detail"]
    # hovering a point of the curves gives n and the verdict in words
    fig = explorer.figure(view, table)
    docker = next(tr for tr in fig.data if tr.name == "Docker net=host")
    assert one["verdict_detail"] in {c[1] for c in docker.customdata}
    assert "vs Native: %{customdata[1]}" in docker.hovertemplate


def test_environments_and_text_parameters(explorer):
    assert parse_environments(" Native, Docker NAT ,") == ("Native", "Docker NAT")
    assert parse_fixed("series=bml; p_threads = 10") == (("p_series", "bml"), ("p_threads", "10"))
    view = explorer.resolve(View("ibm", "mysql", "transaction_rate", "",
                                 parse_environments("Native"), parse_fixed("series=bml;threads=10")))
    table = explorer.summary(view)
    assert list(table["environment"]) == ["Native"] and dict(view.fixed)["p_threads"] == 10


@pytest.mark.parametrize("view, says", [
    (View("nope"), "no data source 'nope' (present: ibm)"),
    (View("ibm", "nginx"), "no benchmark 'nginx' (choose from fio, linpack"),
    (View("ibm", "mysql", "speed"), "no metric of mysql 'speed'"),
    (View("ibm", "mysql", "transaction_rate", "p_color"), "no varying parameter"),
    (View("ibm", "mysql", "transaction_rate", environments=("LXC",)), "no environment 'LXC'"),
    (View("ibm", "mysql", "transaction_rate", fixed=(("p_series", "lab"),)),
     "has no p_series=lab (values:"),
    (View("ibm", "linpack", "flop_rate", fixed=(("p_threads", "4"),)), "does not vary p_threads"),
])
def test_a_view_naming_missing_data_says_what_exists(explorer, view, says):
    with pytest.raises(ViewError) as err:
        explorer.resolve(view)
    assert says in str(err.value)


def test_a_choice_resets_only_what_depends_on_it(explorer):
    view = explorer.resolve(View("ibm", "mysql", "transaction_rate", "p_threads",
                                 ("Native", "Docker NAT volume")))
    lat = explorer.with_choice(view, metric="latency_mean")
    assert (lat.parameter, lat.environments) == ("p_threads", ("Native", "Docker NAT volume"))
    lin = explorer.with_choice(view, benchmark="linpack")
    assert (lin.metric, lin.parameter, lin.environments) == ("flop_rate", "", ("Native",))
    fio = explorer.resolve(View("ibm", "fio", "iops"))
    # a held value chosen that does not exist with the others: the others follow it
    other = explorer.with_choice(fio, fixed=tuple(
        (k, "randread" if k == "p_rw" else v) for k, v in fio.fixed) + (("p_rw", "randread"),))
    assert dict(other.fixed).get("p_rw", "randread") == "randread"
    assert len(explorer.select(other)) > 0
    assert MISSING == "(missing)"


def test_export_writes_the_figure_and_its_data(explorer):
    view = explorer.resolve(View("ibm", "linpack", "flop_rate"))
    paths = explorer.export(view)
    names = [p.name for p in paths]
    assert names == [f"{view.stem()}.{e}" for e in ("png", "svg", "pdf", "csv")] + \
        [f"{view.stem()}_rows.csv"]
    png, svg, pdf, csv, rows_csv = paths
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in svg.read_bytes()[:400] and b"KVM-tuned" in svg.read_bytes()
    assert pdf.read_bytes()[:5] == b"%PDF-"
    table = pd.read_csv(csv)
    assert table["mean"].to_numpy() == pytest.approx(explorer.summary(view)["mean"].to_numpy())
    # the export carries every verdict with its interval and margin, and they agree
    assert list(table.columns) == ["environment", *SUMMARY_COLUMNS]
    assert "welch_p_holm" not in table and stats.check_verdicts(table) == []
    assert table.set_index("environment").loc["KVM-untuned", "verdict"] == "slower"
    assert len(pd.read_csv(rows_csv)) == 40


def test_widget_follows_a_changed_dropdown(explorer):
    from overhead.explore import _Widget

    ui = _Widget(explorer, explorer.resolve(View("ibm", "linpack", "flop_rate")))
    assert ui.metric.value == "flop_rate" and ui.envs.value == (
        "Native", "Docker", "KVM-untuned", "KVM-tuned")
    ui.benchmark.value = "mysql"
    assert ui.view.benchmark == "mysql" and ui.metric.value == ui.view.metric
    ui.metric.value = "transaction_rate"
    ui.parameter.value = "p_threads"
    assert ui.view.parameter == "p_threads"
    assert [d.description for d in ui.held.children] == ["series"]
    ui.held.children[0].value = "bml"
    assert dict(ui.view.fixed)["p_series"] == "bml"
    assert set(explorer.summary(ui.view)["environment"]) == {"Native"}


def test_papermill_renders_and_exports_a_chosen_view(ibm_tidy, tmp_path):
    out = tmp_path / "explore"
    papermill_cli("notebooks/explore.ipynb", tmp_path / "explore.ipynb", benchmark="redis",
                  metric="throughput", parameter="p_clients", fixed="p_command=GET",
                  interactive=False, export=True, authors_tidy=ibm_tidy, out_dir=out,
                  tidy_root=tmp_path / "none")
    files = sorted(p.name for p in out.iterdir())
    stem = "ibm-redis-throughput-by-clients-command-GET"
    assert [f for f in files if f.startswith(stem)] == sorted(
        f"{stem}{e}" for e in (".csv", ".pdf", ".png", ".svg", "_rows.csv"))
    table = pd.read_csv(out / f"{stem}.csv")
    assert set(table["environment"]) == {"Native", "Docker net=host", "Docker NAT", "KVM"}
    assert "verdict_detail" in table and stats.check_verdicts(table) == []
    assert (ROOT / "notebooks" / "explore.ipynb").exists()
