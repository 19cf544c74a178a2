"""``http/conditional.py`` without a server: the ``Cache-Control`` values rendered from the
configured lifetimes, entity tags, ``If-None-Match`` comparison, and what asks for a fresh
answer."""

from __future__ import annotations

import pytest
from starlette.requests import Request
from starlette.responses import Response
from xxhash import xxh3_128_hexdigest

from contentapi.http.conditional import (
    CacheDirectives,
    CachePolicy,
    cacheable_response,
    entity_tag,
    if_none_match,
    request_wants_fresh,
    revalidated,
)


def _request(method: str = "GET", **headers: str) -> Request:
    raw = [(k.replace("_", "-").lower().encode(), v.encode()) for k, v in headers.items()]
    return Request({"type": "http", "method": method, "headers": raw, "path": "/api/articles"})


@pytest.mark.parametrize(
    ("directives", "public", "private"),
    [
        (CacheDirectives(), b"public, no-cache", b"private, no-cache"),
        (CacheDirectives(max_age=60), b"public, max-age=60", b"private, max-age=60"),
        (CacheDirectives(max_age=0), b"public, max-age=0", b"private, max-age=0"),
        # a CDN's lifetime alone: browsers revalidate, CDNs keep it; never on private answers
        (CacheDirectives(s_maxage=300), b"public, max-age=0, s-maxage=300", b"private, no-cache"),
        (
            CacheDirectives(60, 300, 30),
            b"public, max-age=60, s-maxage=300, stale-while-revalidate=30",
            b"private, max-age=60, stale-while-revalidate=30",
        ),
        # stale-while-revalidate needs a lifetime to be stale after
        (CacheDirectives(stale_while_revalidate=30), b"public, no-cache", b"private, no-cache"),
    ],
)
def test_cache_control_per_audience(directives, public, private):
    assert CachePolicy.of(directives) == CachePolicy(public, private)


def test_a_types_override_replaces_only_the_keys_it_gives():
    configured = CacheDirectives(60, 300, 30)
    assert configured.overridden({}) is configured
    assert configured.overridden({"max_age": 5}) == CacheDirectives(5, 300, 30)
    assert configured.overridden({"s_maxage": None}) == CacheDirectives(60, None, 30)


def test_entity_tag_is_the_quoted_xxh3_128_of_the_bytes():
    body = b'{"data":[]}'
    assert entity_tag(body) == b'"' + xxh3_128_hexdigest(body).encode() + b'"'
    assert entity_tag(body) != entity_tag(body + b" ")


@pytest.mark.parametrize(
    ("condition", "matches"),
    [
        ('"abc"', True),
        ('W/"abc"', True),  # weak comparison (RFC 9110 §13.1.2)
        ('"x", "abc"', True),
        ('"x",W/"abc" ,"y"', True),
        ("*", True),
        ('"abcd"', False),
        ('"ab"', False),
        ("abc", False),  # unquoted: not an entity tag
        ('"x", "y"', False),
        ("", False),
    ],
)
def test_if_none_match_lists_star_and_weak_tags(condition, matches):
    assert if_none_match(condition.encode(), b'"abc"') is matches


@pytest.mark.parametrize(
    ("headers", "fresh"),
    [
        ({}, False),
        ({"cache_control": "no-cache"}, True),
        ({"cache_control": "No-Store"}, True),
        ({"cache_control": "max-age=0"}, True),
        ({"cache_control": "max-age=10"}, False),
        ({"cache_control": "max-stale=5, no-cache"}, True),
        ({"pragma": "no-cache"}, True),
        ({"pragma": "no-cache", "cache_control": "max-age=10"}, False),
    ],
)
def test_request_wants_fresh(headers, fresh):
    assert request_wants_fresh(_request(**headers)) is fresh


POLICY = CachePolicy.of(CacheDirectives())


def test_a_read_gets_its_validators_and_body():
    body = b'{"data":{"id":1}}'
    response = cacheable_response(_request(), body, POLICY)
    assert response.status_code == 200 and response.body == body
    assert dict(response.headers) == {
        "etag": entity_tag(body).decode(),
        "cache-control": "public, no-cache",
        "vary": "Authorization",
        "content-length": str(len(body)),
        "content-type": "application/json; charset=utf-8",
    }


def test_a_matching_if_none_match_is_304_without_body_keeping_the_validators():
    body = b'{"data":{"id":1}}'
    tag = entity_tag(body).decode()
    response = cacheable_response(
        _request(if_none_match=tag, authorization="Bearer x"), body, POLICY
    )
    assert response.status_code == 304 and response.body == b""
    assert dict(response.headers) == {
        "etag": tag,
        "cache-control": "private, no-cache",
        "vary": "Authorization",
    }


def test_if_none_match_over_several_header_lines_is_one_list():
    body = b"{}"
    request = Request(
        {
            "type": "http",
            "method": "GET",
            "path": "/api/articles",
            "headers": [(b"if-none-match", b'"x"'), (b"if-none-match", entity_tag(body))],
        }
    )
    assert cacheable_response(request, body, POLICY).status_code == 304


def test_head_has_the_length_of_the_body_it_leaves_out():
    body = b'{"data":[]}'
    response = cacheable_response(_request("HEAD"), body, POLICY)
    assert response.status_code == 200 and response.body == b""
    assert response.headers["content-length"] == str(len(body))


def test_an_extensions_read_is_validated_keeping_its_headers():
    answer = Response(b'{"a":1}', media_type="application/json", headers={"X-Served-By": "ext"})
    validated = revalidated(_request(), answer, POLICY)
    assert validated.headers["etag"] == entity_tag(b'{"a":1}').decode()
    assert validated.headers["cache-control"] == "public, no-cache"
    assert validated.headers["x-served-by"] == "ext"
    again = revalidated(
        _request(if_none_match=validated.headers["etag"]),
        Response(b'{"a":1}', media_type="application/json"),
        POLICY,
    )
    assert again.status_code == 304 and again.body == b""


@pytest.mark.parametrize(
    "headers", [{"Cache-Control": "max-age=5"}, {"ETag": '"mine"'}], ids=["control", "etag"]
)
def test_an_extensions_own_validators_are_left_as_they_are(headers):
    answer = Response(b"{}", headers=headers)
    assert revalidated(_request(if_none_match="*"), answer, POLICY) is answer
    assert answer.headers.getlist("etag") == ([] if "ETag" not in headers else ['"mine"'])
    assert answer.headers.getlist("cache-control") == (
        ["max-age=5"] if "Cache-Control" in headers else []
    )
