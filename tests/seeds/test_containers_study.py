"""The containers-2026 study's verdicts: every judged quantity against native and against the
Docker environment of the same network kind, on a synthetic campaign with planted differences
(the live campaign runs in `make demo`; its numbers are in the issue's notes)."""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
import pytest

from overhead import stats
from overhead.campaign import inventory, results
from overhead.campaign import plan as planner
from overhead.seeds import _common, containers

ENVS = {"native": ("native", None), "docker-nat": ("docker", "net=nat,storage=volume,runtime=runc"),
        "rootless-pasta": ("podman", "mode=rootless,net=pasta,storage=volume,runtime=runc"),
        "lxc": ("lxc", "net=veth-bridge,storage=overlay,privileged=true")}
#: planted: pasta's round trips 1.5 times Docker NAT's, LXC's the same as Docker NAT's
LATENCY = {"native": 20.0, "docker-nat": 25.0, "rootless-pasta": 37.5, "lxc": 25.0}


def _study(tmp_path, per_cell: int = 8):
    (tmp_path / "kh").write_text("")
    path = tmp_path / "c.yml"
    path.write_text(textwrap.dedent("""\
        name: c26
        seed: 1
        hosts: {local: {address: 127.0.0.1, known_hosts: kh}}
        environments:
          native: {kind: native, host: local}
          docker-nat: {kind: docker, host: local, net: nat}
          rootless-pasta: {kind: podman, host: local, rootless: true, net: pasta}
          lxc: {kind: lxc, host: local, image: img}
        benchmarks:
          netperf: {runner: netperf, params: {test: TCP_RR},
                    judge: [{metric: latency_mean, name: latency}]}
        """))
    spec = inventory.load(path)
    cell_of = {c.environment: cid for cid, c in planner.cells(spec).items()}
    rng = np.random.default_rng(3)
    trials, rows = [], []
    for env, (kind, variant) in ENVS.items():
        for k in range(per_cell):
            run_id = f"c26/{env}/netperf/t-{env}-{k}"
            trials.append({"run_id": run_id, "env_name": env, "benchmark": "netperf",
                           "cell": cell_of[env], "warmup": False, "status": "done"})
            rows.append({"run_id": run_id, "benchmark": "netperf", "environment": kind,
                         "variant": variant, "metric": "latency_mean", "unit": "us",
                         "value": LATENCY[env] * (1 + rng.normal(0, 0.01)),
                         "higher_is_better": False, "warmup": False, "p_test": "TCP_RR",
                         "env_name": env, "label": results.display_label(kind, variant)})
    res = results.Results("c26", tmp_path / "tidy", tmp_path / "out", pd.DataFrame(rows),
                          pd.DataFrame(trials), pd.DataFrame())
    res.out.mkdir(parents=True)
    return _common.Study(containers.STUDY, res, pd.DataFrame()), spec


def test_each_container_against_native_and_its_docker_twin(tmp_path):
    study, spec = _study(tmp_path)
    tab = containers.verdicts(study, spec).set_index("environment")
    assert set(tab.index) == {"docker-nat", "rootless-pasta", "lxc"}
    # against native: everything slower (higher latency), each with its n
    assert (tab["native_verdict"] == "slower").all() and (tab["n"] == 8).all()
    pasta = tab.loc["rootless-pasta"]
    assert pasta["docker_twin"] == "docker-nat" and pasta["docker_verdict"] == "slower"
    assert pasta["docker_ratio_low"] < 1.5 < pasta["docker_ratio_high"]  # the planted ratio
    assert (pasta["docker_margin_low_pct"], pasta["docker_margin_high_pct"]) == (-5, 5)
    want = stats.decide(
        study.rows.loc[study.rows["env_name"] == "rootless-pasta", "value"].to_numpy(),
        study.rows.loc[study.rows["env_name"] == "docker-nat", "value"].to_numpy(),
        stats.Margin.symmetric(5.0), higher_is_better=False)
    assert pasta["docker_words"] == want.words()
    assert tab.loc["lxc", "docker_verdict"] == "equivalent"  # planted the same as Docker NAT
    # Docker itself has no twin: "-" in words, not a comparison with itself
    assert pd.isna(tab.loc["docker-nat", "docker_verdict"])
    shown = containers.shown(containers.verdicts(study, spec)).set_index("environment")
    assert shown.loc["Docker NAT volume", "vs Docker"] == "-"
    assert shown.loc["Podman rootless pasta volume", "n"] == "8 vs 8"
    assert shown.loc["Podman rootless pasta volume", "vs Docker"].startswith("+50")
    assert "slower (n 8, docker-nat)" in shown.loc["Podman rootless pasta volume", "vs Docker"]
    net = containers.network(study, containers.verdicts(study, spec))
    assert set(net["environment"]) == {"docker-nat", "rootless-pasta", "lxc"}


def test_without_native_values_nothing_is_decided_against_native(tmp_path):
    study, spec = _study(tmp_path)
    study.res.rows = study.res.rows[study.res.rows["env_name"] != "native"]
    tab = containers.verdicts(study, spec).set_index("environment")
    assert (tab["native_verdict"] == "not tested").all() and (tab["native_n_baseline"] == 0).all()
    assert tab.loc["rootless-pasta", "docker_verdict"] == "slower"  # Docker's comparison stands
    assert containers.shown(tab.reset_index()).set_index("environment").loc[
        "Podman rootless pasta volume", "vs native"] == "not tested"


def test_the_written_verdicts_carry_their_intervals_and_the_environments_in_campaign_order(tmp_path):
    from verdict_audit import audit

    study, spec = _study(tmp_path)
    tab = containers.verdicts(study, spec)
    assert list(tab["environment"]) == ["docker-nat", "rootless-pasta", "lxc"]  # the file's order
    from overhead import export

    export.write_table(tab, study.out, "verdicts", shown=containers.shown(tab))
    checked, problems = audit(study.out)
    # both verdict columns (native_, docker_) found their intervals and margins: 3 + 2 rows
    assert problems == [] and checked == 5
    assert containers.margins_said(tab) == [
        f"\u00b15%: {_common.margin_of(containers.STUDY, benchmark='netperf').reason}"]


def test_network_words_say_each_rootless_comparison_and_what_holds_its_ports(tmp_path):
    study, spec = _study(tmp_path)
    net = containers.network(study, containers.verdicts(study, spec))
    carriers = pd.DataFrame([
        {"environment": "Docker NAT volume", "user-mode stack": None,
         "ports held on the host by": None},
        {"environment": "Podman rootless pasta volume", "user-mode stack": "pasta (passt 2023_03_29)",
         "ports held on the host by": "passt.avx2"}])
    said = containers.network_words(net, carriers)
    assert len(said) == 1  # Docker's NAT has no user-mode stack: no sentence of its own
    words = said[0]
    assert words.startswith("Podman rootless pasta volume (pasta (passt 2023_03_29)): "
                            "netperf test=TCP_RR latency against docker-nat +50.")
    assert "slower (n 8 vs 8); against native +8" in words
    assert "held on the host by passt.avx2" in words and "is itself the TCP/IP stack" in words
    assert "not measured per trial" in words
    # without the listeners recorded, it says so instead of naming a cause
    carriers.loc[1, "ports held on the host by"] = None
    assert containers.network_words(net, carriers)[0].endswith(
        "What holds its published ports on the host was not recorded.")


def test_network_bars_compare_every_trial_with_native(tmp_path):
    study, spec = _study(tmp_path)
    bars = containers.network_bars(study, spec)
    envs = list(bars["environment"])
    assert envs[:3] == ["Native", "Docker NAT volume", "Podman rootless pasta volume"]
    assert len(envs) == 4 and envs[3].startswith("LXC")
    assert set(bars["item"]) == {"netperf test=TCP_RR: latency"}
    assert (bars["n"] == 8).all() and set(bars["unit"]) == {"\u00b5s"}
    t = bars.set_index("environment")
    assert t.loc["Native", "verdict"] == "baseline"
    # values in us (the synthetic rows), shown divided by 1e-6: the planted 37.5 as 3.75e7
    assert t.loc["Podman rootless pasta volume", "mean"] == pytest.approx(37.5e6, rel=0.02)
    assert t.loc["Podman rootless pasta volume", "verdict"] == "slower"


def test_storage_words_count_the_rootless_fio_verdicts_and_name_the_path():
    """A hand-made verdicts table (the columns containers.verdicts writes): two fio quantities
    of a rootless environment, one undecided against native, one slower."""
    def row(point, q, ratio, low, high, verdict, d_ratio, d_low, d_high, d_verdict):
        return {"label": "Podman rootless pasta volume", "benchmark": "fio-rand", "point": point,
                "quantity": q, "n": 6, "native_ratio": ratio, "native_ratio_low": low,
                "native_ratio_high": high, "native_verdict": verdict, "native_n_baseline": 6,
                "docker_ratio": d_ratio, "docker_ratio_low": d_low, "docker_ratio_high": d_high,
                "docker_verdict": d_verdict, "docker_n_baseline": 5}
    table = pd.DataFrame([
        row("rw=randread", "IOPS", 1.067, 0.961, 1.196, "inconclusive", 1.082, 0.99, 1.189,
            "inconclusive"),
        row("rw=randwrite", "IOPS", 0.8, 0.7, 0.9, "slower", 0.831, 0.546, 1.202, "inconclusive")])
    carriers = pd.DataFrame([{"environment": "Podman rootless pasta volume",
                              "network": "mode=rootless,net=pasta,storage=volume,runtime=runc",
                              "user-mode stack": "pasta (passt x)"}])
    said = containers.storage_words(table, carriers)
    assert said[0] == (
        "Podman rootless pasta volume, storage: against native, of 2 comparisons 1 "
        "inconclusive, 1 slower; the widest undecided, fio-rand rw=randread IOPS, +6.7% "
        "[-3.9, +19.6], inconclusive (n 6 vs 6); against its Docker twin, of 2 comparisons 2 "
        "inconclusive; the widest undecided, fio-rand rw=randwrite IOPS, -16.9% [-45.4, +20.2], "
        "inconclusive (n 6 vs 5). As run here, its fio file was on a named volume, a host "
        "folder bind-mounted into the container's user namespace: the path Docker's volume "
        "takes, without the image store's overlay.")
    assert said[1].startswith("The rootless image store itself")
    # an environment on the rootless store: nothing said missing
    carriers.loc[0, "network"] = "mode=rootless,net=pasta,storage=overlay,driver=fuse-overlayfs"
    said = containers.storage_words(table, carriers)
    assert len(said) == 1 and said[0].endswith(
        "its storage: mode=rootless,net=pasta,storage=overlay,driver=fuse-overlayfs.")
