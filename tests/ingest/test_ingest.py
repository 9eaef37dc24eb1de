"""Ingest of the authors' whole tree with the study's rule set: counts you can check against the
data, sources, caching on content, atomic writes, and the CLI's error behaviour."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from overhead import tidy as tidy_tables
from overhead.errors import ParseError
from overhead.rc25482 import ALIASES, ingest_ibm

OVERHEAD = [sys.executable, "-m", "overhead.cli"]


@pytest.fixture(scope="module")
def tidy(ibm, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tidy")
    result = ingest_ibm(ibm, out)
    assert not result.unchanged and not result.unmapped
    return out


@pytest.fixture(scope="module")
def measurements(tidy) -> pd.DataFrame:
    return pd.read_parquet(tidy / "measurements.parquet", dtype_backend="numpy_nullable")


def test_sysbench_reports_across_mysql_results(measurements):
    tps = measurements[(measurements.benchmark == "mysql") & (measurements.metric == "transaction_rate")]
    assert len(tps) == 1489
    # the paper's data: 5 configurations x 10 runs x 15 thread counts
    pg = tps[tps.p_series == "performance-governor"]
    assert pg.groupby(["environment", "variant"]).size().to_dict() == {
        ("docker", "net=host,storage=volume"): 150, ("docker", "net=nat,storage=aufs"): 150,
        ("docker", "net=nat,storage=volume"): 150, ("kvm", "qcow2,pinned"): 150, ("native", "default"): 150}
    assert sorted(pg.trial.unique()) == list(range(1, 11))
    assert sorted(pg.p_threads.unique()) == list(range(10, 300, 20))


def test_redis_results(measurements):
    tp = measurements[(measurements.benchmark == "redis") & (measurements.metric == "throughput")]
    assert len(tp) == 8777
    assert set(map(tuple, tp[["environment", "variant"]].drop_duplicates().to_numpy())) == {
        ("native", "default"), ("docker", "net=host"), ("docker", "net=nat"), ("kvm", "default")}


def test_linpack_trials_per_environment(measurements):
    f = measurements[(measurements.benchmark == "linpack") & (measurements.metric == "flop_rate")]
    counts = f.groupby(["environment", "variant", "p_block_complete"]).size().to_dict()
    # 10 trials per two-socket environment, plus the tuned VM: the complete last block (10)
    # and the aborted block before it (6 trials, kept and marked incomplete)
    assert counts == {("native", "default", True): 10, ("docker", "default", True): 10,
                      ("kvm", "untuned", True): 10, ("kvm", "tuned", True): 10, ("kvm", "tuned", False): 6}
    tuned = f[(f.variant == "tuned") & f.p_block_complete]
    assert tuned.value.mean() / 1e9 == pytest.approx(284.1987, abs=5e-5)  # the log's own summary


def test_stream_runs_per_environment_and_socket_mode(measurements):
    s = measurements[(measurements.benchmark == "stream") & (measurements.metric == "bandwidth")]
    per = s.groupby(["environment", "p_sockets", "p_kernel"]).size()
    assert len(per) == 3 * 2 * 4 and (per == 10).all()


def test_randomaccess_halves_and_mislabelled_files(measurements):
    g = measurements[(measurements.benchmark == "randomaccess") & (measurements.metric == "update_rate")]
    assert g.groupby(["environment", "p_sockets"]).size().to_dict() == {
        (e, s): 10 for e in ("docker", "kvm", "native") for s in (1, 2)}
    two = g[(g.environment == "native") & (g.p_sockets == 2)]
    assert two.source.str.startswith("RandomAccess/results/linux.single-socket.localalloc.log:").all()
    assert two.value.mean() / 1e9 == pytest.approx(0.0126129369, rel=1e-6)


def test_every_row_has_source_file_and_line(ibm, measurements):
    src = measurements.source.str.rsplit(":", n=1, expand=True)
    assert src[1].str.fullmatch(r"\d+").all()
    # spot-check: the line named holds the raw text
    row = measurements[(measurements.benchmark == "linpack") & (measurements.metric == "flop_rate")].iloc[0]
    path, line = row.source.rsplit(":", 1)
    text = (ibm / path).read_text().splitlines()[int(line) - 1]
    assert row.raw.split()[0] in text


def test_provenance_and_run_ids(tidy, measurements):
    prov = pd.read_parquet(tidy / "provenance.parquet")
    assert set(measurements.run_id) <= set(prov.run_id)
    assert prov.run_id.is_unique
    # mysql/results/KVM is a byte-for-byte copy of performance-governor/KVM (found by hash)
    kvm = prov[prov.source_file == "mysql/results/performance-governor/KVM/records-20140716112752-0"].iloc[0]
    assert "byte-identical to mysql/results/KVM/records-20140716112752-0" in kvm.notes
    assert (prov[prov.environment == "kvm"].accelerator == "kvm").all()
    pg = prov[prov.source_file.str.startswith("mysql/results/performance-governor/")]
    assert (pg.governor == "performance").all()
    assert prov.source_sha256.str.fullmatch(r"[0-9a-f]{64}").all()


def test_tables_read_back_with_the_model_dtypes(tidy):
    from overhead import schema

    df = schema.read_parquet(tidy / "measurements.parquet")
    schema.validate(df, require_context=True)
    assert str(df.trial.dtype) == "Int64" and str(df.p_threads.dtype) == "Int64"
    assert str(df.higher_is_better.dtype) == "boolean" and str(df.environment.dtype) == "string"
    prov = schema.read_parquet(tidy / "provenance.parquet")
    assert list(prov.columns) == list(schema.PROVENANCE_COLUMNS)


def test_monitor_samples(ibm, tidy):
    """dstat samples are stored wide (one row per sample line) and read back long."""
    import pyarrow.parquet as pq

    from overhead import parsers, wide
    from overhead.schema import parts_of

    manifest = json.loads((tidy / "manifest.json").read_text())
    parts = parts_of(tidy / "monitor")
    assert len(parts) == 12 and all(wide.is_wide(pq.read_schema(p)) for p in parts)
    # one stored row per sample line of the 12 ingested dstat files: their lines that start
    # with a digit (the three files left out by rule hold 1,569 + 11,287 + 815 more)
    files = set(tidy_tables.read(tidy / "provenance.parquet", columns=["source_file"])["source_file"])
    lines = sum(1 for f in (ibm / "mysql/results").rglob("dstat-*.csv")
                if str(f.relative_to(ibm)) in files
                for line in f.read_text().splitlines() if line[:1].isdigit())
    assert lines == 156459 == sum(pq.ParquetFile(p).metadata.num_rows for p in parts)
    # read through tidy: the long rows, one per sample and counter, as before
    mon = tidy_tables.read(tidy / "monitor")
    assert len(mon) == 2190426 == manifest["result"]["monitor_rows"]
    assert set(mon.tool) == {"dstat"} and set(mon.benchmark) == {"mysql"}
    assert mon.source.str.contains(r"\.csv:\d+$").all()
    # lossless: one file's stored rows are its parser's rows, value for value and as printed
    rel = "mysql/results/performance-governor/KVM/dstat-run-2000000-vm.csv"
    mine = mon[mon.source.str.startswith(rel + ":")].reset_index(drop=True)
    parsed = parsers.parse_file("dstat", ibm / rel, name=rel)
    assert len(mine) == len(parsed) == 141862
    for col in ("metric", "value", "unit", "source", "raw", "warmup", "started_at", "host",
                "tool_version", "p_sample", "p_session"):
        assert mine[col].astype(object).tolist() == parsed[col].astype(object).tolist(), col
    assert (mine.environment == "kvm").all() and (mine.p_series == "performance-governor").all()


def test_reference_rows_are_marked(tidy):
    ref = pd.read_parquet(tidy / "reference.parquet")
    assert (ref.tool == "spreadsheet").all() and (ref.p_origin == "spreadsheet").all()
    assert ref.source.str.contains(r"\.xlsx!").all()


def test_skipped_files_have_reasons(tidy):
    manifest = json.loads((tidy / "manifest.json").read_text())
    skipped = manifest["result"]["skipped"]
    assert any("Stream/results/linux.log" in v for v in skipped.values())
    assert manifest["result"]["unmapped"] == []


def test_warm_rerun_is_a_noop_and_a_change_invalidates(ibm, tidy, tmp_path):
    again = ingest_ibm(ibm, tidy)
    assert again.unchanged and again.rows > 0
    # a copy of a small part of the tree: change one file's bytes -> re-ingest
    root = tmp_path / "tree"
    for rel in ("linpack/results/linux.two-socket.interleavedalloc.log",
                "Stream/results/linux.two-socket.interleavedalloc.log"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ibm / rel, root / rel)
    out = tmp_path / "out"
    first = ingest_ibm(root, out)
    assert not first.unchanged and ingest_ibm(root, out).unchanged
    with open(root / "Stream/results/linux.two-socket.interleavedalloc.log", "a") as fh:
        fh.write("\n")
    assert not ingest_ibm(root, out).unchanged


def test_concurrent_ingests_into_one_folder_take_turns(ibm, tmp_path):
    """Two ingests of the whole tree into one folder at once (two notebooks opened together):
    the second waits for the first's lock and then finds everything up to date, instead of
    both parsing and swapping monitor/ under each other."""
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "overhead.cli", "ingest-ibm", str(ibm), "--out", str(out)]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    results = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], results
    said = [stdout for stdout, _ in results]
    assert sum("nothing changed" in s for s in said) == 1, said
    # (76,930: the 158 files' rows, the LINPACK logs' Performance Summary lines included)
    assert pd.read_parquet(out / "measurements.parquet").shape[0] == 76_930
    assert not [p for p in out.iterdir() if p.name.startswith((".monitor.", ".monitor.old"))]


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.glob("*.*"))}


def test_a_bad_file_leaves_previous_tables_intact(ibm, tmp_path):
    root = tmp_path / "tree"
    rel = "linpack/results/linux.two-socket.interleavedalloc.log"
    (root / rel).parent.mkdir(parents=True)
    shutil.copy(ibm / rel, root / rel)
    out = tmp_path / "out"
    ingest_ibm(root, out, workers=1)
    before = _digest(out)
    # a truncated, corrupted copy: the trial table breaks at line 30
    lines = (ibm / rel).read_text().splitlines(keepends=True)
    lines[29] = "45000  45000  1      2x8.525    291.3511 1.876477e-09 3.301464e-02   pass\n"
    (root / rel).write_text("".join(lines))
    with pytest.raises(ParseError) as err:
        ingest_ibm(root, out, workers=1)
    assert str(err.value).startswith(f"{rel}:30:")
    assert _digest(out) == before
    assert not [p for p in out.iterdir() if p.name.startswith(".monitor.")]


def test_cli_ingest_reports_parse_errors_without_traceback(ibm, tmp_path):
    root = tmp_path / "tree"
    rel = "Stream/results/vm.two-socket.interleavedalloc.log"
    (root / rel).parent.mkdir(parents=True)
    (root / rel).write_text("Function      Rate (GB/s)   Avg time     Min time     Max time\nCopy:  4x.0 1 1 1\n")
    r = subprocess.run([*OVERHEAD, "ingest-ibm", str(root), "--out", str(tmp_path / "o")],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.startswith(f"{rel}:") and "Traceback" not in r.stderr


def test_cli_ingest_missing_tree_says_how_to_get_it(tmp_path):
    r = subprocess.run([*OVERHEAD, "ingest-ibm", str(tmp_path / "nope")], capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert str(tmp_path / "nope") in r.stderr and "scripts/get-ibm-data.sh" in r.stderr


def test_make_demo_with_a_wrong_data_path_says_so(tmp_path):
    """IBM_DATA names a folder that is not there: one line naming it, before anything is built
    (without IBM_DATA and without data, make demo fetches it: tests/ingest/test_get_ibm_data.py)."""
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run(["make", "-s", "--no-print-directory", "ingest", f"IBM_DATA={tmp_path / 'missing'}"],
                       cwd=root, capture_output=True, text=True)
    assert r.returncode != 0
    ours = [line for line in r.stderr.splitlines() if not re.match(r"make(\[\d+\])?: ", line)]
    assert ours == [f"{tmp_path / 'missing'}: not a folder (IBM_DATA)"], r.stderr


def test_summary_table(tidy):
    text = tidy_tables.summary_table(tidy, ALIASES)
    assert "mysql" in text and "Docker NAT AUFS" in text and "KVM-tuned" in text
    assert "qcow2" not in text  # the MySQL KVM runs carry the paper's label
    assert "KVM qcow2,pinned" in tidy_tables.summary_table(tidy)  # generic labels without the aliases
    assert tidy_tables.campaigns(tidy) == ["ibm-rc25482"]
