"""Stopping rules by the name a campaign file gives them (``stopping: {rule: verdicts, ...}``).

Adding a rule is adding its file to this package (a spec model with ``rule:
Literal["<name>"]`` on :class:`~overhead.campaign.stopping.base.StoppingSpec`, and a
:class:`~overhead.campaign.stopping.base.StoppingRule` subclass naming it as ``Spec``) and one
line here; the campaign's inventory reads the new rule's fields from then on, and the planner,
the executor, ``overhead plan``/``status`` and the reports ask the rule, never its name.
"""

from __future__ import annotations

from overhead.campaign.stopping.base import StoppingRule, StoppingSpec
from overhead.campaign.stopping.precision import PrecisionRule
from overhead.campaign.stopping.verdicts import VerdictsRule

__all__ = ["DEFAULT", "KINDS", "rule_class", "specs"]

#: rule name -> the rule (in the order error messages list them)
KINDS: dict[str, type[StoppingRule]] = {
    "precision": PrecisionRule,
    "verdicts": VerdictsRule,
}

#: The rule of a ``stopping:`` that names none.
DEFAULT = "precision"


def rule_class(name: str) -> type[StoppingRule]:
    """Return the rule called ``name`` (a KeyError names an unknown rule)."""
    return KINDS[name]


def specs() -> tuple[type[StoppingSpec], ...]:
    """Return every rule's spec model, in the order of :data:`KINDS`."""
    return tuple(cls.Spec for cls in KINDS.values())
