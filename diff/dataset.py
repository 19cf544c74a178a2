"""The differential tester's data set: deterministic, over the example models, seeded in order.

Every content type gets entries with a natural key (``name``, ``title``, ``headline``) so that
ids can be mapped between servers. The set exercises every attribute type (nulls included),
relations of every kind from both sides, a single and a repeatable component (nested), a
dynamic zone with a relation inside, drafts, and French localizations.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Dataset", "Ref", "Step", "build_dataset"]


@dataclass(frozen=True)
class Ref:
    """An entry or file by natural key inside a step's data (a relation or media attribute of a
    dynamic-zone component), replaced by its id at seeding time."""

    kind: str  # authors, files, …
    key: str


@dataclass(frozen=True)
class Step:
    """One write: ``POST path`` with ``data`` (relations given by natural keys, resolved at
    seeding time), or a localization of ``of`` (an article title) when ``localize`` is set."""

    kind: str  # articles, authors, categories, profiles
    key: str
    data: dict[str, Any]
    refs: dict[str, tuple[str, Any]] = field(default_factory=dict)  # attr → (kind, key | [keys])
    localize: str | None = None  # the English article's title this French entry localizes
    locale: str | None = None
    update: bool = False  # PUT the entry ``key`` instead of creating one


@dataclass
class Dataset:
    steps: list[Step]
    #: files uploaded first (name → bytes); entries refer to them by name
    files: dict[str, bytes]
    #: every value seen per (kind, attribute): the generator draws filter values from these
    values: dict[tuple[str, str], list[Any]]


WORDS = [
    "alpha",
    "Beta",
    "gamma",
    "Delta",
    "épée",
    "Éditions",
    "straße",
    "100%",
    "snake_case",
    "Zeta",
]


def build_dataset(seed: int = 7) -> Dataset:
    rng = random.Random(seed)
    steps: list[Step] = []
    values: dict[tuple[str, str], list[Any]] = {}

    def note(kind: str, data: dict[str, Any]) -> None:
        for name, value in data.items():
            if isinstance(value, str | int | float | bool) and not isinstance(value, list):
                values.setdefault((kind, name), []).append(value)

    for n in range(6):
        data: dict[str, Any] = {
            "headline": f"{WORDS[n]} headline" if n != 5 else None,
            "website": f"https://site{n}.example" if n % 2 == 0 else None,
        }
        steps.append(Step("profiles", f"profile-{n}", data))
        note("profiles", data)
    for n in range(8):
        data = {
            "name": f"Author {WORDS[n]}",
            "email": f"author{n}@example.com",
            "handle": f"handle_{n}" if n % 3 else None,
            "bio": f"Bio of {WORDS[(n + 3) % len(WORDS)]}" if n % 2 else None,
            "born": f"19{70 + n}-0{1 + n % 9}-1{n % 9}" if n != 4 else None,
            "age": 20 + n * 7 if n != 6 else None,
            "socials": [
                {"label": f"s{n}-{i}", "url": f"/s/{n}/{i}", "newTab": i % 2 == 0}
                for i in range(n % 3)
            ],
        }
        refs: dict[str, tuple[str, Any]] = {}
        if n < 5:
            refs["profile"] = ("profiles", f"profile-{n}")
        steps.append(Step("authors", data["name"], data, refs))
        note("authors", data)
    category_names = [f"Cat {WORDS[n]}" for n in range(6)]
    for n, name in enumerate(category_names):
        data = {"name": name, "slug": f"cat-{n}", "description": f"d{n}" if n % 2 else None}
        refs = {"parent": ("categories", category_names[0])} if n in (1, 2, 3) else {}
        if n == 4:
            refs["parent"] = ("categories", category_names[1])
        steps.append(Step("categories", name, data, refs))
        note("categories", data)
    titles: list[str] = []
    kinds = ["news", "opinion", "tutorial"]
    for n in range(24):
        title = f"{WORDS[n % len(WORDS)]} article {n:02d}"
        data = {
            "title": title,
            "summary": f"Summary {WORDS[(n * 3) % len(WORDS)]}" if n % 4 else None,
            "body": f"# Body {n}" if n % 3 else None,
            "kind": kinds[n % 3] if n % 5 else None,
            "readingTime": 1 + (n * 7) % 30 if n % 6 else None,
            "views": str(rng.choice([0, 5, 100, 9007199254740993, 123456789012]))
            if n % 7
            else None,
            "rating": rng.choice([0, 1.5, 2, 3.25, 4.5, 5]) if n % 4 != 1 else None,
            "price": rng.choice([0, 8.25, 10, 99.99]) if n % 5 != 2 else None,
            "featured": n % 3 == 0,
            "eventDate": f"2024-{1 + n % 12:02d}-{1 + n % 27:02d}" if n % 4 != 3 else None,
            "eventTime": f"{n % 24:02d}:{(n * 7) % 60:02d}:{(n * 13) % 60:02d}"
            if n % 5 != 4
            else None,
            "scheduledAt": f"2024-{1 + n % 12:02d}-10T{n % 24:02d}:30:00.000Z"
            if n % 3 != 2
            else None,
            "metadata": rng.choice(
                [{"a": 1, "b": [1, 2.5, "x"]}, [1, 2], {"float": 3.0}, None, "text"]
            ),
            "contactEmail": f"c{n}@example.org" if n % 2 else None,
            "editorNotes": f"secret {n}",
            "seo": {
                "metaTitle": f"SEO {n}",
                "metaDescription": f"desc {n}" if n % 2 else None,
                "keywords": [{"label": f"k{n}-{i}", "url": f"/k/{i}"} for i in range(n % 3)],
            }
            if n % 4 != 2
            else None,
            "links": [
                {"label": f"L{(n + i) % 5}", "url": f"/l/{n}/{i}", "newTab": i == 1}
                for i in range(n % 4)
            ],
        }
        if n % 6 == 5:
            data["publishedAt"] = None  # a draft
        blocks: list[dict[str, Any]] = []
        if n % 3 != 1:
            blocks.append({"__component": "blocks.rich-text", "body": f"rich {n}"})
        refs = {}
        if n % 4 == 0:
            quote: dict[str, Any] = {
                "__component": "blocks.quote",
                "title": f"q{n}",
                "body": f"quote {n}",
            }
            if n % 8 == 0:  # a relation inside the zone (its target with a profile and links)
                quote["author"] = Ref("authors", f"Author {WORDS[(n // 8) % 5]}")
            blocks.append(quote)
        if n % 6 == 3:
            names = ["red.png", "green.png", "blue.png"]
            blocks.append({"__component": "blocks.media", "file": Ref("files", names[n % 3])})
        data["blocks"] = blocks
        if n % 8 != 7:
            refs["author"] = ("authors", f"Author {WORDS[n % 8]}")
        refs["categories"] = ("categories", [category_names[(n + i) % 6] for i in range(n % 4)])
        if titles and n % 3 == 2:
            refs["related"] = ("articles", [titles[(n * 5) % len(titles)]])
        names = ["red.png", "green.png", "blue.png"]
        if n % 3 == 0:
            refs["cover"] = ("files", names[(n // 3) % 3])
        if n % 4 == 1:
            refs["gallery"] = ("files", names[: 1 + n % 3])
        steps.append(Step("articles", title, data, refs))
        note("articles", {k: v for k, v in data.items() if k != "editorNotes"})
        titles.append(title)
    for n in (0, 3, 4, 9, 12):
        title = f"FR {WORDS[n % len(WORDS)]} {n:02d}"
        data = {"title": title, "summary": f"Résumé {n}"}
        steps.append(Step("articles", title, data, {}, localize=titles[n], locale="fr"))
        note("articles", {"title": title})
    for n, name in enumerate(category_names[:3]):
        steps.append(
            Step("categories", name, {}, {"featured": ("articles", titles[n * 4])}, update=True)
        )
    return Dataset(steps=steps, files=_files(), values=values)


def _files() -> dict[str, bytes]:
    """Three small images (below every format breakpoint, so no formats on either side)."""
    from io import BytesIO

    from PIL import Image

    files: dict[str, bytes] = {}
    for name, colour, size in (
        ("red.png", (200, 30, 30), (40, 30)),
        ("green.png", (30, 200, 30), (64, 64)),
        ("blue.png", (30, 30, 200), (20, 50)),
    ):
        buffer = BytesIO()
        Image.new("RGB", size, colour).save(buffer, format="PNG")
        files[name] = buffer.getvalue()
    return files
