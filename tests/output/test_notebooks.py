"""Every RC25482 notebook runs (papermill, real reference data) and writes its fixed outputs.

The notebooks are executed once per session into a temporary folder, in the order and the way
`make reproduce` runs them; the section-specific numbers are tested in test_rc25482_*.py.
"""

from __future__ import annotations

import json

import jupytext
import pandas as pd
import pytest

from overhead.rc25482 import NOTEBOOKS, ROOT

pytestmark = [pytest.mark.notebook, pytest.mark.xdist_group("notebooks")]

FIGURES = [f"fig{n:02d}" for n in range(1, 14)]
INTERACTIVE = [f"fig{n:02d}" for n in range(5, 14)]
DIAGRAMS = {"fig01", "fig04"}


@pytest.fixture(scope="module")
def reproduced(ibm, tmp_path_factory):
    from overhead.rc25482.run import reproduce

    base = tmp_path_factory.mktemp("reproduce")
    runs = reproduce(out=base / "out", tidy=base / "tidy", ibm_data=ibm, executed=base / "executed")
    return runs, base / "out", base / "executed"


def test_every_notebook_ran(reproduced):
    runs, _, executed = reproduced
    assert [r.name for r in runs] == list(NOTEBOOKS)
    failed = {r.name: r.error for r in runs if r.error}
    assert not failed, failed
    for r in runs:
        assert (executed / f"{r.name}.ipynb").is_file()


@pytest.mark.parametrize("stem", FIGURES)
def test_figure_files(reproduced, stem):
    _, out, _ = reproduced
    for ext in ("png", "svg", "pdf"):
        assert (out / f"{stem}.{ext}").stat().st_size > 1000, f"{stem}.{ext}"
    if stem not in DIAGRAMS:
        data = pd.read_csv(out / f"{stem}.csv")
        assert len(data) > 0 and "environment" in data.columns
    if stem in INTERACTIVE:
        assert (out / f"{stem}.html").stat().st_size > 1000


@pytest.mark.parametrize("stem", ["table1", "table2", "table3"])
def test_table_files(reproduced, stem):
    _, out, _ = reproduced
    for ext in ("csv", "md", "tex"):
        assert (out / f"{stem}.{ext}").stat().st_size > 100, f"{stem}.{ext}"


def test_table1_columns_and_published_agreement(reproduced):
    _, out, _ = reproduced
    t = pd.read_csv(out / "table1.csv")
    assert list(t.columns[:10]) == ["workload", "environment", "mean", "sd", "n", "ci95_low", "ci95_high",
                                    "delta_vs_native_pct", "published_mean", "published_sd"]
    assert set(t.workload) == {"PXZ", "Linpack", "RandomAccess", "STREAM Copy", "STREAM Scale",
                               "STREAM Add", "STREAM Triad"}
    assert set(t.environment) == {"Native", "Docker", "KVM-untuned", "KVM-tuned"}
    both = t.dropna(subset=["mean", "published_mean"])
    assert len(both) >= 18
    err = (both["mean"] / both["published_mean"] - 1).abs()
    assert (err < 0.005).all(), both.assign(err=err)[err >= 0.005]


def test_no_verdict_contradicts_its_interval(reproduced):
    """Every comparison the notebooks write carries a verdict that agrees with the interval
    printed beside it, and no file calls a non-significant test "no significant difference"."""
    from verdict_audit import audit

    _, out, _ = reproduced
    checked, problems = audit(out)
    assert problems == []
    with_verdicts = {p.stem for p in out.glob("*.csv")
                     if any(c == "verdict" or c.endswith("_verdict") for c in pd.read_csv(p, nrows=0).columns)}
    assert {"table1", "fig02", "fig03", "fig05", "fig06", "fig07_ratios", "fig08", "fig09", "fig10", "fig11",
            "fig12", "fig13", "mysql_claims", "redis_littles"} <= with_verdicts
    assert checked > 0


def test_report_assembles_everything(reproduced):
    _, out, _ = reproduced
    page = (out / "report.html").read_text()
    assert "Missing outputs" not in page
    assert page.count("data:image/png;base64,") >= 13


def test_notebooks_are_committed_without_outputs_and_in_sync():
    for name in NOTEBOOKS:
        nb = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text())
        code = [c for c in nb["cells"] if c["cell_type"] == "code"]
        assert all(not c.get("outputs") and c.get("execution_count") is None for c in code), name
        assert any("parameters" in c.get("metadata", {}).get("tags", []) for c in code), name
        # the paired .py (what reviewers read) and the .ipynb (what papermill runs) agree
        paired = jupytext.read(ROOT / "notebooks" / f"{name}.py")
        pairs = [(c.cell_type, c.source) for c in paired.cells]
        stored = [(c["cell_type"], "".join(c["source"])) for c in nb["cells"]]
        assert pairs == stored, f"{name}: .py and .ipynb differ; run jupytext --sync notebooks/{name}.py"
