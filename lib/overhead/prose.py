"""Numbers in sentences: results stated in prose are rendered from the computed values.

A notebook's "Reading Fig N" paragraph that says "Docker is within 0.2% of native" must change
when the data does. Such paragraphs are code cells that build the text from the values with
these formatters and display it as Markdown (:func:`show`), so no typed-in number can go stale.

>>> num(13370.4), pct(-4.93, sign=True), ci(76.2, 85.9), span(49.1, 53.2)
('13,370', '-4.9%', '[76, 86]', '49-53')
"""

from __future__ import annotations

import math

__all__ = ["ci", "markdown", "num", "pct", "show", "sig", "span"]

_DASH = "-"


def _finite(x: object, what: str) -> float:
    """Return ``x`` as a finite float, else raise ValueError naming ``what`` (no NaN in prose)."""
    if isinstance(x, (str, bytes)):
        raise ValueError(f"{what}: {x!r} is text, not a number")
    try:
        value = float(x)
    except (TypeError, ValueError):
        raise ValueError(f"{what}: {x!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"{what}: {x!r} is not a finite number; the sentence cannot state it")
    return value


def num(x: object, digits: int = 0, *, sign: bool = False) -> str:
    """Format a number with thousands separators and a fixed number of decimals.

    Parameters
    ----------
    x : number
        The value (NaN raises: a missing value is never written as a number).
    digits : int
        Decimals.
    sign : bool
        Always show the sign (+1.4).

    Returns
    -------
    str
        E.g. ``num(13370.4)`` -> "13,370", ``num(2.345, 2)`` -> "2.35" (0 is never "-0").
    """
    value = round(_finite(x, "num"), digits) + 0.0  # + 0.0 turns a rounded -0.0 into 0.0
    return f"{value:{'+' if sign else ''},.{digits}f}"


def sig(x: object, figures: int = 3, *, sign: bool = False) -> str:
    """Format a number to ``figures`` significant figures (thousands separated, no exponent).

    Parameters
    ----------
    x : number
        The value.
    figures : int
        Significant figures.
    sign : bool
        Always show the sign.

    Returns
    -------
    str
        E.g. ``sig(0.012613)`` -> "0.0126", ``sig(108231)`` -> "108,000".
    """
    value = _finite(x, "sig")
    if value == 0:
        return "0"
    digits = figures - 1 - math.floor(math.log10(abs(value)))
    rounded = round(value, digits)
    return num(rounded, max(digits, 0), sign=sign)


def pct(x: object, digits: int = 1, *, sign: bool = False) -> str:
    """Format a percentage: ``pct(-4.93, sign=True)`` -> "-4.9%".

    Parameters
    ----------
    x : number
        The value in percent (not a fraction).
    digits : int
        Decimals.
    sign : bool
        Always show the sign.

    Returns
    -------
    str
        The number followed by "%".
    """
    return num(x, digits, sign=sign) + "%"


def ci(low: object, high: object, digits: int = 0, *, unit: str = "") -> str:
    """Format a confidence interval as "[low, high]".

    Parameters
    ----------
    low, high : number
        The interval's ends.
    digits : int
        Decimals of both ends.
    unit : str
        Appended to each end ("%" for percentages).

    Returns
    -------
    str
        E.g. ``ci(76.2, 85.9)`` -> "[76, 86]".
    """
    return f"[{num(low, digits)}{unit}, {num(high, digits)}{unit}]"


def span(low: object, high: object, digits: int = 0, *, unit: str = "") -> str:
    """Format a range of values as "low-high" (one number when both round alike).

    Parameters
    ----------
    low, high : number
        The smallest and largest value.
    digits : int
        Decimals.
    unit : str
        Appended once at the end.

    Returns
    -------
    str
        E.g. ``span(49.1, 53.2)`` -> "49-53", ``span(10.04, 9.96)`` -> "10".
    """
    a, b = sorted((_finite(low, "span"), _finite(high, "span")))
    left, right = num(a, digits), num(b, digits)
    return (left if left == right else f"{left}{_DASH}{right}") + unit


def markdown(text: str):
    """Return ``text`` as an IPython Markdown object (rendered in a notebook's output)."""
    from IPython.display import Markdown

    return Markdown(text)


def show(text: str) -> None:
    """Display ``text`` as Markdown in the running notebook (printed outside one)."""
    from IPython.display import display

    display(markdown(text))
