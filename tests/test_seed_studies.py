"""The three seed studies end to end on the local hosts (make hosts-up): each campaign with its
CI profile measured by the campaign notebook, then the study's notebook run by papermill on it,
writing figures/<study>/ (here: a temporary folder). What a study prints beside the measured
values (the published column) must be what data/reference/<study>.csv says, row for row."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from conftest import papermill_cli, unavailable

from overhead import reference
from overhead.paths import ROOT

pytestmark = pytest.mark.xdist_group("hosts")
CAMPAIGN_NB = ROOT / "notebooks" / "campaign.ipynb"


def _measure_and_report(work, campaign: str, profile: str, notebook: str) -> tuple:
    """Measure the campaign (CI profile, one trial per cell), then run the study notebook."""
    # papermill's own command line, as a user types it (the notebooks name their kernel)
    papermill_cli(CAMPAIGN_NB, work / "campaign.ipynb", campaign=campaign, profile=profile,
                  trials=1, raw=work / "raw", tidy=work / "tidy", retries=1)
    name = next(p.name for p in (work / "tidy").iterdir() if p.is_dir())
    out = work / "figures"
    papermill_cli(ROOT / "notebooks" / notebook, work / notebook, campaign=name,
                  campaign_tidy=work / "tidy", out_dir=out)
    trials = pd.read_parquet(work / "tidy" / name / "trials.parquet")
    return name, out, trials


def _outputs(out, stems) -> None:
    for stem in stems:
        for ext in ("png", "svg", "pdf", "html"):
            assert (out / f"{stem}.{ext}").stat().st_size > 0, (stem, ext)
    page = (out / "report.html").read_text()
    assert page.count("<img") >= len(stems) and "What was measured where" in page


def _published_matches(table: pd.DataFrame, study: str) -> int:
    """Every published value a table carries is the reference file's, at the source it names."""
    pub = reference.published(study)
    rows = table[table["published_value"].notna()]
    for _, r in rows.iterrows():
        ref = pub[(pub["source"] == r["published_source"]) & (pub["env"] == r["published_env"])
                  & (pub["metric"] == r["metric_key"])]
        assert len(ref) == 1, (r["metric_key"], r["published_env"], r["published_source"])
        assert float(ref["value_parsed"].iloc[0]) == pytest.approx(r["published_printed"])
        assert ref["unit"].iloc[0] == r["published_printed_unit"]
    return len(rows)


@pytest.fixture(scope="module")
def startup(hosts, tmp_path_factory):
    return _measure_and_report(tmp_path_factory.mktemp("startup"), "data/campaigns/startup.yml",
                               "startup-ci", "seed_startup.ipynb")


@pytest.fixture(scope="module")
def sysbench(hosts, tmp_path_factory):
    return _measure_and_report(tmp_path_factory.mktemp("sysbench"),
                               "data/campaigns/sysbench-suite.yml", "sysbench-suite-ci",
                               "seed_sysbench.ipynb")


@pytest.fixture(scope="module")
def fsync(hosts, tmp_path_factory):
    return _measure_and_report(tmp_path_factory.mktemp("fsync"), "data/campaigns/fsync.yml",
                               "fsync-ci", "seed_fsync.ipynb")


def test_startup_measures_every_case_and_sets_the_seed_beside(startup):
    _, out, trials = startup
    assert (trials["status"] == "done").all(), trials.loc[trials["status"] != "done", "cause"]
    times = pd.read_csv(out / "times.csv")
    assert (times["runs"] > 0).all(), times.loc[times["runs"] == 0, "case"]
    t = times.set_index("case")
    for case in ("unshare -n true", "unshare -i true"):
        assert t.loc[case, "median_low"] <= t.loc[case, "median_ms"] <= t.loc[case, "median_high"]
        assert 0.05 < t.loc[case, "median_ms"] < 100
    # the seed's 2022 values (1.5 ms, 0.1 ms) beside ours, with their lines
    assert "kernel 5.19.15: 1.5 ms" in t.loc["unshare -n true", "seed"]
    assert "kernel 5.19.15: 0.1 ms" in t.loc["unshare -i true", "seed"]
    assert "seeds/001_fe65e62f3c453053.txt:111" in t.loc["unshare -n true", "seed_source"]
    # the VM boot is labelled by what it ran under, never called KVM when TCG ran
    assert t.loc["VM power-on to SSH", "accelerator"] in ("tcg", "kvm")
    sec = pd.read_csv(out / "seccomp.csv")
    assert set(sec["runtime"]) == {"crun", "runc"}
    assert sec["with_seccomp_ms"].notna().all() and sec["without_ms"].notna().all()
    crun = sec[(sec["runtime"] == "crun") & sec["quantity"].str.startswith("user")].iloc[0]
    assert "38.9 ms" in crun["seed"] and "12.6 ms" in crun["seed"]
    _outputs(out, ["medians", "ecdf_namespaces", "ecdf_containers"])
    page = (out / "report.html").read_text()
    assert "crun-from-the-future" in page  # what could not be done here is said


def test_startup_published_column_is_the_reference_file(startup):
    """Each 'env: value unit' the times table prints is the reference row at its source."""
    _, out, _ = startup
    pub = reference.published("startup")
    times = pd.read_csv(out / "times.csv").dropna(subset=["seed"])
    checked = 0
    for _, r in times.iterrows():
        sources = r["seed_source"].split("; ")
        for part, source in zip(r["seed"].split("; "), sources, strict=True):
            env, value, unit = re.fullmatch(r"(.*): (\S+) (\S+)", part).groups()
            ref = pub[(pub["source"] == source) & (pub["env"] == env)
                      & pub["metric"].str.endswith("wall time mean")]
            assert len(ref) == 1 and float(ref["value_parsed"].iloc[0]) == float(value), part
            assert ref["unit"].iloc[0] == unit
            checked += 1
    assert checked >= 10


def test_sysbench_suite_every_seed_metric_has_a_measured_counterpart(sysbench):
    _, out, trials = sysbench
    assert (trials["status"] == "done").all(), trials.loc[trials["status"] != "done",
                                                           ["env_name", "benchmark", "cause"]]
    cov = pd.read_csv(out / "coverage.csv")
    for env in ("native", "vm"):
        missing = cov[(cov["env_name"] == env) & (cov["n"] == 0)]
        assert missing.empty, missing
    docker = cov[cov["env_name"] == "docker-nat"]
    # a container has no block device for hdparm, as the seed's LXC row has none
    assert set(docker.loc[docker["n"] == 0, "seed metric"]) == {
        "cached reads: MB/sec", "buffered disk reads: MB/sec"}
    metrics = pd.read_csv(out / "metrics.csv")
    assert metrics["mean"].notna().all()
    assert _published_matches(metrics, "sysbench_suite") > 40
    fs = pd.read_csv(out / "filesystems.csv")
    assert set(fs["environment"]) == {"ext4", "xfs", "btrfs"}
    assert _published_matches(fs, "sysbench_suite") >= 12
    _outputs(out, ["cpu", "memory-seq", "memory-rnd", "threads-mutex", "fileio", "hdparm", "nginx",
                   "filesystems"])


def test_fsync_every_environment_and_the_decomposition(fsync):
    _, out, trials = fsync
    assert (trials["status"] == "done").all(), trials.loc[trials["status"] != "done",
                                                           ["env_name", "benchmark", "cause"]]
    methods = pd.read_csv(out / "methods.csv")
    fd = methods[methods["method"] == "fdatasync"].set_index("env_name")
    assert set(fd.index) == {"native", "docker-volume", "docker-overlay", "vm", "vm-writeback",
                             "vm-nfs-disk", "vm-nfs-mount"}
    assert (fd["mean"] > 0).all()
    # the seed's 11,869 / 1,342 / 759 ops/s beside native, the NFS mount and the VM on NFS
    assert fd.loc["native", "published_value"] == pytest.approx(11868.601)
    assert fd.loc["vm-nfs-mount", "published_value"] == pytest.approx(1341.710)
    assert fd.loc["vm-nfs-disk", "published_value"] == pytest.approx(759.011)
    assert _published_matches(methods, "fsync") >= 12
    dec = pd.read_csv(out / "decomposition.csv").set_index("part")
    assert dec.loc["device", "seed_us"] == pytest.approx(1e6 / 1336.481 - 500, abs=0.01)
    assert dec.loc["virtualization", "seed_us"] == pytest.approx(1e6 / 813.548 - 1e6 / 1336.481,
                                                                  abs=0.01)
    for part in ("device", "virtualization", "NFS under the VM's disk",
                 "total: VM with its image on NFS"):
        assert pd.notna(dec.loc[part, "us"]), part
    _outputs(out, ["methods", "decomposition"])


def test_the_report_index_lists_every_report_with_its_title(tmp_path):
    from overhead.seeds import index

    for name, title in (("rc25482", "RC25482 rebuilt"), ("fsync", "fsync &amp; NFS")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "report.html").write_text(f"<html><head><title>{title}</title>")
    (tmp_path / "other").mkdir()  # a folder without a report is not listed
    page = index.write(tmp_path).read_text()
    assert "href='rc25482/report.html'>RC25482 rebuilt</a>" in page
    assert "href='fsync/report.html'>fsync &amp; NFS</a>" in page
    assert "other/" not in page


@pytest.mark.parametrize("which", ["startup", "sysbench", "fsync"])
def test_a_seed_study_publishes_with_its_raw_tree_hashed(which, request, tmp_path):
    """`overhead publish` on what the study wrote: the bundle, and every raw file's hash."""
    import hashlib
    import json
    import zipfile

    from overhead import publish
    from overhead.errors import DataNotFound

    try:
        publish.find_chromium()
    except DataNotFound as exc:
        unavailable(str(exc))
    name, out, _ = request.getfixturevalue(which)
    study = {"startup": "startup", "sysbench": "sysbench_suite", "fsync": "fsync"}[which]
    work = out.parent
    st = publish.study(out, name=study, campaign=name, tidy=work / "tidy", raw=work / "raw")
    # the CI profile renames the campaign (<name>-<profile>): its YAML is the copy in its raw tree
    assert st.kind == "seed" and st.campaign_file is not None and st.campaign_file.is_file()
    bundle = publish.publish(st, tmp_path / "dist")
    m = json.loads((bundle.folder / "manifest.json").read_text())
    assert m["not_found"] == [] and m["contents"]["report_pdf_pages"] >= 1
    figures = sorted(p.stem for p in out.glob("*.svg"))
    assert figures and m["contents"]["figures"] == figures
    for stem in figures:
        for fmt in ("pdf", "svg"):
            assert (bundle.folder / "figures" / f"{stem}.{fmt}").is_file()
    for csv in out.glob("*.csv"):
        for fmt in ("md", "tex"):
            assert (bundle.folder / "tables" / f"{csv.stem}.{fmt}").stat().st_size > 0
    raw = work / "raw" / name
    inputs = m["data"]["inputs"]
    assert {f["path"] for f in inputs["files"]} == {
        p.relative_to(raw).as_posix() for p in raw.rglob("*") if p.is_file()}
    for f in inputs["files"][:50]:
        assert f["sha256"] == hashlib.sha256((raw / f["path"]).read_bytes()).hexdigest()
    assert inputs["provenance_checked"] > 0
    assert inputs["provenance_mismatched"] == [] and inputs["provenance_missing"] == []
    assert m["tools"] and m["data"]["reference"]["path"].endswith(f"reference/{study}.csv")
    with zipfile.ZipFile(bundle.zip) as z:
        assert len(z.namelist()) == bundle.files
