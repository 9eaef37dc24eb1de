"""What every stopping rule is: a spec a campaign file gives, and how it extends a plan.

A stopping rule decides how many trials each cell of a campaign gets. The planner starts every
cell with the rule's first rounds (:meth:`StoppingRule.start_rounds`); after each round the
executor hands the rule the values of the finished trials (:meth:`StoppingRule.take`, one
trial at a time) and asks which cells need another round (:meth:`StoppingRule.extend`); the
rule records why each cell stopped (``stops``) and, when it compares cells, how each comparison
stood (``decisions``). A new rule is a file in this package with a spec model
(``rule: Literal["<name>"]`` on :class:`StoppingSpec`) and a :class:`StoppingRule` subclass
naming it as ``Spec``, plus one line in :mod:`~overhead.campaign.stopping.registry`: nothing
outside this package switches on a rule's name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from pydantic import Field

from overhead.environments.spec import Int, Strict

if TYPE_CHECKING:  # the rules take the campaign and its plan; neither is imported here
    import pandas as pd

    from overhead.campaign.inventory import Campaign
    from overhead.campaign.plan import Cell, Plan, PlannedTrial
    from overhead.stats.sequential import Design

__all__ = ["MAX_RULE_ROUNDS", "Extension", "StoppingRule", "StoppingSpec"]

#: The most rounds a stopping rule may give a cell (the inventory's MAX_ROUNDS).
MAX_RULE_ROUNDS = 10_000


class StoppingSpec(Strict):
    """The fields every rule's spec has: its name, and the cap on the rounds of a cell."""

    rule: str
    max_rounds: Int = Field(10, ge=2, le=MAX_RULE_ROUNDS)


@dataclass
class Extension:
    """What :meth:`StoppingRule.extend` found: cells that run again, why the others stopped.

    ``running`` is the cells of the next round (empty: the campaign is done); ``stops`` maps
    each stopped cell to why; ``decisions`` each comparison (``<cell>#<quantity>``) to its
    record; ``notes`` says in a few lines what the rule did this round (the budget's share,
    comparisons given up), for the run's log and the report.
    """

    running: list[str]
    stops: dict[str, str]
    decisions: dict[str, dict] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


class StoppingRule:
    """A stopping rule of one campaign: its spec, and the campaign it plans for."""

    #: The name a campaign file gives the rule (``rule: verdicts``).
    name: ClassVar[str]
    #: The rule's spec model.
    Spec: ClassVar[type[StoppingSpec]]

    def __init__(self, spec: StoppingSpec, campaign: Campaign):
        """Bind the rule's spec and the campaign."""
        self.spec = spec
        self.campaign = campaign

    # -- planning ---------------------------------------------------------------------------

    @property
    def baseline(self) -> str | None:
        """The environment every other is compared with (None: the rule compares nothing)."""
        return None

    @property
    def max_rounds(self) -> int:
        """The most measured rounds a cell can get (the plan's bound, :func:`plan_size`)."""
        return int(self.spec.max_rounds)

    def start_rounds(self, cells: Mapping[str, Cell]) -> dict[str, int]:
        """Return the measured rounds each cell starts with."""
        raise NotImplementedError

    def start_stops(self, cells: Mapping[str, Cell]) -> dict[str, str]:
        """Return the cells that stop after their first rounds whatever the data, and why."""
        return {}

    def design_of(self, cell: Cell) -> Design | None:
        """Return the sequential design a cell's comparisons are decided with (None: none)."""
        return None

    def check(self) -> None:
        """Refuse, with a ValueError naming the field, what the rule cannot do in its campaign.

        Called when the campaign file is loaded, so that a design that cannot be decided fails
        there and not in the analysis after the trials ran.
        """

    # -- during the run ---------------------------------------------------------------------

    def take(self, values: dict, trial: PlannedTrial, rows: pd.DataFrame) -> None:
        """Add one finished, measured trial's tidy rows to ``values`` (what :meth:`extend` reads)."""
        raise NotImplementedError

    def extend(self, plan: Plan, values: Mapping, *, elapsed_minutes: float | None = None,
               costs: Mapping[str, float] | None = None) -> Extension:
        """Decide which cells run another round after the plan's last one.

        Parameters
        ----------
        plan : Plan
            The plan so far (every trial of it executed); its ``stops`` and ``decisions`` as
            the last extension left them.
        values : mapping
            What :meth:`take` collected.
        elapsed_minutes : float or None
            Wall time of this run so far.
        costs : mapping or None
            Cell id -> seconds one of its trials takes (its runner and the harness around it),
            from the finished trials.

        Returns
        -------
        Extension
        """
        raise NotImplementedError

    # -- words ------------------------------------------------------------------------------

    def describe(self) -> str:
        """Say what the rule does, in one line (``overhead plan``)."""
        raise NotImplementedError

    def report_words(self, plan: Mapping) -> str:
        """Say in a few sentences what the rule did in a run (the reports), from its plan.json."""
        return self.describe()
