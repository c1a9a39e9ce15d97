"""How every number a learner sees is written: ONE rounding rule, one set of formats.

The rule is 四捨五入 (round half up, halves away from zero) on the DECIMAL value as written:
0.0625 → 0.063, 0.3125 → 0.313, -0.0625 → -0.063, 2.5 → 3 at 0 places. A binary float is
snapped to 9 decimal places before a tie is decided, so float noise does not break a tie
(0.31249999999999994, 0.3125 with float noise, still becomes 0.313; 2.675, stored as
2.67499999…, becomes 2.68 as on paper). Away from a tie the digits are those of ``format()``.

Pure Python on scalars (NumPy scalars welcome); no streamlit. Callers: ui (tables, heatmaps,
prose, hand-calculation rendering), quizzes.calc (every number in a question), tutor.handcalc
(pencil rounding and the LaTeX of each step).

    round_half_up(0.0625, 3) -> 0.063          the value as a float
    fixed(0.0625, 3)         -> "0.063"        fixed places; −∞ / ∞; no "-0.000"
    trimmed(0.750, 3)        -> "0.75"         whole numbers bare (2, 1,000), trailing zeros dropped
    tiny(4.54e-5, 5, below=1e-4) -> "4.5×10⁻⁵" fixed, but small non-zero values in powers of ten
    sci(4.54e-5, 1, tex=True)    -> "4.5\\times 10^{-5}"
    percent(0.625)           -> "63%"          a share in per cent
    grouped(1234567.5)       -> "1,234,568"    fixed with thousands separators (counts)
    significant(22.627417)   -> "22.63"        significant digits, as "%g" but half up

NaN is written as ``NAN_TEXT`` (「計算不能」) by every format instead of the programmer's "nan";
the engine refuses NaN input, so seeing it means a bug, never a learner's mistake.
"""
from __future__ import annotations

import math
from datetime import date
from decimal import ROUND_HALF_UP, Context, Decimal

__all__ = ["NAN_TEXT", "MINUS_INF", "PLUS_INF", "tie_bounds", "round_half_up", "fixed", "trimmed", "tiny", "sci",
           "percent", "grouped", "significant"]

NAN_TEXT = "計算不能"
MINUS_INF = "−∞"
PLUS_INF = "∞"
_SNAP = 9                       # decimal places a float is snapped to before a tie is decided
_CTX = Context(prec=400)        # enough for any float written in fixed form
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _places(digits) -> int:
    if isinstance(digits, bool) or int(digits) != digits or not 0 <= int(digits) <= 20:
        raise ValueError(f"小数の桁数は 0 以上 20 以下の整数で指定してください（{digits!r}）。")
    return int(digits)


def tie_bounds(nd: int) -> tuple[float, float, float]:
    """(10^nd, lower and upper tie bound): a value whose digits beyond place nd are within ~2e-9
    of "5" ((x·10^nd) mod 1 within 0.5 ± tie, also for negative x: Python's % is ≥ 0) may be a
    decimal tie such as 0.3125 or 0.31249999999999994 (float noise): such values, and only they,
    take the exact path. round(x, 9) moves x by at most 5e-10, so outside this window format()
    and 四捨五入 of round(x, 9) give the same digits."""
    tie = 2e-9 * 10.0 ** nd
    return 10.0 ** nd, 0.5 - tie, 0.5 + tie


def _exact(x: float, nd: int) -> str:
    """四捨五入 of x (snapped to 9 places when nd < 9) to nd places, as fixed text."""
    snapped = round(x, _SNAP) if nd < _SNAP else x
    d = Decimal(repr(snapped)).quantize(Decimal(1).scaleb(-nd), ROUND_HALF_UP, context=_CTX)
    return f"{d:f}"


def _digits_text(x: float, nd: int) -> str:
    """x (finite) with exactly nd decimals by the rule; "-" kept even for a zero (caller drops it)."""
    scale, lo, hi = tie_bounds(nd)
    if nd >= _SNAP or lo < (x * scale) % 1.0 < hi:      # a (near) decimal tie: exact 四捨五入
        return _exact(x, nd)
    return format(x, f".{nd}f")


def _no_negative_zero(text: str) -> str:
    """"-0.000" → "0.000": a value that rounds to zero is written without a sign."""
    if text.startswith("-") and not text.strip("-0.,"):
        return text[1:]
    return text


def _special(x: float) -> str | None:
    if x != x:
        return NAN_TEXT
    if x == math.inf:
        return PLUS_INF
    if x == -math.inf:
        return MINUS_INF
    return None


def round_half_up(x, digits: int = 3) -> float:
    """x rounded to ``digits`` places by the rule, as a float (−0.0 → 0.0; NaN and ±∞ unchanged)."""
    x = float(x)
    if not math.isfinite(x):
        return x
    value = float(_digits_text(x, _places(digits)))
    return 0.0 if value == 0 else value


def fixed(x, digits: int = 3) -> str:
    """Fixed decimals: fixed(2, 3) = "2.000", fixed(0.0625, 3) = "0.063", fixed(-0.0001, 3) = "0.000";
    −∞ for masked scores, ∞, and NAN_TEXT for NaN. Negative numbers keep the ASCII "-"."""
    x = float(x)
    special = _special(x)
    if special is not None:
        return special
    return _no_negative_zero(_digits_text(x, _places(digits)))


def trimmed(x, digits: int = 3) -> str:
    """As a choice of a question shows a number: whole numbers without decimals (2, 1,000 with a
    thousands separator from 1,000 on), others rounded to ``digits`` places with trailing zeros
    dropped (0.750 → 0.75, 0.0625 → 0.063). A value that rounds to zero is "0", never "-0"."""
    x = float(x)
    special = _special(x)
    if special is not None:
        return special
    nd = _places(digits)
    if not -999.5 < x < 999.5:
        r = round(x)                                  # an int
        if -1e-9 < x - r < 1e-9:                      # a whole number, 1,000 style
            return str(r) if -1000 < r < 1000 else f"{r:,}"
    text = _digits_text(x, nd)
    if nd:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def sci(x, digits: int = 1, *, tex: bool = False) -> str:
    """x in powers of ten with ``digits`` decimals in the mantissa (half up, as everywhere):
    4.5×10⁻⁵ as text, 4.5\\times 10^{-5} with ``tex``; never the programmer's "4.5e-05"."""
    x = float(x)
    special = _special(x)
    if special is not None:
        return r"-\infty" if tex and x == -math.inf else (r"\infty" if tex and x == math.inf else special)
    nd = _places(digits)
    if x == 0:
        return fixed(0.0, nd)
    d = Decimal(repr(x))
    exponent = d.adjusted()
    mantissa = d.scaleb(-exponent, context=_CTX).quantize(Decimal(1).scaleb(-nd), ROUND_HALF_UP, context=_CTX)
    if abs(mantissa) >= 10:                           # 9.96 → 10.0: one place further
        exponent += 1
        mantissa = d.scaleb(-exponent, context=_CTX).quantize(Decimal(1).scaleb(-nd), ROUND_HALF_UP,
                                                              context=_CTX)
    m = f"{mantissa:f}"
    if tex:
        return rf"{m}\times 10^{{{exponent}}}"
    return f"{m}×10{str(exponent).translate(_SUPERSCRIPT)}"


def tiny(x, digits: int = 5, *, below: float = 1e-3, tex: bool = False) -> str:
    """fixed(x, digits), except that a value with 0 < |x| < ``below`` is written in powers of
    ten with 2 significant digits (4.5×10⁻⁵; tex: 4.5\\times 10^{-5}): never "0.00000" for a
    number that is not zero. An exact 0 is "0"."""
    x = float(x)
    if x == 0:
        return "0"
    if not math.isfinite(x) or abs(x) >= below:
        return fixed(x, digits)
    return sci(x, 1, tex=tex)


def percent(x, digits: int = 0) -> str:
    """A share as a percentage by the same rule: percent(0.625) = "63%", percent(0.1234, 1) = "12.3%"
    (x·100 snapped first: 0.145 → 14.5 → "15%", not the binary 14.4999… → "14%")."""
    x = float(x)
    special = _special(x)
    if special is not None:
        return special
    return fixed(round(x * 100.0, _SNAP), digits) + "%"


def grouped(x, digits: int = 0) -> str:
    """fixed() with thousands separators: grouped(1234567.5) = "1,234,568" (counts, lengths)."""
    text = fixed(x, digits)
    if not text[-1:].isdigit():
        return text
    sign, body = ("-", text[1:]) if text.startswith("-") else ("", text)
    whole, dot, frac = body.partition(".")
    return f"{sign}{int(whole):,}{dot}{frac}"


def significant(x, digits: int = 4) -> str:
    """x to ``digits`` significant digits by the same rule, trailing zeros dropped (as "%g" writes
    it, but half up): significant(22.627417) = "22.63", significant(0.0012345) = "0.001235";
    whole numbers as trimmed() writes them (512, 1,000); below 10⁻⁴ in powers of ten (4.5×10⁻⁵);
    from 10^digits on, every digit of the whole part (123457, not 1.235e+05)."""
    x = float(x)
    special = _special(x)
    if special is not None:
        return special
    digits = _places(digits)
    if x == 0 or (abs(x) < 1e15 and x.is_integer()):
        return trimmed(x, 0)
    if abs(x) < 1e-4:
        mantissa, times, power = sci(x, max(digits - 1, 0)).partition("×")
        return (mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa) + times + power
    exponent = Decimal(repr(x)).adjusted()
    places = max(digits - 1 - exponent, 0)
    text = fixed(x, places)
    if Decimal(text).adjusted() > exponent and places > 0:   # 9.9996 → 10.00: one place fewer
        text = fixed(x, places - 1)
    return text.rstrip("0").rstrip(".") if "." in text else text


_WEEKDAYS = "月火水木金土日"


def day(d: date, today: date | None = None) -> str:
    """A calendar day as a learner reads it: 12月18日（金）; with its year when that is not
    ``today``'s year (or no ``today`` is given): 2027年1月10日（日）."""
    text = f"{d.month}月{d.day}日（{_WEEKDAYS[d.weekday()]}）"
    return text if today is not None and d.year == today.year else f"{d.year}年{text}"


def span(days: list[date], today: date | None = None) -> str:
    """Consecutive days as one span: 12月18日（金）〜12月20日（日); one day alone; "" for none."""
    if not days:
        return ""
    first, last = day(days[0], today), day(days[-1], today)
    return first if days[0] == days[-1] else f"{first}〜{last}"
