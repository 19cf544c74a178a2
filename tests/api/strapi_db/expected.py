"""What contentapi answers where Strapi 4.25's recorded answer is deliberately not repeated.

docs/differences-from-strapi.md lists where contentapi differs from Strapi on purpose; these are
the cases the Strapi-database fixture meets. The test of the fixture and ``make diff``'s
round-trip mode (which compares the other way: contentapi's answers with Strapi's after
contentapi wrote)
both derive the expected answer from Strapi's here. docs/strapi-migration.md lists them for a
team that switches.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DELIBERATE", "NORMALISED", "normalise"]

#: Recorded answers contentapi deliberately does not repeat (docs/differences-from-strapi.md),
#: with what it answers.
DELIBERATE: dict[tuple[str, str], tuple[int, str]] = {
    # a draft by id in a ``live`` read: Strapi returns it, contentapi answers 404
    ("GET", "/api/articles/3"): (404, "NotFoundError"),
}


def _without_drafts(node: Any, top: bool = True) -> Any:
    """Strapi's answer less the drafts inside populated relations (not the top-level entry)."""
    if isinstance(node, dict):
        out = {key: _without_drafts(value, top and key == "data") for key, value in node.items()}
        if not top and isinstance(out.get("data"), list):
            out["data"] = [
                item
                for item in out["data"]
                if not (
                    isinstance(item, dict)
                    and "publishedAt" in item.get("attributes", {})
                    and item["attributes"]["publishedAt"] is None
                )
            ]
        return out
    if isinstance(node, list):
        return [_without_drafts(item, top) for item in node]
    return node


def _roles_by_id(answer: Any) -> Any:
    return {"roles": sorted(answer["roles"], key=lambda role: role["id"])}


def _list_by_id(answer: Any) -> Any:
    if isinstance(answer, dict) and isinstance(answer.get("data"), list):
        return {**answer, "data": sorted(answer["data"], key=lambda entry: entry["id"])}
    return answer


def _list_without_sort(recorded: dict[str, Any]) -> bool:
    path, _, query = recorded["path"].partition("?")
    return (
        recorded["method"] == "GET"
        and path.startswith("/api/")
        and not path.rsplit("/", 1)[-1].isdigit()
        and not any(part.startswith("sort") for part in query.split("&"))
    )


def _single_live_read(recorded: dict[str, Any]) -> bool:
    path = recorded["path"].split("?")[0]
    return (
        recorded["method"] == "GET"
        and path.rsplit("/", 1)[-1].isdigit()
        and "publicationState=preview" not in recorded["path"]
    )


#: How an expected answer is derived from Strapi's where contentapi differs on purpose:
#: - a single-entry ``live`` read leaves drafts out of populated relations (Strapi shows them);
#: - a list without ``sort`` is in id order (Strapi answers in storage order; after an update
#:   PostgreSQL may store a row elsewhere — the roles list, an entry list without ``sort``).
NORMALISED = [
    (_single_live_read, _without_drafts),
    (lambda r: r["path"] == "/api/users-permissions/roles", _roles_by_id),
    (_list_without_sort, _list_by_id),
]


def normalise(recorded: dict[str, Any], answer: Any) -> Any:
    """Strapi's ``answer`` to the ``recorded`` request as contentapi gives it (the deliberate
    differences of docs/differences-from-strapi.md)."""
    for matches, change in NORMALISED:
        if matches(recorded):
            answer = change(answer)
    return answer
