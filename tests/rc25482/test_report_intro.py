"""The RC25482 report says, per section, whether published values stand beside the reproduced ones.

What it says is read from the section notebooks' tables (the ``published*`` and ``paper_value``
columns they fill only with ``compare_published=True``), not from the report notebook's own
parameter, which may differ from theirs.
"""

from __future__ import annotations

import pandas as pd

from overhead.rc25482 import report


def _write(out, stem, **columns):
    pd.DataFrame(columns).to_csv(out / f"{stem}.csv", index=False)


def test_each_section_is_read_from_its_own_tables(tmp_path):
    # table1's published_delta_pct is filled from the authors' spreadsheet even when the notebook
    # did not compare: only published_mean says it did
    _write(tmp_path, "table1", workload=["Linpack"], published_mean=[290.8], published_delta_pct=[1.0])
    _write(tmp_path, "fig02", environment=["KVM"], published_gbps=[float("nan")])
    _write(tmp_path, "fig09", connections=[4, 8], published_latency_us=[float("nan"), float("nan")])
    _write(tmp_path, "redis_littles", key=["added"], published=[83.0])  # one of its two tables
    assert report.compared_sections(tmp_path) == {
        "01_table1_compute_memory": True, "02_network": False, "04_redis": True}
    # MySQL's table is missing: the section is not said either way
    page = report.build(tmp_path, compared=True)
    text = page.read_text()
    assert ("Published values stand beside the reproduced ones in Compute and memory and Redis; the "
            "Network notebook ran with compare_published=False") in text


def test_the_intro_says_when_no_section_compared(tmp_path):
    _write(tmp_path, "table1", workload=["Linpack"], published_mean=[float("nan")],
           published_delta_pct=[-2.1])
    _write(tmp_path, "mysql_claims", claim=["x"], paper_value=[float("nan")])
    assert report.compared_sections(tmp_path) == {"01_table1_compute_memory": False, "05_mysql": False}
    # the report notebook's own parameter (True) does not override what the sections did
    assert "every section notebook ran with compare_published=False" in report.build(
        tmp_path, compared=True).read_text()


def test_a_table_without_published_columns_says_nothing(tmp_path):
    _write(tmp_path, "fig02", environment=["KVM"], gbps=[9.3])
    assert report.compared_sections(tmp_path) == {}
    assert "Published values stand beside the reproduced ones." in report.build(tmp_path).read_text()
