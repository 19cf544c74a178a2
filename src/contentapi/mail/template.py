"""Strapi's mail templates (``<%= URL %>?code=<%= TOKEN %>``) rendered without evaluation.

Strapi renders them with lodash's ``template`` and an interpolation pattern that only matches
the names of the values given (``URL``, ``USER.username`` …): nothing in a template is ever
evaluated, and an unknown ``<%= … %>`` stays as written. We do the same with a regular
expression — no code runs — and, unlike Strapi, escape every value in the HTML part, so a
username such as ``<img src=x onerror=…>`` arrives as text. The text part is the same template
with its tags removed (a link keeps its address) and the values as they are.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["RenderedTemplate", "render_template", "single_line"]

_LINK = re.compile(r"""<a\b[^>]*?\bhref\s*=\s*(["'])(.*?)\1[^>]*>(.*?)</a\s*>""", re.I | re.S)
_TAG = re.compile(r"<[^>]*>")
_BLANK_LINES = re.compile(r"\n{3,}")
_MARKER = re.compile(r"\x00(\d+)\x00")


@dataclass(frozen=True, slots=True)
class RenderedTemplate:
    html: str
    text: str


def _leaves(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, Any]]:
    """lodash-style deep keys: ``{"USER": {"id": 1}}`` → ``("USER.id", 1)``."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from _leaves(item, (*path, str(key)))
    else:
        yield ".".join(path), value


def _as_text(value: Any) -> str:
    """JavaScript's string of a value as lodash prints it (``null`` and missing print empty)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _link_text(match: re.Match[str]) -> str:
    address, label = html.unescape(match.group(2)), _TAG.sub("", match.group(3)).strip()
    return address if not label or label == address else f"{label} ({address})"


def render_template(layout: str, data: Mapping[str, Any]) -> RenderedTemplate:
    """``layout`` with each ``<%= NAME %>`` of ``data``'s deep keys replaced."""
    values = {name: _as_text(value) for name, value in _leaves(data) if name}
    if not values:
        return RenderedTemplate(layout, _to_text(layout, []))
    names = sorted(values, key=len, reverse=True)
    pattern = re.compile(r"<%=\s*(" + "|".join(map(re.escape, names)) + r")\s*%>")
    html_part = pattern.sub(lambda m: html.escape(values[m.group(1)], quote=True), layout)
    # The text part: placeholders become markers the tag stripping cannot touch, then values.
    markers: list[str] = []

    def mark(match: re.Match[str]) -> str:
        markers.append(values[match.group(1)])
        return f"\x00{len(markers) - 1}\x00"

    return RenderedTemplate(html_part, _to_text(pattern.sub(mark, layout), markers))


def _to_text(marked: str, markers: list[str]) -> str:
    text = _LINK.sub(_link_text, marked)
    text = html.unescape(_TAG.sub("", text))
    # One pass, so a value that looks like a marker is never replaced in its turn.
    text = _MARKER.sub(lambda m: markers[int(m.group(1))], text)
    return _BLANK_LINES.sub("\n\n", text).strip() + "\n"


def single_line(text: str) -> str:
    """A header value (a subject): line breaks from a user value must not start a new header."""
    return " ".join(text.split())
