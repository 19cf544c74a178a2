"""The GraphQL differential tester's own pure parts: its valid documents are valid against the
reference Strapi's schema, it is deterministic, shrinking and widening keep documents
well-formed, and normalization sees values by type whatever the aliases and fragments."""

from __future__ import annotations

import json
from pathlib import Path

from diff.dataset import build_dataset
from diff.graphql_compare import GraphqlAnswer, GraphqlNormalizer, compare_graphql, schema
from diff.graphql_generate import Doc, GraphqlGenerator, candidates, render, widen
from diff.seed import Ids
from graphql import parse, validate

from contentapi.schema import load_registry

MODELS = Path(__file__).resolve().parents[3] / "content-types"


def _generator(seed: int) -> GraphqlGenerator:
    return GraphqlGenerator(load_registry(MODELS), build_dataset(), seed)


def test_valid_documents_validate_against_strapis_schema_and_a_tenth_are_invalid():
    generator, ids = _generator(3), Ids()
    invalid = 0
    tags: set[str] = set()
    for _ in range(600):
        doc = generator.document()
        tags |= doc.tags
        text, _ = render(doc, ids)
        if any(t.startswith("invalid:") for t in doc.tags):
            invalid += 1
            continue
        assert validate(schema(), parse(text)) == [], text
    assert 30 <= invalid <= 100
    for feature in (
        "alias:twice",
        "component:args",
        "media:args",
        "dynamiczone",
        "fragment:named",
        "fragment:inline",
        "variables",
        "directive",
        "page",
        "offset",
        "publicationState:PREVIEW",
        "locale:fr",
        "relation:args",
        "deep:component",
        "plugin:me",
        "plugin:files",
        "plugin:users",
        "plugin:locales",
    ):
        assert feature in tags, feature


def test_generation_is_deterministic():
    first, again, ids = _generator(5), _generator(5), Ids()
    assert [render(first.document(), ids) for _ in range(40)] == [
        render(again.document(), ids) for _ in range(40)
    ]


def test_shrinking_and_widening_keep_documents_well_formed():
    generator, ids = _generator(8), Ids()
    for _ in range(40):
        doc = generator.document()
        if doc.raw is not None:
            continue
        for smaller in list(candidates(doc))[:30]:
            text, variables = render(smaller, ids)
            parse(text)  # no syntax error: only nodes are removed
            for name in variables:
                assert f"${name}" in text
        text, _ = render(widen(doc), ids)
        if '"coll": true' in json.dumps(doc.op) and not any(
            t.startswith("invalid:") for t in doc.tags
        ):
            assert "pagination: {start: 0, limit: 100}" in text
            assert validate(schema(), parse(text)) == [], text


def _doc(text: str) -> Doc:
    return Doc({"sel": []}, set(), raw=text)


def test_ids_become_natural_keys_through_aliases_and_fragments_and_open_order_is_a_set():
    text = (
        "query { articles { data { id attributes { ...P x: links { id label } } } } }"
        " fragment P on Article { title updatedAt author { data { id } } }"
    )
    ours, theirs = Ids(), Ids()
    ours.add("articles", "One", 1)
    ours.add("articles", "Two", 2)
    ours.add("authors", "Ann", 5)
    theirs.add("articles", "One", 11)
    theirs.add("articles", "Two", 12)
    theirs.add("authors", "Ann", 15)

    def answer(ids: list[int], author: int, link_id: int, stamp: str) -> str:
        rows = [
            {
                "id": str(i),
                "attributes": {
                    "title": "t",
                    "updatedAt": stamp,
                    "author": {"data": {"id": str(author)}},
                    "x": [{"id": str(link_id), "label": "L"}],
                },
            }
            for i in ids
        ]
        return json.dumps({"data": {"articles": {"data": rows}}})

    a = GraphqlNormalizer(ours).answer(text, {}, GraphqlAnswer(200, answer([1, 2], 5, 3, "x")))
    b = GraphqlNormalizer(theirs).answer(text, {}, GraphqlAnswer(200, answer([12, 11], 15, 9, "y")))
    assert compare_graphql(_doc(text), a, b).same  # root without sort: order is open
    ordered = text.replace("articles {", 'articles(sort: "title") {', 1)
    a = GraphqlNormalizer(ours).answer(ordered, {}, GraphqlAnswer(200, answer([1, 2], 5, 3, "")))
    b = GraphqlNormalizer(theirs).answer(
        ordered, {}, GraphqlAnswer(200, answer([12, 11], 15, 3, ""))
    )
    verdict = compare_graphql(_doc(ordered), a, b)
    assert not verdict.same and verdict.kind == "value articles.data.id"


def test_errors_compare_by_code_path_and_message():
    text = "{ articles { data { id } } }"
    normalizer = GraphqlNormalizer(Ids())

    def error(message: str, code: str) -> GraphqlAnswer:
        body = {"errors": [{"message": message, "locations": [], "extensions": {"code": code}}]}
        return GraphqlAnswer(400, json.dumps(body))

    ours = normalizer.answer(text, {}, error("Cannot query field 'nope' on type 'Article'.", "X"))
    theirs = normalizer.answer(text, {}, error('Cannot query field "nope" on type "Article".', "X"))
    verdict = compare_graphql(_doc(text), ours, theirs)
    assert verdict.kind == 'error message (X): Cannot query field "…" on type "…".'
    assert verdict.known.startswith("#2")
    other = normalizer.answer(text, {}, error('Cannot query field "nope" on type "Article".', "Y"))
    assert compare_graphql(_doc(text), other, theirs).kind.startswith("status 400 Y vs strapi")


def test_differences_made_on_purpose_are_expected_and_others_not():
    text = '{ articles(filters: {editorNotes: {eq: "x"}}) { data { id } } }'
    normalizer = GraphqlNormalizer(Ids())

    def answer(status: int, code: str | None, message: str = "m") -> dict:
        errors = [{"message": message, "extensions": {"code": code}}] if code else []
        body = {"errors": errors} if status == 400 else {"data": {"articles": None}}
        if status != 400 and errors:
            body["errors"] = errors
        return normalizer.answer(text, {}, GraphqlAnswer(status, json.dumps(body)))

    private = Doc({"sel": []}, {"invalid:private"}, raw=text)
    verdict = compare_graphql(
        private, answer(400, "GRAPHQL_VALIDATION_FAILED"), answer(200, "BAD_USER_INPUT")
    )
    assert "private attributes" in verdict.expected
    crash = compare_graphql(
        _doc(text), answer(200, "BAD_USER_INPUT"), answer(200, "INTERNAL_SERVER_ERROR")
    )
    assert "500" in crash.expected
    answered = compare_graphql(_doc(text), answer(200, None), answer(200, "INTERNAL_SERVER_ERROR"))
    assert not answered.same and not answered.expected


def test_a_private_filter_beside_another_validation_error_is_expected():
    # seed 11: `Q($v0: [String]) { articles(filters: {editorNotes: …}) … }` — both servers
    # refuse the unused variable; only ours also refuses the private field
    text = '{ articles(filters: {editorNotes: {eq: "x"}}) { data { id } } }'
    normalizer = GraphqlNormalizer(Ids())
    unused = {"message": 'Variable "$v0" is never used in operation "Q".'}
    field = {"message": 'Field "editorNotes" is not defined by type "ArticleFiltersInput".'}

    def answer(*errors: dict) -> dict:
        body = {
            "errors": [{**e, "extensions": {"code": "GRAPHQL_VALIDATION_FAILED"}} for e in errors]
        }
        return normalizer.answer(text, {}, GraphqlAnswer(400, json.dumps(body)))

    private = Doc({"sel": []}, {"invalid:private"}, raw=text)
    verdict = compare_graphql(private, answer(field, unused), answer(unused))
    assert "private attributes" in verdict.expected
    assert not compare_graphql(_doc(text), answer(field, unused), answer(unused)).expected


def test_a_nested_filter_error_on_rows_strapi_never_read_is_expected():
    # seed 11: a page of one article without sort — Strapi's row had no blocks, ours had a
    # quote whose author's `articles(filters: {slug: {or: …}})` we refuse; Strapi would too
    text = (
        "{ articles(pagination: {pageSize: 1}) { data { attributes { blocks { "
        "... on ComponentBlocksQuote { author { data { attributes { "
        'articles(filters: {slug: {or: ["a"]}}) { data { id } } } } } } } } } } }'
    )
    normalizer = GraphqlNormalizer(Ids())
    error = {"message": "Undefined attribute level operator $or"}

    def answer(blocks: list, *errors: dict) -> dict:
        body: dict = {"data": {"articles": {"data": [{"attributes": {"blocks": blocks}}]}}}
        if errors:
            body["errors"] = [{**e, "extensions": {"code": "BAD_USER_INPUT"}} for e in errors]
        return normalizer.answer(text, {}, GraphqlAnswer(200, json.dumps(body)))

    quote = {"author": {"data": {"attributes": {"articles": None}}}}
    read = {"author": {"data": {"attributes": {"articles": {"data": []}}}}}
    nested = Doc({"sel": []}, {"relation:args"}, raw=text)
    verdict = compare_graphql(nested, answer([quote], error), answer([]))
    assert "nested filters validated up front" in verdict.expected
    # where Strapi did read the field and found nothing wrong, the difference is a defect
    assert not compare_graphql(nested, answer([quote], error), answer([read])).expected
