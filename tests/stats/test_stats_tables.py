"""overhead.stats.tables: the paper's cell style on the IBM Linpack runs (Table I), and the
Markdown / LaTeX / HTML renderers (escaping, missing cells)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from overhead import stats
from overhead.parsers import parse_file
from overhead.schema import concat, frame


@pytest.fixture(scope="module")
def linpack(ibm):
    frames = []
    for env, name in (("native", "linux.two-socket.interleavedalloc.log"),
                      ("docker", "docker.two-socket.interleavedalloc.log"), ("kvm", "vm.log")):
        d = parse_file("linpack", ibm / "linpack/results" / name)
        d = d[d.metric == "flop_rate"]
        if env == "kvm":
            d = d[d.p_block == 7]  # tuned KVM = the last ten trials of vm.log (reference README)
        d = d.copy()
        d["environment"] = env
        frames.append(d)
    return concat(frames)


def test_table_one_linpack_cells(linpack):
    # Table I (authors' spreadsheet): Native 290.83 (1.13), Docker 290.87 (0.98), KVM tuned 284.20 (1.45)
    t = stats.overhead_table(linpack, rows=["benchmark", "metric"], scale=1e-9)
    assert list(t.columns) == ["native", "docker", "kvm"]
    row = t.loc["linpack"]
    assert row["native"].startswith("290.83 (baseline) [1.13]; n=10; 95% CI ")
    assert row["docker"].startswith("290.87 (+0.0%) [0.98]; n=10; 95% CI ")
    assert row["kvm"].startswith("284.20 (-2.3%) [1.45]; n=10; 95% CI ")
    cells = stats.overhead_cells(linpack, rows=["benchmark", "metric"], scale=1e-9).set_index("environment")
    x = linpack[linpack.environment == "kvm"].value.to_numpy() / 1e9
    iv = stats.t_interval(x)
    assert row["kvm"].endswith(f"95% CI {iv.low:.2f} to {iv.high:.2f}")
    assert cells.loc["kvm", "delta_pct"] == pytest.approx(100 * (x.mean() / (
        linpack[linpack.environment == "native"].value.mean() / 1e9) - 1))
    delta = stats.overhead_table(linpack, rows=["benchmark"], scale=1e-9, ci="delta", n_resamples=999)
    assert delta.loc["linpack", "native"] == "290.83 (baseline) [1.13]; n=10"
    assert "95% CI -2.7% to -1.9%" in delta.loc["linpack", "kvm"]


def test_format_cell():
    # default: the SD to two significant digits, the mean and CI to the same decimal place
    assert stats.format_cell(290.8286, 1.1334, 10, delta_pct=0.0, ci=(290.02, 291.64)) == \
        "290.8 (+0.0%) [1.1]; n=10; 95% CI 290.0 to 291.6"
    assert stats.format_cell(290.8286, 1.1334, 10, delta_pct=0.0, ci=(290.02, 291.64), decimals=2) == \
        "290.83 (+0.0%) [1.13]; n=10; 95% CI 290.02 to 291.64"
    assert stats.format_cell(5.0, float("nan"), 1, delta_pct=-3.24) == "5.000 (-3.2%) [\u2014]; n=1"
    assert stats.format_cell(float("nan"), float("nan"), 0) == "\u2014; n=0"
    assert stats.format_cell(1.0, 0.5, 3, baseline=True, ci=(float("nan"), 2.0)) == \
        "1.00 (baseline) [0.50]; n=3; 95% CI \u2014"
    assert stats.format_cell(0.01261, 0.00029, 10, delta_pct=1.0, ci=(-1.5, 3.25), ci_is_delta=True) == \
        "0.01261 (+1.0%) [0.00029]; n=10; 95% CI -1.5% to +3.2%"


def small_table():
    rows = [dict(benchmark="b|x", environment=e, metric="m_1", unit="s", value=v, source="s")
            for e, vals in (("native", [1.0, 2.0, 3.0]), ("kvm", [2.0, 3.0, 4.0])) for v in vals]
    rows += [dict(benchmark="c", environment="native", metric="m_1", unit="s", value=5.0, source="s")]
    return stats.overhead_table(frame(rows), rows=["benchmark"], ci="t")


def test_missing_cells_and_reasons():
    t = small_table()
    assert t.loc["c", "kvm"] == "\u2014"  # absent, not 0
    assert t.loc["c", "native"].startswith("5.000 (baseline) [\u2014]; n=1; 95% CI \u2014 (")
    assert "n=1" in t.loc["c", "native"] and "n >= 2" in t.loc["c", "native"]
    cells = stats.overhead_cells(pd.DataFrame({"environment": ["kvm", "kvm"], "metric": "m",
                                               "unit": "s", "value": [1.0, 2.0]}))
    assert math.isnan(cells.delta_pct.iloc[0])  # no baseline in the data: no delta, no error


def test_markdown_latex_html():
    t = small_table()
    md = stats.to_markdown(t)
    lines = md.splitlines()
    assert lines[0] == "| benchmark | native | kvm |" and lines[1] == "| --- | --- | --- |"
    assert lines[2].startswith("| b\\|x | 2.0 (baseline) [1.0]; n=3; 95% CI ")
    assert all(line.count(" | ") == 2 for line in lines[2:])
    tex = stats.to_latex(t, caption="Overhead 100%", label="tab:o")
    assert "\\begin{tabular}{lrr}" in tex and "\\toprule" in tex and "\\bottomrule" in tex
    assert "Overhead 100\\%" in tex and "(+50.0\\%)" in tex and "---" in tex
    assert "\u2014" not in tex
    html = stats.to_html(pd.DataFrame({"a<b": ["x & y"]}, index=pd.Index(["r"], name="k")))
    assert "<th>a&lt;b</th>" in html and "<td>x &amp; y</td>" in html and "<th>r</th>" in html
    with pytest.raises(stats.StatsError):
        stats.to_markdown(np.zeros(3))


def test_latex_paragraph_columns_wide_table_and_notes():
    t = pd.DataFrame({"a": ["x\ny_1", "z"], "b": ["1", "2"]}, index=pd.Index(["r1", "r2"], name="k"))
    tex = stats.to_latex(t, widths={"k": "2cm", "a": "3.5cm"}, wide=True, size="footnotesize",
                         caption="C", label="tab:c", notes=["n=10; 95% CI"], comment="made here")
    lines = tex.splitlines()
    assert lines[:6] == ["% made here", "\\begin{table*}", "\\centering", "\\footnotesize",
                         "\\caption{C}", "\\label{tab:c}"]
    assert "\\begin{tabular}{p{2cm}p{3.5cm}r}" in lines
    assert "r1 & x\\newline y\\_1 & 1 \\\\" in lines  # a line break in a p{} cell, escaped text
    assert lines[-3:] == ["\\par\\smallskip", "n=10; 95\\% CI\\par", "\\end{table*}"]
    with pytest.raises(stats.StatsError, match="lacks: nosuch"):
        stats.to_latex(t, widths={"nosuch": "1cm"})
