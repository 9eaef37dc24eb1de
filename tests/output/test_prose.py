"""overhead.prose: the formatters that put computed values into sentences."""

from __future__ import annotations

import math

import pytest

from overhead import prose


def test_formats():
    assert prose.num(13370.4) == "13,370" and prose.num(2.345, 2) == "2.35" and prose.num(1.5, sign=True) == "+2"
    assert prose.num(-0.04, 1) == "0.0"  # never "-0.0"
    assert prose.sig(108231) == "108,000" and prose.sig(0.012613) == "0.0126" and prose.sig(0) == "0"
    assert prose.pct(-4.93, sign=True) == "-4.9%" and prose.pct(0.0, sign=True) == "+0.0%"
    assert prose.ci(76.2, 85.9) == "[76, 86]" and prose.ci(-0.41, 3.2, 1, unit="%") == "[-0.4%, 3.2%]"
    assert prose.span(53.2, 49.1) == "49-53" and prose.span(10.04, 9.96) == "10"


@pytest.mark.parametrize("bad", [math.nan, math.inf, None, "12"])
def test_a_missing_value_never_becomes_a_number(bad):
    with pytest.raises(ValueError, match="number"):
        prose.num(bad)
