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


_SINGLE_TYPE_LOCALIZATIONS = (
    "gap: no POST /api/S/localizations for a single type (CONTRACT §4 lists the route for "
    "collection types only), so the data set's localizations of single types cannot be written"
)
_SYNC_ON_PUT = (
    "gap: contentapi copies non-localized attributes (the page's slug) to the other locales on "
    "every PUT; Strapi 4.25's REST PUT copies nothing (syncNonLocalizedAttributes reads the "
    "updated entry's localizations, which a REST update does not populate)"
)

KNOWN: tuple[Reason, ...] = (
    Reason(
        "*",
        "status 404 vs strapi 200: Not Found",
        r"^/api/(global|blog-page|restaurant-page)\?.*locale=(fr-FR|de)\b",
        _SINGLE_TYPE_LOCALIZATIONS,
    ),
    Reason(
        "foodadvisor",
        "value data.attributes.slug",
        r"^/api/(blog-page|restaurant-page)\?",
        "gap, follows from the missing single-type localizations: creating them, Strapi copied "
        "the new localization's non-localized slug onto the en entry",
    ),
    Reason(
        "*",
        "status 404 vs strapi 200: Not Found",
        r"^/api/(pages|articles|restaurants)/\d+",
        "on purpose (docs/differences-from-strapi.md): GET /api/P/:id of a draft is 404 in live",
    ),
    Reason("foodadvisor", "value data.attributes.slug", r"^/api/pages/\d+", _SYNC_ON_PUT),
    Reason("*", "value data", r"^/api/pages\?", _SYNC_ON_PUT),
    Reason(
        "foodadvisor",
        "value data.attributes.localizations.data.attributes.slug",
        r"^/api/pages\?",
        _SYNC_ON_PUT,
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
