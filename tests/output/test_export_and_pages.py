"""The one table exporter (overhead.export) and the one page builder (overhead.pages).

Every table is written by ``export.write_table`` (CSV with every column; Markdown, LaTeX and
HTML of the shown form) and every report by ``pages.Page`` (one stylesheet). These tests feed
real tables: Table II of the paper (STREAM's kernel definitions) and a comparison computed
from the authors' Redis runs.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from overhead import export, pages
from overhead.errors import InputError
from overhead.rc25482 import compute


def test_a_table_is_written_once_in_every_format_asked(tmp_path):
    table2 = compute.table2()
    shown = table2.set_index("operation")[["kernel", "bytes_per_iteration", "flops_per_iteration"]]
    written = export.write_table(table2, tmp_path, "table2", shown=shown, caption="Table II: STREAM kernels",
                                 notes=["Definitions, not measurements."], formats=export.FORMATS,
                                 latex={"label": "tab:t2"})
    assert sorted(written) == ["csv", "html", "md", "tex"]
    # the CSV is the frame, every column, no index: read back equal
    back = pd.read_csv(written["csv"])
    pd.testing.assert_frame_equal(back, table2, check_dtype=False)
    md = written["md"].read_text()
    assert md.startswith("Table II: STREAM kernels\n\n| operation | kernel |")
    # STREAM's Triad: a[i] = b[i] + q*c[i], 24 bytes and 2 FLOPs per iteration
    assert re.search(r"\| Triad \| .* \| 24 \| 2 \|", md)
    assert md.endswith("Notes:\n\n- Definitions, not measurements.\n")
    tex = written["tex"].read_text()
    assert "\\caption{Table II: STREAM kernels}" in tex and "\\label{tab:t2}" in tex
    assert tex.startswith("% table2: written by overhead.export")
    html = written["html"].read_text()
    assert "<caption>Table II: STREAM kernels</caption>" in html
    assert "<td class='num'>24</td>" in html and "<li>Definitions, not measurements.</li>" in html


def test_default_formats_and_first_column_as_row_labels(tmp_path):
    frame = pd.DataFrame({"environment": ["Native", "Docker NAT"], "mean": [10.5, np.nan]})
    written = export.write_table(frame, tmp_path, "t")
    assert sorted(written) == sorted(export.DEFAULT_FORMATS)
    assert not (tmp_path / "t.html").exists()
    md = written["md"].read_text().splitlines()
    assert md[0] == "| environment | mean |"          # no 0, 1 row numbers
    assert md[3] == "| Docker NAT | \u2014 |"          # missing is a dash, never 0
    assert pd.read_csv(written["csv"])["mean"].isna().iloc[1]


def test_an_unknown_format_is_refused_naming_the_table(tmp_path):
    with pytest.raises(InputError, match="table t: unknown format.*xlsx"):
        export.write_table(pd.DataFrame({"a": [1]}), tmp_path, "t", formats=("csv", "xlsx"))
    assert not (tmp_path / "t.csv").exists()


def test_a_csv_only_table_gets_its_shown_forms(tmp_path):
    pd.DataFrame({"env": ["Native"], "value": ["1.5"]}).to_csv(tmp_path / "x.csv", index=False)
    made = export.formats_from_csv(tmp_path / "x.csv", "x")
    assert made["md"] == "| env | value |\n| --- | --- |\n| Native | 1.5 |\n"
    assert made["tex"].startswith("% x: from x.csv, by overhead publish")


def test_page_tables_align_numbers_right_and_text_left():
    assert pages.is_number("1,234.5") and pages.is_number("-3.2%") and pages.is_number("12 ms")
    assert not pages.is_number("Docker NAT") and not pages.is_number("+3.1% [1.0, 5.2]")
    frame = pd.DataFrame({"environment": ["KVM"], "n": [10], "verdict": ["slower"],
                          "mean": [0.123456789]})
    html = pages.table_html(frame, index=False)
    assert "<td>KVM</td>" in html and "<td class='num'>10</td>" in html
    assert "<td class='num'>0.1235</td>" in html and "<td>slower</td>" in html
    assert "<th>0</th>" not in html


def test_a_page_is_one_file_with_the_one_stylesheet(tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2, 1))
    ax.plot([1, 2], [3, 4])
    fig.savefig(tmp_path / "f.png")
    plt.close(fig)
    (tmp_path / "f.svg").write_text("<svg/>")
    page = pages.Page("A & B", heading="Heading")
    page.heading("Section").text("x < y", cls="note").figure(tmp_path / "f.png", links=("svg", "pdf"))
    page.figure(tmp_path / "gone.png").table(None, empty="nothing here")
    path = page.write(tmp_path / "report.html")
    text = path.read_text()
    assert "<title>A &amp; B</title>" in text and "<h1>Heading</h1>" in text
    assert pages.STYLE in text and "@page{size:A4" in text
    assert "<p class='note'>x &lt; y</p>" in text
    assert "src=\"data:image/png;base64," in text
    assert "href='f.svg'>svg</a>" in text and "f.pdf" not in text
    assert "figure gone.png not drawn" in text and "<p class='empty'>nothing here</p>" in text


def test_columns_the_same_in_every_row_are_said_once(ibm_tidy):
    """Table III as the notebook shows it: the authors' five configurations share their runs,
    thread counts, mode and dstat host; those go into one line, the rest stays a table."""
    from overhead.rc25482 import load
    from overhead.rc25482 import mysql as my
    from overhead.rc25482 import mysql_dstat as md

    runs = my.sysbench_runs(load(ibm_tidy, "mysql", where={"p_series": my.SERIES}))
    monitor = load(ibm_tidy, "mysql", table="monitor", where={"p_series": my.SERIES},
                   metrics=list(my.MONITOR_METRICS))
    t3 = md.table3(runs, md.cpu_runs(monitor, runs)).set_index("configuration")
    shown, same = export.shared_columns(t3)
    assert same == "runs 10, reports 150, threads 10-290 step 20, mode read-only, dstat_host arldcn24"
    assert list(shown.columns) == ["network", "storage", "folder", "recorded", "packets_per_tx",
                                   "observed_network"]  # KVM was recorded on another day
    assert shown.index.equals(t3.index)
    kept, said = export.shared_columns(t3, keep=("runs",))
    assert "runs" in kept and not said.startswith("runs")
    one, none = export.shared_columns(t3.iloc[:1])  # one row: nothing is "shared"
    assert one.equals(t3.iloc[:1]) and none == ""
