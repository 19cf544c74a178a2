"""Why contentapi answers a corpus request differently from the reference Strapi, where that
is known: each reason names the class of difference, the requests it covers (a pattern on the
path), and whether it is a difference made on purpose (docs/differences-from-strapi.md) or
a gap still to close in contentapi. ``tests/api/test_corpus.py`` fails on any difference
without a reason here; ``docs/corpus-report.md`` groups them by reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["KNOWN", "Reason", "reason_for"]


@dataclass(frozen=True)
class Reason:
    project: str  # a project folder, or "*"
    kind: str  # the class of difference, as diff/corpus.py names it (role prefix removed)
    path: str  # a regular expression the request's path matches
    why: str


KNOWN: tuple[Reason, ...] = (
    Reason(
        "*",
        "status 404 vs strapi 200: Not Found",
        r"^/api/(pages|articles|restaurants)/\d+",
        "on purpose (docs/differences-from-strapi.md): GET /api/P/:id of a draft is 404 in live",
    ),
)


def reason_for(project: str, kind: str, path: str) -> str | None:
    """Why the answer to ``path`` differs in class ``kind``, or None when nobody knows."""
    kind = kind.removeprefix("(public role) ")  # the same reasons whoever asks
    for reason in KNOWN:
        if (
            reason.project in ("*", project)
            and reason.kind == kind
            and re.search(reason.path, path)
        ):
            return reason.why
    return None
