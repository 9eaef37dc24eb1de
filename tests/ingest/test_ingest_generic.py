"""overhead.ingest with a rule set of its own: a raw tree plus rules gives the tidy tables, with
no study involved (the RC25482 authors' tree is just one rule set, in overhead.rc25482.files)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from overhead import tidy
from overhead.ingest import Rule, RuleSet, ingest, plan, run_id

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _facts(environment: str, variant: str | None) -> dict:
    return {"accelerator": "tcg"} if environment == "vm" else {}


RULES = RuleSet(
    campaign="demo",
    rules=(
        Rule("*/sysbench/cpu.txt", "sysbench", "sysbench cpu, one trial", benchmark="cpu",
             context=lambda rel: {"environment": rel.split("/")[0], "variant": "accel=tcg" if rel.startswith("vm") else None,
                                  "trial": 1}),
        Rule("*/fio/*.txt", "fio", "fio json+", benchmark="fio", context=lambda rel: {"environment": rel.split("/")[0]},
             params={"p_storage": "volume"}),
        Rule("*/notes.md", None, "the operator's notes"),
    ),
    facts=_facts,
)


@pytest.fixture
def tree(tmp_path) -> Path:
    root = tmp_path / "raw"
    for env in ("native", "vm"):
        (root / env / "sysbench").mkdir(parents=True)
        shutil.copy(FIXTURES / "sysbench" / "v1_cpu.txt", root / env / "sysbench" / "cpu.txt")
        (root / env / "fio").mkdir()
        shutil.copy(FIXTURES / "fio" / "randrw-libaio.jsonplus-normal.txt", root / env / "fio" / "randrw.txt")
    (root / "native" / "notes.md").write_text("nothing measured here\n")
    (root / "vm" / "stray.log").write_text("no rule for this\n")
    return root


def test_plan_sorts_files_by_rule(tree):
    files, skipped, unmapped = plan(tree, RULES)
    assert sorted(files) == ["native/fio/randrw.txt", "native/sysbench/cpu.txt", "vm/fio/randrw.txt",
                             "vm/sysbench/cpu.txt"]
    assert skipped == {"the operator's notes": ["native/notes.md"]} and unmapped == ["vm/stray.log"]


def test_ingest_with_a_rule_set_of_its_own(tree, tmp_path):
    out = tmp_path / "tidy"
    result = ingest(tree, out, RULES, workers=1)
    assert result.files == {"fio": 2, "sysbench": 2} and result.unmapped == ["vm/stray.log"]
    assert result.phases and all(v >= 0 for v in result.phases.values())
    m = pd.read_parquet(out / "measurements.parquet")
    assert set(m["campaign"]) == {"demo"} and m["run_id"].str.startswith("demo:").all()
    assert set(m["benchmark"]) == {"cpu", "fio"} and (m.loc[m.benchmark == "fio", "p_storage"] == "volume").all()
    assert set(m.loc[m.benchmark == "cpu", "trial"]) == {1}
    assert m.loc[m.source.str.startswith("vm/sysbench"), "run_id"].iloc[0] == run_id("vm/sysbench/cpu.txt", "demo")
    prov = pd.read_parquet(out / "provenance.parquet").set_index("source_file")
    assert prov.loc["vm/sysbench/cpu.txt", "accelerator"] == "tcg"
    assert pd.isna(prov.loc["native/sysbench/cpu.txt", "accelerator"])
    assert len(pd.read_parquet(out / "reference.parquet")) == 0  # this rule set has no reference rows
    labels = set(tidy.load(out, "cpu")["label"])
    assert labels == {"Native", "QEMU TCG"}  # never "KVM": the rule set recorded tcg
    assert tidy.campaigns(out) == ["demo"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["result"]["unmapped"] == ["vm/stray.log"]
    assert ingest(tree, out, RULES, workers=1).unchanged


def test_a_file_without_an_environment_is_an_error(tree, tmp_path):
    rules = RuleSet("demo", (Rule("*/sysbench/cpu.txt", "sysbench", "no context", benchmark="cpu"),))
    from overhead.errors import ParseError

    with pytest.raises(ParseError, match="no environment"):
        ingest(tree, tmp_path / "tidy", rules, workers=1)
