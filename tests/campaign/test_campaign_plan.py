"""Campaign files and the planner: pure, no SSH (inventory.load, plan.make_plan/extend, manifest)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from overhead.campaign import inventory, manifest, plan
from overhead.errors import InputError, ParseError

CAMPAIGN = """\
name: t1
seed: 42
trials: 3
warmup: 1
timeout: 60
hosts:
  local: {address: 127.0.0.1, port: 2222, key_file: ssh/id, known_hosts: ssh/known_hosts}
environments:
  native: {kind: native, host: local}
  docker-nat: {kind: docker, host: local, net: nat, storage: overlay}
  vm: {kind: vm, host: local, image: image/current}
benchmarks:
  cpu: {runner: sysbench, params: {test: cpu, threads: [1, 2], time: 1}}
  fio: {runner: fio, params: {rw: randread, bs: 4k}, environments: [native, vm], timeout: 30}
"""


def write(tmp_path: Path, text: str, name: str = "c.yml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_load_resolves_paths_and_hashes(tmp_path):
    c = inventory.load(write(tmp_path, CAMPAIGN))
    assert c.hosts["local"].known_hosts == tmp_path / "ssh" / "known_hosts"
    assert c.environments["vm"].image == tmp_path / "image" / "current"
    assert c.environments["docker-nat"].net == "nat"
    assert c.environments["vm"].accel == "auto"
    assert len(c.sha256) == 64
    assert c.environments_of("fio") == ["native", "vm"]


@pytest.mark.parametrize(("old", "new", "where"), [
    ("vcpus", None, None),
    ("port: 2222", "port: 99999", ":7: hosts.local.port"),
    ("{kind: native, host: local}", "{kind: native, host: nowhere}", ":9: environments.native.host: unknown host 'nowhere'"),
    ("net: nat", "net: bridge", ":10: environments.docker-nat.net"),
    ("image: image/current", "image: image/current, cpus: 3", ":11: environments.vm.cpus: Extra inputs"),
    ("environments: [native, vm]", "environments: [native, kvm]", ":14: benchmarks.fio.environments: unknown environment 'kvm'"),
    ("seed: 42", "seed: many", ":2: seed"),
    ("known_hosts: ssh/known_hosts}", "}", ":7: hosts.local.known_hosts: Field required"),
])
def test_errors_name_file_line_and_field(tmp_path, old, new, where):
    if new is None:  # YAML syntax error
        path = write(tmp_path, CAMPAIGN.replace("timeout: 60", "timeout: [60"))
        with pytest.raises(InputError, match=r"c\.yml:\d+: not valid YAML"):
            inventory.load(path)
        return
    path = write(tmp_path, CAMPAIGN.replace(old, new))
    with pytest.raises(InputError) as err:
        inventory.load(path)
    assert f"{path}{where}" in str(err.value)


def test_inventory_file_supplies_hosts(tmp_path):
    write(tmp_path, """\
        hosts:
          local: {address: 127.0.0.1, port: 2222, known_hosts: kh}
        """, "inv.yml")
    text = CAMPAIGN.replace("hosts:\n  local: {address: 127.0.0.1, port: 2222, key_file: ssh/id, "
                            "known_hosts: ssh/known_hosts}\n", "inventory: inv.yml\n")
    c = inventory.load(write(tmp_path, text))
    assert c.hosts["local"].known_hosts == tmp_path / "kh"
    alone = inventory.load(write(tmp_path, CAMPAIGN, "alone.yml"))
    assert c.sha256 != alone.sha256  # the inventory's bytes are part of the hash
    (tmp_path / "inv.yml").write_text("hosts:\n  local: {address: 127.0.0.1, port: x, known_hosts: kh}\n")
    with pytest.raises(InputError, match=r"inv\.yml:2: .*port"):
        inventory.load(tmp_path / "c.yml")


def test_plan_rounds_interleave_every_cell_once(tmp_path):
    c = inventory.load(write(tmp_path, CAMPAIGN))
    p = plan.make_plan(c)
    cells = plan.cells(c)
    # cpu: 3 environments x 2 thread counts; fio: 2 environments
    assert len(cells) == 8 == len(p.cells)
    assert p.rounds == 4 and len(p.trials) == 32
    for r in range(1, 5):
        in_round = [t for t in p.trials if t.round == r]
        assert sorted(t.cell for t in in_round) == sorted(cells)
        assert all(t.warmup == (r == 1) for t in in_round)
    assert [t.position for t in p.trials] == list(range(32))
    orders = {tuple(t.cell for t in p.trials if t.round == r) for r in range(1, 5)}
    assert len(orders) > 1  # a fresh order per round
    assert {t.timeout for t in p.trials if t.benchmark == "fio"} == {30}
    assert len({t.id for t in p.trials}) == 32


def test_plan_is_deterministic_and_ids_hash_the_trial(tmp_path):
    a = plan.make_plan(inventory.load(write(tmp_path, CAMPAIGN)))
    b = plan.make_plan(inventory.load(write(tmp_path, CAMPAIGN, "again.yml")))
    assert a.to_json() == b.to_json()
    other = plan.make_plan(inventory.load(write(tmp_path, CAMPAIGN.replace("seed: 42", "seed: 43"),
                                                "seed.yml")))
    assert {t.id for t in other.trials} == {t.id for t in a.trials}  # ids: no seed in them
    assert [t.id for t in other.trials] != [t.id for t in a.trials]  # the order: seeded
    more = plan.make_plan(inventory.load(write(tmp_path, CAMPAIGN.replace("trials: 3", "trials: 5"),
                                               "more.yml")))
    assert [t.id for t in more.trials[:32]] == [t.id for t in a.trials]  # rounds never reorder


def test_stopping_rule_adds_rounds_until_precise_or_capped(tmp_path):
    text = CAMPAIGN.replace("trials: 3", "stopping: {metric: event_rate, target: 0.02, "
                            "min_rounds: 3, max_rounds: 5}")
    c = inventory.load(write(tmp_path, text))
    p = plan.make_plan(c)
    assert p.rounds == 4 and p.stops == {}
    cells = list(p.cells)
    precise, noisy = cells[0], cells[1]
    values = {cid: [100.0, 100.5, 99.5] for cid in cells}
    values[noisy] = [100.0, 150.0, 60.0]
    p2 = plan.extend(p, c, values)
    assert p2.rounds == 5
    assert precise in p2.stops and "target 2% met" in p2.stops[precise]
    added = [t for t in p2.trials if t.round == 5]
    assert [t.cell for t in added] == [noisy]
    values[noisy] += [120.0]
    p3 = plan.extend(p2, c, values)
    values[noisy] += [80.0]
    p4 = plan.extend(p3, c, values)
    assert p4.rounds == 6
    assert p4.stops[noisy].startswith("cap of 5 rounds reached")
    assert plan.extend(p4, c, values) is not None and len(plan.extend(p4, c, values).trials) == len(p4.trials)


VERDICTS = CAMPAIGN.replace("trials: 3\n", "").replace(
    "cpu: {runner: sysbench, params: {test: cpu, threads: [1, 2], time: 1}}",
    "cpu: {runner: sysbench, params: {test: cpu, threads: [1, 2], time: 1},\n"
    "       judge: [{metric: event_rate}]}") + (
    "stopping: {rule: verdicts, baseline: native, min_rounds: 3, max_rounds: 12}\n")


def judged(values, first_round=2):
    """Judged values of consecutive rounds (round 1 is the warm-up of these campaigns)."""
    return plan.Judged(tuple(values), True, tuple(range(first_round, first_round + len(values))))


def grow(j, value):
    return j.add(value, (j.rounds[-1] + 1) if j.rounds else 2, True)


def test_verdicts_rule_decides_each_comparison_at_its_first_deciding_look(tmp_path):
    c = inventory.load(write(tmp_path, VERDICTS))
    p = plan.make_plan(c)
    assert p.rounds == 1 + 3  # a warm-up round, then the first look's 3 trials
    cell = {(x.environment, x.benchmark, x.params.get("threads")): cid for cid, x in p.cells.items()}
    # fio has no judge: its cells keep the first look's count and say why
    fio = [cid for cid, x in p.cells.items() if x.benchmark == "fio"]
    assert all(p.stops[f].startswith("fixed count of 3 trials") for f in fio)
    values = {(cid, 0): judged([1000.0, 1001.0, 999.0]) for cid in p.cells if cid not in fio}
    values[(cell[("vm", "cpu", 1)], 0)] = judged([400.0, 410.0, 390.0])    # slower
    # 5% noise: no look before the last (12) is expected to show sameness within +-5%
    noisy = [1000.0, 1050.0, 950.0]
    values[(cell[("docker-nat", "cpu", 2)], 0)] = judged(noisy)
    p2 = plan.extend(p, c, values)
    added = {t.cell for t in p2.trials if t.round == 5}
    assert added == {cell[("docker-nat", "cpu", 2)], cell[("native", "cpu", 2)]}
    d = p2.decisions
    vm1 = d[f"{cell[('vm', 'cpu', 1)]}#event_rate"]
    assert vm1["verdict"] == "slower" and vm1["stopped"] and vm1["stopped_by"] == "decided"
    assert vm1["why"].startswith("decided at look 1 of 3 (3 trials a side): slower")
    # read off the first look's interval: 1 - 0.05 (3/12)^2 = 99.6875%
    assert vm1["level"] == pytest.approx(0.996875) and vm1["sequential"]
    from overhead import stats
    iv = stats.ratio_interval([400.0, 410.0, 390.0], [1000.0, 1001.0, 999.0], 0.996875)
    assert (vm1["low"], vm1["high"]) == (iv.low, iv.high)
    assert "99.69% sequential interval, look 1 of 3" in vm1["words"]
    eq = d[f"{cell[('docker-nat', 'cpu', 1)]}#event_rate"]
    assert eq["verdict"] == "equivalent" and eq["margin"] == "\u00b15%"
    open_ = d[f"{cell[('docker-nat', 'cpu', 2)]}#event_rate"]
    assert open_["verdict"] == "inconclusive" and not open_["stopped"]
    assert open_["trials_needed"] == 12   # the look its spread is expected to decide
    assert p2.stops[cell[("vm", "cpu", 2)]].startswith("vm vs native [event_rate]: decided at look 1")
    assert p2.stops[cell[("native", "cpu", 1)]] == "after 3 trials: every comparison with it stopped"
    # the noisy pair runs to its last look (12 trials), where it is decided
    key = f"{cell[('docker-nat', 'cpu', 2)]}#event_rate"
    while not p2.decisions[key]["stopped"]:
        n = len(values[(cell[("docker-nat", "cpu", 2)], 0)].values)
        values[(cell[("docker-nat", "cpu", 2)], 0)] = grow(values[(cell[("docker-nat", "cpu", 2)], 0)],
                                                         noisy[n % 3])
        values[(cell[("native", "cpu", 2)], 0)] = grow(values[(cell[("native", "cpu", 2)], 0)], 1000.0)
        p2 = plan.extend(p2, c, values)
    last = p2.decisions[key]
    assert p2.rounds == 1 + 12 and last["n"] == 12 and last["look"] == 3
    assert last["stopped_by"] == "decided" and last["verdict"] == "equivalent"
    assert last["why"].startswith("decided at look 3 of 3 (12 trials a side): equivalent")
    # the same values give the same plan: a resumed campaign re-derives its rounds
    # (the executor hands the rule the values of the plan's own trials: rounds so far)
    again = plan.make_plan(c)
    while True:
        so_far = {k: plan.Judged(tuple(v for v, r in zip(j.values, j.rounds, strict=True)
                                       if r <= again.rounds), True,
                                 tuple(r for r in j.rounds if r <= again.rounds))
                  for k, j in values.items()}
        more = plan.extend(again, c, so_far)
        if len(more.trials) == len(again.trials):
            again = more
            break
        again = more
    assert [t.id for t in again.trials] == [t.id for t in p2.trials]
    assert json.loads(json.dumps(p2.to_json()))["decisions"] == p2.decisions


def test_verdicts_rule_gives_up_what_no_look_can_decide_and_keeps_to_its_budget(tmp_path):
    c = inventory.load(write(tmp_path, VERDICTS.replace("max_rounds: 12}", "max_rounds: 12, max_minutes: 2}")))
    p = plan.make_plan(c)
    cell = {(x.environment, x.benchmark, x.params.get("threads")): cid for cid, x in p.cells.items()}
    fio = [cid for cid, x in p.cells.items() if x.benchmark == "fio"]
    values = {(cid, 0): judged([1000.0, 1001.0, 999.0]) for cid in p.cells if cid not in fio}
    # 20% noise: even at the spread's lower 90% bound no look up to 12 decides +-5%
    values[(cell[("docker-nat", "cpu", 1)], 0)] = judged([800.0, 1200.0, 1000.0])
    # 5% noise: the last look would decide it
    values[(cell[("docker-nat", "cpu", 2)], 0)] = judged([1000.0, 1050.0, 950.0])
    p2 = plan.extend(p, c, values, elapsed_minutes=0.5)
    hopeless = p2.decisions[f"{cell[('docker-nat', 'cpu', 1)]}#event_rate"]
    assert hopeless["stopped_by"] == "hopeless" and hopeless["why"].startswith("given up after 3 trials a side")
    assert {t.cell for t in p2.trials if t.round == 5} == {cell[("docker-nat", "cpu", 2)],
                                                           cell[("native", "cpu", 2)]}
    # 9 more rounds of trials that cost 10 s each do not fit in the 90 s left
    costs = dict.fromkeys(p.cells, 10.0)
    p3 = plan.extend(p, c, values, elapsed_minutes=0.5, costs=costs)
    tight = p3.decisions[f"{cell[('docker-nat', 'cpu', 2)]}#event_rate"]
    assert tight["stopped_by"] == "budget" and tight["why"].startswith(
        "budget: its next deciding look (12 trials a side) would take about 180 s more of the 90 s left")
    assert p3.rounds == p.rounds
    done = plan.extend(p, c, values, elapsed_minutes=2.5)
    assert done.rounds == p.rounds
    assert done.decisions[f"{cell[('docker-nat', 'cpu', 2)]}#event_rate"]["why"].startswith(
        "time budget of 2 min spent (2.5 min): inconclusive")
    # its last look taken undecided: inconclusive, and said so
    short = inventory.load(write(tmp_path, VERDICTS.replace("max_rounds: 12}", "max_rounds: 6}"), "six.yml"))
    q = plan.make_plan(short)
    vals = {(cid, 0): judged([1000.0, 1001.0, 999.0]) for cid in q.cells if cid not in fio}
    noisy = [1000.0, 1050.0, 950.0]
    vals[(cell[("docker-nat", "cpu", 2)], 0)] = judged(noisy)
    q = plan.extend(q, short, vals)
    key = f"{cell[('docker-nat', 'cpu', 2)]}#event_rate"
    while not q.decisions[key]["stopped"]:
        j = vals[(cell[("docker-nat", "cpu", 2)], 0)]
        vals[(cell[("docker-nat", "cpu", 2)], 0)] = grow(j, noisy[len(j.values) % 3])
        vals[(cell[("native", "cpu", 2)], 0)] = grow(vals[(cell[("native", "cpu", 2)], 0)], 1000.0)
        q = plan.extend(q, short, vals)
    final = q.decisions[key]
    assert final["stopped_by"] == "final" and final["n"] == 6 and final["verdict"] == "inconclusive"
    assert final["why"].startswith("its last planned look (6 trials a side) reached: inconclusive")
    for bad, said in (("baseline: native,", "baseline: bare,"), ):
        with pytest.raises(InputError, match="stopping.baseline 'bare' is not an environment"):
            inventory.load(write(tmp_path, VERDICTS.replace(bad, said), "bad.yml"))
    with pytest.raises(InputError, match="needs at least one benchmark with judge"):
        inventory.load(write(tmp_path, VERDICTS.replace(",\n       judge: [{metric: event_rate}]", ""),
                             "nojudge.yml"))
    with pytest.raises(InputError, match=r"stopping\.verdicts\.metric: Extra inputs are not permitted"):
        inventory.load(write(tmp_path, VERDICTS.replace("rule: verdicts,", "rule: verdicts, metric: x,"),
                             "mixed.yml"))
    with pytest.raises(InputError, match="rule 'bogus' is not a stopping rule"):
        inventory.load(write(tmp_path, VERDICTS.replace("rule: verdicts,", "rule: bogus,"), "bogus.yml"))
    with pytest.raises(InputError, match="looks must be increasing"):
        inventory.load(write(tmp_path, VERDICTS.replace("min_rounds: 3, max_rounds: 12", "looks: [3, 6, 4]"),
                             "looks.yml"))
    with pytest.raises(InputError, match="'cloud' is not an environment"):
        inventory.load(write(tmp_path, VERDICTS.replace("max_rounds: 12}", "max_rounds: 12, environments: "
                                                        "{cloud: {looks: [2]}}}"), "env.yml"))


def test_judged_value_reads_one_value_per_trial():
    import pandas as pd

    rows = pd.DataFrame({"metric": ["iops", "iops", "lat"], "value": [100.0, 40.0, 1.0],
                         "p_direction": ["read", "write", "read"], "p_sidecar": [None, None, None],
                         "higher_is_better": [True, True, False]})
    assert plan.judged_value(rows, inventory.Judge(metric="iops", combine="sum")) == (140.0, True)
    assert plan.judged_value(rows, inventory.Judge(metric="iops")) == (70.0, True)
    assert plan.judged_value(rows, inventory.Judge(metric="iops", where={"direction": "read"})) == (100.0, True)
    assert plan.judged_value(rows, inventory.Judge(metric="iops", where={"sidecar": None}))[0] == 70.0
    assert plan.judged_value(rows, inventory.Judge(metric="bw")) == (None, None)
    missing = rows.assign(value=[100.0, float("nan"), 1.0])
    assert plan.judged_value(missing, inventory.Judge(metric="iops")) == (None, None)  # never 0


def test_manifest_appends_and_drops_a_torn_tail(tmp_path):
    path = tmp_path / "manifest.jsonl"
    with manifest.Manifest(path) as m:
        m.trial("t-1", "running", attempt=1)
        m.trial("t-1", "done", attempt=1)
        m.trial("t-2", "running", attempt=1)
    with open(path, "ab") as fh:
        fh.write(b'{"trial": "t-2", "sta')  # the controller died mid-write
    with pytest.warns(UserWarning, match="torn last record"):
        recs = manifest.read_records(path)
    assert [r["state"] for r in recs] == ["running", "done", "running"]
    with manifest.Manifest(path) as m:  # reopening truncates the torn tail
        m.trial("t-2", "failed", attempt=1, cause="timeout")
    recs = manifest.read_records(path)
    assert [r["state"] for r in recs] == ["running", "done", "running", "failed"]
    assert all(json.loads(line) for line in path.read_text().splitlines())
    lines = path.read_text().splitlines()
    lines.insert(1, "not json")
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ParseError, match=r"manifest\.jsonl:2"):
        manifest.read_records(path)


def test_resume_runs_what_is_not_done():
    recs = [{"trial": "a", "state": "running"}, {"trial": "a", "state": "done"},
            {"trial": "b", "state": "running"},  # controller died: run again
            {"trial": "c", "state": "running"}, {"trial": "c", "state": "failed", "cause": "x"},
            {"trial": "d", "state": "running"}]  # died after the rename: meta exists
    r = manifest.resume(["a", "b", "c", "d", "e"], recs, finished={"a", "d"})
    assert r.todo == ["b", "e"] and r.done == {"a", "d"} and r.rerun == {"b"}
    assert r.failed == {"c": "x"} and r.recovered == {"d"}
    r2 = manifest.resume(["a", "b", "c", "d", "e"], recs, finished={"a", "d"}, retries=1)
    assert r2.todo == ["b", "c", "e"]
    # meta is the truth: a 'done' record without a local trial is run again
    r3 = manifest.resume(["a"], recs, finished=set())
    assert r3.todo == ["a"]
    twice = manifest.resume(["c"], recs * 2, set(), retries=1)  # failed twice: retries used up
    assert twice.failed == {"c": "x"} and twice.attempts == {"c": 2} and twice.todo == []


def test_a_benchmark_may_ask_for_more_trials_than_the_campaign(tmp_path):
    base = plan.make_plan(inventory.load(write(tmp_path, CAMPAIGN)))
    more = plan.make_plan(inventory.load(write(tmp_path, CAMPAIGN.replace(
        "environments: [native, vm], timeout: 30}",
        "environments: [native, vm], timeout: 30, trials: 5}"), "more.yml")))
    count = {}
    for t in more.trials:
        if not t.warmup:
            count[(t.benchmark, t.cell)] = count.get((t.benchmark, t.cell), 0) + 1
    # fio's 2 cells: 5 measured trials each; cpu's 6 cells: the campaign's 3
    assert sorted(n for (b, _), n in count.items() if b == "fio") == [5, 5]
    assert {n for (b, _), n in count.items() if b == "cpu"} == {3}
    assert more.rounds == 1 + 5
    # rounds 5 and 6 hold only fio's cells; every round before is the plan without the option
    assert {t.benchmark for t in more.trials if t.round > 4} == {"fio"}
    assert [t.id for t in more.trials if t.round <= 4] == [t.id for t in base.trials]
    fio_cell = next(t.cell for t in more.trials if t.benchmark == "fio")
    assert more.stops[fio_cell] == "fixed count of 5 trials"
    # a stopping rule decides the count itself
    with pytest.raises(InputError, match="trials sets a fixed count"):
        inventory.load(write(tmp_path, CAMPAIGN.replace(
            "environments: [native, vm], timeout: 30}",
            "environments: [native, vm], timeout: 30, trials: 5}") + textwrap.dedent("""\
            stopping: {metric: events_per_second, target: 0.05, min_rounds: 3,
                       max_rounds: 6}
            """), "stop.yml"))


def test_an_environment_may_skip_points_of_a_grid(tmp_path):
    text = CAMPAIGN.replace("vm: {kind: vm, host: local, image: image/current}",
                            "vm: {kind: vm, host: local, image: image/current,\n"
                            "       skip: [{benchmark: cp*, threads: 2}]}")
    c = inventory.load(write(tmp_path, text))
    cells = plan.cells(c)
    vm = sorted(x.params["threads"] for x in cells.values() if x.environment == "vm" and x.benchmark == "cpu")
    assert vm == [1]  # threads=2 left out in the VM only
    assert sorted(x.params["threads"] for x in cells.values()
                  if x.environment == "native" and x.benchmark == "cpu") == [1, 2]
    for bad, said in (("{benchmark: gpu, threads: 2}", "skip names no benchmark"),
                      ("{benchmark: cpu, cores: 2}", "skip parameter 'cores' is not a parameter"),
                      ("{threads: 2}", "names a benchmark and parameter values")):
        with pytest.raises(InputError, match=said):
            inventory.load(write(tmp_path, text.replace("{benchmark: cp*, threads: 2}", bad), "bad.yml"))


def test_a_decided_comparison_stays_decided_when_its_baseline_runs_on(tmp_path):
    """A look that decided is where the comparison stopped: the baseline's later trials (run for
    another comparison) never reopen it, and reading the finished campaign gives the same
    verdict from the same look (the repeated intervals hold at every look taken)."""
    c = inventory.load(write(tmp_path, VERDICTS))
    p = plan.make_plan(c)
    cell = {(x.environment, x.benchmark, x.params.get("threads")): cid for cid, x in p.cells.items()}
    fio = [cid for cid, x in p.cells.items() if x.benchmark == "fio"]
    values = {(cid, 0): judged([1000.0, 1001.0, 999.0]) for cid in p.cells if cid not in fio}
    values[(cell[("docker-nat", "cpu", 2)], 0)] = judged([1000.0, 1030.0, 970.0])  # open
    p2 = plan.extend(p, c, values)
    vm2, native2 = cell[("vm", "cpu", 2)], cell[("native", "cpu", 2)]
    key = f"{vm2}#event_rate"
    assert p2.decisions[key]["verdict"] == "equivalent" and p2.decisions[key]["stopped"]
    values[(native2, 0)] = grow(values[(native2, 0)], 1300.0)   # far off
    values[(cell[("docker-nat", "cpu", 2)], 0)] = grow(values[(cell[("docker-nat", "cpu", 2)], 0)], 1000.0)
    p3 = plan.extend(p2, c, values)
    assert p3.decisions[key] == p2.decisions[key]
    assert vm2 in p3.stops and vm2 not in {t.cell for t in p3.trials if t.round == p3.rounds}
    # earlier rounds are untouched: new rounds only append
    assert [t.id for t in p3.trials[:len(p2.trials)]] == [t.id for t in p2.trials]
    # the replay over the finished data reads the same look
    from overhead.campaign import judging
    from overhead.campaign.stopping import rule_of
    found = {k: r for k, _, _, r in judging.compare_cells(c, p3.cells, values, "native",
                                                          design_of=rule_of(c).design_of)}
    assert (found[key]["verdict"], found[key]["n"], found[key]["low"]) == (
        "equivalent", 3, p2.decisions[key]["low"])


def test_stop_reasons_say_the_reason_alone_once_for_the_rows_quantity(tmp_path):
    """A table row shows the verdict, n and interval itself: its "stopped" column says only why
    the trials stopped (it once repeated every comparison of the cell in words, 750 characters)."""
    import pandas as pd

    from overhead.campaign import results

    c = inventory.load(write(tmp_path, VERDICTS))
    p = plan.make_plan(c)
    cell = {(x.environment, x.benchmark, x.params.get("threads")): cid for cid, x in p.cells.items()}
    fio = [cid for cid, x in p.cells.items() if x.benchmark == "fio"]
    values = {(cid, 0): judged([1000.0, 1001.0, 999.0]) for cid in p.cells if cid not in fio}
    values[(cell[("vm", "cpu", 1)], 0)] = judged([400.0, 410.0, 390.0])
    p2 = plan.extend(p, c, values)
    res = results.Results("c", tmp_path, tmp_path, pd.DataFrame(), pd.DataFrame(), pd.DataFrame(),
                          plan=json.loads(json.dumps(p2.to_json())))
    vm1, native1 = cell[("vm", "cpu", 1)], cell[("native", "cpu", 1)]
    assert p2.stops[vm1].startswith("vm vs native [event_rate]: decided at look 1 of 3 (3 trials "
                                    "a side): slower: ")
    said = "decided at look 1 of 3 (3 trials a side)"
    assert res.stop_reasons(f"{vm1},{native1}", "event_rate") == said
    # a quantity the plan did not judge under that name: every comparison of the cells, once
    assert res.stop_reasons(f"{vm1},{native1}", "events/s") == said
    # the baseline alone, and a fixed count: what the plan says of them
    assert res.stop_reasons(native1) == "after 3 trials: every comparison with it stopped"
    assert res.stop_reasons(fio[0]).startswith("fixed count of 3 trials")
    assert res.stop_reasons("") == ""


def test_a_paired_benchmark_with_a_first_look_of_two_is_refused_when_loaded(tmp_path):
    """A benchmark's ``pairing: rounds`` meets the rule's looks at load time, not after the
    trials: 2 pairs leave one degree of freedom, so the file is refused naming both fields."""
    text = CAMPAIGN.replace("trials: 3\n", "").replace(
        "  cpu: {runner: sysbench, params: {test: cpu, threads: [1, 2], time: 1}}",
        "  cpu: {runner: sysbench, params: {test: cpu, threads: [1, 2], time: 1}, pairing: rounds,\n"
        "        judge: [{metric: event_rate}]}") + \
        "stopping: {rule: verdicts, baseline: native, looks: [2, 4]}\n"
    with pytest.raises(InputError) as err:
        inventory.load(write(tmp_path, text))
    said = str(err.value)
    assert "benchmark 'cpu' pairs by rounds" in said and "first look in environment" in said
    assert "2 trials (stopping.looks" in said and "start the looks at 3" in said
    # an environment of its own looks is named by its own field; unpaired there, it loads
    vm = text.replace("looks: [2, 4]}", "looks: [3, 6], environments: {vm: {looks: [2]}}}")
    with pytest.raises(InputError, match=r"stopping\.environments\.vm\.looks"):
        inventory.load(write(tmp_path, vm))
    fine = vm.replace("{vm: {looks: [2]}}", "{vm: {looks: [2], pairing: none}}")
    assert inventory.load(write(tmp_path, fine)).stopping.environments["vm"].looks == (2,)
