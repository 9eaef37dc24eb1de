"""The precision rule: rounds until each cell's confidence interval is narrow enough.

``rule: precision`` (the default): after ``min_rounds`` measured rounds, a cell gets another
round while the 95% CI half-width of its values of ``metric`` (the tidy metric; every cell's
runner must report it) is above ``target`` x its mean, up to ``max_rounds``. It compares
nothing, so it has no baseline and no verdicts; a campaign that wants comparisons decided uses
the verdicts rule (:mod:`~overhead.campaign.stopping.verdicts`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import Field, model_validator

from overhead.campaign.stopping.base import MAX_RULE_ROUNDS, Extension, StoppingRule, StoppingSpec
from overhead.environments.spec import Int, Number

__all__ = ["PrecisionRule", "PrecisionSpec", "stopping_decision"]


class PrecisionSpec(StoppingSpec):
    """``rule: precision``: ``metric``, ``target`` (a fraction of the mean), the rounds' bounds."""

    rule: Literal["precision"] = "precision"
    metric: str
    target: Number = Field(gt=0, lt=1)
    min_rounds: Int = Field(3, ge=2, le=MAX_RULE_ROUNDS)
    level: Number = Field(0.95, gt=0, lt=1)

    @model_validator(mode="after")
    def _bounds(self) -> PrecisionSpec:
        """max_rounds at least min_rounds."""
        if self.max_rounds < self.min_rounds:
            raise ValueError(f"max_rounds {self.max_rounds} < min_rounds {self.min_rounds}")
        return self


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


class PrecisionRule(StoppingRule):
    """Rounds until each cell's CI half-width of ``metric`` is under ``target`` of its mean."""

    name = "precision"
    Spec = PrecisionSpec

    def start_rounds(self, cells: Mapping) -> dict[str, int]:
        """Every cell starts with ``min_rounds``."""
        return dict.fromkeys(cells, int(self.spec.min_rounds))

    def take(self, values: dict, trial, rows) -> None:
        """Add the trial's values of the rule's metric to its cell's."""
        sel = rows[rows["metric"] == self.spec.metric]
        values.setdefault(trial.cell, []).extend(float(v) for v in sel["value"].dropna())

    def extend(self, plan, values: Mapping, *, elapsed_minutes: float | None = None,
               costs: Mapping[str, float] | None = None) -> Extension:
        """Run again every cell whose half-width is above the target, until ``max_rounds``."""
        rule = self.spec
        measured = plan.rounds - self.campaign.warmup
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
        return Extension(running, stops, dict(plan.decisions))

    def describe(self) -> str:
        """Say the rule in one line."""
        s = self.spec
        return (f"stopping rule: after {s.min_rounds} measured rounds, add rounds to each cell "
                f"until the {100 * s.level:g}% CI half-width of {s.metric} is under "
                f"{100 * s.target:g}% of its mean, at most {s.max_rounds} rounds")
