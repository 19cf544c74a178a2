"""A REST query refused by the cost budget where Strapi answers is the budget's row of
docs/differences-from-strapi.md (make diff at de334b6: the re-read of a page with ties asks for
100 entries, and ``populate[0]=categories.articles.links`` on 100 articles costs 113,300)."""

from __future__ import annotations

import json
from pathlib import Path

from diff.compare import Answer, Normalizer, compare
from diff.generate import Query
from diff.seed import Ids

from contentapi.schema import load_registry

MODELS = Path(__file__).resolve().parents[3] / "content-types"
ROW = "on purpose: a REST query costing more than the limit"


def _normalizers() -> tuple[Normalizer, Normalizer]:
    registry = load_registry(MODELS)
    return Normalizer(registry, Ids()), Normalizer(registry, Ids())


def _refusal(message: str) -> Answer:
    error = {"status": 400, "name": "ValidationError", "message": message, "details": {}}
    return Answer(400, json.dumps({"data": None, "error": error}))


QUERY = Query(
    "/api/articles",
    {"pagination": {"start": 0, "limit": 100}, "populate": ["categories.articles.links"]},
    "articles",
)
STRAPI = Answer(200, json.dumps({"data": [], "meta": {"pagination": {"total": 0}}}))


def test_a_query_over_the_budget_is_the_budgets_row():
    over = _refusal("The query costs 113300, more than the limit of 100000: the page size …")
    assert compare(QUERY, over, STRAPI, *_normalizers()).expected == ROW


def test_another_400_stays_unexplained():
    other = _refusal("Invalid key nosuchkey")
    assert compare(QUERY, other, STRAPI, *_normalizers()).expected == ""
