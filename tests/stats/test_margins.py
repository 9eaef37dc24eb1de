"""overhead.margins: the equivalence margins file (data/reference/margins.yml) and its lookups."""

from __future__ import annotations

import pytest

from overhead import margins
from overhead.errors import DataNotFound, SchemaError


def test_the_committed_file_gives_every_rule_a_reason_and_quotes_the_paper():
    m = margins.load()
    assert m.path == margins.MARGINS_FILE.resolve()
    assert (m.default.low_pct, m.default.high_pct) == (-5.0, 5.0)
    assert m.default.source == "margins.yml: default" and "assumption" in m.default.reason
    names = [r.name for r in m.rules]
    assert names[:3] == ["cpu-memory", "block-io", "network-bandwidth"] and len(set(names)) == len(names)
    for rule in m.rules:
        assert rule.margin.reason and rule.margin.source == f"margins.yml: {rule.name}"
    # each sameness claim quoted as the paper's text has it (seeds/ibm-rc25482-english-text.txt)
    text = (margins.MARGINS_FILE.parents[3] / "shared" / "seeds" / "ibm-rc25482-english-text.txt")
    if text.exists():
        paper = text.read_text()
        for quote in ("very similar", "almost identical", "a difference of only 1.4% across the three",
                      "Docker introduces no overhead compared to Linux",
                      "All three configurations reach 9.3 Gbps in both the transmit and receive"):
            assert quote in paper, quote


@pytest.mark.parametrize(("fields", "rule"), [
    ({"item": "PXZ"}, "cpu-memory"),
    ({"item": "STREAM Triad"}, "cpu-memory"),
    ({"workload": "Linpack"}, "cpu-memory"),
    ({"benchmark": "hpcc", "metric": "bandwidth"}, "cpu-memory"),
    ({"benchmark": "fio-rand", "metric": "iops"}, "block-io"),
    ({"item": "Random Read", "study": "rc25482"}, "block-io"),
    ({"benchmark": "nuttcp", "metric": "goodput"}, "network-bandwidth"),
    ({"benchmark": "nuttcp", "metric": "cpu_idle_mean"}, None),   # the host's CPU: no claim
    ({"item": "Random Read"}, None),                              # another study's item
    ({"item": "TCP_RR", "benchmark": "netperf"}, None),
])
def test_lookup_first_rule_that_applies_else_the_default(fields, rule):
    m = margins.load()
    got = m.lookup(**fields)
    want = next(r.margin for r in m.rules if r.name == rule) if rule else m.default
    assert got == want
    assert m({**fields, "environment": "docker"}) == want  # a table's other keys are ignored


def test_with_fields_adds_what_a_table_s_groups_do_not_know():
    m = margins.load()
    f = m.with_fields(benchmark="fio-seq")
    assert f({"item": "anything", "environment": "docker"}).source == "margins.yml: block-io"


def test_a_broken_file_is_named_with_its_line_or_field(tmp_path):
    with pytest.raises(DataNotFound, match="no margins file"):
        margins.load(tmp_path / "none.yml")
    bad = tmp_path / "bad.yml"
    bad.write_text("default:\n  margin_pct: 5\n  reason: [unclosed\n")
    with pytest.raises(SchemaError, match=r"bad\.yml:\d+: not valid YAML"):
        margins.load(bad)
    bad.write_text("default: {margin_pct: 150, reason: x}\n")
    with pytest.raises(SchemaError, match=r"bad\.yml: default\.margin_pct: "):
        margins.load(bad)
    bad.write_text("default: {margin_pct: 5, reason: x}\nrules:\n"
                   "  - {name: r, margin_pct: 2, reason: y, match: [{colour: [red]}]}\n")
    with pytest.raises(SchemaError, match="rule 'r': match fields must be some of item"):
        margins.load(bad)
    bad.write_text("default: {margin_pct: 5}\n")
    with pytest.raises(SchemaError, match=r"default\.reason"):
        margins.load(bad)
