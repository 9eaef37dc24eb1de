"""Every benchmark of the live paper through the engine on the local hosts (make hosts-up):
local-quick.yml with the ci profile (each benchmark once per environment), run by the campaign
notebook under papermill, ingested, every output parsed, then scanned for secrets."""

from __future__ import annotations

import json

import pandas as pd
import papermill as pm
import pytest

from overhead.paths import ROOT
from overhead.tidy import load as tidy_load

pytestmark = pytest.mark.xdist_group("hosts")
NOTEBOOK = ROOT / "notebooks" / "campaign.ipynb"
CAMPAIGN = "data/campaigns/local-quick.yml"

#: One metric each benchmark's parser must have produced, per environment.
EXPECTED = {"pxz": "throughput", "hpcc": "flop_rate", "nuttcp": "goodput",
            "netperf": "latency_mean", "fio-seq": "bandwidth", "fio-rand": "iops",
            "fio-mixed": "iops", "redis": "throughput", "mysql": "transaction_rate"}


@pytest.fixture(scope="module")
def live(hosts, tmp_path_factory):
    work = tmp_path_factory.mktemp("live")
    params = {"campaign": CAMPAIGN, "profile": "ci", "trials": 1, "raw": str(work / "raw"),
              "tidy": str(work / "tidy"), "retries": 1}
    pm.execute_notebook(str(NOTEBOOK), str(work / "run1.ipynb"), parameters=params,
                        cwd=str(ROOT), progress_bar=False)
    return work, hosts


def _text(nb_path) -> str:
    nb = json.loads(nb_path.read_text())
    return "".join("".join(o.get("text", "")) + json.dumps(o.get("data", {}))
                   for c in nb["cells"] for o in c.get("outputs", []))


def test_every_benchmark_runs_and_parses_in_every_environment(live):
    work, _ = live
    tidy = work / "tidy" / "local-quick-ci"
    trials = pd.read_parquet(tidy / "trials.parquet")
    assert len(trials) == 40 and (trials["status"] == "done").all(), \
        trials.loc[trials["status"] != "done", ["environment", "benchmark", "cause"]]
    rows = tidy_load(tidy)
    rows["env"] = rows["run_id"].str.split("/").str[1]
    bench = rows["run_id"].str.split("/").str[2]
    rows["bench"] = bench
    for name, metric in EXPECTED.items():
        envs = set(rows.loc[(rows["bench"] == name) & (rows["metric"] == metric), "env"])
        want = {"native", "docker-host", "docker-nat", "vm"} | (
            {"docker-nat-overlay"} if name.startswith(("fio", "mysql")) else set())
        assert envs == want, (name, metric, envs)
    # the server's CPU beside each MySQL run, the host's beside each nuttcp transfer
    mysql = rows[rows["bench"] == "mysql"]
    assert set(mysql.loc[mysql["p_sidecar"] == "monitor", "env"]) == set(mysql["env"])
    nut = rows[(rows["bench"] == "nuttcp") & rows["p_sidecar"].notna()]
    assert set(nut["env"]) == {"native", "docker-host", "docker-nat", "vm"}
    # the VM is labelled by what it ran under; here (kvm_pvm) that is TCG, never called KVM
    vm = rows[rows["env"] == "vm"]
    assert set(vm["environment"]) in ({"vm"}, {"kvm"})
    if set(vm["environment"]) == {"vm"}:
        assert vm["variant"].str.contains("accel=tcg").all()
    variants = set(rows.loc[rows["env"].str.startswith("docker"), "variant"])
    assert variants == {"net=host,storage=volume,runtime=runc",
                        "net=nat,storage=volume,runtime=runc",
                        "net=nat,storage=overlay,runtime=runc"}


def test_the_notebook_resumes_instead_of_starting_over(live):
    work, _ = live
    params = {"campaign": CAMPAIGN, "profile": "ci", "trials": 1, "raw": str(work / "raw"),
              "tidy": str(work / "tidy")}
    pm.execute_notebook(str(NOTEBOOK), str(work / "run2.ipynb"), parameters=params,
                        cwd=str(ROOT), progress_bar=False)
    text = _text(work / "run2.ipynb")
    assert "0 trials run now, 40 done before, 0 failed, of 40 planned" in text


def test_no_password_or_key_in_raw_data_manifest_provenance_or_notebook(live):
    work, hosts = live
    password = (hosts / "secrets" / "mysql.cnf").read_text().split("=", 1)[1].strip()
    key_lines = (hosts / "ssh" / "id_ed25519").read_text().splitlines()[1:-1]
    secrets = [password.encode(), *(k.encode() for k in key_lines if len(k) > 20)]
    assert len(password) >= 16 and secrets
    files = [p for p in (work / "raw").rglob("*") if p.is_file()]
    files += [p for p in (work / "tidy").rglob("*") if p.is_file()]
    files += [work / "run1.ipynb", work / "run2.ipynb"]
    assert any(p.name == "manifest.jsonl" for p in files)
    assert any(p.name == "meta" for p in files) and any("provenance" in str(p) for p in files)
    leaks = [str(p) for p in files for s in secrets if s in p.read_bytes()]
    assert leaks == []
    # the MySQL trials did use the password file: its path, never its content, is recorded
    metas = [p.read_text() for p in (work / "raw").rglob("meta") if "/mysql/" in str(p)]
    assert metas and all("p_config_file=/var/tmp/overhead/" in m for m in metas)
