"""Fuzzed transport: any method on any route, any ``Authorization`` and ``Content-Type``
header, any body; GraphQL over ``GET`` with random parameters, batches, and bodies that are
not what they claim to be.

Invariants: never a 5xx; every REST error in the contract's shape; GraphQL answers Apollo-shaped
(or, for a bad credential, the REST error body); a refused write changes nothing.
"""

from __future__ import annotations

import json
from urllib.parse import quote

from hypothesis import given
from hypothesis import strategies as st

from tests.api.security.conftest import snapshot
from tests.api.security.fuzz import (
    ANY_JSON,
    QUERY_VALUES,
    count_response,
    finite,
    fuzz,
    is_graphql_error_body,
    is_rest_error,
)

PATHS = [
    "/api/articles",
    "/api/articles/1",
    "/api/articles/1/localizations",
    "/api/authors/2",
    "/api/global",
    "/api/auth/local",
    "/api/auth/local/register",
    "/api/auth/change-password",
    "/api/users",
    "/api/users/me",
    "/api/users/count",
    "/api/users/1",
    "/api/users-permissions/roles",
    "/api/users-permissions/roles/1",
    "/api/users-permissions/permissions",
    "/api/upload",
    "/api/upload/files",
    "/api/upload/files/1",
    "/api/i18n/locales",
    "/api/nothing-here",
    "/api",
    "/api/articles/1/2/3",
]
AUTHORIZATIONS = st.one_of(
    st.sampled_from(
        [
            None,
            "Bearer test-admin-token",
            "Bearer test-admin-token",
            "Bearer ",
            "Bearer",
            "bearer test-admin-token",
            "Basic dXNlcjpwYXNz",
            "Bearer a.b.c",
            "Bearer " + "x" * 5000,
            "Bearer test-admin-token extra",
            "Token test-admin-token",
        ]
    ),
    st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=40),
)
CONTENT_TYPES = st.sampled_from(
    [
        "application/json",
        "application/json; charset=utf-16",
        "text/plain",
        "multipart/form-data",
        "multipart/form-data; boundary=x",
        "application/x-www-form-urlencoded",
        "application/graphql",
        "",
    ]
)
BODIES = st.one_of(
    ANY_JSON.map(lambda value: json.dumps(finite(value)).encode()),
    st.binary(max_size=64),
    st.sampled_from([b"", b'{"data": {"title": "Hello there"}}', b"--x\r\n\r\n--x--", b"{" * 300]),
)


@fuzz(50)
@given(
    method=st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"]),
    path=st.sampled_from(PATHS),
    authorization=AUTHORIZATIONS,
    content_type=CONTENT_TYPES,
    body=BODIES,
)
async def test_any_method_header_and_body_on_any_route(
    blog, backend, method, path, authorization, content_type, body
):
    headers = {"content-type": content_type}
    if authorization is not None:
        headers["authorization"] = authorization
    before = await snapshot(blog)
    response = await blog.client.request(method, path, content=body, headers=headers)
    if method in ("HEAD", "OPTIONS"):  # no body to check (HEAD), or CORS's preflight answer
        count_response(backend, response)
        assert response.status_code < 500, response.text
        return
    if is_rest_error(response, backend) is not None:
        assert await snapshot(blog) == before, (response.status_code, response.text)


_DOCUMENTS = st.one_of(
    st.sampled_from(
        [
            "{ articles { data { id attributes { title } } } }",
            "query Q($id: ID) { article(id: $id) { data { id } } }",
            'mutation { createArticle(data: {title: "Over GET"}) { data { id } } }',
            "{ __schema { types { name } } }",
            "subscription { articles { data { id } } }",
            "{ a: articles { data { id } } b: articles { data { id } } }",
            "query A { articles { data { id } } } query B { authors { data { id } } }",
        ]
    ),
    st.text(max_size=40),
)


@fuzz(50)
@given(
    transport=st.sampled_from(["get", "batch", "raw"]),
    documents=st.lists(_DOCUMENTS, min_size=1, max_size=4),
    variables=st.one_of(st.none(), ANY_JSON.map(finite), QUERY_VALUES),
    operation=st.one_of(st.none(), st.sampled_from(["A", "B", "Q", ""]), ANY_JSON.map(finite)),
    content_type=CONTENT_TYPES,
)
async def test_graphql_transport_answers_apollo_shaped(
    blog, backend, transport, documents, variables, operation, content_type
):
    client = blog.client
    headers = {"Authorization": "Bearer test-admin-token"}
    before = await snapshot(blog)
    if transport == "get":
        params = [("query", documents[0])]
        if variables is not None:
            params.append(
                ("variables", variables if isinstance(variables, str) else json.dumps(variables))
            )
        if isinstance(operation, str):
            params.append(("operationName", operation))
        query = "&".join(f"{key}={quote(value, safe='')}" for key, value in params)
        response = await client.get(f"/graphql?{query}", headers=headers)
    else:
        payloads = [
            {"query": document, "variables": variables, "operationName": operation}
            for document in documents
        ]
        body = payloads if transport == "batch" else payloads[0]
        response = await client.post(
            "/graphql",
            content=json.dumps(body).encode(),
            headers={**headers, "content-type": content_type},
        )
    if response.status_code >= 400 and not response.headers.get("content-type", "").startswith(
        "application/json"
    ):
        raise AssertionError((response.status_code, response.text))
    is_graphql_error_body(response, backend)
    if transport == "get":  # a GET never writes
        assert await snapshot(blog) == before
