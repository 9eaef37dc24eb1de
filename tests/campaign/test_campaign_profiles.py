"""Profiles, overrides, campaign files, placeholders and sidecars: pure, no SSH."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from overhead.campaign import check, inventory, plan
from overhead.errors import InputError, ParseError
from overhead.paths import ROOT
from overhead.runners import read_trial

CAMPAIGNS = ROOT / "data" / "campaigns"
FIXTURES = ROOT / "tests" / "fixtures" / "campaign-trials"

BASE = """\
name: p1
seed: 7
profile: small
client: local
files: {secret: sb.cnf}
hosts:
  local: {address: 127.0.0.1, port: 2222, key_file: id, known_hosts: kh}
environments:
  native: {kind: native, host: local}
  docker-nat: {kind: docker, host: local, net: nat}
  overlay: {kind: docker, host: local, net: nat, storage: overlay, benchmarks: ["fio-*"]}
"""
SMALL = """\
benchmarks:
  fio-rand: {runner: fio, params: {rw: [randread, randwrite], bs: 4k}}
  pxz: {runner: pxz, params: {level: 2}}
  nuttcp:
    runner: nuttcp
    server: "nuttcp -S --nofork -P {port:5000} -p {port:5001}"
    ports: [5000, 5001]
    offset_ports: true
    params: {ctl_port: "{port:5000}", data_port: "{port:5001}"}
  db:
    runner: sysbench-oltp
    server: "sh {runners}/server-mariadb.sh password_file={file:secret}"
    monitor: "mpstat 1"
    monitor_parser: mpstat
    params: {config_file: "{file:secret}", threads: [1, 2]}
"""


def campaign_dir(tmp_path: Path, base: str = BASE, small: str = SMALL) -> Path:
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "small.yml").write_text(textwrap.dedent(small))
    (tmp_path / "profiles" / "tiny.yml").write_text(
        "extends: small\nbenchmarks:\n  fio-rand: {params: {rw: randread}, timeout: 9}\n")
    for name in ("id", "kh"):
        (tmp_path / name).write_text("x")
    (tmp_path / "sb.cnf").write_text("mysql-password=not-a-real-one\n")
    (tmp_path / "sb.cnf").chmod(0o600)
    path = tmp_path / "c.yml"
    path.write_text(textwrap.dedent(base))
    return path


def test_profile_benchmarks_get_the_client_and_environment_filters(tmp_path):
    c = inventory.load(campaign_dir(tmp_path))
    assert set(c.benchmarks) == {"fio-rand", "pxz", "nuttcp", "db"}
    assert c.benchmarks["nuttcp"].client == "local" and c.benchmarks["pxz"].client is None
    assert c.environments_of("fio-rand") == ["native", "docker-nat", "overlay"]
    assert c.environments_of("pxz") == ["native", "docker-nat"]
    assert c.files["secret"] == tmp_path / "sb.cnf"
    # nuttcp binds every address: each environment of the host has its own ports
    assert c.port_offset("native", "nuttcp") == 0 and c.port_offset("docker-nat", "nuttcp") == 100
    assert c.port_offset("docker-nat", "db") == 0
    assert c.server_ports("docker-nat") == (5100, 5101)
    assert c.server_ports("native") == (5000, 5001)


def test_extends_merges_params_and_overrides_rename_and_rehash(tmp_path):
    path = campaign_dir(tmp_path)
    base = inventory.load(path)
    tiny = inventory.load(path, {"profile": "tiny", "trials": 1})
    assert tiny.name == "p1-tiny" and tiny.trials == 1 and tiny.sha256 != base.sha256
    fio = tiny.benchmarks["fio-rand"]
    assert fio.params == {"rw": "randread", "bs": "4k"} and fio.timeout == 9
    moved = inventory.load(path, inventory.overrides_from_sets(
        ["hosts.local.address=10.0.0.9", "seed=8"]))
    assert moved.hosts["local"].address == "10.0.0.9" and moved.seed == 8
    assert moved.hosts["local"].port == 2222 and moved.name == "p1"
    # one field of one environment (a planted difference between two campaigns), the rest kept
    limited = inventory.load(path, inventory.overrides_from_sets(
        ["environments.docker-nat.cpus=1.5", "name=p1-limited"]))
    env = limited.environments["docker-nat"]
    assert env.cpus == 1.5 and env.net == "nat" and limited.name == "p1-limited"
    assert base.environments["docker-nat"].cpus is None and limited.sha256 != base.sha256
    with pytest.raises(InputError, match="environment override 'nope': no such environment"):
        inventory.load(path, inventory.overrides_from_sets(["environments.nope.cpus=1"]))


def test_a_null_benchmark_leaves_out_what_the_extended_profile_measures(tmp_path):
    path = campaign_dir(tmp_path)
    (tmp_path / "profiles" / "nodb.yml").write_text(
        "extends: tiny\nbenchmarks:\n  db: null\n  nuttcp: null\n  absent: null\n")
    c = inventory.load(path, {"profile": "nodb"})
    assert set(c.benchmarks) == {"fio-rand", "pxz"}
    assert c.benchmarks["fio-rand"].params == {"rw": "randread", "bs": "4k"}  # tiny's, kept
    # a profile of its own (no extends) may say null too: nothing to leave out, nothing added
    (tmp_path / "profiles" / "alone.yml").write_text(
        "benchmarks:\n  pxz: {runner: pxz}\n  db: null\n")
    assert set(inventory.load(path, {"profile": "alone"}).benchmarks) == {"pxz"}


def _mkdir(path: Path) -> Path:
    path.mkdir()
    return path


def test_a_campaign_on_a_profile_leaves_a_benchmark_out_with_null(tmp_path):
    path = campaign_dir(tmp_path, BASE + "benchmarks:\n  db: null\n  pxz: null\n")
    c = inventory.load(path)
    assert set(c.benchmarks) == {"fio-rand", "nuttcp"}
    assert "db" not in check.check(c).campaign.benchmarks
    # without a profile there is nothing to leave out: null is a mistake, named with its line
    alone = BASE.replace("profile: small\n", "") + "benchmarks:\n  pxz: null\n"
    with pytest.raises(InputError, match=r"c\.yml:\d+: benchmarks\.pxz: a mapping of fields"):
        inventory.load(campaign_dir(_mkdir(tmp_path / "x"), alone))


def test_a_host_reached_by_clients_at_another_address_says_so(tmp_path):
    """bench_address: where load generators on other hosts reach the host's servers."""
    base = BASE.replace("client: local\n", "client: far\n").replace(
        "  local: {address: 127.0.0.1, port: 2222, key_file: id, known_hosts: kh}\n",
        "  local: {address: 127.0.0.1, port: 2222, bench_address: 10.231.0.1, key_file: id, "
        "known_hosts: kh}\n  far: {address: 10.231.0.11, key_file: id, known_hosts: kh}\n")
    c = inventory.load(campaign_dir(tmp_path, base))
    assert c.hosts["local"].bench_address == "10.231.0.1"
    assert c.remote_clients("docker-nat") and c.remote_clients("native")
    assert not c.remote_clients("overlay")  # fio only: no load generator
    local = inventory.load(campaign_dir(_mkdir(tmp_path / "l"), BASE))
    assert not any(local.remote_clients(e) for e in local.environments)


@pytest.mark.parametrize(("sets", "message"), [
    (["benchmarks=1"], "overridable are"),
    (["trials"], "expected field=value"),
    (["hosts.local=1"], "hosts as hosts.NAME.FIELD"),
    (["environments.docker-nat=1"], "environments as environments.NAME.FIELD"),
])
def test_bad_sets_are_named(sets, message):
    with pytest.raises(InputError, match=message):
        inventory.overrides_from_sets(sets)


def test_profile_errors_name_file_and_line(tmp_path):
    path = campaign_dir(tmp_path, BASE.replace("client: local\n", ""))
    with pytest.raises(InputError, match=r"c\.yml:3: profile small: benchmark nuttcp has a server"):
        inventory.load(path)
    other = tmp_path / "o"
    other.mkdir()
    path = campaign_dir(other, small=SMALL.replace("runner: fio, params", "runner: fio, parms"))
    with pytest.raises(InputError, match=r"small\.yml:2: parms"):
        inventory.load(path)
    with pytest.raises(InputError, match=r"c\.yml:3: profile 'nope': no such file"):
        inventory.load(path, {"profile": "nope"})
    third = tmp_path / "t"
    third.mkdir()
    path = campaign_dir(third, BASE.replace("files: {secret: sb.cnf}", "files: {}"))
    with pytest.raises(InputError, match=r"\{file:secret\} is not among the campaign's files"):
        inventory.load(path)


def test_check_finds_unknown_parameters_and_open_secrets(tmp_path):
    path = campaign_dir(tmp_path, small=SMALL.replace("{level: 2}", "{level: 2, lvl: 3}"))
    (tmp_path / "sb.cnf").chmod(0o644)
    result = check.check(inventory.load(path))
    assert not result.ok
    text = result.text()
    assert "benchmark pxz: runner pxz has no parameter lvl" in text
    assert "sb.cnf is readable by others" in text
    # fio-rand 2 x 3 environments, pxz 1 x 2, nuttcp 1 x 2, db 2 x 2; 3 trials each
    assert result.cells == 14 and result.trials == 42


def test_committed_campaigns_check(tmp_path):
    """local-quick (every profile) is runnable once hosts-up made its files; paper.yml's only
    problems are the user's own files (keys, known_hosts, password)."""
    quick = check.check(inventory.load(CAMPAIGNS / "local-quick.yml"))
    assert set(quick.campaign.benchmarks) == {"pxz", "hpcc", "nuttcp", "netperf", "fio-seq",
                                              "fio-rand", "fio-mixed", "redis", "mysql"}
    for profile in ("quick", "ci", "paper"):
        c = inventory.load(CAMPAIGNS / "local-quick.yml", {"profile": profile})
        problems = check.check(c).problems
        assert all("does not exist" in p or "has no disk.raw" in p for p in problems), problems
    ci = inventory.load(CAMPAIGNS / "local-quick.yml", {"profile": "ci", "trials": 1})
    cells = plan.make_plan(ci).cells
    # every benchmark once per environment (netperf: TCP_RR and UDP_RR); the overlay
    # environment only fio and MySQL, the emulated VM every one but Redis
    assert len(cells) == 4 * 10 + 4 - 1
    paper = check.check(inventory.load(CAMPAIGNS / "paper.yml"))
    assert paper.problems and all(
        p.startswith(("host sut", "host client", "file mysql")) for p in paper.problems)
    assert paper.campaign.benchmarks["mysql"].params["table_size"] == 2_000_000


def test_sidecars_join_the_trial_rows(tmp_path):
    nuttcp = read_trial(FIXTURES / "nuttcp").measurements
    main = nuttcp[nuttcp["p_sidecar"].isna()]
    side = nuttcp[nuttcp["p_sidecar"] == "mpstat"]
    # values read off the files: output's rate_Mbps=8313.9575, mpstat's Average idle 38.15
    goodput = main.loc[main["metric"] == "goodput", "value"].iloc[0]
    assert goodput * 8 / 1e6 == pytest.approx(8313.9575, rel=1e-6)
    idle = side[(side["metric"] == "cpu_idle_mean") & (side["p_cpu"] == "all")]["value"]
    assert idle.tolist() == [38.15]
    assert set(side["tool"]) == {"mpstat"} and side["tool_version"].isna().all()
    mysql = read_trial(FIXTURES / "mysql").measurements
    mon = mysql[mysql["p_sidecar"] == "monitor"]
    assert mon.loc[mon["metric"] == "cpu_usr_mean", "value"].tolist() == [60.30]
    assert set(mon["p_threads"]) == {2}  # the run's parameters reach the server's samples
    # sysbench's "transactions: 2509 (2501.94 per sec.)"
    tps = mysql[(mysql["metric"] == "transaction_rate") & mysql["p_sidecar"].isna()]
    assert tps["value"].tolist() == [2501.94] and set(tps["p_threads"]) == {2}
    # the output says only "oltp" (SQL statistics); the runner's test=oltp_read_only refines it
    assert set(mysql["p_test"]) == {"oltp_read_only"}


def test_bad_sidecar_entries_are_named(tmp_path):
    trial = tmp_path / "t"
    shutil.copytree(FIXTURES / "nuttcp", trial)
    meta = (trial / "meta").read_text().replace("sidecar=mpstat:mpstat", "sidecar=mpstat")
    (trial / "meta").write_text(meta)
    with pytest.raises(ParseError, match=r"meta:\d+: sidecar 'mpstat' is not file:parser"):
        read_trial(trial)
    (trial / "meta").write_text(meta.replace("sidecar=mpstat", "sidecar=gone:mpstat"))
    with pytest.raises(OSError):
        read_trial(trial)


def test_campaign_notebook_is_committed_without_outputs_and_in_sync():
    import json

    import jupytext

    nb = json.loads((ROOT / "notebooks" / "campaign.ipynb").read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert all(not c.get("outputs") and c.get("execution_count") is None for c in code)
    assert "parameters" in code[0].get("metadata", {}).get("tags", [])
    # papermill on the command line needs the kernel named in the notebook itself
    from overhead.notebook import KERNEL_NAME

    assert nb["metadata"]["kernelspec"]["name"] == KERNEL_NAME
    paired = jupytext.read(ROOT / "notebooks" / "campaign.py")
    assert [(c.cell_type, c.source) for c in paired.cells] == \
        [(c["cell_type"], "".join(c["source"])) for c in nb["cells"]]
