"""The differential tester's own pure parts: its queries encode as `qs` does (our port of `qs`
parses every one back to the same object), and normalization maps ids to natural keys."""

from __future__ import annotations

from pathlib import Path

from diff.compare import Answer, Normalizer, compare
from diff.compare_plugins import COUNT_WHERE, MISSING_USER, NON_NUMERIC_ID
from diff.dataset import build_dataset
from diff.generate import Generator, Query, encode
from diff.seed import Ids

from contentapi.query.qs import parse_query
from contentapi.schema import load_registry

MODELS = Path(__file__).resolve().parents[3] / "content-types"


def _stringify(value):
    """qs parses every scalar as a string (and `null` as None with strictNullHandling)."""
    if isinstance(value, dict):
        return {k: _stringify(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_stringify(v) for v in value]
    if value is None:
        return None
    return str(value).lower() if isinstance(value, bool) else str(value)


def test_every_generated_query_round_trips_through_qs():
    registry = load_registry(MODELS)
    generator = Generator(registry, build_dataset(), seed=3)
    for _ in range(500):
        query = generator.query()
        assert parse_query(encode(query.params)) == _stringify(query.params), query.text()


def test_generation_is_deterministic():
    registry = load_registry(MODELS)
    first, again = Generator(registry, build_dataset(), 5), Generator(registry, build_dataset(), 5)
    assert [first.query().text() for _ in range(50)] == [again.query().text() for _ in range(50)]


def test_ids_become_natural_keys_and_number_text_counts():
    registry = load_registry(MODELS)
    ours, theirs = Ids(), Ids()
    ours.add("articles", "Hello", 1)
    theirs.add("articles", "Hello", 7)
    query = Query("/api/articles", {}, "articles")
    same = compare(
        query,
        Answer(200, '{"data":[{"id":1,"attributes":{"rating":3,"createdAt":"x"}}],"meta":{}}'),
        Answer(200, '{"data":[{"id":7,"attributes":{"rating":3,"createdAt":"y"}}],"meta":{}}'),
        Normalizer(registry, ours),
        Normalizer(registry, theirs),
    )
    assert same.same
    differs = compare(
        query,
        Answer(200, '{"data":[{"id":1,"attributes":{"rating":3.0}}],"meta":{}}'),
        Answer(200, '{"data":[{"id":7,"attributes":{"rating":3}}],"meta":{}}'),
        Normalizer(registry, ours),
        Normalizer(registry, theirs),
    )
    assert not differs.same and differs.kind == "value data.attributes.rating"


def test_a_wildcard_in_a_like_filter_is_an_expected_difference():
    registry = load_registry(MODELS)
    ours, theirs = Ids(), Ids()
    for number, title in enumerate(("a", "b"), start=1):
        ours.add("articles", title, number)
        theirs.add("articles", title, number)
    literal = Query("/api/articles", {"filters": {"author": {"name": {"$eqi": "%"}}}}, "articles")
    plain = Query("/api/articles", {"filters": {"author": {"name": {"$eqi": "x"}}}}, "articles")
    none = Answer(200, '{"data":[],"meta":{}}')
    both = Answer(200, '{"data":[{"id":1,"attributes":{}},{"id":2,"attributes":{}}],"meta":{}}')
    normalizers = Normalizer(registry, ours), Normalizer(registry, theirs)
    verdict = compare(literal, none, both, *normalizers)
    assert verdict.expected == "on purpose: `%` and `_` match literally"
    assert compare(plain, none, both, *normalizers).expected == ""


def test_plugin_routes_are_generated_and_their_plain_answers_normalized():
    """The users and upload routes answer plain objects: ids map by username / file name,
    what each server makes up for a file (hash, url, size) becomes a marker."""
    registry = load_registry(MODELS)
    generator = Generator(registry, build_dataset(), seed=3)
    routes = {t for _ in range(800) for t in generator.query().tags if t.startswith("route:")}
    assert routes == {
        f"route:{r}" for r in ("users", "user", "me", "count", "roles", "files", "file")
    }
    ours, theirs = Ids(), Ids()
    ours.add("users", "ada", 1)
    theirs.add("users", "ada", 4)
    ours.add("files", "red.png", 2)
    theirs.add("files", "red.png", 9)
    normalizers = Normalizer(registry, ours), Normalizer(registry, theirs)
    users = Query("/api/users", {}, "users")
    same = compare(
        users,
        Answer(200, '[{"id":1,"username":"ada","createdAt":"x"}]'),
        Answer(200, '[{"id":4,"username":"ada","createdAt":"y"}]'),
        *normalizers,
    )
    assert same.same
    files = Query("/api/upload/files", {}, "files")
    ours_file = '[{"id":2,"name":"red.png","size":0.1,"hash":"red_1","url":"/uploads/red_1.png"}]'
    theirs_file = (
        '[{"id":9,"name":"red.png","size":0.11,"hash":"red_2","url":"/uploads/red_2.png"}]'
    )
    assert compare(files, Answer(200, ours_file), Answer(200, theirs_file), *normalizers).same
    other = compare(users, Answer(200, '[{"id":1}]'), Answer(200, "[]"), *normalizers)
    assert not other.same and other.kind == "entries"


def test_plugin_route_differences_name_their_rows():
    registry = load_registry(MODELS)
    normalizers = Normalizer(registry, Ids()), Normalizer(registry, Ids())
    crash = Answer(500, '{"data":null,"error":{"name":"InternalServerError","message":"x"}}')
    missing = Answer(404, '{"data":null,"error":{"name":"NotFoundError","message":"Not Found"}}')
    bad_id = Query("/api/users/abc", {}, "users", {"invalid:id"})
    assert compare(bad_id, missing, crash, *normalizers).expected == NON_NUMERIC_ID
    no_user = Query("/api/users/9999", {}, "users", {"missing:id"})
    assert compare(no_user, missing, Answer(204, ""), *normalizers).expected == MISSING_USER
    raw_where = Query("/api/users/count", {"username": "bob"}, "users")
    assert compare(raw_where, Answer(200, "3"), Answer(200, "1"), *normalizers).expected == (
        COUNT_WHERE
    )
    filtered = Query("/api/users/count", {"filters": {"id": {"$gt": 1}}}, "users")
    assert compare(filtered, Answer(200, "2"), crash, *normalizers).expected == COUNT_WHERE
    plain_count = Query("/api/users/count", {}, "users")
    assert not compare(plain_count, Answer(200, "3"), Answer(200, "1"), *normalizers).expected
