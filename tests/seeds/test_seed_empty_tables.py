"""A seed study's table with nothing in it is written as empty, not a traceback.

The fresh-clone demo of 2026-11-26 stopped in the sysbench-suite notebook: every fileio trial
of a cell had been excluded (flagged for interference by its own I/O), its table came out with
no rows and no columns, and writing its Markdown indexed the first of no columns."""

from __future__ import annotations

import pandas as pd

from overhead.campaign import results
from overhead.seeds import _common


def _study(tmp_path):
    res = results.Results("empty", tmp_path / "tidy", tmp_path / "out", pd.DataFrame(),
                          pd.DataFrame(), pd.DataFrame())
    res.out.mkdir(parents=True)
    return _common.Study("sysbench_suite", res, pd.DataFrame())


def test_an_empty_table_is_written_and_says_so(tmp_path):
    study = _study(tmp_path)
    path = _common.write_table(study, "filesystems", pd.DataFrame())
    assert path.read_text().strip() == ""
    assert (study.out / "filesystems.md").read_text() == "No rows: nothing measured for filesystems.\n"
    assert (study.out / "filesystems.tex").read_text() == \
        "% filesystems: No rows: nothing measured for filesystems.\n"
    # rows but one column: no row labels to take
    _common.write_table(study, "one", pd.DataFrame({"metric": ["a", "b"]}))
    assert (study.out / "one.md").read_text().count("\n| ") == 3
    # columns but no rows (what a comparison of excluded cells gives)
    _common.write_table(study, "cols", pd.DataFrame(columns=["env", "value"]))
    assert (study.out / "cols.md").read_text() == "No rows: nothing measured for cols.\n"
    assert pd.read_csv(study.out / "cols.csv").columns.tolist() == ["env", "value"]
