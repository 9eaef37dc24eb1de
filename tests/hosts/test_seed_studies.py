"""The three seed studies end to end on the local hosts (make hosts-up): each campaign with its
CI profile measured by the campaign notebook, then the study's notebook run by papermill on it,
writing figures/<study>/ (here: a temporary folder). What a study prints beside the measured
values (the published column) must be what data/reference/<study>.csv says, row for row, and
every comparison it prints carries a verdict that its printed interval and margin give.

The studies' comparison machinery (overhead.seeds._common: compare, decided, display) is also
tested without the hosts, on real data: the authors' Linpack trials and hyperfine's genuine
outputs in tests/fixtures, against Fieller's interval computed here and margins.yml read here.
"""

from __future__ import annotations

import fnmatch
import math
import re

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import FIXTURES, SHARED_ISOLATION, papermill_cli, unavailable
from scipy import stats as sps
from verdict_audit import audit

from overhead import reference, stats
from overhead.paths import ROOT
from overhead.seeds import containers

pytestmark = pytest.mark.xdist_group("hosts")
CAMPAIGN_NB = ROOT / "notebooks" / "campaign.ipynb"


def _measure_and_report(work, campaign: str, profile: str, notebook: str,
                        study_params: dict | None = None) -> tuple:
    """Measure the campaign (CI profile, one trial per cell), then run the study notebook.

    The notebook gets the campaign's name, or ``study_params`` instead (containers-2026's
    takes its file and profile: it reads the campaign's judges).
    """
    # papermill's own command line, as a user types it (the notebooks name their kernel)
    papermill_cli(CAMPAIGN_NB, work / "campaign.ipynb", campaign=campaign, profile=profile,
                  trials=1, raw=work / "raw", tidy=work / "tidy", retries=1,
                  isolation=SHARED_ISOLATION)  # beside the other pytest worker
    name = next(p.name for p in (work / "tidy").iterdir() if p.is_dir())
    out = work / "figures"
    papermill_cli(ROOT / "notebooks" / notebook, work / notebook,
                  **(study_params or {"campaign": name}), campaign_tidy=work / "tidy", out_dir=out)
    trials = pd.read_parquet(work / "tidy" / name / "trials.parquet")
    return name, out, trials


def _outputs(out, stems) -> None:
    for stem in stems:
        for ext in ("png", "svg", "pdf", "html"):
            assert (out / f"{stem}.{ext}").stat().st_size > 0, (stem, ext)
    page = (out / "report.html").read_text()
    assert page.count("<img") >= len(stems) and "What was measured where" in page
    # the report says how its verdicts are decided, with the margins and their reasons, and
    # never calls a difference not shown "no significant difference"
    assert "How each comparison is decided" in page and "margins.yml" in page
    assert "no significant difference" not in page.lower()
    # and every table it wrote: no verdict contradicts the interval beside it
    checked, problems = audit(out)
    assert checked > 0 and problems == [], problems


def _verdicts_hold(table: pd.DataFrame) -> int:
    """Every comparison row of a written table has a verdict its interval and margin give.

    With one trial on a side (the CI profiles measure one trial per cell) there is no interval:
    such a row says "not tested" and why. Returns the number of comparison rows checked.
    """
    assert stats.check_verdicts(table) == []
    rows = table[table["verdict"].notna() & (table["verdict"] != "baseline")]
    for _, r in rows.iterrows():
        assert r["verdict"] in stats.VERDICTS, r["verdict"]
        assert r["verdict_detail"].startswith(r["verdict"])
        if min(r["n"], r["n_baseline"]) < 2:
            assert r["verdict"] == "not tested" and "n=" in r["verdict_detail"], r["verdict_detail"]
        elif r["verdict"] == "not tested":  # e.g. no variance on either side: it says so
            assert len(r["verdict_detail"]) > len("not tested: "), r["verdict_detail"]
        else:
            assert f"n={int(r['n'])}/{int(r['n_baseline'])}" in r["verdict_detail"]
        assert pd.notna(r["margin_low_pct"]) and pd.notna(r["margin_high_pct"])
    return len(rows)


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


@pytest.fixture(scope="module")
def containers_2026(hosts, tmp_path_factory):
    return _measure_and_report(tmp_path_factory.mktemp("containers"),
                               "data/campaigns/containers-2026.yml", "containers-ci",
                               "containers.ipynb", {"campaign": "data/campaigns/containers-2026.yml",
                                                    "profile": "containers-ci"})


def test_containers_2026_every_environment_the_rootless_network_and_what_carries_it(
        containers_2026):
    """containers-2026 (CI profile: PXZ, netperf TCP_RR, nuttcp, fio randread, iperf3 and the
    start-up cases, one trial each) measured and reported by its notebook."""
    name, out, trials = containers_2026
    assert name == "containers-2026-containers-ci"
    assert (trials["status"] == "done").all(), trials.loc[trials["status"] != "done",
                                                           ["env_name", "benchmark", "cause"]]
    measured = trials.groupby("env_name")["benchmark"].agg(set)
    envs = ("native", "docker-host", "docker-nat", "podman-host", "podman-bridge",
            "rootless-slirp4netns", "rootless-pasta", "lxc")
    assert set(measured.index) == set(envs)
    for env in envs:
        assert {"pxz", "netperf", "nuttcp", "fio-rand", "iperf3"} <= measured[env], env
    assert {"docker-run", "podman-run", "podman-run-rootless", "oci-run", "lxc-run"} <= \
        measured["native"]
    # the rootless networks beside Docker's NAT on each network quantity (one trial: no
    # interval, so "not tested" and why)
    net = pd.read_csv(out / "network.csv")
    for env in ("rootless-slirp4netns", "rootless-pasta"):
        mine = net[net["environment"] == env]
        assert set(zip(mine["benchmark"], mine["quantity"], strict=True)) == {
            ("netperf", "latency"), ("iperf3", "goodput"), ("nuttcp", "goodput")}, env
        assert (mine["docker_twin"] == "docker-nat").all()
        assert (mine["docker_verdict"] == "not tested").all()
    # what holds the published ports, read from the host's listening sockets
    carriers = pd.read_csv(out / "forwarders.csv")
    stack = carriers.set_index(carriers["user-mode stack"].fillna("").str.split().str[0])
    assert "rootlessport" in stack.loc["slirp4netns", "ports held on the host by"]
    # pasta runs as passt's binary (passt.avx2 where the CPU has AVX2)
    assert stack.loc["pasta", "ports held on the host by"].startswith(("pasta", "passt"))
    starts = pd.read_csv(out / "startup.csv")
    assert len(starts) == len(containers.CASES) and (starts["runs"] > 0).all(), starts
    _outputs(out, ["medians", "network"])
    page = (out / "report.html").read_text()
    assert "held on the host by rootlessport" in page
    assert page.count("<table") >= 6  # where (two tables for 8 environments) and the sections


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
    # with seccomp against without, per quantity: a verdict on the ratio of means
    assert _verdicts_hold(sec) == 6 and set(sec["baseline"]) == {"without seccomp"}
    # a time is positive: so is its mean's interval
    assert (times["mean_low"].dropna() > 0).all()
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
    for env in ("docker-nat", "lxc"):
        box = cov[cov["env_name"] == env]
        # a container has no block device for hdparm, as the seed's LXC row has none
        assert set(box.loc[box["n"] == 0, "seed metric"]) == {
            "cached reads: MB/sec", "buffered disk reads: MB/sec"}
    # the seed's LXC stands beside our LXC container now, not beside Docker
    assert set(cov.loc[cov["env_name"] == "lxc", "seed counterpart"]) == {"lxc"}
    assert set(cov.loc[cov["env_name"] == "docker-nat", "seed counterpart"]) == {"-"}
    assert cov.loc[cov["env_name"] == "lxc", "seed has a value"].sum() >= 10
    metrics = pd.read_csv(out / "metrics.csv")
    assert metrics["mean"].notna().all()
    assert _published_matches(metrics, "sysbench_suite") > 40
    assert _verdicts_hold(metrics) > 40
    assert "welch_p_holm" not in metrics
    # the seed's claims of sameness for CPU and memory give their rows a +-3% margin
    cpu = metrics[(metrics["item"] == "cpu: total time") & (metrics["environment"] != "Native")]
    assert (cpu["margin_high_pct"] == 3).all() and cpu["margin_reason"].str.contains(
        "seeds/004_ebce3edf54acc11d.txt:256").all()
    threads = metrics[metrics["item"] == "threads: total time"]
    assert (threads["margin_high_pct"].dropna() == _margin_pct(
        study="sysbench_suite", benchmark="threads", metric="total_time",
        item="threads: total time")).all()
    fs = pd.read_csv(out / "filesystems.csv")
    assert set(fs["environment"]) == {"ext4", "xfs", "btrfs"}
    assert _published_matches(fs, "sysbench_suite") >= 12
    assert _verdicts_hold(fs) >= 12 and set(fs["baseline"]) == {"ext4"}
    _outputs(out, ["cpu", "memory-seq", "memory-rnd", "threads-mutex", "fileio", "hdparm", "nginx",
                   "filesystems"])


def test_sysbench_suite_draws_the_latency_distribution_wrk2_printed(sysbench):
    """nginx-latency (wrk2 at a constant rate, -L): every environment's whole HdrHistogram
    reaches the latency CDF, line for line as wrk2 printed it, and its percentiles are compared
    with native (issue 45: the spectrum's CDF in the web notebook)."""
    from overhead.runners import read_trial

    _, out, trials = sysbench
    spectrum = pd.read_csv(out / "latency_spectrum.csv")
    assert set(spectrum["env_name"]) == {"native", "lxc", "docker-nat", "vm"}
    # one native trial, read again from its raw output: the same lines, the same values
    run_id = spectrum.loc[spectrum["env_name"] == "native", "run_id"].iloc[0]
    raw = out.parent / "raw" / run_id  # campaign/environment/benchmark/trial
    text = (raw / "output").read_text()
    lines = re.findall(r"^\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+(?:[\d.]+|inf)$", text, re.M)
    mine = spectrum[spectrum["run_id"] == run_id]
    assert len(mine) == len(lines) >= 10
    assert sorted(mine["latency_ms"]) == pytest.approx(sorted(float(v) for v, _, _ in lines))
    assert sorted(mine["count"]) == sorted(float(c) for _, _, c in lines)
    assert read_trial(raw).ok
    lat = pd.read_csv(out / "latency.csv")
    assert set(lat["item"]) == {f"nginx + wrk2: {p:g}th percentile latency"
                                for p in (50.0, 90.0, 99.0, 99.9)}
    assert _verdicts_hold(lat) == 12  # 3 environments x 4 percentiles against native
    assert (out / "latency_cdf.png").stat().st_size > 10_000
    assert "nginx latency at a constant rate" in (out / "report.html").read_text()


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
    assert _verdicts_hold(methods) == 4 * 6  # 4 methods, 6 environments against native
    dec = pd.read_csv(out / "decomposition.csv").set_index("part")
    assert dec.loc["device", "seed_us"] == pytest.approx(1e6 / 1336.481 - 500, abs=0.01)
    assert dec.loc["virtualization", "seed_us"] == pytest.approx(1e6 / 813.548 - 1e6 / 1336.481,
                                                                  abs=0.01)
    for part in ("device", "virtualization", "NFS under the VM's disk",
                 "total: VM with its image on NFS"):
        assert pd.notna(dec.loc[part, "us"]), part
    # the two steps that compare environments carry their verdict; the other parts none
    assert _verdicts_hold(dec.reset_index()) == 2
    assert dec.loc["virtualization", "baseline"] == "native"
    assert dec["verdict"].notna().sum() == 2
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


# ---- the comparison machinery on real data, without the hosts ----------------------------------

MARGINS = yaml.safe_load((ROOT / "data" / "reference" / "margins.yml").read_text())


def _margin_pct(**fields) -> float:
    """The margin (percent) margins.yml gives a comparison, looked up here: the first rule one
    of whose alternatives names only given fields and matches each (fnmatch, any case), else
    the default."""
    for rule in MARGINS["rules"]:
        for alt in rule["match"]:
            if all(f in fields and any(fnmatch.fnmatchcase(str(fields[f]).lower(), p.lower())
                                       for p in pats) for f, pats in alt.items()):
                return rule["margin_pct"]
    return MARGINS["default"]["margin_pct"]


def _fieller(x, y, level: float = 0.95) -> tuple[float, float]:
    """Fieller's interval of mean(x) / mean(y), independent samples, Welch-Satterthwaite df."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    a, b = x.mean(), y.mean()
    va, vb = x.var(ddof=1) / x.size, y.var(ddof=1) / y.size
    r = a / b
    df = (va + r * r * vb) ** 2 / (va ** 2 / (x.size - 1) + (r * r * vb) ** 2 / (y.size - 1))
    t = sps.t.ppf(0.5 + level / 2, df)
    big_a, big_b, big_c = b * b - t * t * vb, a * b, a * a - t * t * va
    root = math.sqrt(big_b * big_b - big_a * big_c)
    return (big_b - root) / big_a, (big_b + root) / big_a


def _hyperfine(name: str, **where) -> np.ndarray:
    """Every run's wall time (ms) of a genuine hyperfine JSON export in tests/fixtures."""
    from overhead.parsers import hyperfine

    rows = hyperfine.parse((FIXTURES / "hyperfine" / name).read_text(), name)
    rows = rows[rows["metric"] == "wall_time"]
    for column, value in where.items():
        rows = rows[rows[column] == value]
    return rows["value"].to_numpy(dtype=float) * 1e3


def _default_margin():
    from overhead.seeds import _common

    m = _common.margin_of("startup", benchmark="oci-run", metric="wall_time")
    pct = _margin_pct(study="startup", benchmark="oci-run", metric="wall_time")
    assert pct == MARGINS["default"]["margin_pct"]  # the seed claims no sameness here
    assert (m.low_pct, m.high_pct) == (-pct, pct)
    return m


def test_decided_sleep_twice_as_long_is_slower_beyond_the_margin():
    """sleep 0.02 against sleep 0.01, 5 runs each (one hyperfine run, sleep_scan.json)."""
    from overhead.seeds import _common

    x = _hyperfine("sleep_scan.json", p_command="sleep 0.02")
    y = _hyperfine("sleep_scan.json", p_command="sleep 0.01")
    v = _common.decided(x, y, _default_margin(), higher_is_better=False, baseline="sleep 0.01")
    low, high = _fieller(x, y)
    assert (v["n"], v["n_baseline"]) == (5, 5)
    assert v["ratio"] == pytest.approx(x.mean() / y.mean())
    assert (v["ratio_low"], v["ratio_high"]) == pytest.approx((low, high), rel=1e-9)
    assert low > 1 + MARGINS["default"]["margin_pct"] / 100  # the whole interval beyond +5%
    assert (v["verdict"], v["beyond_margin"]) == ("slower", True)
    assert v["verdict_detail"] == (f"slower: {100 * (x.mean() / y.mean() - 1):+.1f}% "
                                   f"[{100 * (low - 1):+.1f}%, {100 * (high - 1):+.1f}%] "
                                   "(95% CI, n=5/5), beyond the \u00b15% margin")


def test_decided_the_same_command_two_days_apart_is_equivalent_not_the_same():
    """sleep 0.01 measured on 2026-11-24 (export_sleep_true.json) against 2026-11-22
    (sleep_scan.json): 11.47 ms against 11.21 ms, a difference the interval shows (it excludes
    1) but smaller than the margin: equivalent within +-5%, and the words say both."""
    from overhead.seeds import _common

    x = _hyperfine("export_sleep_true.json", p_command="sleep 0.01")
    y = _hyperfine("sleep_scan.json", p_command="sleep 0.01")
    v = _common.decided(x, y, _default_margin(), higher_is_better=False, baseline="11-22")
    low, high = _fieller(x, y)
    assert (v["ratio_low"], v["ratio_high"]) == pytest.approx((low, high), rel=1e-9)
    assert 1 < low and high < 1 + MARGINS["default"]["margin_pct"] / 100
    assert v["verdict"] == "equivalent" and v["p_equivalence"] < 0.025
    assert v["verdict_detail"].endswith("lies inside the margin (a difference smaller than the margin)")


def test_decided_a_noisy_start_up_time_is_inconclusive_and_says_what_would_decide_it():
    """`true` with hyperfine -N, 10 runs (true_shell_none_runs10.json): the first five against
    the last five. The runs spread from 0.3 to 9 ms: the interval holds no difference and
    differences far beyond the margin."""
    from overhead.seeds import _common

    runs = _hyperfine("true_shell_none_runs10.json")
    assert runs.size == 10
    x, y = runs[:5], runs[5:]
    v = _common.decided(x, y, _default_margin(), higher_is_better=False, baseline="runs 6-10")
    assert v["ratio_low"] < 1 < v["ratio_high"]
    assert v["verdict"] == "inconclusive" and v["trials_needed"] > 5
    assert v["verdict_detail"].endswith(
        f"about {v['trials_needed']} trials per side would decide it at this variance")
    assert "no significant difference" not in v["verdict_detail"]


def test_decided_one_run_is_not_tested_but_keeps_its_point_ratio():
    from overhead.seeds import _common

    one = _hyperfine("true_single_run.json")
    ten = _hyperfine("true_shell_none_runs10.json")
    v = _common.decided(one, ten, _default_margin(), higher_is_better=False, baseline="10 runs")
    assert (v["n"], v["n_baseline"], v["verdict"]) == (1, 10, "not tested")
    assert v["verdict_detail"].startswith("not tested: n=1, 10")
    assert v["ratio"] == pytest.approx(one[0] / ten.mean())
    assert np.isnan(v["ratio_low"]) and np.isnan(v["ratio_high"])


@pytest.fixture(scope="module")
def linpack(ibm_tidy):
    """The authors' Linpack GFLOP/s, 10 trials per environment (the block-complete rows)."""
    from overhead import tidy

    rows = tidy.load(ibm_tidy)
    return rows[(rows["benchmark"] == "linpack") & (rows["metric"] == "flop_rate")
                & rows["p_block_complete"].eq(True).fillna(False).astype(bool)]


def test_compare_and_display_on_the_authors_linpack(linpack, tmp_path):
    """A study's comparison table: every verdict the one its printed interval and margin give."""
    from overhead.campaign.results import Results
    from overhead.seeds import _common

    margin = _common.margin_of("rc25482", benchmark="linpack")
    assert margin.high_pct == _margin_pct(study="rc25482", benchmark="linpack") == 3
    table = _common.compare(linpack, "Linpack", "GFLOP/s", 1e9, baseline="Native", margin=margin)
    assert list(table["environment"]) == ["Native", "Docker", "KVM-untuned", "KVM-tuned"]
    assert stats.check_verdicts(table) == []
    native = linpack[linpack["label"] == "Native"]["value"].to_numpy() / 1e9
    t = table.set_index("environment")
    for env in ("Docker", "KVM-untuned", "KVM-tuned"):
        x = linpack[linpack["label"] == env]["value"].to_numpy() / 1e9
        low, high = _fieller(x, native)
        assert (t.loc[env, "n"], t.loc[env, "n_baseline"]) == (10, 10)
        assert (t.loc[env, "pct_low"], t.loc[env, "pct_high"]) == pytest.approx(
            (100 * (low - 1), 100 * (high - 1)), rel=1e-9)
    # read off the trials: Docker +0.0% [-0.3, +0.4] and KVM tuned -2.3% [-2.7, -1.9] inside
    # RC25482's +-3%, KVM untuned -55.2% [-57.1, -53.3] beyond it
    assert list(t["verdict"]) == ["baseline", "equivalent", "slower", "equivalent"]
    words = _common.display(table).set_index("environment")
    assert list(words.columns) == ["item", "n", "mean [95% CI]", "vs Native [95% CI of the ratio]",
                                   "margin", "verdict"]
    assert words.loc["KVM-untuned", "vs Native [95% CI of the ratio]"] == "-55.2% [-57.1, -53.3]"
    assert words.loc["KVM-untuned", "margin"] == "\u00b13%"
    assert words.loc["KVM-untuned", "verdict"] == "slower, beyond the margin"
    assert words.loc["KVM-tuned", "verdict"] == "equivalent"
    assert words.loc["Native", "verdict"] == "baseline"
    # a GFLOP/s is positive: so is every mean's interval
    assert (table["ci_low"] > 0).all()
    # written: the CSV keeps every column, the Markdown says it in words
    study = _common.Study("rc25482", Results("linpack", tmp_path, tmp_path, linpack,
                                             pd.DataFrame(), pd.DataFrame()), pd.DataFrame())
    _common.write_table(study, "linpack", table)
    back = pd.read_csv(tmp_path / "linpack.csv")
    assert stats.check_verdicts(back) == [] and "welch_p_holm" not in back
    assert audit(tmp_path) == (4, [])  # the CSV's 4 verdicts (baseline included) agree
    md = (tmp_path / "linpack.md").read_text()
    assert "slower, beyond the margin" in md and "-55.2% [-57.1, -53.3]" in md
    assert _common.margins_used([table]) == [f"\u00b13%: {margin.reason}"]
    # the HTML figure's hover box gives each bar's verdict in words
    from overhead import plots

    fig = _common.hover_verdicts(plots.plotly_bars(table, "Linpack"), table)
    hover = {tr.x[0]: tr.hovertemplate for tr in fig.data}
    assert t.loc["KVM-untuned", "verdict_detail"] in hover["KVM-untuned"]


def test_compare_without_the_baseline_says_not_tested(linpack):
    from overhead.seeds import _common

    docker_only = linpack[linpack["label"].isin(["Docker", "KVM-tuned"])]
    table = _common.compare(docker_only, "Linpack", "GFLOP/s", 1e9, baseline="Native",
                            margin=_common.margin_of("rc25482", benchmark="linpack"))
    assert set(table["verdict"]) == {"not tested"}
    assert set(table["verdict_detail"]) == {"not tested: no 'Native' rows to compare with"}
    assert table["ratio_low"].isna().all()
