"""Order effects and noise flags of a campaign (overhead.campaign.analysis): synthetic frames."""

from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from overhead.campaign import analysis
from overhead.stats import EmptyInputError, MissingColumnError, StatsError

ENVS = ("native", "docker-nat", "vm")
TIDY = {"native": "native", "docker-nat": "docker", "vm": "vm"}


def campaign(seed: int, per_cell: int = 12, *, drift: dict | None = None,
             after: dict | None = None, warmup: int = 0, failed: int = 0,
             sd: float = 1.0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A one-host campaign: every environment runs benchmark "cpu" (threads=2), shuffled.

    drift: {env: slope per position}; after: {(env, previous env): shift}.
    """
    rng = np.random.default_rng(seed)
    order = [e for e in ENVS for _ in range(per_cell + warmup + failed)]
    rng.shuffle(order)
    seen = dict.fromkeys(ENVS, 0)
    trials, rows = [], []
    prev = None
    for pos, env in enumerate(order):
        k = seen[env]
        seen[env] += 1
        is_warm = k < warmup
        status = "failed" if warmup <= k < warmup + failed else "done"
        run_id = f"c1/{TIDY[env]}/cpu/t-{pos:04d}"
        trials.append({
            "run_id": run_id, "trial_id": f"t-{pos:04d}", "env_name": env,
            "environment": TIDY[env], "variant": None, "host": "local", "benchmark": "cpu",
            "cell": f"c-{env}", "round": k, "position": pos, "previous": prev,
            "warmup": is_warm, "status": status, "duration_s": 2.0, "noise_flags": None})
        prev = env
        if status != "done":
            continue
        value = 100.0 + rng.normal(0.0, sd)
        value += (drift or {}).get(env, 0.0) * pos
        value += (after or {}).get((env, trials[-1]["previous"]), 0.0)
        rows.append({"run_id": run_id, "benchmark": "cpu", "environment": TIDY[env],
                     "variant": None, "metric": "events_per_second", "value": value,
                     "unit": "event/s", "higher_is_better": True, "warmup": is_warm,
                     "trial": k, "p_threads": 2})
    t = pd.DataFrame(trials)
    t["previous"] = t["previous"].astype("string")
    t["noise_flags"] = t["noise_flags"].astype("string")
    m = pd.DataFrame(rows)
    m["p_threads"] = m["p_threads"].astype("Int64")
    return m, t


def row(table: pd.DataFrame, env: str, test: str) -> pd.Series:
    hit = table[(table["env_name"] == env) & (table["test"] == test)]
    assert len(hit) == 1, hit
    return hit.iloc[0]


# --- order effects -------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [1, 2, 3])
def test_drift_with_position_is_detected(seed):
    m, t = campaign(seed, drift={"docker-nat": 0.3})
    table = analysis.order_effects(m, t)
    r = row(table, "docker-nat", "mann-kendall")
    assert bool(r["significant"]) and r["p_holm"] < 0.05
    assert r["statistic"] > 0.5 and r["slope"] == pytest.approx(0.3, rel=0.3)
    assert r["finding"].startswith("value drifts with position (tau=+")
    for env in ("native", "vm"):
        assert not bool(row(table, env, "mann-kendall")["significant"])
    assert list(table.columns[:8]) == ["cell", "benchmark", "environment", "variant", "env_name",
                                       "host", "metric", "unit"]
    assert "p_threads" in table.columns
    assert table["significant"].dtype == "boolean"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_effect_of_previous_environment_is_detected(seed):
    m, t = campaign(seed, per_cell=20, after={("native", "vm"): 6.0})
    table = analysis.order_effects(m, t)
    r = row(table, "native", "kruskal-wallis")
    assert bool(r["significant"]), r
    assert r["finding"].startswith("depends on the previous environment (median ")
    assert "after vm" in r["finding"]
    # the shifted group has the highest median, listed first
    assert r["finding"].index("after vm") < r["finding"].index("after native")
    assert not bool(row(table, "docker-nat", "kruskal-wallis")["significant"])


@pytest.mark.parametrize("seed", [3, 4, 6])
def test_pure_noise_gives_no_finding_after_holm(seed):
    m, t = campaign(seed, per_cell=20)
    table = analysis.order_effects(m, t)
    assert len(table) == 2 * len(ENVS)
    assert table["p"].notna().all()
    assert not table["significant"].any()
    assert (table["p_holm"] >= table["p"]).all()
    assert set(table["finding"]) == {"no drift with position detected",
                                     "no dependence on the previous environment detected"}
    text = analysis.report(m, t)
    assert "no significant order effect in 3 cells (Holm, alpha 0.05; 6 tests)" in text


def test_family_wise_error_rate_is_held():
    # 40 pure-noise campaigns of 6 tests each: Holm keeps "any finding" at most near alpha,
    # about 2 of 40 (these seeds give 0; uncorrected p < 0.05 occurs in 7 of them)
    hits = sum(bool(analysis.order_effects(*campaign(seed, per_cell=10))["significant"].any())
               for seed in range(100, 140))
    assert hits <= 3


def test_too_few_trials_is_not_testable():
    m, t = campaign(4, per_cell=3)
    table = analysis.order_effects(m, t)
    assert table["p"].isna().all() and table["significant"].isna().all()
    assert table["finding"].str.startswith("not testable: too few trials (n=3, need 6)").all()
    text = analysis.report(m, t)
    assert "not testable: too few trials" in text
    assert "no significant" not in text and "no order effect" not in text


def test_warmup_and_failed_trials_are_left_out():
    m, t = campaign(5, per_cell=6, warmup=2, failed=1)
    table = analysis.order_effects(m, t)
    assert (table["n"] <= 6).all()
    assert (table.loc[table["test"] == "mann-kendall", "n"] == 6).all()
    # one fewer done trial and the cell is not testable
    drop = t[(t["env_name"] == "vm") & ~t["warmup"] & (t["status"] == "done")]["run_id"].iloc[0]
    table = analysis.order_effects(m[m["run_id"] != drop], t)
    assert row(table, "vm", "mann-kendall")["finding"].startswith("not testable: too few trials")
    text = analysis.report(m, t)
    assert "analysis: 27 trials (24 done, 3 failed; 6 warm-up) on 1 host, 3 cells" in text


def test_previous_needs_two_groups_of_two():
    m, t = campaign(6, per_cell=8)
    # pretend every trial of native ran after vm, except one after docker-nat
    idx = t.index[t["env_name"] == "native"]
    t.loc[idx, "previous"] = "vm"
    t.loc[idx[0], "previous"] = "docker-nat"
    table = analysis.order_effects(m, t)
    r = row(table, "native", "kruskal-wallis")
    assert math.isnan(r["p"])
    assert r["finding"].startswith("not testable: fewer than 2 previous environments")
    assert "occurs only once" in r["reason"]
    assert not math.isnan(row(table, "native", "mann-kendall")["p"])


def test_values_per_trial_and_parser_parameters():
    m, t = campaign(7, per_cell=6)
    p99 = m.assign(p_percentile=99.0, value=m["value"] * 2)
    both = pd.concat([m.assign(p_percentile=95.0), p99], ignore_index=True)
    table = analysis.order_effects(both, t)
    assert len(table) == 2 * 2 * len(ENVS)
    assert set(table["p_percentile"]) == {95.0, 99.0}
    # repeated samples of one trial: one value per trial (their mean), n counts trials
    twice = pd.concat([m, m.assign(value=m["value"] + 1.0)], ignore_index=True)
    table = analysis.order_effects(twice, t)
    assert (table.loc[table["test"] == "mann-kendall", "n"] == 6).all()


def test_missing_value_is_left_out_and_said():
    m, t = campaign(8, per_cell=7)
    m.loc[m.index[m["environment"] == "vm"][0], "value"] = np.nan
    r = row(analysis.order_effects(m, t), "vm", "mann-kendall")
    assert r["n"] == 6 and "1 trial(s) without a finite value left out" in r["reason"]


def test_metric_selection_and_errors():
    m, t = campaign(9, per_cell=6)
    other = m.assign(metric="latency_mean", unit="s")
    both = pd.concat([m, other], ignore_index=True)
    assert set(analysis.order_effects(both, t)["metric"]) == {"events_per_second", "latency_mean"}
    assert set(analysis.order_effects(both, t, metric="latency_mean")["metric"]) == {"latency_mean"}
    with pytest.raises(MissingColumnError, match="position"):
        analysis.order_effects(m, t.drop(columns=["position"]))
    with pytest.raises(EmptyInputError):
        analysis.order_effects(m.iloc[:0], t)
    with pytest.raises(StatsError, match="min_trials"):
        analysis.order_effects(m, t, min_trials=2)
    with pytest.raises(StatsError, match="alpha"):
        analysis.order_effects(m, t, alpha=1.5)


def test_report_names_the_drifting_cell():
    m, t = campaign(1, drift={"docker-nat": 0.3})
    text = analysis.report(m, t)
    lines = text.splitlines()
    assert lines[0].startswith("analysis: 36 trials (36 done; 0 warm-up) on 1 host, 3 cells")
    assert any(x.startswith("order effects: significant in 1 of 3 cells tested") for x in lines)
    assert any(x.startswith("  docker-nat cpu threads=2, events_per_second: value drifts")
               for x in lines)


def test_report_without_trials_or_values():
    m, t = campaign(10, per_cell=3)
    assert "no trials" in analysis.report(m, t.iloc[:0])
    text = analysis.report(m.iloc[:0], t)
    assert "not testable: no measured values" in text and "no significant" not in text


# --- noise ----------------------------------------------------------------------------------

QUIET = {"load1": 0.2, "pswpin": 10, "pswpout": 20, "throttle": None, "nproc": 2}


def test_noise_flags_quiet_host():
    assert analysis.noise_flags(QUIET, dict(QUIET, load1=2.1)) == []


def test_noise_flags_swap_moved():
    assert analysis.noise_flags(QUIET, dict(QUIET, pswpin=11)) == ["swap"]
    assert analysis.noise_flags(QUIET, dict(QUIET, pswpout=25)) == ["swap"]
    # a counter that went down (reboot) or is missing on one side raises nothing
    assert analysis.noise_flags(QUIET, dict(QUIET, pswpin=3)) == []
    assert analysis.noise_flags(dict(QUIET, pswpin=None), dict(QUIET, pswpin=500)) == []


def test_noise_flags_throttle_absent_is_not_zero():
    # absent before, present after: must not be read as 0 -> 7 (an increase)
    assert analysis.noise_flags(QUIET, dict(QUIET, throttle=7)) == []
    assert analysis.noise_flags(dict(QUIET, throttle=7), dict(QUIET, throttle=None)) == []
    assert analysis.noise_flags({k: v for k, v in QUIET.items() if k != "throttle"},
                                dict(QUIET, throttle=float("nan"))) == []
    assert analysis.noise_flags(dict(QUIET, throttle=7), dict(QUIET, throttle=7)) == []
    assert analysis.noise_flags(dict(QUIET, throttle=7), dict(QUIET, throttle=9)) == ["throttle"]


def test_noise_flags_load():
    # 2 CPUs, threshold 0.5: flagged above 3.0
    assert analysis.noise_flags(QUIET, dict(QUIET, load1=3.0)) == []
    assert analysis.noise_flags(QUIET, dict(QUIET, load1=3.4)) == ["load"]
    assert analysis.noise_flags(QUIET, dict(QUIET, load1=3.4), load_threshold=1.0) == []
    assert analysis.noise_flags(QUIET, dict(QUIET, load1=3.4), cores=4) == []
    # no CPU count: the load cannot be judged
    no_cores = {k: v for k, v in QUIET.items() if k != "nproc"}
    assert analysis.noise_flags(no_cores, dict(no_cores, load1=50.0)) == []
    assert analysis.noise_flags(None, None) == []
    everything = dict(QUIET, load1=9.0, pswpout=21, throttle=2)
    assert analysis.noise_flags(dict(QUIET, throttle=1), everything) == ["load", "swap", "throttle"]
    with pytest.raises(StatsError):
        analysis.noise_flags(QUIET, QUIET, load_threshold=-1)
    with pytest.raises(StatsError):
        analysis.noise_flags(QUIET, QUIET, cores=0)


def run_sh(command: str) -> str:
    sh = shutil.which("sh")
    assert sh, "a POSIX sh is needed"
    done = subprocess.run([sh, "-c", command], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_parse_noise_on_the_real_command_output():
    out = run_sh(analysis.noise_command())
    lines = out.splitlines()
    assert all("=" in x for x in lines), out
    parsed = analysis.parse_noise(out)
    assert set(parsed) == set(analysis.NOISE_FIELDS)
    assert isinstance(parsed["load1"], float) and parsed["load1"] >= 0
    for name in ("pswpin", "pswpout"):
        assert isinstance(parsed[name], int) and parsed[name] >= 0
    import os
    assert parsed["nproc"] == os.cpu_count()
    throttle = list(Path("/sys/devices/system/cpu").glob("cpu*/thermal_throttle/*_throttle_count"))
    if throttle:
        assert isinstance(parsed["throttle"], int)
    else:
        assert parsed["throttle"] is None and "throttle=" not in out
    # the same output before and after: a quiet trial as far as the counters go
    assert "swap" not in analysis.noise_flags(parsed, parsed)


def test_noise_command_on_a_fake_tree(tmp_path):
    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "loadavg").write_text("1.25 0.50 0.25 2/300 4242\n")
    (proc / "vmstat").write_text("nr_free_pages 1\npswpin 17\npswpout 4\npgfault 9\n")
    # the first lines of this machine's /proc/stat (user nice system idle iowait irq softirq
    # steal guest guest_nice)
    (proc / "stat").write_text("cpu  4675117 165386 876653 1977025 154825 0 89983 64331 31 0\n"
                               "cpu0 2226235 73090 401239 1201083 33392 0 38697 32590 14 0\n")
    sys = tmp_path / "sys"
    for cpu, counts in (("cpu0", (5, 7)), ("cpu1", (3, 0))):
        d = sys / "devices/system/cpu" / cpu / "thermal_throttle"
        d.mkdir(parents=True)
        (d / "core_throttle_count").write_text(f"{counts[0]}\n")
        (d / "package_throttle_count").write_text(f"{counts[1]}\n")
    parsed = analysis.parse_noise(run_sh(analysis.noise_command(str(proc), str(sys))))
    assert parsed["load1"] == 1.25 and parsed["pswpin"] == 17 and parsed["pswpout"] == 4
    assert parsed["throttle"] == 15
    assert parsed["cpu_busy"] == 4675117 + 165386 + 876653
    assert parsed["cpu_irq"] == 0 + 89983 and parsed["cpu_steal"] == 64331
    # nothing readable: fields absent, not 0
    empty = analysis.parse_noise(run_sh(analysis.noise_command(str(tmp_path / "x"),
                                                               str(tmp_path / "y"))))
    assert {k: v for k, v in empty.items() if k != "nproc"} == dict.fromkeys(
        ["load1", "pswpin", "pswpout", "throttle", "cpu_busy", "cpu_irq", "cpu_steal", "cg_ns",
         "root_ns", "kthread_ticks"])


def test_parse_noise_is_lenient():
    text = "junk\nload1=0.5\nload1=0.75\npswpin=\npswpout=abc\nthrottle=3\nother=1\n"
    assert analysis.parse_noise(text) == {"load1": 0.75, "pswpin": None, "pswpout": None,
                                          "throttle": 3, "nproc": None, "cpu_busy": None,
                                          "cpu_irq": None, "cpu_steal": None, "cg_ns": None,
                                          "root_ns": None, "kthread_ticks": None}
    assert analysis.parse_noise(None) == dict.fromkeys(analysis.NOISE_FIELDS)


def test_noise_summary():
    _, t = campaign(11, per_cell=4)
    flags = ["load,swap", None, "swap", None] * 3
    t["noise_flags"] = pd.array(flags, dtype="string")
    t["noise_throttle_after"] = pd.array([None] * 12, dtype="Int64")
    t.loc[t.index[0], "noise_throttle_after"] = 3
    s = analysis.noise_summary(t)
    assert list(s["env_name"]) == sorted(ENVS)
    assert list(s.columns) == ["env_name", "trials", "flagged", "load", "swap", "throttle",
                               "share_flagged", "throttle_measured"]
    assert s["trials"].sum() == 12 and s["flagged"].sum() == 6
    assert s["load"].sum() == 3 and s["swap"].sum() == 6 and s["throttle"].sum() == 0
    assert (s["share_flagged"] == s["flagged"] / s["trials"]).all()
    assert s["throttle_measured"].sum() == 1
    text = analysis.report(*campaign(11, per_cell=4)[:1], t)
    assert "noise: 6 of 12 trials flagged (load 3, swap 6, throttle 0)" in text
    assert "throttling not measured in 11 of 12 trials" in text


def _yaml(tmp_path, text: str):
    import textwrap

    path = tmp_path / "c.yml"
    path.write_text(textwrap.dedent(text))
    return path


def test_status_analysis_gives_every_judged_comparison_its_verdict(tmp_path):
    """The verdict lines of `overhead status --analysis`: the campaign's judged quantity in every
    environment against native, decided as the stopping rule decides, with why it stopped."""
    from overhead import stats
    from overhead.campaign import inventory
    from overhead.campaign import plan as planner

    (tmp_path / "kh").write_text("")
    spec = inventory.load(_yaml(tmp_path, """\
        name: c1
        seed: 1
        hosts: {local: {address: 127.0.0.1, known_hosts: kh}}
        environments:
          native: {kind: native, host: local}
          docker-nat: {kind: docker, host: local, net: nat}
          vm: {kind: vm, host: local, image: img}
        benchmarks:
          cpu: {runner: sysbench, params: {test: cpu, threads: 2},
                judge: [{metric: events_per_second, name: events}]}
        """))
    cells = planner.cells(spec)
    cell_of = {c.environment: cid for cid, c in cells.items()}
    m, t = campaign(31, per_cell=6, sd=0.05)
    t["cell"] = t["env_name"].map(cell_of)
    vm = m["run_id"].str.contains("/vm/")
    m.loc[vm, "value"] = m.loc[vm, "value"] * 0.6
    lines = analysis.verdict_lines(m, t, spec, {"decisions": {
        f"{cell_of['vm']}#events": {"why": "decided after 6 trials: slower: ..."}}})
    assert lines[0].startswith("verdicts vs native (2 comparisons: ")
    by_env = {line.split()[0]: line for line in lines[1:]}
    x = m.loc[vm, "value"].to_numpy()
    y = m.loc[m["run_id"].str.contains("/native/"), "value"].to_numpy()
    want = stats.decide(x, y, stats.Margin.symmetric(5.0), higher_is_better=True)
    assert want.verdict == "slower"
    assert by_env["vm"] == f"  vm cpu [events]: {want.words()} | stopped: decided after 6 trials"
    assert "docker-nat cpu [events]" in by_env["docker-nat"] and "equivalent within" in by_env["docker-nat"]
    text = analysis.report(m, t, campaign=spec)
    assert "verdicts vs native" in text and "no significant difference" not in text


def test_comparisons_against_any_environment_as_the_stopping_rule_decides(tmp_path):
    """analysis.comparisons: every judged comparison against a baseline of the caller's choice
    (Docker as the other containers' baseline), the same decision as verdict_lines against native."""
    from overhead import stats
    from overhead.campaign import inventory
    from overhead.campaign import plan as planner

    (tmp_path / "kh").write_text("")
    spec = inventory.load(_yaml(tmp_path, """\
        name: c1
        seed: 1
        hosts: {local: {address: 127.0.0.1, known_hosts: kh}}
        environments:
          native: {kind: native, host: local}
          docker-nat: {kind: docker, host: local, net: nat}
          vm: {kind: vm, host: local, image: img}
        benchmarks:
          cpu: {runner: sysbench, params: {test: cpu, threads: 2},
                judge: [{metric: events_per_second, name: events}]}
        """))
    cells = planner.cells(spec)
    cell_of = {c.environment: cid for cid, c in cells.items()}
    m, t = campaign(31, per_cell=6, sd=0.05)
    t["cell"] = t["env_name"].map(cell_of)
    vm = m["run_id"].str.contains("/vm/")
    m.loc[vm, "value"] = m.loc[vm, "value"] * 0.6
    native = analysis.comparisons(m, t, spec)
    assert set(native["environment"]) == {"docker-nat", "vm"} and set(native["baseline"]) == {"native"}
    docker = analysis.comparisons(m, t, spec, "docker-nat")
    assert set(docker["environment"]) == {"native", "vm"} and set(docker["baseline"]) == {"docker-nat"}
    row = docker.set_index("environment").loc["vm"]
    x = m.loc[vm, "value"].to_numpy()
    y = m.loc[m["run_id"].str.contains("/docker/"), "value"].to_numpy()  # docker-nat's runs
    want = stats.decide(x, y, stats.Margin.symmetric(5.0), higher_is_better=True)
    assert row["verdict"] == want.verdict == "slower" and row["words"] == want.words()
    assert (row["n"], row["n_baseline"]) == (6, 6)
    assert row["low"] < row["ratio"] < row["high"] < 1
    # nothing measured yet: no comparisons, not an error
    assert analysis.comparisons(m.iloc[0:0], t, spec).empty
