"""A single read leaves drafts out of its populated relations (docs/differences-from-strapi.md):
the classifier names that row also for a populated count and beside re-encoded image sizes
(make diff at e00484e: `/api/categories/6?populate[articles][count]=true`, and
`populate[0]=parent.children.articles&populate[1]=articles.gallery`)."""

from __future__ import annotations

import json
from pathlib import Path

from diff.compare import Answer, Normalizer, compare
from diff.generate import Query
from diff.seed import Ids

from contentapi.schema import load_registry

MODELS = Path(__file__).resolve().parents[3] / "content-types"
ROW = "on purpose: drafts left out of populated relations of a single read"


def _normalizers() -> tuple[Normalizer, Normalizer]:
    registry = load_registry(MODELS)
    ours, theirs = Ids(), Ids()
    ours.add("categories", "Cat", 6)
    theirs.add("categories", "Cat", 6)
    for number, title in enumerate(("live", "draft"), start=1):
        ours.add("articles", title, number)
        theirs.add("articles", title, number)
    return Normalizer(registry, ours), Normalizer(registry, theirs)


def _answer(articles: object) -> Answer:
    body = {"data": {"id": 6, "attributes": {"name": "Cat", "articles": articles}}, "meta": {}}
    return Answer(200, json.dumps(body))


def _count(n: int) -> dict[str, object]:
    return {"data": {"attributes": {"count": n}}}


def test_a_smaller_count_of_a_single_read_is_the_drafts_row():
    query = Query("/api/categories/6", {"populate": {"articles": {"count": "true"}}}, "categories")
    query.single = "Cat"
    verdict = compare(query, _answer(_count(4)), _answer(_count(8)), *_normalizers())
    assert verdict.expected == ROW
    larger = compare(query, _answer(_count(9)), _answer(_count(8)), *_normalizers())
    assert larger.expected == ""  # more than Strapi counts is no draft left out


def _file(size: float) -> dict[str, object]:
    return {"data": {"id": 1, "attributes": {"name": "a.png", "mime": "image/png", "size": size}}}


def test_drafts_left_out_beside_re_encoded_image_sizes_are_the_drafts_row():
    live = {"id": 1, "attributes": {"title": "live", "publishedAt": "x", "cover": _file(0.1)}}
    draft = {"id": 2, "attributes": {"title": "draft", "publishedAt": None, "cover": _file(0.1)}}
    strapi_live = {**live, "attributes": {**live["attributes"], "cover": _file(0.11)}}
    query = Query("/api/categories/6", {"populate": "articles.cover"}, "categories")
    query.single = "Cat"
    ours = _answer({"data": [live]})
    theirs = _answer({"data": [strapi_live, draft]})
    assert compare(query, ours, theirs, *_normalizers()).expected == ROW
    other = {**live, "attributes": {**live["attributes"], "title": "other"}}
    changed = _answer({"data": [other, draft]})
    assert compare(query, ours, changed, *_normalizers()).expected == ""
