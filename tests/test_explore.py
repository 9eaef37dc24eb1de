"""The exploration notebook's library (overhead.explore) on the authors' real tidy data.

Every number is checked against a computation of its own on the tidy rows (pandas and scipy
directly), not against the library's output; the views are the ones a reader of RC25482 asks
for (MySQL throughput over threads, Linpack per environment, Redis over clients).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import papermill_cli
from scipy import stats as sps

from overhead import tidy
from overhead.explore import MISSING, Explorer, View, ViewError, parse_environments, parse_fixed
from overhead.paths import ROOT


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
    # the ratio and Welch's test against Native, computed here from the rows
    native = sel[(sel.label == "Native") & (sel.p_threads == 70)].value
    kvm = sel[(sel.label == "KVM qcow2,pinned") & (sel.p_threads == 70)].value
    r = table[(table.environment == "KVM qcow2,pinned") & (table.p_threads == 70)].iloc[0]
    assert r["ratio"] == pytest.approx(kvm.mean() / native.mean())
    assert r["ratio_low"] < r["ratio"] < r["ratio_high"]
    assert sps.ttest_ind(kvm, native, equal_var=False).pvalue <= r["welch_p_holm"]
    assert r["verdict"].startswith("significantly lower")


def test_linpack_bars_keep_every_environment(explorer, rows):
    view, fig, table = explorer.render(View("ibm", "linpack", "flop_rate"))
    assert list(table["environment"]) == ["Native", "Docker", "KVM-untuned", "KVM-tuned"]
    assert (table["n"] == 10).all()
    sel = explorer.select(view)
    for _, r in table.iterrows():
        values = sel[sel.label == r["environment"]].value.to_numpy()
        assert r["mean"] == pytest.approx(values.mean())
        half = sps.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values))
        if r["ci_low"] == pytest.approx(values.mean() - half):  # t where normality holds
            assert r["ci_high"] == pytest.approx(values.mean() + half)
    assert table.set_index("environment").loc["Native", "verdict"] == "baseline"
    assert table.set_index("environment").loc["KVM-untuned", "verdict"].startswith(
        "significantly lower")
    assert [t.name for t in fig.data] == ["Native", "Docker", "KVM-untuned", "KVM-tuned"]


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


def test_redis_over_clients_lets_connections_and_runs_follow(explorer):
    view = explorer.resolve(View("ibm", "redis", "throughput", "p_clients",
                                 fixed=parse_fixed("p_command=GET")))
    held = dict(view.fixed)
    # connections equal clients and p_run numbers the repetitions: neither is held
    assert "p_connections" not in held and "p_run" not in held
    assert held["p_command"] == "GET"
    table = explorer.summary(view)
    assert table.groupby("environment")["p_clients"].nunique().min() == 18


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
    assert (ROOT / "notebooks" / "explore.ipynb").exists()
