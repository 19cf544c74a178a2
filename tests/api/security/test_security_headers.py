"""Every response carries Strapi 4.25's ``strapi::security`` (koa-helmet) headers; the GraphiQL
page gets a narrower policy, under which its files (all ours) still load."""

from __future__ import annotations

import re

import pytest

from contentapi.http.security_headers import API_CSP, PLAYGROUND_CSP

STRAPI_HEADERS = {
    "content-security-policy": (
        "connect-src 'self' https:;img-src 'self' data: blob: https://market-assets.strapi.io;"
        "media-src 'self' data: blob:;default-src 'self';base-uri 'self';"
        "font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';"
        "object-src 'none';script-src 'self';script-src-attr 'none';"
        "style-src 'self' https: 'unsafe-inline'"
    ),
    "referrer-policy": "no-referrer",
    "strict-transport-security": "max-age=31536000; includeSubDomains",
    "x-content-type-options": "nosniff",
    "x-dns-prefetch-control": "off",
    "x-download-options": "noopen",
    "x-frame-options": "SAMEORIGIN",
    "x-permitted-cross-domain-policies": "none",
}


def test_the_api_policy_is_strapis_default():
    assert STRAPI_HEADERS["content-security-policy"] == API_CSP


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/articles"),  # 200
        ("GET", "/api/articles/999"),  # 404 error shape
        ("GET", "/api/articles?sort=title:sideways"),  # 400 error shape
        ("PATCH", "/api/articles"),  # 405
        ("GET", "/api/nothing-here"),  # unknown route
        ("POST", "/graphql"),  # GraphQL JSON
        ("GET", "/uploads/none.png"),  # static 404
    ],
)
async def test_every_response_carries_the_security_headers(client, admin, method, path):
    response = await client.request(method, path, headers=admin)
    for name, value in STRAPI_HEADERS.items():
        assert response.headers.get_list(name) == [value], (name, response.status_code)


async def test_a_cors_preflight_carries_them_too(client):
    response = await client.options(
        "/api/articles",
        headers={"origin": "https://example.com", "access-control-request-method": "GET"},
    )
    assert response.status_code == 200
    assert response.headers["x-frame-options"] == "SAMEORIGIN"
    assert response.headers["x-content-type-options"] == "nosniff"


def _sources(policy: str, directive: str) -> list[str]:
    for part in policy.split(";"):
        name, _, values = part.strip().partition(" ")
        if name == directive:
            return values.split()
    raise AssertionError(f"{directive} missing from {policy}")


async def test_graphiql_page_loads_only_from_this_server_under_its_policy(client):
    page = await client.get("/graphql", headers={"accept": "text/html"})
    assert page.status_code == 200 and "graphiql" in page.text.lower()
    assert page.headers.get_list("content-security-policy") == [PLAYGROUND_CSP]
    assert _sources(PLAYGROUND_CSP, "script-src") == ["'self'"]  # no inline script
    urls = re.findall(r'<(?:script|link)[^>]*(?:src|href)="([^"]+)"', page.text)
    assert urls and all(url.startswith("/graphql/assets/") for url in urls)
    assert _sources(PLAYGROUND_CSP, "connect-src") == ["'self'"]  # the queries it sends
    assert page.headers["x-frame-options"] == "SAMEORIGIN"
