"""overhead.tidy: loading a tidy folder with filters pushed down, labels, the summary."""

from __future__ import annotations

import pytest

from overhead import tidy
from overhead.errors import DataNotFound
from overhead.rc25482 import ALIASES


def test_load_filters_and_labels(ibm_tidy):
    df = tidy.load(ibm_tidy, "mysql", metrics=["transaction_rate"], where={"p_series": "performance-governor"},
                   aliases=ALIASES)
    assert len(df) == 750 and set(df["metric"]) == {"transaction_rate"}
    assert set(df["label"]) == {"Native", "Docker net=host volume", "Docker NAT volume", "Docker NAT AUFS", "KVM"}
    assert "p_connections" not in df.columns  # empty parameter columns of the selection are dropped
    plain = tidy.load(ibm_tidy, "mysql", metrics=["transaction_rate"], where={"p_series": "performance-governor"})
    assert "KVM qcow2,pinned" in set(plain["label"])


def test_other_tables(ibm_tidy):
    ref = tidy.load(ibm_tidy, "nuttcp", table="reference")
    assert (ref["tool"] == "spreadsheet").all() and len(ref) == 6
    mon = tidy.load(ibm_tidy, "mysql", table="monitor", metrics=["cpu_idle"], where={"p_series": "performance-governor"})
    assert len(mon) > 10_000 and set(mon["tool"]) == {"dstat"}


def test_missing_folder_or_table(tmp_path):
    with pytest.raises(DataNotFound, match="ingest the raw data"):
        tidy.load(tmp_path, "mysql")
    with pytest.raises(ValueError, match="unknown table"):
        tidy.load(tmp_path, table="results")
