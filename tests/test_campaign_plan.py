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
