"""The planner: a campaign's grid expanded into trials, in randomized interleaved rounds.

Pure: no SSH, no clock. A *cell* is one (environment, benchmark, parameter combination); a
*round* runs every cell once, in a fresh order drawn from the campaign's seed and the round's
number (randomized multiple interleaved trials, Abedi & Brecht, ICPE 2017), so that a slow
drift of the machine spreads over every environment instead of biasing the one that ran last.
The first ``warmup`` rounds are warm-ups, flagged and kept.

A trial's id is a hash of its environment, benchmark, expanded parameters and round: the same
file always gives the same plan, and a resumed campaign recognises its finished trials.

With a stopping rule the plan starts with ``warmup + min_rounds`` rounds; :func:`extend` adds
a round for each cell whose confidence interval is still wider than the target, until
``max_rounds``, and records in ``Plan.stops`` why each cell stopped.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field

from overhead.campaign.inventory import Campaign

__all__ = ["Cell", "Plan", "PlannedTrial", "extend", "make_plan", "stopping_decision"]


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
    """The ordered trials of a campaign, its cells, and why cells stopped (stopping rule)."""

    campaign: str
    seed: int
    cells: dict[str, Cell]
    trials: list[PlannedTrial]
    rounds: int
    stops: dict[str, str] = field(default_factory=dict)

    def by_id(self) -> dict[str, PlannedTrial]:
        """Return trial id -> trial."""
        return {t.id: t for t in self.trials}

    def to_json(self) -> dict:
        """Return the plan as a JSON-ready dict (``overhead plan --format json``)."""
        return {"campaign": self.campaign, "seed": self.seed, "rounds": self.rounds,
                "cells": {k: asdict(v) for k, v in self.cells.items()},
                "trials": [t.to_json() for t in self.trials], "stops": self.stops}


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
    """
    out: dict[str, Cell] = {}
    for bname, bench in campaign.benchmarks.items():
        for ename in campaign.environments_of(bname):
            for params in _grid(bench.params):
                cid = _digest("c", {"environment": ename, "benchmark": bname,
                                    "runner": bench.runner, "params": params})
                out[cid] = Cell(cid, ename, bname, bench.runner, params,
                                campaign.environments[ename].host)
    return out


def _round(campaign: Campaign, cell_ids: Sequence[str], all_cells: Mapping[str, Cell],
           number: int, start: int) -> list[PlannedTrial]:
    """Return one round over ``cell_ids`` in the order drawn from (seed, round number)."""
    order = list(cell_ids)
    # a fresh generator per round, seeded by the campaign's seed and the round's number, so
    # that adding a round (stopping rule) never reorders the rounds before it
    random.Random(f"{campaign.seed}:{number}").shuffle(order)
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
    if campaign.stopping:
        wanted = dict.fromkeys(all_cells, campaign.stopping.min_rounds)
    else:  # a benchmark's own count, else the campaign's
        wanted = {cid: campaign.benchmarks[c.benchmark].trials or campaign.trials
                  for cid, c in all_cells.items()}
    rounds = campaign.warmup + max(wanted.values(), default=0)
    trials: list[PlannedTrial] = []
    for number in range(1, rounds + 1):
        # warm-up rounds run every cell; a measured round those that still want a trial
        ids = [cid for cid in all_cells if number - campaign.warmup <= wanted[cid]]
        trials += _round(campaign, ids, all_cells, number, len(trials))
    stops = {} if campaign.stopping else {c: f"fixed count of {n} trials"
                                          for c, n in wanted.items()}
    return Plan(campaign.name, campaign.seed, all_cells, trials, rounds, stops)


def stopping_decision(values: Sequence[float], target: float, level: float = 0.95
                      ) -> tuple[bool, str]:
    """Decide whether a cell's measured values are precise enough.

    Parameters
    ----------
    values : sequence of float
        The cell's measured (non-warm-up) values of the stopping metric.
    target : float
        Largest acceptable CI half-width as a fraction of the mean (0.05 = 5%).
    level : float
        Confidence level.

    Returns
    -------
    (bool, str)
        Whether the cell is done, and the half-width found, in words.
    """
    from overhead.stats.sampling import precision

    p = precision(list(values), target_pct=100 * target, level=level)
    if p.reached is None:  # too few values, NaN or a zero mean
        return False, f"half-width unknown after {p.n} trials ({p.reason})"
    words = f"half-width {p.rel_half_width_pct:.2f}% of the mean after {p.n} trials"
    return bool(p.reached), words


def extend(plan: Plan, campaign: Campaign, values: Mapping[str, Sequence[float]]) -> Plan:
    """Add one round for the cells whose interval is still too wide (the stopping rule).

    Parameters
    ----------
    plan : Plan
        The plan so far (every trial of it executed).
    campaign : Campaign
        The campaign (with ``stopping``).
    values : mapping of cell id to sequence of float
        Each cell's measured values of ``stopping.metric`` (warm-ups excluded).

    Returns
    -------
    Plan
        The same plan when every cell has stopped (``stops`` says why for each), else the plan
        with one more round over the cells still running.
    """
    rule = campaign.stopping
    if rule is None:
        return plan
    measured = plan.rounds - campaign.warmup
    stops = dict(plan.stops)
    running = []
    for cid in plan.cells:
        if cid in stops:
            continue
        done, words = stopping_decision(values.get(cid, ()), rule.target, rule.level)
        if done:
            stops[cid] = f"target {100 * rule.target:g}% met: {words}"
        elif measured >= rule.max_rounds:
            stops[cid] = f"cap of {rule.max_rounds} rounds reached: {words}"
        else:
            running.append(cid)
    if not running:
        return Plan(plan.campaign, plan.seed, plan.cells, plan.trials, plan.rounds, stops)
    number = plan.rounds + 1
    added = _round(campaign, running, plan.cells, number, len(plan.trials))
    return Plan(plan.campaign, plan.seed, plan.cells, plan.trials + added, number, stops)
