"""The pilot (`overhead pilot`) on a private sshd: a campaign of its own, the variance components
of each judged quantity per trial size, the design it implies, what it writes and caches.

Two native environments of one host (the same machine twice: no true difference), sysbench's
cpu test at two sizes (its event count), four rounds after a warm-up round.
"""

from __future__ import annotations

import json
import math
import textwrap

import pandas as pd
import pytest
from conftest import free_port
from sshd_helper import make_sshd, require_sshd

from overhead.campaign import inventory
from overhead.campaign.pilot import pilot_campaign, run_pilot


@pytest.fixture(scope="module")
def sshd(tmp_path_factory):
    require_sshd()
    server = make_sshd(tmp_path_factory.mktemp("sshd"), free_port())
    yield server
    server.stop()


def test_the_pilot_measures_components_per_size_and_chooses_a_design(sshd, tmp_path):
    path = tmp_path / "c.yml"
    path.write_text(textwrap.dedent(f"""\
        name: piloted
        seed: 3
        timeout: 60
        isolation: {{outside: 1, steal: 1}}
        hosts:
          local: {sshd.host_yaml()}
        environments:
          native: {{kind: native, host: local}}
          again: {{kind: native, host: local}}
        benchmarks:
          cpu:
            runner: sysbench
            params: {{test: cpu, threads: 1, time: 0, events: [2000, 4000]}}
            judge: [{{metric: event_rate, name: rate}}]
            size: {{param: events, candidates: [500, 2000], range: [250, 8000]}}
        stopping: {{rule: verdicts, baseline: native, looks: [3, 6, 12]}}
        """))
    c = inventory.load(path)
    p = pilot_campaign(c, rounds=3)
    # its own campaign: the first point, the size swept, a warm-up round, no stopping rule
    assert p.name == "piloted-pilot" and p.stopping is None and p.warmup == 1 and p.trials == 3
    assert p.benchmarks["cpu"].params["events"] == [500, 2000]
    assert list(p.environments) == ["native", "again"]
    result = run_pilot(c, rounds=3, raw_root=tmp_path / "raw", tidy_root=tmp_path / "tidy",
                       cache=tmp_path / "cache", progress=False)
    comps = result.components
    assert sorted(comps["size"]) == [500.0, 2000.0] and set(comps["quantity"]) == {"rate"}
    assert (comps["rounds"] == 3).all() and (comps["trials"] == 6).all()
    assert comps["unpaired_sd"].gt(0).all() and comps["seconds"].gt(0).all()
    # the larger size costs more a trial
    by = comps.set_index("size")
    assert by.loc[2000.0, "seconds"] > by.loc[500.0, "seconds"]
    d = result.designs["cpu#rate"]
    assert d["model"]["param"] == "events" and 250 <= d["size"] <= 8000
    assert d["pairing"] in ("none", "rounds") and d["why"].startswith(("events=", "no size"))
    assert d["looks"] == [3, 6, 12] and d["cells"] == 2 and d["margin"] == "\u00b15%"
    # written beside the pilot's tables, and cached per host and benchmark
    tidy = tmp_path / "tidy" / "piloted-pilot"
    assert pd.read_parquet(tidy / "components.parquet").shape[0] == 2
    assert json.loads((tidy / "design.json").read_text())["cpu#rate"]["size"] == d["size"]
    cached = list((tmp_path / "cache").glob("*/cpu-*.json"))
    assert len(cached) == 1
    saved = json.loads(cached[0].read_text())
    assert saved["benchmark"] == "cpu" and saved["host"]["cores"] and saved["designs"]["cpu#rate"]
    text = result.text()
    assert "events=500: rounds 3" in text and "design: " in text
    assert not math.isnan(d["sd"])
