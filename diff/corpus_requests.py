"""The requests a corpus project's front end builds, from its ``corpus.json``.

Each request there is transcribed from the front end's code, with the file and line it comes
from (``source``), in one of the two forms that code uses:

- ``url``: a URL built as a template literal, ``{name}`` where the code interpolates a value;
- ``path`` + ``query``: the object the code hands to ``qs.stringify`` (by the real ``qs``, run
  with Node from the reference Strapi's install, as the front end's ``fetchAPI`` does).

The interpolated values come from ``vars`` (lists, every combination taken) and from ``each``:
a content type uid whose every entry (localizations and drafts included) gives its own
attributes (``{slug}``, ``{name}`` …), ``{locale}`` and ``{id}`` — an id differs from server
to server, so it stays a ``{id:<key>}`` marker until the request is sent (``resolve``).
Interpolated values are percent-encoded as ``fetch`` encodes a URL's query (WHATWG).
"""

from __future__ import annotations

import itertools
import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diff.corpus_data import Plan

__all__ = ["Request", "expand", "resolve", "transcribed"]

#: bytes the WHATWG URL parser percent-encodes in a special URL's query
_QUERY_ENCODE = set(range(0x21)) | {0x22, 0x23, 0x27, 0x3C, 0x3E} | set(range(0x7F, 0x100))
_MARKER = re.compile(r"\{id:([^}]+)\}")


@dataclass(frozen=True)
class Request:
    source: str  # file:line in the project's repository
    url: str  # with {id:<key>} markers where an entry id goes


def _fetch_encode(value: str) -> str:
    return "".join(f"%{b:02X}" if b in _QUERY_ENCODE else chr(b) for b in value.encode())


def _bindings(spec: dict[str, Any], plan: Plan) -> list[dict[str, str]]:
    names = list((spec.get("vars") or {}).keys())
    combos = [
        dict(zip(names, values, strict=True))
        for values in itertools.product(*(spec["vars"][n] for n in names))
    ] or [{}]
    uid = spec.get("each")
    if not uid:
        return combos
    entries = [e for e in plan.entries if e.uid == uid]
    if spec.get("localizations"):
        entries = [e for e in entries if e.locale is not None]
    out = []
    for entry in entries:
        own = {k: str(v) for k, v in entry.data.items() if isinstance(v, str | int)}
        own["locale"] = entry.locale or "en"
        own["id"] = f"{{id:{entry.key}}}"
        out += [{**own, **combo} for combo in combos]
    return out


class _Missing(LookupError):
    """An entry without the value a request needs (a null ``slug``): no page asks for it."""


def _fill(template: Any, values: dict[str, str], encode: bool) -> Any:
    if isinstance(template, dict):
        return {k: _fill(v, values, encode) for k, v in template.items()}
    if isinstance(template, list):
        return [_fill(v, values, encode) for v in template]
    if not isinstance(template, str):
        return template

    def one(match: re.Match[str]) -> str:
        value = values.get(match.group(1))
        if value is None:
            raise _Missing(match.group(1))
        if match.group(1) == "id" or not encode:
            return value
        return _fetch_encode(value)

    return re.sub(r"\{(\w+)\}", one, template)


def _stringify(objects: list[Any], node_modules: Path) -> list[str]:
    """``qs.stringify`` of each object by the real ``qs`` (one Node process for all)."""
    script = (
        f"const qs = require({json.dumps(str(node_modules / 'qs'))});"
        "const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(input.map((o) => qs.stringify(o))));"
    )
    done = subprocess.run(
        ["node", "-e", script], input=json.dumps(objects), capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"qs.stringify failed: {done.stderr[:500]}")
    return json.loads(done.stdout)


def transcribed(corpus: dict[str, Any], plan: Plan) -> list[tuple[str, str, Any]]:
    """Every request of ``corpus.json`` with its values filled in, in the file's order:
    ``(source, url, None)`` for a URL, ``(source, path, query object)`` for a ``qs`` call."""
    pending: list[tuple[str, str, Any]] = []
    for spec in corpus["requests"]:
        for values in _bindings(spec, plan):
            try:
                if "url" in spec:
                    pending.append((spec["source"], _fill(spec["url"], values, True), None))
                else:
                    query = _fill(spec["query"], values, False)
                    pending.append((spec["source"], spec["path"], query))
            except _Missing:
                continue
    return pending


def expand(corpus: dict[str, Any], plan: Plan, node_modules: Path) -> list[Request]:
    """The requests as sent: ``qs`` calls stringified, repeated ones once."""
    pending = transcribed(corpus, plan)
    strings = _stringify([q for _, _, q in pending if q is not None], node_modules)
    out: list[Request] = []
    seen: set[tuple[str, str]] = set()
    for source, url, query in pending:
        if query is not None:
            text = strings.pop(0)
            url = f"{url}?{text}" if text else url
        if (source, url) not in seen:
            seen.add((source, url))
            out.append(Request(source, url))
    return out


def resolve(url: str, ids: dict[str, dict[str, int]]) -> str:
    """The URL one server is sent: each ``{id:<key>}`` its id there (0 when it has none)."""

    def one(match: re.Match[str]) -> str:
        key = match.group(1)
        uid = key.split("#")[0]
        return str(ids.get(uid, {}).get(key, 0))

    return _MARKER.sub(one, url)
