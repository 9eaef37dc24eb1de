"""Issue 46: every ``overhead`` subcommand with mutated arguments ends clean: accepted (exit 0)
or refused with exit 2 and one line on stderr; never a traceback, never over 20 s (a hang).

In process (typer's CliRunner: the same command group, so the same error handling as the
console script). The templates keep whatever would start real work (a run, a pilot, the
notebooks, a publish, an ingest into data/) pinned to an argument that does not exist, and
the mutations draw from words that name nothing valid: so a mutant is refused, or does
harmless work (a plan printed, a fixture parsed)."""

from __future__ import annotations

import os
import random
import signal

import pytest
from conftest import FIXTURES
from typer.testing import CliRunner

from overhead.cli import app
from overhead.paths import ROOT

SMOKE = ROOT / "data" / "campaigns" / "local-smoke.yml"
MUTANTS = 400


class _Hang(Exception):
    pass


def _words(tmp) -> list[str]:
    """Hostile and odd arguments: none names a valid campaign, tidy tree or authors' tree."""
    fifo = tmp / "fifo"
    if not fifo.exists():
        os.mkfifo(fifo)
    garbage = tmp / "garbage.yml"
    garbage.write_bytes(b"\x00\xff{[: - !!python/object:os.system\n" * 3)
    empty = tmp / "empty"
    empty.mkdir(exist_ok=True)
    return ["", "-", "--", "-x", "--no-such-option", "--help=no", "/dev/null", "/dev/zero", "/proc",
            "/proc/self/mem", str(fifo), str(garbage), str(empty), str(tmp / "nosuch.yml"),
            str(tmp / "nosuch"), "x" * 5000, "../../../../etc/passwd", "a\nb", "$(id)", "`id`",
            "-1", "0", "1e999", "nan", "inf", "0x10", "9" * 40, "ü", "\t", " ", "name=!!binary AA==",
            "trials=" + "[" * 200, "a.b.c.d=1", "=", "hosts.local.address=--privileged"]


def _templates(tmp) -> list[tuple[list[str], set[int]]]:
    """(argv, the positions a mutation may not touch: pinned to something that does not exist)."""
    fixture = str(FIXTURES / "fio" / sorted(os.listdir(FIXTURES / "fio"))[0])
    nosuch = str(tmp / "nosuch-campaign.yml")
    tidy = str(tmp / "empty")
    return [
        (["parse", "fio", fixture], set()),
        (["parse", "auto", fixture, "--unit", "KBytes/s"], set()),
        (["parse", "netperf", fixture, "--columns", "THROUGHPUT"], set()),
        (["read-trial", str(tmp / "empty")], set()),
        (["ingest-ibm", str(tmp / "nosuch"), "--out", str(tmp / "ibm-out")], {1}),
        (["summary", str(tmp / "empty")], set()),
        (["reproduce", "--campaign", "nosuch-campaign", "--tidy", str(tmp / "t")], {1, 2}),
        (["publish", "--figures", str(tmp / "nosuch"), "--out", str(tmp / "pub")], {1, 2}),
        (["plan", str(SMOKE), "--set", "trials=2"], set()),
        (["plan", str(SMOKE), "--format", "json"], set()),
        (["pilot", nosuch, "--benchmark", "x"], {1}),
        (["run", nosuch, "--raw", str(tmp / "raw"), "--no-progress", "--no-ingest"], {1}),
        (["ingest", nosuch, "--raw", str(tmp / "raw")], {1}),
        (["check", str(SMOKE)], set()),
        (["status", str(SMOKE), "--raw", str(tmp / "raw")], set()),
        (["compare", "nosuch-a", "nosuch-b", "--tidy", tidy], {3, 4}),
        (["history", "--tidy", tidy], {1, 2}),
    ]


def _mutate(rng: random.Random, argv: list[str], pinned: set[int], words: list[str]) -> list[str]:
    out = list(argv)
    for _ in range(rng.randint(1, 3)):
        free = [i for i in range(1, len(out)) if i not in pinned]
        op = rng.random()
        if op < 0.6 and free:
            out[rng.choice(free)] = rng.choice(words)
        elif op < 0.8:
            out.append(rng.choice(["--no-such-option", "--set", "--raw", "--format", "--tidy",
                                   "--out", "-h", "--help", rng.choice(words)]))
        elif free:
            del out[max(free)]  # the last free argument (pinned ones keep their place)
            pinned = {i for i in pinned if i < len(out)}
    return out


def test_every_subcommand_with_mutated_arguments_ends_clean(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    words = _words(tmp_path)
    templates = _templates(tmp_path)
    rng = random.Random(46)
    runner = CliRunner()
    bad: list[str] = []
    counts = {"accepted": 0, "refused": 0}

    def hang(*_):
        raise _Hang

    old = signal.signal(signal.SIGALRM, hang)
    try:
        # each template once as written, then the mutants
        cases = [t[0] for t in templates] + [
            _mutate(rng, *rng.choice(templates), words) for _ in range(MUTANTS)]
        for argv in cases:
            signal.alarm(20)
            try:
                result = runner.invoke(app, argv)
            except _Hang:
                bad.append(f"{argv!r}: over 20 s")
                continue
            finally:
                signal.alarm(0)
            exc = result.exception
            if exc is not None and not isinstance(exc, SystemExit):
                bad.append(f"{argv!r}: {type(exc).__name__}: {str(exc)[:200]}")
            elif result.exit_code == 0:
                counts["accepted"] += 1
            elif result.exit_code == 2:
                counts["refused"] += 1
                lines = result.stderr.strip().splitlines()
                if len(lines) != 1 or "Traceback" in result.stderr:
                    bad.append(f"{argv!r}: exit 2 with {len(lines)} lines: {result.stderr[:300]!r}")
            else:
                bad.append(f"{argv!r}: exit {result.exit_code}: {result.stderr[:300]!r}")
    finally:
        signal.signal(signal.SIGALRM, old)
    print(f"\ncli fuzz: {len(cases)} invocations: {counts['accepted']} accepted, "
          f"{counts['refused']} refused in one line, {len(bad)} otherwise")
    assert bad == [], "\n".join(bad[:25])
    assert counts["refused"] > len(cases) // 2 and counts["accepted"] > 10


@pytest.mark.parametrize("argv", [["reproduce", "--campaign", "nosuch-campaign"]])
def test_reproduce_refuses_a_campaign_not_ingested_before_any_notebook(tmp_path, argv):
    """It ran all six notebooks (34 s) and printed six empty PapermillExecutionErrors."""
    result = CliRunner().invoke(app, [*argv, "--tidy", str(tmp_path / "t")])
    assert result.exit_code == 2
    assert result.stderr.strip().endswith("campaign 'nosuch-campaign' has no ingested trials "
                                          "(run notebooks/campaign.ipynb or `overhead run` for "
                                          "it first)")
    assert not (tmp_path / "t").exists()
