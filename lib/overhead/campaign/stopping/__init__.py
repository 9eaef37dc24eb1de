"""Stopping rules: how many trials each cell of a campaign gets (one file per rule).

:func:`rule_of` gives a campaign's rule (None for a fixed count of trials); the rules are in
:mod:`~overhead.campaign.stopping.registry`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from overhead.campaign.stopping.base import Extension, StoppingRule, StoppingSpec
from overhead.campaign.stopping.registry import DEFAULT, KINDS, rule_class, specs

if TYPE_CHECKING:
    from overhead.campaign.inventory import Campaign

__all__ = ["DEFAULT", "KINDS", "Extension", "StoppingRule", "StoppingSpec", "rule_class",
           "rule_of", "specs"]


def rule_of(campaign: Campaign) -> StoppingRule | None:
    """Return the campaign's stopping rule bound to it (None: a fixed count of trials)."""
    spec = campaign.stopping
    if spec is None:
        return None
    return rule_class(spec.rule)(spec, campaign)
