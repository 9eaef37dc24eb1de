"""The RC25482 study's rule set over the authors' tree: nothing unmapped, every file it reads
covered by the pinned checksums, and the parameters it adds consistent with the data."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from overhead.ingest import plan
from overhead.parsers._datestamp import sockets
from overhead.rc25482 import RULESET, spreadsheets
from overhead.rc25482.files import HOST_NODES

SUMS = Path(__file__).resolve().parents[2] / "data" / "reference" / "kvm-docker-comparison.sha256"


def test_every_file_of_the_tree_has_a_rule(ibm):
    files, skipped, unmapped = plan(ibm, RULESET)
    assert unmapped == []
    assert len(files) == 158 and sum(len(v) for v in skipped.values()) == 274 - 158


def test_every_file_the_study_reads_is_verified_by_the_fetch(ibm):
    listed = {line[66:] for line in SUMS.read_text().splitlines()}
    files, _, _ = plan(ibm, RULESET)
    read = set(files) | {spreadsheets.NUTTCP_XLSX, spreadsheets.NETPERF_XLSX, spreadsheets.FIO_XLSX}
    read |= {str(p.relative_to(ibm)) for p in (ibm / "mysql/results/performance-governor").glob("results-cpu-*.csv")}
    assert read - listed == set()


def test_the_rules_socket_counts_agree_with_the_host_topology(ibm_tidy):
    m = pd.read_parquet(ibm_tidy / "measurements.parquet", columns=["benchmark", "p_numa", "p_sockets", "source"])
    stated = m[m["p_numa"].notna()]
    assert len(stated) > 100 and set(stated["benchmark"]) >= {"stream", "randomaccess"}
    derived = stated["p_numa"].map(lambda s: sockets(s, HOST_NODES))
    assert (derived.astype("Int64") == stated["p_sockets"].astype("Int64")).all()
