"""overhead.store: DuckDB views over every campaign's tidy folder at once.

Two campaigns are ingested from genuine trial directories (sysbench cpu and fio run by the real
runners here, a Redis trial fetched from the local hosts: tests/fixtures/campaign-trials), one
of them with the Redis trial whose parameter columns the other lacks.
"""

from __future__ import annotations

import json

import pytest
from test_campaign_ingest import (
    ROOT,
    _sysbench_rate,
    add_trial,
    done_records,
    genuine,  # noqa: F401  (the module's fixture of genuine trial directories)
    manifest,
    write_facts,
)

from overhead import tidy
from overhead.campaign import ingest as ci
from overhead.errors import DataNotFound
from overhead.store import Store

pytestmark = pytest.mark.xdist_group("campaign-ingest")

REDIS = ROOT / "tests" / "fixtures" / "campaign-trials" / "redis-short"


def _campaign(root, name, genuine, *, redis: bool):  # noqa: F811
    raw = root / "raw" / name
    for rnd in range(4):  # round 0 is the warm-up
        add_trial(raw, genuine["sysbench"], "native", "sysbench-cpu", f"t-sbnative{rnd}", rnd)
        add_trial(raw, genuine["sysbench"], "docker-nat", "sysbench-cpu", f"t-sbdocker{rnd}", rnd)
    add_trial(raw, genuine["fio"], "vm", "fio-randread", "t-fiovm1", 1)
    add_trial(raw, genuine["fio-failed"], "vm", "fio-randread", "t-fiovmbad", 2, status="failed")
    if redis:
        add_trial(raw, REDIS, "native", "redis", "t-redis1", 1)
    write_facts(raw)
    manifest(raw, done_records(raw))
    ci.ingest_campaign(raw, root / "tidy" / name)


@pytest.fixture
def tidy_root(tmp_path, genuine):  # noqa: F811
    _campaign(tmp_path, "alpha", genuine, redis=False)
    _campaign(tmp_path, "beta", genuine, redis=True)
    return tmp_path / "tidy"


def test_every_campaign_is_one_view_with_the_columns_of_all(tidy_root):
    with Store(tidy_root) as s:
        assert s.names() == ["alpha", "beta"] and s.names(measured=True) == ["alpha", "beta"]
        cols = s.columns("measurements")
        assert {"p_clients", "p_pipeline", "p_threads"} <= set(cols)
        per = s.query("SELECT campaign, count(*) AS n FROM measurements GROUP BY campaign "
                      "ORDER BY campaign")
        for name, n in per.itertuples(index=False):
            assert n == len(tidy.read(tidy_root / name / "measurements.parquet"))
        redis = s.query("SELECT DISTINCT p_clients, p_pipeline FROM measurements "
                        "WHERE benchmark = 'redis'")
        # the values the fixture's command line states: -c 10 -P 10
        assert redis.to_dict("records") == [{"p_clients": 10, "p_pipeline": 10}]
        assert s.query("SELECT count(*) AS n FROM measurements WHERE campaign = 'alpha' "
                       "AND p_clients IS NOT NULL")["n"][0] == 0
        trials = s.query("SELECT campaign, count(*) AS n FROM trials GROUP BY ALL ORDER BY 1")
        assert trials["n"].tolist() == [10, 11]


def test_usable_rows_are_done_non_warmup_trials_one_value_each(tidy_root, genuine):  # noqa: F811
    expected = _sysbench_rate(genuine["sysbench"] / "output")
    with Store(tidy_root) as s:
        v = s.values("sysbench-cpu", "event_rate")
        # rounds 1-3 of two environments in two campaigns; the warm-up round 0 left out
        assert len(v) == 12 and set(v["run_id"].str[-1]) == {"1", "2", "3"}
        assert v["value"].tolist() == pytest.approx([expected] * 12)
        assert set(v["env_name"]) == {"native", "docker-nat"} and (v["n_rows"] == 1).all()
        assert [c for c in v.columns if c.startswith("p_")] and "p_clients" not in v.columns
        only = s.values("sysbench-cpu", "event_rate", campaigns=["beta"], environments=["native"])
        assert len(only) == 3 and set(only["campaign"]) == {"beta"}
        # the failed fio trial is not usable; the done one is
        fio = s.query("SELECT DISTINCT run_id FROM usable WHERE benchmark = 'fio-randread'")
        assert [r.rsplit("/", 1)[-1] for r in fio["run_id"]] == ["t-fiovm1", "t-fiovm1"]
        # a filter on the view reaches the Parquet scan (pushed down, not applied afterwards)
        plan = "\n".join(r[1] for r in s.con.execute(
            "EXPLAIN SELECT value FROM measurements WHERE metric = 'event_rate'").fetchall())
        assert "Filters" in plan and "event_rate" in plan


def test_a_store_names_what_is_missing(tidy_root, tmp_path):
    with pytest.raises(DataNotFound, match=r"no ingested campaign 'gamma' \(present: alpha, beta\)"):
        Store(tidy_root, ["alpha", "gamma"])
    with pytest.raises(DataNotFound, match="no tidy folder"):
        Store(tmp_path / "empty")
    assert Store(tidy_root, ["beta"]).names() == ["beta"]
    # the campaign settings and facts travel with the tables into the tidy folder
    facts = json.loads((tidy_root / "alpha" / ci.FACTS_COPY).read_text())
    assert set(facts) == {"native", "docker-nat", "vm"} and facts["vm"]["accelerator"] == "tcg"


def test_the_explorer_reads_a_campaign_through_the_store_as_open_results_does(tidy_root, tmp_path):
    from overhead.campaign.results import open_results
    from overhead.explore import Explorer

    ex = Explorer(tidy_root, tmp_path / "explore")
    assert ex.sources() == ["alpha", "beta"]
    rows = ex.rows("beta")
    ref = open_results("beta", tidy_root=tidy_root, out=tmp_path / "ref").rows
    ref = ref[ref["value"].notna()]
    key = ["run_id", "metric", "source"]
    a = rows.sort_values(key).reset_index(drop=True)
    b = ref.sort_values(key).reset_index(drop=True)
    assert len(a) == len(b) and a["run_id"].tolist() == b["run_id"].tolist()
    assert a["value"].tolist() == pytest.approx(b["value"].astype(float).tolist())
    assert a["label"].tolist() == b["label"].tolist() and a["env_name"].tolist() == b["env_name"].tolist()
    assert ex.benchmarks("beta") == ["fio-randread", "redis", "sysbench-cpu"]
    # the Redis trial's parameter columns, which the sysbench parts lack, are there
    assert ex.values("beta", "redis", "throughput", "p_clients") == [10]
