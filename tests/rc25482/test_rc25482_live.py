"""overhead.rc25482.live: the paper's tables from campaign rows, the authors' values beside,
and the known truths decided from intervals. The campaigns measured for real run in
test_campaign_live.py; here hand-made rows with known answers test the decisions."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from overhead import stats
from overhead.errors import InputError
from overhead.rc25482 import compute, live, livedata, mysql, network, redis

ENVS = {  # env_name -> (environment, variant, label)
    "native": ("native", None, "Native"),
    "docker-host": ("docker", "net=host,storage=volume,runtime=runc", "Docker net=host volume"),
    "docker-nat": ("docker", "net=nat,storage=volume,runtime=runc", "Docker NAT volume"),
    "vm": ("vm", "untuned,accel=tcg", "QEMU TCG untuned"),
}


def _rows(values: dict[str, list[float]], benchmark: str, metric: str, **params) -> list[dict]:
    out = []
    for env_name, vals in values.items():
        environment, variant, label = ENVS[env_name]
        for k, v in enumerate(vals):
            out.append({"run_id": f"c/{env_name}/{benchmark}/t-{benchmark}{metric}{k}{params}",
                        "benchmark": benchmark, "metric": metric, "value": v,
                        "environment": environment, "variant": variant, "label": label,
                        "env_name": env_name, "p_sidecar": None,
                        "higher_is_better": not metric.startswith("latency"), **params})
    return out


def _live(tmp_path: Path, rows: list[dict], authors: Path | None = None,
          notes: str | None = None) -> live.Live:
    frame = pd.DataFrame(rows)
    for col in ("p_kernel", "p_scope", "p_test", "p_direction", "p_cpu", "p_rw"):
        if col not in frame:
            frame[col] = None
    prov = pd.DataFrame({"run_id": ["c/vm/x/t-1", "c/native/x/t-2"], "environment": ["vm", "native"],
                         "accelerator": ["tcg", None], "notes": [notes, None]})
    trials = frame.drop_duplicates("run_id")[["run_id", "env_name", "environment", "variant"]]
    trials = trials.assign(host="local", status="done")
    return live.Live("c", tmp_path, tmp_path, frame, trials, prov, authors=authors or tmp_path / "none")


def _hpcc(native: list[float], docker: list[float]) -> list[dict]:
    rows = _rows({"native": native, "docker-host": docker}, "hpcc", "flop_rate", p_kernel="hpl",
                 p_scope="mpi", p_section="summary")
    # the same runs' rounded table rows, which Table I must not count a second time
    rows += _rows({"native": [round(v, -7) for v in native],
                   "docker-host": [round(v, -7) for v in docker]}, "hpcc", "flop_rate",
                  p_kernel="hpl", p_scope="mpi", p_section="hpl")
    rows += _rows({"native": [2e9, 2.02e9, 1.98e9], "docker-host": [2e9, 2.01e9, 1.99e9]}, "pxz",
                  "throughput")
    rows += _rows({"native": [5e9, 5.1e9, 4.9e9], "docker-host": [5e9, 5.05e9, 4.95e9]}, "hpcc",
                  "bandwidth", p_kernel="triad", p_scope="star")
    return rows


def test_table1_statistics_and_the_authors_beside(tmp_path):
    authors = tmp_path / "authors"
    authors.mkdir()
    pd.DataFrame({"workload": ["Linpack", "Linpack"], "environment": ["Native", "Docker"],
                  "mean": [290.8, 290.9], "delta_vs_native_pct": [0.0, 0.013]}).to_csv(
        authors / "table1.csv", index=False)
    lv = _live(tmp_path, _hpcc([4.6e9, 4.7e9, 4.5e9], [4.4e9, 4.5e9, 4.3e9]), authors)
    t = compute.live_table1(lv).set_index(["item", "environment"])
    lin = t.loc[("Linpack", "Docker net=host volume")]
    assert lin["n"] == 3 and lin["mean"] == pytest.approx(4.4)          # GFLOPS
    assert lin["pct"] == pytest.approx(100 * (4.4 / 4.6 - 1))
    assert lin["ci_low"] < 4.4 < lin["ci_high"]
    assert lin["authors_environment"] == "Docker" and lin["authors_value"] == 290.9
    assert lin["authors_pct_vs_native"] == pytest.approx(0.013)
    assert t.loc[("PXZ", "Native"), "authors_note"] == "no authors' value for Native"


def test_cpu_bound_truth_is_an_equivalence_test_at_its_margin(tmp_path):
    close = _live(tmp_path, _hpcc([4.6e9, 4.61e9, 4.59e9], [4.58e9, 4.57e9, 4.59e9]))
    far = _live(tmp_path, _hpcc([4.6e9, 4.61e9, 4.59e9], [4.0e9, 4.01e9, 3.99e9]))
    noisy = _live(tmp_path, _hpcc([4.6e9, 4.9e9, 4.3e9], [4.4e9, 4.8e9, 4.6e9]))
    got = {}
    for name, lv in (("close", close), ("far", far), ("noisy", noisy)):
        truths = live.known_truths({"table1": compute.live_table1(lv)}, lv)
        got[name] = truths[(truths["item"] == "Linpack") & truths["truth"].str.startswith("CPU-bound")].iloc[0]
    # -0.4% with the whole interval inside +-3% (the cpu-memory margin): equivalent, holds
    assert got["close"]["verdict"] == "equivalent" and got["close"]["holds"] is True
    assert "inside the \u00b13% margin" in got["close"]["why"] and got["close"]["n"] == "3/3"
    # -13%, the whole interval beyond the margin: refuted
    assert got["far"]["verdict"] == "slower" and got["far"]["holds"] is False
    assert "beyond the \u00b13% margin" in got["far"]["why"]
    # a non-significant difference at n = 3 is not sameness: not shown, with the trials needed
    x, y = np.array([4.4, 4.8, 4.6]), np.array([4.6, 4.9, 4.3])
    assert stats.welch(x, y).pvalue > 0.5
    assert got["noisy"]["verdict"] == "inconclusive" and got["noisy"]["holds"] is None
    need = stats.trials_to_decide(x, y, stats.Margin.symmetric(3.0))
    assert f"about {need} trials per side would decide it" in got["noisy"]["why"]
    lo, hi = (float(v) for v in re.findall(r"[-+]\d+\.\d+", got["noisy"]["interval"])[:2])
    v = stats.decide(x, y, stats.Margin.symmetric(3.0))
    assert (lo, hi) == pytest.approx((100 * (v.interval.low - 1), 100 * (v.interval.high - 1)), abs=0.006)


def _sequential(rows: list[dict], design: dict) -> list[dict]:
    """The rows as a sequential campaign's: each trial's round, and its cell's design."""
    import json

    seen: dict[str, int] = {}
    out = []
    for r in rows:
        key = f"{r['env_name']}/{r['benchmark']}/{r['metric']}/{r.get('p_section')}/{r.get('p_test')}"
        seen[key] = seen.get(key, 0) + 1
        out.append({**r, "round": seen[key], "cell": f"c-{r['env_name']}-{r['benchmark']}",
                    "design": None if r["env_name"] == "native" else json.dumps(design)})
    return out


def test_a_sequential_campaign_s_tables_read_each_verdict_at_its_look(tmp_path):
    """A campaign whose stopping rule decided sequentially: every live row replays its cell's
    looks (the verdict, n and interval of the look it stopped at, at that look's level), the
    known truths say the level and that it is sequential, and no row contradicts its interval."""
    from overhead.stats.sequential import Design

    design = Design((3, 6)).to_json()
    # Linpack: Docker 13% slower, decided at the first look (3 a side) of two
    native = [4.6e9, 4.61e9, 4.59e9, 4.6e9, 4.62e9, 4.58e9]
    docker = [4.0e9, 4.01e9, 3.99e9, 4.0e9, 4.02e9, 3.98e9]
    lv = _live(tmp_path, _sequential(_hpcc(native, docker), design))
    t1 = compute.live_table1(lv)
    row = t1[(t1["item"] == "Linpack") & (t1["environment"] == "Docker net=host volume")].iloc[0]
    first = 1 - 0.05 * (3 / 6) ** 2
    assert row["verdict"] == "slower" and row["n_look"] == 3 and row["n"] == 6
    assert row["ratio_level"] == pytest.approx(first)
    iv = stats.ratio_interval(docker[:3], native[:3], first)
    assert row["ratio_low"] == pytest.approx(iv.low)
    truths = live.known_truths({"table1": t1}, lv)
    lin = truths[(truths["item"] == "Linpack") & truths["truth"].str.startswith("CPU-bound")].iloc[0]
    assert lin["n"] == "3/3" and "98.75%, sequential" in lin["interval"]
    v = live.verdicts_table({"table1": t1}, lv)
    assert stats.check_verdicts(v, low="pct_low", high="pct_high", pct=True) == []
    shown = live.verdicts_shown(v)
    assert any("98.75% sequential" in c for c in shown["vs Native [interval decided on]"])


def test_nat_latency_truth_is_a_one_sided_test(tmp_path):
    rows = _rows({"docker-host": [100e-6, 101e-6, 99e-6], "docker-nat": [130e-6, 131e-6, 129e-6]},
                 "netperf", "latency_mean", p_test="TCP_RR")
    rows += _rows({"docker-host": [100e-6, 110e-6, 90e-6], "docker-nat": [101e-6, 91e-6, 109e-6]},
                  "netperf", "latency_mean", p_test="UDP_RR")
    lv = _live(tmp_path, rows)
    truths = live.known_truths({}, lv).set_index("item")
    tcp = truths.loc["TCP_RR"]
    assert tcp["holds"] is True and "+30.0%" in tcp["measured"] and tcp["n"] == "3/3"
    # the one-sided 95% lower bound is the lower end of the two-sided 90% interval
    iv = stats.ratio_interval([130.0, 131.0, 129.0], [100.0, 101.0, 99.0], level=0.90)
    assert f">= {iv.low:.3f}" in tcp["interval"] and iv.low > 1
    assert truths.loc["UDP_RR", "holds"] is None and "not shown" in truths.loc["UDP_RR", "why"]
    # NAT faster than host networking: contradicted, not merely not shown
    rows = _rows({"docker-host": [130e-6, 131e-6, 129e-6], "docker-nat": [100e-6, 101e-6, 99e-6]},
                 "netperf", "latency_mean", p_test="TCP_RR")
    assert live.known_truths({}, _live(tmp_path, rows)).set_index("item").loc["TCP_RR", "holds"] is False


def test_every_live_comparison_is_in_the_verdicts_table_and_none_contradicts_its_interval(tmp_path):
    rows = _hpcc([4.6e9, 4.61e9, 4.59e9], [4.0e9, 4.01e9, 3.99e9])
    rows += _rows({"native": [100e-6, 101e-6, 99e-6], "docker-nat": [130e-6, 131e-6, 129e-6]},
                  "netperf", "latency_mean", p_test="TCP_RR")
    lv = _live(tmp_path, rows)
    frames = {"table1": compute.live_table1(lv), **network.live_tables(lv)}
    v = live.verdicts_table(frames, lv)
    assert list(v.columns) == list(live.VERDICTS_COLUMNS)
    # one row per non-native point: PXZ, Linpack, STREAM Triad (Docker) and TCP_RR (NAT)
    assert sorted(zip(v["figure"], v["item"], strict=True)) == [
        ("fig03", "TCP_RR"), ("table1", "Linpack"), ("table1", "PXZ"), ("table1", "STREAM Triad")]
    tcp = v[v["item"] == "TCP_RR"].iloc[0]
    assert tcp["verdict"] == "slower" and tcp["margin"] == "\u00b15%"  # latency: lower is better
    assert stats.check_verdicts(v, low="pct_low", high="pct_high", pct=True) == []
    for stem, frame in frames.items():
        assert stats.check_verdicts(frame) == [], stem
    # as the report shows it: one cell per interval, nine columns instead of seventeen
    shown = live.verdicts_shown(v).set_index("item")
    assert list(shown.columns) == ["figure", "environment", "n", "vs Native [interval decided on]", "margin",
                                   "verdict", "stopped"]  # no x: none of these rows has one
    assert shown.loc["TCP_RR", "n"] == "3/3" and shown.loc["TCP_RR", "verdict"] == "slower"
    assert shown.loc["TCP_RR", "vs Native [interval decided on]"] == (
        f"{tcp['pct']:+.1f}% [{tcp['pct_low']:+.1f}, {tcp['pct_high']:+.1f}] {tcp['ratio_method']}")
    assert tcp["pct"] == pytest.approx(30.0, abs=0.1)


def test_littles_law_residuals_and_the_tcg_truth(tmp_path):
    # MySQL: N threads, X tx/s, R s with X R = N (holds); Redis with a pipeline of 10: X R 20%
    # short of N, which is what the law says there (N is an upper bound), not a failure
    rows = []
    for k, (threads, tps) in enumerate([(1, 1000.0), (4, 3000.0), (16, 3200.0)]):
        for env_name in ("native", "vm"):
            run = f"c/{env_name}/mysql/t-{k}"
            base = {"run_id": run, "benchmark": "mysql", "environment": ENVS[env_name][0],
                    "variant": ENVS[env_name][1], "label": ENVS[env_name][2], "env_name": env_name,
                    "p_sidecar": None, "p_test": "oltp_read_write", "p_threads": threads}
            rows.append({**base, "metric": "transaction_rate", "value": tps})
            rows.append({**base, "metric": "latency_mean", "value": threads / tps * 1.001})
            rows.append({**base, "metric": "cpu_idle_mean", "value": 40.0, "p_sidecar": "monitor",
                         "p_cpu": "all"})
    for k, clients in enumerate([1, 10]):
        for test, dur in (("SET", 0.1), ("GET", 0.1)):
            base = {"run_id": f"c/native/redis/t-{k}", "benchmark": "redis", "environment": "native",
                    "variant": None, "label": "Native", "env_name": "native", "p_sidecar": None,
                    "p_test": test, "p_clients": clients, "p_pipeline": 10, "p_section": None}
            n = clients * 10
            x = 10000 / dur
            rows.append({**base, "metric": "requests", "value": 10000.0})
            rows.append({**base, "metric": "duration", "value": dur})
            rows.append({**base, "metric": "latency_mean", "value": 0.8 * n / x, "p_section": "summary"})
    lv = _live(tmp_path, rows)
    frames = {"redis_littles": redis.live_tables(lv)["littles"], "mysql_littles": mysql.live_tables(lv)["littles"]}
    assert frames["mysql_littles"]["rel_residual_mean"].abs().max() < 0.002
    assert frames["redis_littles"]["rel_residual_mean"].tolist() == pytest.approx([0.2, 0.2])
    truths = live.known_truths(frames, lv)
    holds = truths.groupby("truth")["holds"].apply(list).to_dict()
    assert holds["Little's law on MySQL (|N - XR|/N <= 10%)"] == [True, True]
    assert holds["Little's law on Redis, pipelined (X R <= N = connections x pipeline 10)"] == [True]
    assert not truths["truth"].str.contains("Redis.*N - XR", regex=True).any()
    rd = truths[truths["truth"].str.contains("Redis")].iloc[0]
    assert "pipelined batch" in rd["why"] and rd["measured"] == "X R / N 0.80..0.80"
    assert rd["why"].startswith("X R is 80%..80% of N at the 2 levels: at or below N")
    tcg = truths[truths["truth"].str.startswith("The VM under TCG")].iloc[0]
    assert tcg["holds"] is True and tcg["environment"] == "QEMU TCG untuned"
    # the server's CPU busy is 100 - idle
    cpu = mysql.live_tables(lv)["fig11"]
    assert (cpu["mean"] == 60.0).all()


def test_tcg_rows_are_never_set_beside_kvm_without_the_note(tmp_path):
    authors = tmp_path / "authors"
    authors.mkdir()
    pd.DataFrame({"environment": ["Native", "KVM"], "test": ["TCP_RR"] * 2,
                  "latency_us": [37.6, 67.9], "delta_vs_native_pct": [0.0, 80.8]}).to_csv(
        authors / "fig03.csv", index=False)
    rows = _rows({"native": [70e-6, 71e-6, 72e-6], "vm": [2400e-6, 2500e-6, 2450e-6]}, "netperf",
                 "latency_mean", p_test="TCP_RR")
    lv = _live(tmp_path, rows, authors)
    fig03 = network.live_tables(lv)["fig03"].set_index("environment")
    assert fig03.loc["QEMU TCG untuned", "authors_environment"] == "KVM"
    assert "not KVM" in fig03.loc["QEMU TCG untuned", "authors_note"]
    shown = live.display_table(network.live_tables(lv)["fig03"])
    assert shown["note"].str.contains("not a KVM overhead").any()


def test_an_unknown_campaign_is_named(tmp_path):
    with pytest.raises(InputError, match="nothing-here.*no ingested trials"):
        live.open_campaign("nothing-here", tidy_root=tmp_path, out_root=tmp_path)


def test_authors_levels_nearest_on_a_log_scale():
    a = pd.DataFrame({"threads": [10, 30, 50, 290], "v": [1, 2, 3, 4]})
    assert livedata.nearest(a, "threads", 16)["threads"].tolist() == [10]
    assert livedata.nearest(a, "threads", 40)["threads"].tolist() == [50]
    assert np.isnan(livedata.nearest(a.iloc[0:0], "threads", 4).get("v", pd.Series([np.nan])).max())


def _redis_rows(frame: pd.DataFrame, env_name: str, run: str, clients: int, pipeline: int) -> list[dict]:
    environment, variant, label = ENVS[env_name]
    frame = frame.assign(run_id=run, benchmark="redis", environment=environment, variant=variant,
                         label=label, env_name=env_name, p_sidecar=None, p_clients=clients,
                         p_pipeline=pipeline)
    return frame.to_dict("records")


def test_redis_time_from_the_rate_and_a_timeless_run_has_no_throughput(tmp_path, fixtures):
    from overhead.parsers import parse_file
    from overhead.runners import read_trial

    # redis-benchmark 7.0.15 (fixture): SET 20000 requests "in 0.14 seconds" at 139860.14/s,
    # GET 20000 "in 0.21 seconds" at 95238.10/s; mean latencies 0.201 and 0.367 ms
    full = parse_file("redis-benchmark", fixtures / "redis-benchmark" / "default_set_get_c50.txt")
    rows = _redis_rows(full, "native", "c/native/redis/t-full", 50, 1)
    # a genuine ci-profile trial of this machine: 2000 requests per test "completed in 0.00
    # seconds" (redis-benchmark rounds to 10 ms; its rate is from 2 ms): no usable time
    short = read_trial(fixtures / "campaign-trials" / "redis-short").measurements
    rows += _redis_rows(short, "docker-host", "c/docker-host/redis/t-short", 10, 10)
    runs = redis.live_runs(_live(tmp_path, rows)).set_index("run_id")
    # the rate's milliseconds, not the printed seconds: 40000 / (0.14300 + 0.21000) s
    seconds = 20000 / 139860.14 + 20000 / 95238.10
    assert runs.loc["c/native/redis/t-full", "duration"] == pytest.approx(seconds, rel=1e-9)
    assert runs.loc["c/native/redis/t-full", "throughput"] == pytest.approx(40000 / seconds, rel=1e-9)
    assert runs.loc["c/native/redis/t-full", "latency"] == pytest.approx((0.201 + 0.367) / 2 * 1e-3)
    # the short run: the rate says 2 ms per test, so it is kept, with a finite throughput
    assert np.isfinite(runs.loc["c/docker-host/redis/t-short", "throughput"])
    # without a rate, a time printed as 0.00 s gives no throughput (NaN), never infinity
    no_rate = [r for r in rows if r["metric"] != "throughput"]
    runs = redis.live_runs(_live(tmp_path, no_rate)).set_index("run_id")
    assert np.isnan(runs.loc["c/docker-host/redis/t-short", "throughput"])
    assert runs.loc["c/native/redis/t-full", "duration"] == pytest.approx(0.35)
    fig08 = redis.live_tables(_live(tmp_path, no_rate))["fig08"]
    assert set(fig08["environment"]) == {"Native"} and np.isfinite(fig08["mean"]).all()


def test_stream_arrays_sized_by_hpl_are_said_in_a_caveat(tmp_path, fixtures):
    from overhead.parsers import parse_file

    # the genuine 2-process HPCC fixture prints STREAM_VectorSize=166666 (doubles per array)
    frame = parse_file("hpcc", fixtures / "hpcc" / "hpccoutf_np2.txt")
    frame = frame.assign(run_id="c/native/hpcc/t-1", benchmark="hpcc", environment="native",
                         variant=None, label="Native", env_name="native", p_sidecar=None)
    notes = live.caveats(_live(tmp_path, frame.to_dict("records")))
    assert "1.27 MiB each per process" in notes["table1"]  # 8 x 166666 bytes
    assert live.caveats(_live(tmp_path, _rows({"native": [1.0]}, "pxz", "throughput"))) == {}


def test_a_vm_behind_user_mode_networking_is_said_beside_the_network_figures(tmp_path):
    from overhead.environments import qemu

    rows = _rows({"native": [50e-6, 51e-6], "vm": [200e-6, 190e-6]}, "netperf", "latency_mean",
                 p_test="TCP_RR")
    notes = live.caveats(_live(tmp_path, rows, notes=f"vm_scratch_disk=x; vm_network={qemu.NETWORK}"))
    assert set(notes) == {"fig02", "fig03", "fig08", "fig09", "fig10", "fig12"}
    assert "not the bridged virtio with vhost of the paper" in notes["fig03"]
    assert live.where(_live(tmp_path, rows, notes=f"vm_network={qemu.NETWORK}")).set_index(
        "env_name").loc["vm", "vm_network"] == qemu.NETWORK
    # no VM, or a VM networked otherwise: nothing said
    assert live.caveats(_live(tmp_path, rows, notes="vm_network=bridge")) == {}


def test_a_redis_point_whose_loop_never_closed_is_said_so(tmp_path):
    # the VM at 100 connections x pipeline 10: 100000 requests took 21.8 s (connections
    # waiting to be accepted) at 8.3 ms each: X R = 38 of N = 1000; at 10 connections X R = 98
    rows = []
    for k, (clients, dur, lat) in enumerate([(10, 1.0, 0.98e-3), (100, 21.8, 8.3e-3)]):
        for test in ("SET", "GET"):
            base = {"run_id": f"c/vm/redis/t-{k}", "benchmark": "redis", "environment": "vm",
                    "variant": "untuned,accel=tcg", "label": "QEMU TCG untuned", "env_name": "vm",
                    "p_sidecar": None, "p_test": test, "p_clients": clients, "p_pipeline": 10,
                    "p_section": None}
            rows.append({**base, "metric": "requests", "value": 100000.0})
            rows.append({**base, "metric": "duration", "value": dur})
            rows.append({**base, "metric": "latency_mean", "value": lat, "p_section": "summary"})
    lv = _live(tmp_path, rows)
    r = redis.live_tables(lv)
    notes = dict(zip(r["fig08"]["x"], r["fig08"]["authors_note"].fillna(""), strict=True))
    assert "loop not closed: X R = 4% of N" in notes[100] and "loop not closed" not in notes[10]
    why = live.known_truths({"redis_littles": r["littles"]}, lv)
    why = why.loc[why["truth"].str.contains("Redis"), "why"].iloc[0]
    assert why.startswith("at N=1000 X R is only 4% of N") and "backlog of 1" in why


def test_a_small_fio_file_is_said_beside_the_block_io_figures(tmp_path):
    rows = _rows({"native": [2e9, 2.1e9]}, "fio-seq", "bandwidth", p_rw="read", p_size="16m")
    notes = live.caveats(_live(tmp_path, rows))
    assert set(notes) == {"fig05", "fig06", "fig07"} and "here is 16m" in notes["fig05"]
    rows = _rows({"native": [2e9, 2.1e9]}, "fio-seq", "bandwidth", p_rw="read", p_size="16g")
    assert live.caveats(_live(tmp_path, rows)) == {}


def test_the_authors_values_are_computed_from_their_tidy_data_as_the_notebooks_write_them(
        tmp_path, ibm_tidy):
    """The live side no longer reads figures/rc25482/*.csv: the section modules compute the
    authors' tables from data/tidy/ibm. The same live tables either way, value for value."""
    from overhead import export
    from overhead.rc25482 import compute, mysql, network, redis
    from overhead.rc25482.published import published

    paper = published("rc25482")
    written = tmp_path / "written"  # what the notebooks write: the same frames, through CSV
    for module in (compute, network, redis, mysql):
        for stem, frame in module.authors_tables(ibm_tidy, paper).items():
            export.write_table(frame, written, stem, formats=("csv",))
    rows = _hpcc([4.6e9, 4.61e9, 4.59e9], [4.0e9, 4.01e9, 3.99e9])
    rows += _rows({"native": [100e-6, 101e-6, 99e-6], "docker-nat": [130e-6, 131e-6, 129e-6]},
                  "netperf", "latency_mean", p_test="TCP_RR")
    for k, (threads, tps) in enumerate([(10, 1000.0), (30, 3000.0), (50, 3200.0)]):
        for env_name in ("native", "docker-nat"):
            base = {"run_id": f"c/{env_name}/mysql/t-{k}", "benchmark": "mysql",
                    "environment": ENVS[env_name][0], "variant": ENVS[env_name][1],
                    "label": ENVS[env_name][2], "env_name": env_name, "p_sidecar": None,
                    "p_test": "oltp_read_write", "p_threads": threads}
            rows.append({**base, "metric": "transaction_rate", "value": tps})
            rows.append({**base, "metric": "latency_mean", "value": threads / tps})
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    computed = _live(tmp_path / "a", rows, ibm_tidy)
    read = _live(tmp_path / "b", rows, written)
    frames = {"table1": (compute.live_table1(computed), compute.live_table1(read)),
              "fig03": (network.live_tables(computed)["fig03"], network.live_tables(read)["fig03"]),
              "fig10": (mysql.live_tables(computed)["fig10"], mysql.live_tables(read)["fig10"]),
              "fig12": (mysql.live_tables(computed)["fig12"], mysql.live_tables(read)["fig12"])}
    for stem, (a, b) in frames.items():
        pd.testing.assert_frame_equal(a, b, check_dtype=False, obj=stem)
        assert a["authors_value"].notna().any(), stem  # the authors' values are there
    # Linpack: the authors' Docker mean, 290.87 GFLOPS in their logs (Table I)
    lin = frames["table1"][0].set_index(["item", "environment"]).loc[("Linpack", "Docker net=host volume")]
    assert lin["authors_environment"] == "Docker" and lin["authors_value"] == pytest.approx(290.87, abs=0.01)
    assert computed.authors_computed.keys() == {"compute", "network", "mysql"}


def test_live_curves_draw_the_authors_only_at_their_levels_with_margin_and_verdicts():
    """fig10 drew the authors' 10-thread value at 1 and 4 threads ("nearest level"): a star
    now stands only where the authors measured that level; the margin is shaded and each
    point filled by its verdict; the lower panel says its intervals' level."""
    import matplotlib.colors as mc

    rows = []
    for env, means, pct, verdict in (("Native", [398.3, 846.5], [0.0, 0.0], ["baseline"] * 2),
                                     ("Docker NAT volume", [365.8, 717.7], [-8.2, -15.2],
                                      ["inconclusive", "slower"])):
        for x, m, p, v in zip((1, 4), means, pct, verdict, strict=True):
            rows.append({"item": "oltp_read_write", "environment": env, "x": x, "n": 3, "mean": m,
                         "ci_low": m * 0.9, "ci_high": m * 1.1, "pct": p,
                         "pct_low": None if env == "Native" else p - 12,
                         "pct_high": None if env == "Native" else p + 10,
                         "margin_low_pct": None if env == "Native" else -5.0,
                         "margin_high_pct": None if env == "Native" else 5.0,
                         "ratio_level": None if env == "Native" else 0.957, "verdict": v,
                         "unit": "tx/s",
                         # the authors measured 4 threads, not 1 (their nearest to 1 is 4)
                         "authors_x": 4, "authors_pct_vs_native": None if env == "Native" else -3.0})
    table = pd.DataFrame(rows)
    fig = live.plot_curves(table, "t", xlabel="threads")
    bx = fig.axes[1]
    stars = [ln for ln in bx.get_lines() if ln.get_marker() == "*"]
    assert len(stars) == 1 and list(stars[0].get_xdata()) == [4.0]
    assert "at their levels" in bx.get_ylabel()
    assert bx.get_title() == "live: sequential intervals, 95.70%"
    spans = [p for p in bx.patches] + [c for c in bx.collections if not hasattr(c, "get_segments")]
    assert spans, "the margin is shaded"
    faces = {float(ln.get_xdata()[0]): ln.get_markerfacecolor() for ln in bx.get_lines()
             if len(ln.get_xdata()) == 1 and ln.get_marker() == "D"}
    assert mc.to_rgba(faces[4.0])[3] == 1.0 and mc.to_rgba(faces[1.0])[3] == pytest.approx(0.33)
    # no authors' value at any drawn level: the label says so, no star
    fig = live.plot_curves(table.assign(authors_x=10), "t", xlabel="threads")
    assert not [ln for ln in fig.axes[1].get_lines() if ln.get_marker() == "*"]
    assert "the authors measured none of these levels" in fig.axes[1].get_ylabel()


def test_the_report_names_its_campaign_not_the_machine_s_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data" / "tidy" / "c").mkdir(parents=True)
    rows = [{**r, "p_percentile": None, "p_clients": None, "p_threads": None, "p_pipeline": None,
             "p_section": r.get("p_section")} for r in _hpcc([1e9, 1.1e9, 1.05e9], [1e9, 1.02e9, 1.04e9])]
    lv = _live(tmp_path, rows)
    lv.tidy = tmp_path / "data" / "tidy" / "c"
    page = live.report(lv).read_text()
    first = re.search(r"Written [^<]*", page).group(0)
    assert "from campaign c (data/tidy/c)" in first and str(tmp_path) not in page
