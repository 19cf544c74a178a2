"""The shapes ``qs`` gives a parameter's values, read the same way by every part of the parser."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["as_list", "indexed"]


def as_list(value: Any) -> list[Any]:
    """qs gives a list for ``a[0]=…``, but a dict for indexes above its array limit."""
    if isinstance(value, list):
        return value
    if isinstance(value, Mapping):
        return list(value.values())
    return [value]


def indexed(value: Mapping[str, Any]) -> bool:
    """A dict qs made from an array whose indexes passed its limit (``{"101": …}``)."""
    return bool(value) and all(key.isdigit() for key in value)
