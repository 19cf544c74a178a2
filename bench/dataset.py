"""The benchmark's data set: deterministic (seeded), the same for every server.

5,000 books, each with an author, three tags, a publisher, an SEO component, two chapters
(a repeatable component) and a two-block dynamic zone. Related entries are referred to by
id: authors, tags and publishers are created first, one at a time, so their ids are 1..n on
every server. The expected totals of the scenarios are computed here, from the data.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Dataset", "build_dataset"]

WORDS = (
    "river",
    "stone",
    "night",
    "garden",
    "empire",
    "silent",
    "glass",
    "winter",
    "ocean",
    "shadow",
    "ember",
    "north",
    "paper",
    "crown",
    "orbit",
    "velvet",
    "harbor",
    "copper",
)
COUNTRIES = ("FR", "DE", "US", "GB", "JP", "IT", "ES", "NL")


@dataclass
class Dataset:
    authors: list[dict[str, Any]] = field(default_factory=list)
    tags: list[dict[str, Any]] = field(default_factory=list)
    publishers: list[dict[str, Any]] = field(default_factory=list)
    books: list[dict[str, Any]] = field(default_factory=list)

    def expected_filtered(self) -> int:
        """Scenario 2: pages > 100, price < 50, title contains "a" (any case)."""
        return sum(
            1
            for b in self.books
            if b["pages"] > 100 and b["price"] < 50 and "a" in b["title"].lower()
        )

    def expected_deep(self) -> int:
        """Scenario 5: books whose author has a book of more than 900 pages."""
        prolific = {b["author"] for b in self.books if b["pages"] > 900}
        return sum(1 for b in self.books if b["author"] in prolific)

    def expected_related(self, author_prefix: str, tag_names: tuple[str, ...]) -> int:
        """The related-attribute scenario: the author's name starts with ``author_prefix`` and
        one of the tags is named in ``tag_names``."""
        authors = {
            number
            for number, author in enumerate(self.authors, 1)
            if author["name"].startswith(author_prefix)
        }
        tags = {number for number, tag in enumerate(self.tags, 1) if tag["name"] in tag_names}
        return sum(1 for b in self.books if b["author"] in authors and tags & set(b["tags"]))


def _date(rng: random.Random) -> str:
    return f"{rng.randint(1950, 2024)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def build_dataset(books: int = 5000, seed: int = 42) -> Dataset:
    rng = random.Random(seed)
    data = Dataset()
    data.authors = [{"name": f"Author {i}", "bio": f"Bio of author {i}"} for i in range(1, 201)]
    data.tags = [{"name": f"tag-{i}"} for i in range(1, 41)]
    data.publishers = [
        {"name": f"Publisher {i}", "country": COUNTRIES[i % len(COUNTRIES)]} for i in range(1, 21)
    ]
    for number in range(1, books + 1):
        title = f"{rng.choice(WORDS).title()} {rng.choice(WORDS)} {number}"
        data.books.append(
            {
                "title": title,
                "pages": rng.randint(50, 1000),
                "price": round(rng.uniform(5, 80), 2),
                "rating": round(rng.uniform(1, 5), 1),
                "publishedOn": _date(rng),
                "summary": f"A book about {rng.choice(WORDS)} and {rng.choice(WORDS)}.",
                "author": rng.randint(1, len(data.authors)),
                "tags": rng.sample(range(1, len(data.tags) + 1), 3),
                "publisher": rng.randint(1, len(data.publishers)),
                "seo": {"metaTitle": title, "metaDescription": f"About {title}"},
                "chapters": [{"title": "Opening", "pages": 12}, {"title": "Middle", "pages": 30}],
                "blocks": [
                    {
                        "__component": "bench.quote",
                        "text": "A line worth quoting.",
                        "by": "Someone",
                    },
                    {"__component": "bench.rich", "body": f"# {title}\n\nSome **rich** text."},
                ],
            }
        )
    return data
