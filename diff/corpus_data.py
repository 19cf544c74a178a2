"""A corpus project's data set, generated deterministically from its models alone.

Every content type gets entries (collection types 4 — with draft & publish the last one a
draft — single types 1), every attribute a value of its type within the model's limits
(``min``/``max``, lengths, ``regex``), repeatable components two items, every dynamic zone
one item of each component it allows, media from a few uploaded files of the kinds
``allowedTypes`` names, the users-permissions user (with the project's extension) three
users, and localized types a published localization in the project's second locale for the
first two entries.

Writes come in two passes, so that relations can point anywhere: everything but relations
(``POST``), then everything again with the relations (``PUT``); relations are written on their
owning side only (``mappedBy`` sides are what the other side's writes make).
"""

from __future__ import annotations

import re
import struct
import zlib
from dataclasses import dataclass, field
from typing import Any

from diff.corpus_models import USER, Project, Type

__all__ = ["Entry", "Plan", "build_plan"]

ENTRIES = 4  # per collection type
USERS = 3
WORDS = ["Alpha", "Béta", "Gamma", "Delta", "Epsilon"]


def _png(red: int) -> bytes:
    """A 2x2 PNG (too small for Strapi's responsive formats, so both sides store one file)."""

    def chunk(tag: bytes, data: bytes) -> bytes:
        body = tag + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(b"\x00" + bytes([red, 40, 90]) * 2 for _ in range(2))
    header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def _mp4() -> bytes:
    """The smallest MP4 both sides recognise as ``video/mp4`` (an ``ftyp`` box)."""
    return struct.pack(">I", 24) + b"ftypisom" + b"\x00\x00\x02\x00" + b"isomiso2"


FILES: dict[str, tuple[bytes, str]] = {
    "image-0.png": (_png(10), "image/png"),
    "image-1.png": (_png(120), "image/png"),
    "image-2.png": (_png(240), "image/png"),
    "video-0.mp4": (_mp4(), "video/mp4"),
}


@dataclass
class Entry:
    """One entry (or localization) to write: ``data`` holds each file as ``{"$file": name}``;
    relations are apart, in ``relations`` (paths into ``data``, components included)."""

    uid: str
    key: str
    data: dict[str, Any]
    #: path into ``data`` (names and list indexes) → (target uid, target keys, to-many)
    relations: list[tuple[tuple[Any, ...], str, list[str], bool]] = field(default_factory=list)
    locale: str | None = None  # a localization of ``of`` in this locale
    of: str | None = None


@dataclass
class Plan:
    files: dict[str, tuple[bytes, str]]
    entries: list[Entry]
    #: uid → the keys of its entries (localizations apart), in creation order
    keys: dict[str, list[str]]
    localizations: dict[str, list[str]]


class _Builder:
    def __init__(self, project: Project, locale: str | None) -> None:
        self.project = project
        self.locale = locale
        self.keys: dict[str, list[str]] = {}
        self.localizations: dict[str, list[str]] = {}

    def count(self, item: Type) -> int:
        if item.uid == USER:
            return USERS
        return ENTRIES if item.kind == "collectionType" else 1

    def plan_keys(self) -> None:
        for uid, item in self.project.types.items():
            self.keys[uid] = [f"{uid}#{n}" for n in range(self.count(item))]

    def text(self, name: str, n: int, spec: dict[str, Any], suffix: str) -> str:
        value = f"{WORDS[n % len(WORDS)]} {name} {n}{suffix}"
        minimum = int(spec.get("minLength") or 0)
        if len(value) < minimum:
            value += " — " + "lorem ipsum " * ((minimum // 12) + 1)
            value = value.strip()
        maximum = spec.get("maxLength")
        return value[: int(maximum)] if maximum else value

    def media(self, spec: dict[str, Any], n: int) -> Any:
        allowed = spec.get("allowedTypes") or ["images", "files", "videos", "audios"]
        images = [name for name in FILES if name.startswith("image")]
        pool = images if "images" in allowed or "files" in allowed else ["video-0.mp4"]
        if spec.get("multiple"):
            return [{"$file": pool[n % len(pool)]}, {"$file": pool[(n + 1) % len(pool)]}]
        return {"$file": pool[n % len(pool)]}

    def value(
        self,
        name: str,
        spec: dict[str, Any],
        n: int,
        suffix: str,
        path: tuple[Any, ...],
        entry: Entry,
        depth: int,
    ) -> Any:
        value = self._value(name, spec, n, suffix, path, entry, depth)
        pattern = spec.get("regex")
        if isinstance(value, str) and pattern and not re.search(pattern, value):
            # e.g. corporate's page slug, ^[a-zA-Z/-]+$: digits as letters, spaces as dashes
            value = re.sub(r"\d", lambda d: chr(97 + int(d.group())), value).replace(" ", "-")
        return value

    def _value(
        self,
        name: str,
        spec: dict[str, Any],
        n: int,
        suffix: str,
        path: tuple[Any, ...],
        entry: Entry,
        depth: int,
    ) -> Any:
        kind = spec.get("type")
        if kind == "customField":
            kind = "richtext"  # the custom fields of the corpus store text (CKEditor: richtext)
        if kind == "uid" or (kind == "string" and name == "slug"):
            owner = entry.uid.split(".")[-1]
            return f"{owner}-{n}{suffix.replace(' ', '-').lower()}"
        if kind in ("string", "text"):
            return self.text(name, n, spec, suffix)
        if kind == "richtext":
            return f"## {WORDS[n % len(WORDS)]} {name}{suffix}\n\nSome **bold** text, n° {n}."
        if kind == "email":
            return f"{name.lower()}{n}{suffix.replace(' ', '')}@example.com"
        if kind == "password":
            return f"Password-{n}!"
        if kind in ("integer", "biginteger"):
            low, high = spec.get("min"), spec.get("max")
            number = int(low) + n % (int(high) - int(low) + 1) if low is not None else 10 * n + 1
            if high is not None and number > int(high):
                number = int(high)
            return str(10**12 + n) if kind == "biginteger" else number
        if kind in ("decimal", "float"):
            return n + 0.25
        if kind == "boolean":
            return n % 2 == 0
        if kind == "date":
            return f"2024-0{1 + n % 9}-1{n % 10}"
        if kind == "datetime":
            return f"2024-01-{10 + n}T08:30:00.000Z"
        if kind == "time":
            return f"0{n % 10}:30:00.000"
        if kind == "json":
            return {"n": n, "list": [1, "two", None]}
        if kind == "enumeration":
            values = spec.get("enum") or []
            return values[n % len(values)] if values else None
        if kind == "media":
            return self.media(spec, n)
        if kind == "component":
            component = self.project.components.get(spec.get("component", ""))
            if component is None or depth > 4:
                return None
            if spec.get("repeatable"):
                return [
                    self.fields(component, n + i, suffix, (*path, i), entry, depth + 1)
                    for i in range(2)
                ]
            return self.fields(component, n, suffix, path, entry, depth + 1)
        if kind == "dynamiczone":
            items = []
            for index, uid in enumerate(spec.get("components") or []):
                component = self.project.components.get(uid)
                if component is None:
                    continue
                item = self.fields(component, n + index, suffix, (*path, index), entry, depth + 1)
                items.append({"__component": uid, **item})
            return items
        if kind == "relation":
            target = spec.get("target", "")
            keys = self.keys.get(target)
            if not keys or spec.get("mappedBy"):
                return None  # plugin models other than the user, inverse sides
            many = spec.get("relation", "").endswith("ToMany")
            chosen = [keys[(n + 1) % len(keys)]]
            if many:
                chosen.append(keys[(n + 2) % len(keys)])
            entry.relations.append((path, target, chosen, many))
            return None
        return None

    def fields(
        self,
        model: Type,
        n: int,
        suffix: str,
        path: tuple[Any, ...],
        entry: Entry,
        depth: int = 0,
    ) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for name, spec in model.attributes.items():
            if spec.get("type") == "relation":
                self.value(name, spec, n, suffix, (*path, name), entry, depth)
                continue
            if (
                n % ENTRIES == 1
                and not spec.get("required")
                and spec.get("type") not in ("component", "dynamiczone", "uid")
            ):
                data[name] = None  # nulls: every optional attribute of the second entry
                continue
            value = self.value(name, spec, n, suffix, (*path, name), entry, depth)
            if value is not None:
                data[name] = value
        return data

    def entries(self) -> list[Entry]:
        out: list[Entry] = []
        users = self.project.types[USER]
        for n in range(USERS):
            entry = Entry(USER, self.keys[USER][n], {})
            data = self.fields(users, n, "", (), entry)
            data.update(
                username=f"user{n}",
                email=f"user{n}@example.com",
                password=f"Password-{n}!",
                confirmed=True,
                blocked=False,
            )
            for private in ("provider", "resetPasswordToken", "confirmationToken"):
                data.pop(private, None)
            entry.data = data
            out.append(entry)
        for uid, item in sorted(self.project.types.items()):
            if uid == USER:
                continue
            for n, key in enumerate(list(self.keys[uid])):
                entry = Entry(uid, key, {})
                entry.data = self.fields(item, n, "", (), entry)
                if item.draft_and_publish and item.kind == "collectionType" and n == ENTRIES - 1:
                    entry.data["publishedAt"] = None
                out.append(entry)
                if item.localized and self.locale and n < 2:
                    local = Entry(uid, f"{key}@{self.locale}", {}, locale=self.locale, of=key)
                    local.data = self.fields(item, n, f" {self.locale}", (), local)
                    if item.draft_and_publish:  # a localization is a draft unless published
                        local.data["publishedAt"] = "2024-01-01T00:00:00.000Z"
                    out.append(local)
                    self.localizations.setdefault(uid, []).append(local.key)
        return out


def build_plan(project: Project, locale: str | None) -> Plan:
    """``locale``: the second locale localized entries get (None: no localizations)."""
    builder = _Builder(project, locale)
    builder.plan_keys()
    entries = builder.entries()
    return Plan(dict(FILES), entries, builder.keys, builder.localizations)
