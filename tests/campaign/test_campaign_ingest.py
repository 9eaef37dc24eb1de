"""overhead.campaign.ingest: a campaign's raw tree -> tidy tables, incrementally.

The raw trees are built from genuine trial directories that the real runners write here
(sysbench cpu, fio randread, and a fio run that fails), made once per test module, plus the
trial.json, facts and manifest files the campaign engine writes beside them.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from overhead import tidy
from overhead.campaign import ingest as ci
from overhead.errors import InputError, ParseError

ROOT = Path(__file__).resolve().parents[2]
CAMPAIGN = "smoke"

pytestmark = pytest.mark.xdist_group("campaign-ingest")

#: environment -> (kind, tidy environment, variant)
ENVIRONMENTS = {
    "native": ("native", "native", None),
    "docker-nat": ("docker", "docker", "net=nat,storage=overlay,runtime=runc"),
    "vm": ("vm", "vm", "untuned,accel=tcg"),
}
FACTS = {
    "native": {"kernel": "Linux 6.1.0-host", "cpu_model": "Test CPU", "cores": 2, "hugepages": "no",
               "docker_version": None, "accelerator": None},
    "docker-nat": {"kernel": "Linux 6.1.0-host", "cpu_model": "Test CPU", "cores": 2,
                   "docker_version": "24.0.7", "docker_storage_driver": "overlay2",
                   "docker_network_mode": "bridge"},
    "vm": {"kernel": "Linux 6.1.0-guest", "cpu_model": "QEMU Virtual CPU", "cores": 2,
           "qemu_version": "7.2.9", "accelerator": "tcg", "accel_reason": "no /dev/kvm",
           "vcpu_pinning": "none", "hugepages": "no"},
}


def _need(tool: str) -> None:
    """Skip without the tool on a user's machine; fail in CI, where it must be installed."""
    if shutil.which(tool):
        return
    msg = f"{tool} is not installed (make debian installs it)"
    if os.environ.get("CI") == "true":
        pytest.fail(msg)
    pytest.skip(msg)


def _run(runner: str, out: Path, *args: str, expect: int = 0) -> Path:
    """Run a real runner into ``out``."""
    done = subprocess.run(["sh", str(ROOT / "runners" / f"{runner}.sh"), str(out), *args],
                          capture_output=True, text=True)
    assert done.returncode == expect, done.stderr
    return out


@pytest.fixture(scope="module")
def genuine(tmp_path_factory) -> dict[str, Path]:
    """Trial directories written by the real runners on this machine (once per module)."""
    _need("sysbench")
    _need("fio")
    base = tmp_path_factory.mktemp("genuine")
    return {
        "sysbench": _run("sysbench", base / "sysbench", "test=cpu", "time=1", "threads=1"),
        "fio": _run("fio", base / "fio", "rw=randread", "bs=4k", "size=4m", "runtime=1"),
        # a tool that fails: the runner keeps its trial, exit status 1, stderr
        "fio-failed": _run("fio", base / "fio-failed", "rw=randread", "bs=4k", "size=4m", "runtime=1",
                           "ioengine=nonexistent", expect=1),
    }


def add_trial(raw: Path, source: Path, env: str, bench: str, tid: str, rnd: int, *,
              status: str = "done", noise_flags=()) -> Path:
    """Copy a genuine trial into the raw tree with the trial.json the controller writes."""
    kind, tidy_env, variant = ENVIRONMENTS[env]
    d = raw / env / bench / tid
    d.mkdir(parents=True)
    for name in ("meta", "output", "stderr"):
        shutil.copyfile(source / name, d / name)
    (d / "trial.json").write_text(json.dumps({
        "id": tid, "campaign": raw.name, "environment": env, "kind": kind,
        "tidy_environment": tidy_env, "variant": variant, "host": "local", "benchmark": bench,
        "runner": bench.split("-")[0], "params": {}, "cell": f"c-{env}-{bench}", "round": rnd,
        "position": rnd * 10, "warmup": rnd == 0, "previous": None, "attempt": 1, "status": status,
        "started_at": "2026-11-23T10:00:00.000000Z", "finished_at": "2026-11-23T10:00:02.500000Z",
        "duration_s": 2.5,
        "noise": {"before": {"load1": 0.25, "pswpin": 0, "pswpout": 0, "throttle": None},
                  "after": {"load1": 1.5, "pswpin": 3, "pswpout": 0, "throttle": None}},
        "noise_flags": list(noise_flags)}, indent=1))
    return d


def write_facts(raw: Path) -> None:
    """Write facts/<environment>.json for every environment."""
    (raw / "facts").mkdir(parents=True, exist_ok=True)
    for env, (kind, tidy_env, variant) in ENVIRONMENTS.items():
        facts = {"environment": env, "kind": kind, "tidy_environment": tidy_env, "variant": variant,
                 "host": "local", **FACTS[env], "git_sha": "a" * 40, "campaign_hash": "sha256:" + "b" * 64}
        (raw / "facts" / f"{env}.json").write_text(json.dumps(facts, indent=1))


def manifest(raw: Path, records: list[dict], tail: str = "") -> None:
    """Write manifest.jsonl: one JSON object per line, then ``tail`` (a torn record, say)."""
    with open(raw / ci.MANIFEST, "w") as fh:
        for rec in records:
            fh.write(json.dumps(rec) + "\n")
        fh.write(tail)


def done_records(raw: Path) -> list[dict]:
    """The running and done records of every trial directory of the raw tree."""
    recs = []
    for d in sorted(raw.glob("*/*/t-*")):
        env, bench, tid = d.parts[-3:]
        rnd = json.loads((d / "trial.json").read_text())["round"]
        common = {"trial": tid, "environment": env, "benchmark": bench, "round": rnd, "host": "local"}
        recs += [{"ts": "2026-11-23T10:00:00.000000Z", "state": "running", "attempt": 1, **common},
                 {"ts": "2026-11-23T10:00:03.000000Z", "state": "done", "attempt": 1, **common}]
    return recs


@pytest.fixture
def raw(tmp_path, genuine) -> Path:
    """A raw tree: sysbench on native (rounds 0-2) and docker, fio on the VM, a failed fio."""
    raw = tmp_path / "raw" / CAMPAIGN
    for rnd in range(3):
        add_trial(raw, genuine["sysbench"], "native", "sysbench-cpu", f"t-sbnative{rnd}", rnd)
    add_trial(raw, genuine["sysbench"], "docker-nat", "sysbench-cpu", "t-sbdocker0", 1, noise_flags=["load"])
    add_trial(raw, genuine["fio"], "vm", "fio-randread", "t-fiovm0", 1)
    add_trial(raw, genuine["fio-failed"], "vm", "fio-randread", "t-fiovmbad", 2, status="failed")
    write_facts(raw)
    manifest(raw, done_records(raw))
    return raw


def rerun(d: Path, output: str | None = None) -> None:
    """Replace a trial directory as the controller does when a trial runs again.

    The new trial is assembled under ``<id>.partial`` (a copy, with ``output`` as its output
    when given) and renamed into place: a new directory with a new meta file.
    """
    partial = d.with_name(d.name + ".partial")
    shutil.copytree(d, partial)
    if output is not None:
        (partial / "output").write_text(output)
    shutil.rmtree(d)
    partial.rename(d)


def _sysbench_rate(path: Path) -> float:
    """The events per second a sysbench cpu report states."""
    return float(re.search(r"events per second:\s+([0-9.]+)", path.read_text()).group(1))


def _fio_iops(path: Path) -> float:
    """The read IOPS of a fio JSON report (fio may print notes before the document)."""
    text = path.read_text()
    return json.loads(text[text.index("{"):])["jobs"][0]["read"]["iops"]


def _mtimes(folder: Path) -> dict[str, int]:
    """File name -> mtime_ns of the part files of a table folder."""
    return {p.name: p.stat().st_mtime_ns for p in folder.glob("part-*.parquet")}


def test_rows_carry_the_campaigns_context(raw, tmp_path, genuine):
    out = tmp_path / "tidy"
    r = ci.ingest_campaign(raw, out)
    assert (r.trials_total, r.trials_read, r.failed, r.unparsed) == (6, 6, 1, 0)
    assert r.full_rebuild and r.reason == "no previous ingest" and not r.unchanged
    df = tidy.load(out)
    assert r.rows == len(df) > 0
    per_run = df.groupby("run_id").size()
    sysbench_rows = per_run[f"{CAMPAIGN}/native/sysbench-cpu/t-sbnative0"]
    assert set(per_run.index) == {f"{CAMPAIGN}/{k}" for k in (
        "native/sysbench-cpu/t-sbnative0", "native/sysbench-cpu/t-sbnative1", "native/sysbench-cpu/t-sbnative2",
        "docker-nat/sysbench-cpu/t-sbdocker0", "vm/fio-randread/t-fiovm0")}  # the failed trial has no rows
    assert per_run[f"{CAMPAIGN}/docker-nat/sysbench-cpu/t-sbdocker0"] == sysbench_rows
    assert (df["campaign"] == CAMPAIGN).all() and (df["host"] == "local").all()

    sb = df[df["run_id"] == f"{CAMPAIGN}/native/sysbench-cpu/t-sbnative0"]
    assert set(sb["benchmark"]) == {"sysbench-cpu"}  # the campaign's name, not the tool's
    assert set(sb["environment"]) == {"native"} and sb["variant"].isna().all()
    assert set(sb["trial"]) == {0} and set(sb["warmup"]) == {True}
    assert set(sb["p_threads"]) == {1} and set(sb["p_test"]) == {"cpu"}
    rate = sb.loc[sb["metric"] == "event_rate", "value"]
    assert rate.tolist() == [_sysbench_rate(genuine["sysbench"] / "output")]
    later = df[df["run_id"] == f"{CAMPAIGN}/native/sysbench-cpu/t-sbnative2"]
    assert set(later["trial"]) == {2} and set(later["warmup"]) == {False}

    fio = df[df["run_id"] == f"{CAMPAIGN}/vm/fio-randread/t-fiovm0"]
    assert set(fio["environment"]) == {"vm"} and set(fio["variant"]) == {"untuned,accel=tcg"}
    assert set(fio["label"]) == {"QEMU TCG untuned"} and set(fio["p_rw"].dropna()) == {"randread"}
    iops = fio.loc[(fio["metric"] == "iops") & (fio["p_direction"] == "read"), "value"]
    assert iops.tolist() == pytest.approx([_fio_iops(genuine["fio"] / "output")])
    docker = df[df["environment"] == "docker"]
    assert set(docker["variant"]) == {"net=nat,storage=overlay,runtime=runc"}

    # the other functions of overhead.tidy read the folder of parts too
    assert tidy.campaigns(out) == [CAMPAIGN]
    summary = tidy.summary_table(out)
    assert "fio-randread" in summary and "QEMU TCG untuned" in summary
    only_fio = tidy.load(out, where={"p_rw": "randread"})  # a column the sysbench parts lack
    assert set(only_fio["run_id"]) == {f"{CAMPAIGN}/vm/fio-randread/t-fiovm0"}
    assert len(tidy.load(out, "sysbench-cpu", metrics=["event_rate"])) == 4


def test_trials_table(raw, tmp_path, genuine):
    out = tmp_path / "tidy"
    ci.ingest_campaign(raw, out)
    trials = tidy.load(out, table="trials").set_index("trial_id")
    assert len(trials) == 6
    t = trials.loc["t-sbdocker0"]
    assert (t["run_id"], t["env_name"], t["environment"], t["benchmark"]) == (
        f"{CAMPAIGN}/docker-nat/sysbench-cpu/t-sbdocker0", "docker-nat", "docker", "sysbench-cpu")
    assert (t["round"], t["position"], t["status"], t["exit_status"], t["attempt"]) == (1, 10, "done", 0, 1)
    assert t["noise_before_load1"] == 0.25 and t["noise_after_pswpin"] == 3 and t["noise_flags"] == "load"
    assert t["duration_s"] == 2.5 and str(t["finished_at"]) == "2026-11-23 10:00:02.500000+00:00"
    assert t["rows"] > 0 and not t["warmup"]
    assert trials["noise_after_throttle"].isna().all()  # null in trial.json: missing, not 0
    assert pd_isna(trials.loc["t-sbnative0", "noise_flags"])  # no flag: NA, not ""
    bad = trials.loc["t-fiovmbad"]
    assert (bad["status"], bad["exit_status"], bad["rows"]) == ("failed", 1, 0)
    assert "exited with status 1" in bad["cause"] and "failed to load engine" in bad["stderr"]


def pd_isna(value) -> bool:
    """Whether a scalar is missing (pandas' NA)."""
    import pandas as pd

    return bool(pd.isna(value))


def test_provenance_is_joined_with_the_facts(raw, tmp_path, genuine):
    out = tmp_path / "tidy"
    ci.ingest_campaign(raw, out)
    prov = tidy.load(out, table="provenance").set_index("run_id")
    assert prov.index.is_unique and len(prov) == 6  # the failed trial ran too: it has provenance
    vm = prov.loc[f"{CAMPAIGN}/vm/fio-randread/t-fiovm0"]
    assert (vm["accelerator"], vm["qemu_version"], vm["vcpu_pinning"]) == ("tcg", "7.2.9", "none")
    assert vm["tool"] == "fio" and vm["environment"] == "vm" and vm["variant"] == "untuned,accel=tcg"
    assert "accel_reason=no /dev/kvm" in vm["notes"] and "hugepages=no" in vm["notes"] and "cores=2" in vm["notes"]
    assert "runner=fio" in vm["notes"]  # read_trial's notes are kept
    assert vm["git_sha"] == "a" * 40 and vm["campaign_hash"] == "sha256:" + "b" * 64
    # the trial's own meta (measured where it ran) wins over the environment's facts
    meta = dict(line.split("=", 1) for line in (genuine["fio"] / "meta").read_text().splitlines())
    assert vm["kernel"] == meta["kernel"] != FACTS["vm"]["kernel"]
    assert vm["source_file"] == "vm/fio-randread/t-fiovm0/output"
    assert vm["source_sha256"] == hashlib.sha256((genuine["fio"] / "output").read_bytes()).hexdigest()
    docker = prov.loc[f"{CAMPAIGN}/docker-nat/sysbench-cpu/t-sbdocker0"]
    assert (docker["docker_version"], docker["docker_storage_driver"], docker["docker_network_mode"]) == (
        "24.0.7", "overlay2", "bridge")
    assert pd_isna(docker["accelerator"]) and pd_isna(docker["qemu_version"])
    native = prov.loc[f"{CAMPAIGN}/native/sysbench-cpu/t-sbnative1"]
    assert pd_isna(native["docker_version"]) and native["tool"] == "sysbench"


def test_incremental_ingest_reads_only_new_trials(raw, tmp_path, genuine):
    out = tmp_path / "tidy"
    first = ci.ingest_campaign(raw, out)
    parts = _mtimes(out / ci.MEASUREMENTS)
    prov_parts = _mtimes(out / ci.PROVENANCE)
    assert parts and prov_parts.keys() == parts.keys()

    add_trial(raw, genuine["sysbench"], "docker-nat", "sysbench-cpu", "t-sbdocker1", 2)
    add_trial(raw, genuine["fio"], "vm", "fio-randread", "t-fiovm1", 2)
    manifest(raw, done_records(raw))
    second = ci.ingest_campaign(raw, out)
    assert (second.trials_read, second.trials_total, second.full_rebuild) == (2, 8, False)
    assert second.parts_written == 2 and second.parts_removed == 0  # one measurements + one provenance part
    after = _mtimes(out / ci.MEASUREMENTS)
    assert {k: after[k] for k in parts} == parts  # the old parts were not touched
    assert _mtimes(out / ci.PROVENANCE).items() >= prov_parts.items()
    assert len(after) == len(parts) + 1
    assert second.rows == first.rows + second.rows_read

    df = tidy.load(out)
    assert len(df) == second.rows and df.groupby(["run_id", "metric", "source"]).size().max() == 1
    # the same tables as a cold ingest of the whole tree
    cold = ci.ingest_campaign(raw, tmp_path / "cold")
    assert cold.full_rebuild and cold.rows == second.rows
    key = ["run_id", "metric", "source"]
    a = df.sort_values(key).reset_index(drop=True)
    b = tidy.load(tmp_path / "cold").sort_values(key).reset_index(drop=True)
    assert a[key + ["value", "trial", "environment"]].equals(b[key + ["value", "trial", "environment"]])
    ta = tidy.load(out, table="trials").drop(columns="label")
    tb = tidy.load(tmp_path / "cold", table="trials").drop(columns="label")
    assert ta.equals(tb)

    third = ci.ingest_campaign(raw, out)
    assert third.unchanged and third.trials_read == 0 and third.parts_written == 0
    assert (third.trials_total, third.rows, third.failed) == (8, second.rows, 1)
    assert _mtimes(out / ci.MEASUREMENTS) == after

    state = json.loads((out / ci.STATE).read_text())
    assert set(state["trials"]) == {"/".join(d.parts[-3:]) for d in raw.glob("*/*/t-*")}


def test_a_changed_or_removed_trial_is_reingested(raw, tmp_path, genuine):
    out = tmp_path / "tidy"
    ci.ingest_campaign(raw, out)
    run = f"{CAMPAIGN}/native/sysbench-cpu/t-sbnative1"
    trial = raw / "native" / "sysbench-cpu" / "t-sbnative1"
    old_rate = _sysbench_rate(trial / "output")
    rerun(trial, re.sub(r"(events per second:\s+)[0-9.]+", r"\g<1>1234.56", (trial / "output").read_text()))
    r = ci.ingest_campaign(raw, out)
    assert r.trials_read == 1 and not r.full_rebuild and r.parts_removed == 2  # its parts were rewritten
    df = tidy.load(out)
    rates = df[df["metric"] == "event_rate"].set_index("run_id")["value"]
    assert rates[run] == 1234.56 and rates.index.is_unique and len(rates) == 4
    assert rates[f"{CAMPAIGN}/native/sysbench-cpu/t-sbnative0"] == old_rate
    assert len(df) == r.rows and tidy.load(out, table="provenance")["run_id"].is_unique

    shutil.rmtree(raw / "docker-nat")
    r = ci.ingest_campaign(raw, out)
    assert r.trials_read == 0 and r.trials_total == 5 and not r.unchanged
    assert not tidy.load(out, where={"environment": "docker"}).shape[0]
    assert "docker" not in set(tidy.load(out, table="trials")["environment"])
    assert f"{CAMPAIGN}/docker-nat/sysbench-cpu/t-sbdocker0" not in set(tidy.load(out, table="provenance")["run_id"])

    # changed facts: the environment's trials are read again (their provenance joins them)
    facts = json.loads((raw / "facts" / "vm.json").read_text())
    (raw / "facts" / "vm.json").write_text(json.dumps({**facts, "qemu_version": "8.0.0"}))
    r = ci.ingest_campaign(raw, out)
    assert r.trials_read == 2
    prov = tidy.load(out, table="provenance").set_index("run_id")
    assert prov.loc[f"{CAMPAIGN}/vm/fio-randread/t-fiovm0", "qemu_version"] == "8.0.0"


def test_failed_trials_from_the_manifest(raw, tmp_path):
    recs = done_records(raw)
    common = {"environment": "vm", "benchmark": "fio-randread", "round": 3, "host": "local"}
    recs += [
        {"ts": "2026-11-23T11:00:00.000000Z", "trial": "t-lost", "state": "running", "attempt": 1, **common},
        {"ts": "2026-11-23T11:02:00.000000Z", "trial": "t-lost", "state": "failed", "attempt": 1,
         "cause": "timeout: the runner ran past 120 s and was killed", "exit_status": 124,
         "stderr": "Terminated", "kept": None, "extra": {"tolerated": True}, **common},
        {"ts": "2026-11-23T11:03:00.000000Z", "event": "environment-restart", "environment": "vm"},
        # failed once, then done on a retry: its directory counts, not the failure
        {"ts": "2026-11-23T11:04:00.000000Z", "trial": "t-fiovm0", "state": "failed", "cause": "lost host",
         **common},
        {"ts": "2026-11-23T11:05:00.000000Z", "trial": "t-fiovm0", "state": "done", **common},
        # failed, then running again when the controller stopped: not a failed trial (yet)
        {"ts": "2026-11-23T11:06:00.000000Z", "trial": "t-again", "state": "failed", "cause": "x", **common},
        {"ts": "2026-11-23T11:07:00.000000Z", "trial": "t-again", "state": "running", **common},
    ]
    manifest(raw, recs)
    out = tmp_path / "tidy"
    r = ci.ingest_campaign(raw, out)
    assert (r.trials_total, r.failed) == (7, 2)
    trials = tidy.load(out, table="trials").set_index("trial_id")
    lost = trials.loc["t-lost"]
    assert lost["run_id"] == f"{CAMPAIGN}/vm/fio-randread/t-lost"
    assert (lost["status"], lost["exit_status"], lost["round"], lost["environment"]) == ("failed", 124, 3, "vm")
    assert lost["cause"].startswith("timeout") and lost["stderr"] == "Terminated"
    assert lost["variant"] == "untuned,accel=tcg" and lost["rows"] == 0
    assert trials.loc["t-fiovm0", "status"] == "done" and "t-again" not in trials.index

    # the manifest grows: only its new lines are read, and the trials table follows
    with open(raw / ci.MANIFEST, "a") as fh:
        fh.write(json.dumps({"trial": "t-again", "state": "failed", "cause": "environment down", **common}) + "\n")
    r = ci.ingest_campaign(raw, out)
    assert (r.trials_read, r.failed, r.trials_total) == (0, 3, 8)
    assert tidy.load(out, table="trials").set_index("trial_id").loc["t-again", "cause"] == "environment down"


def test_a_torn_last_manifest_line_is_tolerated(raw, tmp_path):
    torn = '{"ts": "2026-11-23T11:00:00Z", "trial": "t-torn", "state": "fail'
    manifest(raw, done_records(raw), tail=torn)
    with pytest.warns(UserWarning, match=r"manifest.jsonl:13: torn last record"):
        r = ci.ingest_campaign(raw, tmp_path / "tidy")
    assert r.trials_total == 6 and r.failed == 1

    # the controller starts again: it cuts the torn line off and appends; only that is read
    data = (raw / ci.MANIFEST).read_bytes()
    (raw / ci.MANIFEST).write_bytes(data[:data.rindex(b"\n") + 1])
    with open(raw / ci.MANIFEST, "a") as fh:
        fh.write(json.dumps({"trial": "t-torn", "state": "failed", "cause": "lost host",
                             "environment": "native", "benchmark": "sysbench-cpu", "round": 4}) + "\n")
    r = ci.ingest_campaign(raw, tmp_path / "tidy")
    assert (r.trials_read, r.trials_total, r.failed) == (0, 7, 2)
    state = json.loads((tmp_path / "tidy" / ci.STATE).read_text())["manifest"]
    assert state["line"] == 13 and state["offset"] == (raw / ci.MANIFEST).stat().st_size


def test_a_damaged_manifest_line_is_an_error(raw, tmp_path):
    recs = done_records(raw)
    lines = [json.dumps(rec) for rec in recs]
    lines[1] = lines[1][:20]  # a line cut short in the middle of the file
    (raw / ci.MANIFEST).write_text("\n".join(lines) + "\n")
    with pytest.raises(ParseError, match=r"manifest.jsonl:2: not a JSON object"):
        ci.ingest_campaign(raw, tmp_path / "tidy")
    assert not (tmp_path / "tidy" / ci.TRIALS).exists()


def test_an_unparsable_output_is_recorded_and_the_rest_ingested(raw, tmp_path, genuine):
    out = tmp_path / "tidy"
    d = add_trial(raw, genuine["sysbench"], "native", "sysbench-cpu", "t-garbled", 3)
    (d / "output").write_text("this is not what sysbench prints\n")
    r = ci.ingest_campaign(raw, out)
    assert (r.trials_total, r.unparsed, r.trials_read) == (7, 1, 7)
    run = f"{CAMPAIGN}/native/sysbench-cpu/t-garbled"
    assert re.search(r"t-garbled/output:\d+: ", r.errors[run])
    trials = tidy.load(out, table="trials").set_index("run_id")
    assert trials.loc[run, "status"] == "unparsed" and trials.loc[run, "cause"] == r.errors[run]
    assert trials.loc[run, "rows"] == 0 and pd_isna(trials.loc[run, "exit_status"])
    df = tidy.load(out)
    assert run not in set(df["run_id"]) and df["run_id"].nunique() == 5  # the others are all there

    # unchanged, it is not read again; run again, it is
    assert ci.ingest_campaign(raw, out).unchanged
    rerun(d, (genuine["sysbench"] / "output").read_text())
    r = ci.ingest_campaign(raw, out)
    assert (r.trials_read, r.unparsed) == (1, 0)
    assert run in set(tidy.load(out)["run_id"])

    # an output edited in place keeps its trial's stamp (trials are replaced, never edited):
    # force=True reads everything again
    (d / "output").write_text("garbled again\n")
    assert ci.ingest_campaign(raw, out).unchanged
    r = ci.ingest_campaign(raw, out, force=True)
    assert r.full_rebuild and r.reason == "forced" and (r.trials_read, r.unparsed) == (7, 1)


def test_a_bad_trial_json_is_recorded_with_its_place(raw, tmp_path, genuine):
    d = add_trial(raw, genuine["sysbench"], "native", "sysbench-cpu", "t-badjson", 3)
    (d / "trial.json").write_text('{"id": "t-badjson",\n "round": }\n')
    r = ci.ingest_campaign(raw, tmp_path / "tidy")
    assert r.unparsed == 1
    assert re.search(r"t-badjson/trial\.json:2: not JSON", r.errors[f"{CAMPAIGN}/native/sysbench-cpu/t-badjson"])


def test_an_interrupted_ingest_leaves_the_tables_as_they_were(raw, tmp_path, genuine, monkeypatch):
    out = tmp_path / "tidy"
    ci.ingest_campaign(raw, out)
    before = {p.relative_to(out): p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    add_trial(raw, genuine["fio"], "vm", "fio-randread", "t-fiovm1", 2)

    def boom(rows):
        raise KeyboardInterrupt

    monkeypatch.setattr(ci, "_trials_table", boom)
    with pytest.raises(KeyboardInterrupt):
        ci.ingest_campaign(raw, out)
    after = {p.relative_to(out): p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    assert after == before  # no pending part left behind, nothing replaced
    monkeypatch.undo()
    r = ci.ingest_campaign(raw, out)
    assert r.trials_read == 1 and not r.full_rebuild


def test_a_part_left_by_an_interrupted_commit_is_removed(raw, tmp_path, genuine):
    out = tmp_path / "tidy"
    ci.ingest_campaign(raw, out)
    rows = len(tidy.load(out))
    orphan = out / ci.MEASUREMENTS / "part-00099.parquet"
    shutil.copyfile(next((out / ci.MEASUREMENTS).glob("part-*.parquet")), orphan)
    r = ci.ingest_campaign(raw, out)
    assert r.parts_removed == 1 and not orphan.exists() and r.trials_read == 0
    assert len(tidy.load(out)) == rows


def test_a_pool_reads_many_trials_alike(raw, tmp_path, monkeypatch):
    monkeypatch.setattr(ci, "POOL_MIN_TRIALS", 2)
    pooled = ci.ingest_campaign(raw, tmp_path / "pooled", workers=2)
    monkeypatch.setattr(ci, "POOL_MIN_TRIALS", 10**9)
    serial = ci.ingest_campaign(raw, tmp_path / "serial", workers=1)
    assert pooled.parts_written > serial.parts_written == 2
    key = ["run_id", "metric", "source"]
    a = tidy.load(tmp_path / "pooled").sort_values(key).reset_index(drop=True)
    b = tidy.load(tmp_path / "serial").sort_values(key).reset_index(drop=True)
    assert a[key + ["value"]].equals(b[key + ["value"]])


def test_new_code_makes_a_full_rebuild(raw, tmp_path, monkeypatch):
    out = tmp_path / "tidy"
    ci.ingest_campaign(raw, out)
    monkeypatch.setattr(ci, "_code_hash", lambda: "another parser")
    r = ci.ingest_campaign(raw, out)
    assert r.full_rebuild and r.trials_read == 6 and "code changed" in r.reason
    assert r.parts_removed == 2 and len(list((out / ci.MEASUREMENTS).glob("part-*"))) == 1


def test_single_file_tables_are_not_overwritten(tmp_path, raw):
    out = tmp_path / "ibm"
    out.mkdir()
    (out / ci.MEASUREMENTS).write_bytes(b"PAR1")
    with pytest.raises(InputError, match="single-file table"):
        ci.ingest_campaign(raw, out)


def test_the_plan_with_its_stopping_decisions_goes_beside_the_tables(raw, tmp_path):
    """plan.json (why each cell and comparison stopped) is copied into the tidy folder, where
    the reports read it; a damaged one is left out and the one there kept."""
    out = tmp_path / "tidy"
    ci.ingest_campaign(raw, out)
    assert not (out / "plan.json").exists()  # no run wrote one: nothing invented
    plan = {"campaign": CAMPAIGN, "rounds": 3, "stops": {"c-1": "decided after 3 trials: ..."},
            "decisions": {"c-1#events": {"verdict": "equivalent", "why": "decided after 3 trials"}}}
    (raw / "plan.json").write_text(json.dumps(plan))
    ci.ingest_campaign(raw, out)
    assert json.loads((out / "plan.json").read_text()) == plan
    (raw / "plan.json").write_text('{"campaign": "torn')
    ci.ingest_campaign(raw, out)
    assert json.loads((out / "plan.json").read_text()) == plan


def test_a_killed_ingest_leaves_no_worker_holding_the_lock(raw, tmp_path):
    """SIGKILL of an ingest while its fork-pool workers read: the workers had copies of the
    lock's descriptor and, orphaned, kept the next ingest waiting (740 s in the attack). The
    workers close them at fork and die with their parent: the next ingest gets the lock at
    once, and no worker is left."""
    import signal
    import sys
    import time

    out, started = tmp_path / "tidy", tmp_path / "started"
    started.mkdir()
    # the workers' chunks take long: each worker writes its pid and sleeps before reading
    script = f"""\
import os, sys, time
from overhead.campaign import ingest as ci

real = ci._read_chunk


def slow(*args):
    open(os.path.join({str(started)!r}, str(os.getpid())), "w").close()
    time.sleep(120)
    return real(*args)


ci._read_chunk = slow
ci.POOL_MIN_TRIALS = 2
ci.ingest_campaign({str(raw)!r}, {str(out)!r}, workers=2)
"""
    parent = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while len(list(started.iterdir())) < 2:
            assert parent.poll() is None, parent.stderr.read()
            assert time.monotonic() < deadline, "the pool's workers did not start"
            time.sleep(0.05)
        workers = [int(p.name) for p in started.iterdir()]
        assert all(Path(f"/proc/{w}").exists() for w in workers)
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    # the next ingest gets the lock within seconds (bounded: a thread, joined with a timeout)
    import threading

    done: list = []
    t = threading.Thread(target=lambda: done.append(ci.ingest_campaign(raw, out, workers=1)),
                         daemon=True)
    t.start()
    t.join(30)
    assert done, "the second ingest is still waiting for the lock"
    assert done[0].trials_read == 6
    # and the orphaned workers are gone (killed with their parent)
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{w}").exists()
              and Path(f"/proc/{w}/stat").read_text().split(") ")[1][0] != "Z" for w in workers):
        assert time.monotonic() < deadline, "orphaned pool workers still run"
        time.sleep(0.1)


def test_a_folder_read_by_pandas_keeps_the_columns_later_parts_add(raw, tmp_path):
    """pandas (and pyarrow.dataset) take a folder's schema from its first file: without the
    schema part, the Redis trial's p_clients and p_pipeline, ingested after sysbench and fio,
    vanished from ``pd.read_parquet(folder)`` (issue 30)."""
    import pandas as pd
    import pyarrow.parquet as pq

    from overhead import schema

    out = tmp_path / "tidy"
    ci.ingest_campaign(raw, out)
    add_trial(raw, ROOT / "tests" / "fixtures" / "campaign-trials" / "redis-short", "native",
              "redis", "t-redis0", 1)
    manifest(raw, done_records(raw))
    ci.ingest_campaign(raw, out)
    folder = out / ci.MEASUREMENTS
    parts = sorted(p.name for p in folder.glob("part-*.parquet"))
    assert len(parts) == 2
    first = pq.read_schema(folder / parts[0]).names
    assert "p_clients" not in first and "p_pipeline" not in first  # the trap is there
    assert (folder / schema.SCHEMA_PART).exists() and pq.read_metadata(folder / schema.SCHEMA_PART).num_rows == 0

    plain = pd.read_parquet(folder)  # what a user types
    redis = plain[plain["benchmark"] == "redis"]
    # the values the fixture's command line states: -c 10 -P 10
    assert set(redis["p_clients"].dropna().astype(int)) == {10}
    assert set(redis["p_pipeline"].dropna().astype(int)) == {10}
    assert plain.loc[plain["benchmark"] != "redis", "p_clients"].isna().all()
    assert len(plain) == len(tidy.read(folder))
    # removing the second part's trial takes its columns out of the schema part again
    shutil.rmtree(raw / "native" / "redis")
    manifest(raw, done_records(raw))
    ci.ingest_campaign(raw, out)
    assert "p_clients" not in pq.read_schema(folder / schema.SCHEMA_PART).names
