"""JavaScript's conversions of JSON values, where Strapi's answers depend on them.

yup casts with ``String(value)``, ``Number(text)`` and ``parseFloat`` (``entries/yup.py``), and
its messages print numbers as JavaScript does (``1e+21``, ``0.000001``, ``1e-7``).
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import Any

__all__ = ["MISSING", "is_number", "js_number_text", "js_parse_float", "js_string", "js_to_number"]


class _Missing:
    """JavaScript's ``undefined``: a key the JSON did not have."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


def js_number_text(value: float) -> str:
    """``String(x)`` of a JavaScript number (shortest round-trip digits, JavaScript's choice
    between plain and exponent notation); an integer beyond 2**53 is first a double, as it is
    in JavaScript."""
    if isinstance(value, int):
        if abs(value) <= 2**53:
            return str(value)
        try:
            value = float(value)
        except OverflowError:  # beyond the largest double: JavaScript reads Infinity
            value = math.inf if value > 0 else -math.inf
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign, digits_tuple, exponent = Decimal(repr(value)).as_tuple()
    digits = "".join(map(str, digits_tuple)).rstrip("0") or "0"
    assert isinstance(exponent, int)
    exponent += len(digits_tuple) - len(digits)
    k, n = len(digits), exponent + len(digits)
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = f"{digits[:n]}.{digits[n:]}"
    elif -6 < n <= 0:
        text = "0." + "0" * (-n) + digits
    else:
        mantissa = digits[0] + (f".{digits[1:]}" if k > 1 else "")
        text = f"{mantissa}e{'+' if n - 1 > 0 else '-'}{abs(n - 1)}"
    return ("-" if sign else "") + text


def js_string(value: Any) -> str:
    """JavaScript's ``String(value)`` of a JSON value."""
    if value is None:
        return "null"
    if value is MISSING:
        return "undefined"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_number_text(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ",".join("" if item is None else js_string(item) for item in value)
    return "[object Object]"


_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_RADIX = re.compile(r"0([xXoObB])([0-9a-fA-F]+)")


def js_to_number(text: str) -> float:
    """``Number(text)`` of a string without whitespace."""
    if _DECIMAL.fullmatch(text):
        return float(text)
    if text in ("Infinity", "+Infinity", "-Infinity"):
        return -math.inf if text.startswith("-") else math.inf
    radix = _RADIX.fullmatch(text)
    if radix:
        base = {"x": 16, "o": 8, "b": 2}[radix.group(1).lower()]
        try:
            return float(int(radix.group(2), base))
        except ValueError:
            return math.nan
    return math.nan


_FLOAT_PREFIX = re.compile(r"[+-]?(?:Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")


def js_parse_float(value: Any) -> float:
    """``parseFloat(value)``: the longest number at the start of ``String(value)``."""
    found = _FLOAT_PREFIX.match(js_string(value).lstrip())
    if found is None:
        return math.nan
    text = found.group(0)
    if text.lstrip("+-") == "Infinity":
        return -math.inf if text.startswith("-") else math.inf
    return float(text)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
