"""How far a campaign is: planned, done, failed, running and left, per environment."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from overhead import locks
from overhead.campaign.inventory import Campaign
from overhead.campaign.layout import MANIFEST, META, PLAN, RUN_LOCK, read_records, trial_dir
from overhead.campaign.manifest import resume
from overhead.campaign.plan import Plan, make_plan

__all__ = ["Status", "status"]


@dataclass
class Status:
    """A campaign's counts (overall and per environment) and its failures' causes."""

    campaign: str
    planned: int
    done: int
    failed: int
    #: Trials started and not finished: running now when a run holds the campaign's lock
    #: (``run_by`` names it), else interrupted (run again from scratch on resume).
    running: int
    left: int
    by_environment: dict[str, Counter] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)
    stops: dict[str, str] = field(default_factory=dict)
    #: A rule that compares (verdicts): each comparison -> why it stopped (or where it stands).
    decisions: dict[str, str] = field(default_factory=dict)
    #: The run that holds the campaign's lock now (pid, host, since), or None.
    run_by: dict | None = None

    def text(self) -> str:
        """Return the counts as the few lines ``overhead status`` prints (they add to the plan)."""
        if self.run_by is not None:
            who = f"pid {self.run_by.get('pid', '?')} since {self.run_by.get('since', '?')}"
            started = f"{self.running} running now ({who})"
        else:
            started = f"{self.running} interrupted (run again from scratch on resume)"
        lines = [f"{self.campaign}: {self.done} done, {self.failed} failed, {started}, "
                 f"{self.left} to run, of {self.planned} planned"]
        for env, c in self.by_environment.items():
            lines.append(f"  {env:<18} done {c['done']:>4}  failed {c['failed']:>3}  "
                         f"left {c['left']:>4}")
        for tid, cause in sorted(self.failures.items()):
            lines.append(f"  failed {tid}: {cause}")
        for cell, why in sorted(self.stops.items()):
            lines.append(f"  {cell}: {why}")
        if self.decisions:
            lines.append("comparisons (stopping rule):")
            for what, why in sorted(self.decisions.items()):
                lines.append(f"  {what}: {why}")
        return "\n".join(lines)


def _plan(campaign: Campaign, raw: Path) -> Plan:
    """Return the plan the last run wrote (with the stopping rule's rounds), else make it."""
    plan = make_plan(campaign)
    saved = raw / PLAN
    if campaign.stopping is None or not saved.exists():
        return plan
    data = json.loads(saved.read_text())
    from overhead.campaign.plan import PlannedTrial

    trials = [PlannedTrial(**t) for t in data["trials"]]
    return Plan(plan.campaign, plan.seed, plan.cells, trials, data["rounds"], data["stops"],
                data.get("decisions", {}), data.get("notes", []), plan.designs)


def status(campaign: Campaign, raw_root: Path | None = None, retries: int = 0) -> Status:
    """Count a campaign's trials by state from its plan, manifest and raw tree.

    Parameters
    ----------
    campaign : Campaign
        The campaign.
    raw_root : path, optional
        Folder of raw trees (default data/raw).
    retries : int
        As for ``overhead run``: failed trials with re-runs left count as left.

    Returns
    -------
    Status
        The counts.
    """
    from overhead.paths import DATA

    raw = (raw_root or DATA / "raw") / campaign.name
    plan = _plan(campaign, raw)
    records = read_records(raw / MANIFEST)
    finished = {t.id for t in plan.trials if (trial_dir(raw, t) / META).exists()}
    state = resume([t.id for t in plan.trials], records, finished, retries)
    by_env: dict[str, Counter] = {}
    for t in plan.trials:
        c = by_env.setdefault(t.environment, Counter())
        if t.id in state.done:
            c["done"] += 1
        elif t.id in state.failed:
            c["failed"] += 1
        else:
            c["left"] += 1
    stops, decisions = {}, {}
    from overhead.campaign.stopping import rule_of

    rule = rule_of(campaign)
    compares = rule is not None and rule.baseline is not None
    for rec in plan.decisions.values():
        axes = campaign.benchmarks[rec["benchmark"]].params if rec["benchmark"] in campaign.benchmarks else {}
        words = " ".join(f"{k}={v}" for k, v in rec["params"].items() if isinstance(axes.get(k), list))
        decisions[f"{rec['environment']} vs {rec['baseline']} {rec['benchmark']} {words} "
                  f"[{rec['quantity']}]".replace("  ", " ")] = rec.get("why") or f"running: {rec['words']}"
    if rule is not None and not compares:  # a rule that compares says why per comparison
        for cid, why in plan.stops.items():
            c = plan.cells[cid]
            words = " ".join(f"{k}={v}" for k, v in c.params.items())
            stops[f"{c.environment} {c.benchmark} {words}"] = why
    started = [t for t in state.todo if t in state.rerun]  # todo holds them too: count once
    return Status(campaign.name, len(plan.trials), len(state.done), len(state.failed),
                  len(started), len(state.todo) - len(started), by_env, dict(state.failed),
                  stops, decisions, locks.in_use(raw / RUN_LOCK))
