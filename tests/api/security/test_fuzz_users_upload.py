"""Fuzzed bodies for the users-permissions routes (register, login, forgot and reset password,
change password, the admin's user create and update) and the upload routes (multipart files,
``fileInfo``, ``ref``/``refId``/``field``; file reads and deletes).

Invariants: never a 5xx; every error in the contract's shape; after a 4xx the database and the
uploads folder are exactly as before (``snapshot``; the rate-limit counters are not in it).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from hypothesis import given
from hypothesis import strategies as st

from tests.api.security.conftest import snapshot
from tests.api.security.fuzz import ANY_JSON, FIELD_VALUES, finite, fuzz, is_rest_error

ADMIN = {"Authorization": "Bearer test-admin-token"}

_USER_KEYS = [
    "username",
    "email",
    "password",
    "identifier",
    "code",
    "passwordConfirmation",
    "currentPassword",
    "role",
    "confirmed",
    "blocked",
    "provider",
    "resetPasswordToken",
    "confirmationToken",
    "id",
    "junk",
]
_USER_VALUES = st.one_of(
    FIELD_VALUES["email"],
    FIELD_VALUES["string"],
    st.sampled_from(["alice", "alice@example.com", "Secret123", "\x00", "a" * 300, 1, None]),
    ANY_JSON,
)
USER_BODIES = st.dictionaries(st.sampled_from(_USER_KEYS), _USER_VALUES.map(finite), max_size=6)

USER_ROUTES = [
    ("POST", "/api/auth/local/register", None),
    ("POST", "/api/auth/local", None),
    ("POST", "/api/auth/forgot-password", None),
    ("POST", "/api/auth/reset-password", None),
    ("POST", "/api/auth/send-email-confirmation", None),
    ("POST", "/api/auth/change-password", "user"),
    ("POST", "/api/users", "admin"),
    ("PUT", "/api/users/{id}", "admin"),
    ("PUT", "/api/users/{id}", "user"),
    ("GET", "/api/users/{id}", "admin"),
    ("DELETE", "/api/users/{id}", "user"),
]


@fuzz(40)
@given(
    route=st.sampled_from(USER_ROUTES),
    body=st.one_of(USER_BODIES, USER_BODIES, ANY_JSON.map(finite)),
    target=st.sampled_from(["1", "2", "0", "x", "2147483648"]),
)
async def test_fuzzed_user_routes_answer_in_the_contract_shape(
    app, backend, route, body, target, alice
):
    method, path, caller = route
    headers = {"admin": ADMIN, "user": alice, None: {}}[caller]
    before = await snapshot(app)
    response = await app.client.request(
        method,
        path.replace("{id}", target),
        content=json.dumps(body, ensure_ascii=False).encode(),
        headers={**headers, "content-type": "application/json"},
    )
    if is_rest_error(response, backend) is not None:
        assert await snapshot(app) == before, (response.status_code, response.text)


_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478"
    "9c6360000002000154a24f5d0000000049454e44ae426082"
)
FILES = st.one_of(
    st.binary(max_size=64),
    st.sampled_from(
        [
            _PNG,
            _PNG[:20],
            b"<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>",
            b"plain text",
            b"",
            b"\x00" * 10,
        ]
    ),
)
FILE_NAMES = st.one_of(
    st.sampled_from(["a.png", "../../etc/passwd", "x.svg", "", ".htaccess", "a\x00b.png"]),
    st.text(max_size=20),
)


@st.composite
def upload_form(draw: st.DrawFn) -> tuple[dict[str, str], list[tuple[str, Any]]]:
    fields: dict[str, str] = {}
    if draw(st.booleans()):
        info = draw(
            st.one_of(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "name": _USER_VALUES,
                        "alternativeText": _USER_VALUES,
                        "caption": _USER_VALUES,
                        "folder": _USER_VALUES,
                    },
                ),
                ANY_JSON,
            )
        )
        raw = json.dumps(finite(info)) if draw(st.booleans()) else draw(st.text(max_size=20))
        fields["fileInfo"] = raw
    if draw(st.booleans()):
        fields["ref"] = draw(
            st.sampled_from(["api::article.article", "api::author.author", "bogus", ""])
        )
        fields["refId"] = draw(st.sampled_from(["1", "2", "0", "x", "2147483648", ""]))
        fields["field"] = draw(st.sampled_from(["cover", "gallery", "avatar", "title", "x", ""]))
    files = [
        (
            draw(st.sampled_from(["files", "files", "file", "other"])),
            (
                draw(FILE_NAMES).replace("\x00", "") or "unnamed",
                draw(FILES),
                draw(st.sampled_from(["image/png", "text/html", "image/svg+xml", "x/y", ""])),
            ),
        )
        for _ in range(draw(st.integers(0, 3)))
    ]
    return {k: v.replace("\x00", "") for k, v in fields.items()}, files


@fuzz(15)
@given(form=upload_form())
async def test_fuzzed_uploads_answer_in_the_contract_shape(blog, backend, form):
    fields, files = form
    before = await snapshot(blog)
    response = await blog.client.post(
        "/api/upload", data=fields, files=files or None, headers=ADMIN
    )
    if is_rest_error(response, backend) is not None:
        assert await snapshot(blog) == before, (response.status_code, response.text)


@fuzz(15)
@given(
    method=st.sampled_from(["GET", "DELETE", "GET"]),
    target=st.one_of(
        st.sampled_from(["", "1", "0", "-1", "2147483648", "1.5"]),
        st.text(max_size=6).map(lambda text: quote(text, safe="")),
    ),
    query=st.sampled_from(
        [
            "",
            "filters[name][$contains]=a",
            "filters[hash][$eq]=x",
            "sort=size:desc",
            "pagination[page]=x",
            "filters[related][id][$eq]=1",
            "populate=*",
            "filters[$or][0][bogus]=1",
        ]
    ),
)
async def test_fuzzed_file_routes_answer_in_the_contract_shape(
    blog, backend, method, target, query
):
    path = "/api/upload/files" + (f"/{target}" if target else "")
    before = await snapshot(blog)
    response = await blog.client.request(method, f"{path}?{query}", headers=ADMIN)
    if is_rest_error(response, backend) is not None:
        assert await snapshot(blog) == before, (response.status_code, response.text)
