"""The planner: a campaign's grid expanded into trials, in randomized interleaved rounds.

Pure: no SSH, no clock. A *cell* is one (environment, benchmark, parameter combination); a
*point* is a benchmark's parameter combination, whose cells are its environments. A *round*
runs every cell once, in an order drawn from the campaign's seed and the round's number
(randomized multiple interleaved trials, Abedi & Brecht, ICPE 2017): the points in a random
order, and within a point its environments' cells one after the other in a random order. The
cells of a point are a block: their trials of a round run seconds apart, so that they share
the machine's state (which drifts over seconds to minutes on a shared host) and a paired
comparison of the round cancels it, while the random order within the block keeps a drift from
biasing the environment that runs last. The first ``warmup`` rounds are warm-ups, flagged and
kept.

A trial's id is a hash of its environment, benchmark, expanded parameters and round: the same
file always gives the same plan, and a resumed campaign recognises its finished trials.

With a stopping rule (:mod:`overhead.campaign.stopping`, one file per rule) the plan starts
with the rule's first rounds for each cell; :func:`extend` asks the rule which cells need
another round and adds it, and records in ``Plan.stops`` why each cell stopped and in
``Plan.decisions`` how each comparison stood when it stopped. A new round is drawn from the
seed and its own number, so it never reorders the rounds before it, and the same data give the
same extension: a resumed campaign re-derives exactly the rounds it had run.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field

from overhead.campaign.inventory import Campaign
from overhead.campaign.judging import DECIDED, Judged, compare_cells, judged_value, point_key
from overhead.campaign.stopping import rule_of
from overhead.campaign.stopping.precision import stopping_decision

__all__ = ["DECIDED", "Cell", "Judged", "Plan", "PlannedTrial", "compare_cells", "extend",
           "judged_value", "make_plan", "stopping_decision"]


def _digest(prefix: str, payload: dict) -> str:
    """Return ``prefix-`` and 12 hex digits of the SHA-256 of ``payload`` as canonical JSON."""
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return f"{prefix}-{hashlib.sha256(text.encode()).hexdigest()[:12]}"


@dataclass(frozen=True)
class Cell:
    """One (environment, benchmark, parameters) combination of the grid."""

    id: str
    environment: str
    benchmark: str
    runner: str
    params: dict
    host: str


@dataclass(frozen=True)
class PlannedTrial:
    """One trial: a cell in a round, at a position of the plan.

    ``position`` counts over the whole plan; the executor runs each host's trials in that
    order. ``warmup`` is True for the first ``warmup`` rounds.
    """

    id: str
    cell: str
    environment: str
    benchmark: str
    runner: str
    params: dict
    host: str
    round: int
    position: int
    warmup: bool
    timeout: float

    def to_json(self) -> dict:
        """Return the trial as a JSON-ready dict."""
        return asdict(self)


@dataclass
class Plan:
    """The ordered trials of a campaign, its cells, and why cells stopped (stopping rule).

    ``decisions`` (verdicts rule) maps ``<cell id>#<quantity>`` of each comparison (the
    non-baseline cell) to how it stood when it stopped: environment, baseline, benchmark,
    params, quantity, verdict, n, n_baseline, ratio, low, high, margin, words and why.
    """

    campaign: str
    seed: int
    cells: dict[str, Cell]
    trials: list[PlannedTrial]
    rounds: int
    stops: dict[str, str] = field(default_factory=dict)
    decisions: dict[str, dict] = field(default_factory=dict)
    #: What the stopping rule said of its last extension (the budget's share, ...).
    notes: list[str] = field(default_factory=list)
    #: Cell id -> the sequential design its comparisons are decided with (a rule that
    #: compares: :meth:`overhead.stats.sequential.Design.to_json`), so that a finished
    #: campaign's tables replay the same looks.
    designs: dict[str, dict] = field(default_factory=dict)

    def by_id(self) -> dict[str, PlannedTrial]:
        """Return trial id -> trial."""
        return {t.id: t for t in self.trials}

    def to_json(self) -> dict:
        """Return the plan as a JSON-ready dict (``overhead plan --format json``)."""
        return {"campaign": self.campaign, "seed": self.seed, "rounds": self.rounds,
                "cells": {k: asdict(v) for k, v in self.cells.items()},
                "trials": [t.to_json() for t in self.trials], "stops": self.stops,
                "decisions": self.decisions, "notes": self.notes, "designs": self.designs}


def _grid(params: Mapping) -> list[dict]:
    """Expand a parameter mapping (lists are axes) into every combination, in file order."""
    names = list(params)
    axes = [v if isinstance(v, list) else [v] for v in params.values()]
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*axes)]


def cells(campaign: Campaign) -> dict[str, Cell]:
    """Return the campaign's cells (environment x benchmark x parameter grid), in file order.

    Parameters
    ----------
    campaign : Campaign
        The campaign.

    Returns
    -------
    dict of str to Cell
        Cell id -> cell. The id hashes the environment, benchmark, runner and parameters.
        Points an environment ``skip`` s are left out.
    """
    out: dict[str, Cell] = {}
    for bname, bench in campaign.benchmarks.items():
        for ename in campaign.environments_of(bname):
            for params in _grid(bench.params):
                if campaign.environments[ename].skips(bname, params):
                    continue
                cid = _digest("c", {"environment": ename, "benchmark": bname,
                                    "runner": bench.runner, "params": params})
                out[cid] = Cell(cid, ename, bname, bench.runner, params,
                                campaign.environments[ename].host)
    return out


def _round(campaign: Campaign, cell_ids: Sequence[str], all_cells: Mapping[str, Cell],
           number: int, start: int) -> list[PlannedTrial]:
    """Return one round over ``cell_ids``: the points in a drawn order, each point's cells together.

    The order is drawn from (seed, round number) alone, so that adding a round (stopping rule)
    never reorders the rounds before it.
    """
    rng = random.Random(f"{campaign.seed}:{number}")
    blocks: dict[tuple[str, str], list[str]] = {}
    for cid in cell_ids:
        c = all_cells[cid]
        blocks.setdefault(point_key(c.benchmark, c.params), []).append(cid)
    keys = list(blocks)
    rng.shuffle(keys)
    order = []
    for key in keys:
        block = blocks[key]
        rng.shuffle(block)
        order += block
    trials = []
    for offset, cid in enumerate(order):
        c = all_cells[cid]
        bench = campaign.benchmarks[c.benchmark]
        tid = _digest("t", {"environment": c.environment, "benchmark": c.benchmark,
                            "runner": c.runner, "params": c.params, "round": number})
        trials.append(PlannedTrial(tid, cid, c.environment, c.benchmark, c.runner, c.params,
                                   c.host, number, start + offset, number <= campaign.warmup,
                                   bench.timeout or campaign.timeout))
    return trials


def make_plan(campaign: Campaign) -> Plan:
    """Expand a campaign into its plan.

    Parameters
    ----------
    campaign : Campaign
        The campaign.

    Returns
    -------
    Plan
        ``warmup`` warm-up rounds, then ``trials`` measured rounds (with a stopping rule:
        ``stopping.min_rounds``), each round every cell once in a seeded random order; a
        benchmark with its own ``trials`` has its cells in that many measured rounds (more
        rounds, with only its cells, when it asks for more than the campaign).
    """
    all_cells = cells(campaign)
    rule = rule_of(campaign)
    if rule is not None:
        wanted = rule.start_rounds(all_cells)
    else:  # a benchmark's own count, else the campaign's
        wanted = {cid: campaign.benchmarks[c.benchmark].trials or campaign.trials
                  for cid, c in all_cells.items()}
    rounds = campaign.warmup + max(wanted.values(), default=0)
    trials: list[PlannedTrial] = []
    for number in range(1, rounds + 1):
        # warm-up rounds run every cell; a measured round those that still want a trial
        ids = [cid for cid in all_cells if number - campaign.warmup <= wanted[cid]]
        trials += _round(campaign, ids, all_cells, number, len(trials))
    stops = rule.start_stops(all_cells) if rule is not None else \
        {c: f"fixed count of {n} trials" for c, n in wanted.items()}
    designs = {}
    if rule is not None and rule.baseline is not None:
        designs = {cid: rule.design_of(c).to_json() for cid, c in all_cells.items()
                   if c.environment != rule.baseline and cid not in stops}
    return Plan(campaign.name, campaign.seed, all_cells, trials, rounds, stops, designs=designs)


def extend(plan: Plan, campaign: Campaign, values: Mapping, *,
           elapsed_minutes: float | None = None, costs: Mapping[str, float] | None = None) -> Plan:
    """Add one round for the cells that need more trials (the stopping rule).

    Parameters
    ----------
    plan : Plan
        The plan so far (every trial of it executed).
    campaign : Campaign
        The campaign (with ``stopping``).
    values : mapping
        What the rule's ``take`` collected from the finished, measured trials (precision rule:
        cell id -> its values of ``stopping.metric``; verdicts rule: (cell id, index of the
        benchmark's judged quantity) -> :class:`Judged`, with each value's round).
    elapsed_minutes : float or None
        Wall time of this run so far (the verdicts rule's ``max_minutes``).
    costs : mapping or None
        Cell id -> seconds one of its trials takes (the verdicts rule's budget).

    Returns
    -------
    Plan
        The same plan when every cell has stopped (``stops`` says why for each, ``decisions``
        how each comparison stood), else the plan with one more round over the cells still
        running.
    """
    rule = rule_of(campaign)
    if rule is None:
        return plan
    ext = rule.extend(plan, values, elapsed_minutes=elapsed_minutes, costs=costs)
    if not ext.running:
        return Plan(plan.campaign, plan.seed, plan.cells, plan.trials, plan.rounds, ext.stops,
                    ext.decisions, ext.notes, plan.designs)
    number = plan.rounds + 1
    added = _round(campaign, ext.running, plan.cells, number, len(plan.trials))
    return Plan(plan.campaign, plan.seed, plan.cells, plan.trials + added, number, ext.stops,
                ext.decisions, ext.notes, plan.designs)
