"""Content for the data-transfer check: seed it through a server's REST API, read it back.

The same few entries on Strapi or contentapi (an uploaded file, relations of every kind,
components nested two deep, a dynamic zone, an entry in a second locale, a single type), so an
archive made by one server can be imported by the other and read back the same.

    python bench/reference/transfer_content.py seed URL TOKEN
    python bench/reference/transfer_content.py read URL TOKEN > snapshot.json
    python bench/reference/transfer_content.py same A.json B.json [--no-component-ids]
    (--no-component-ids: component and locale ids left out, which Strapi's import renumbers)
"""

from __future__ import annotations

import json
import sys
from typing import Any

import httpx

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cfc0f01f0005000201e2216bc20000000049454e44ae426082"
)

#: what the snapshot leaves out: values each server makes its own (ids of files stay: kept)
_VOLATILE = {"createdAt", "updatedAt", "publishedAt", "url", "hash", "provider_metadata"}


def seed(base: str, token: str) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=base, headers=headers, timeout=30) as http:

        def post(path: str, data: dict[str, Any]) -> dict[str, Any]:
            response = http.post(path, json={"data": data})
            response.raise_for_status()
            return response.json()["data"]

        upload = http.post("/api/upload", files={"files": ("dot.png", PNG, "image/png")})
        upload.raise_for_status()
        file_id = upload.json()[0]["id"]
        profile = post("/api/profiles", {"headline": "Writer", "website": "https://ex.org"})
        author = post(
            "/api/authors",
            {
                "name": "Ada",
                "email": "ada@example.org",
                "handle": "ada",
                "age": 36,
                "avatar": file_id,
                "profile": profile["id"],
                "socials": [{"label": "Site", "url": "https://ada.example.org"}],
            },
        )
        parent = post("/api/categories", {"name": "Science", "slug": "science"})
        child = post("/api/categories", {"name": "Maths", "slug": "maths", "parent": parent["id"]})
        first = post(
            "/api/articles",
            {"title": "First one", "slug": "first-one", "kind": "news", "publishedAt": None},
        )
        article = post(
            "/api/articles",
            {
                "title": "Hello world",
                "slug": "hello-world",
                "summary": "A summary",
                "body": "# Title\n\nText",
                "kind": "tutorial",
                "readingTime": 5,
                "views": "12345678901",
                "rating": 4.5,
                "price": 9.99,
                "featured": True,
                "eventDate": "2024-05-01",
                "eventTime": "10:30:00.000",
                "scheduledAt": "2024-05-01T10:30:00.000Z",
                "metadata": {"tags": ["a", "b"], "n": 1},
                "contactEmail": "news@example.org",
                "cover": file_id,
                "gallery": [file_id],
                "author": author["id"],
                "categories": [child["id"], parent["id"]],
                "related": [first["id"]],
                "seo": {
                    "metaTitle": "Hello",
                    "shareImage": file_id,
                    "keywords": [{"label": "k1", "url": "/k1"}, {"label": "k2", "url": "/k2"}],
                },
                "links": [{"label": "Home", "url": "/", "newTab": False}],
                "blocks": [
                    {"__component": "blocks.rich-text", "body": "Intro"},
                    {
                        "__component": "blocks.quote",
                        "title": "Q",
                        "body": "B",
                        "author": author["id"],
                    },
                    {"__component": "blocks.media", "file": file_id},
                ],
            },
        )
        post("/api/categories", {"name": "Top", "slug": "top", "featured": article["id"]})
        response = http.post(
            f"/api/articles/{article['id']}/localizations",
            json={
                "locale": "fr",
                "title": "Bonjour monde",
                "slug": "bonjour-monde",
                "seo": {"metaTitle": "Bonjour"},
            },
        )
        response.raise_for_status()
        response = http.put(
            "/api/global",
            json={"data": {"siteName": "Site", "defaultSeo": {"metaTitle": "Site"}}},
        )
        response.raise_for_status()


def _clean(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in sorted(value.items()) if k not in _VOLATILE}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


_DEEP = {
    "populate[cover]": "*",
    "populate[gallery]": "*",
    "populate[author][populate][profile]": "*",
    "populate[categories][populate][parent]": "*",
    "populate[related]": "*",
    "populate[seo][populate]": "*",
    "populate[links]": "*",
    "populate[blocks][populate]": "*",
    "populate[localizations]": "*",
}
#: the reads of a snapshot: every entry of the seeded types, deeply populated, every locale
READS: tuple[tuple[str, dict[str, str]], ...] = (
    ("/api/articles", {**_DEEP, "locale": "all", "publicationState": "preview", "sort": "id"}),
    ("/api/authors", {"populate": "*", "sort": "id"}),
    ("/api/categories", {"populate": "*", "sort": "id"}),
    ("/api/profiles", {"populate": "*", "sort": "id"}),
    ("/api/global", {"populate[defaultSeo][populate]": "*", "populate[favicon]": "*"}),
    ("/api/upload/files", {}),
    ("/api/i18n/locales", {}),
)


def clean(body: Any) -> Any:
    """A response without the values each server makes its own (timestamps, file urls)."""
    return _clean(body)


def without_component_ids(value: Any) -> Any:
    """Strapi's import gives components new ids (it creates them; entries keep theirs):
    compare a snapshot of what it imported without them. A component is an object with an
    ``id`` and neither ``attributes`` nor ``data``."""
    if isinstance(value, dict):
        inline = "id" in value and "attributes" not in value and "data" not in value
        return {
            k: without_component_ids(v)
            for k, v in value.items()
            if not (inline and k == "id" and "name" not in value)
        }
    if isinstance(value, list):
        return [without_component_ids(v) for v in value]
    return value


def without_renumbered_ids(snapshot: dict[str, Any]) -> dict[str, Any]:
    """A snapshot without what Strapi's import numbers anew: component and locale ids."""
    locales = [{k: v for k, v in loc.items() if k != "id"} for loc in snapshot["/api/i18n/locales"]]
    return {**without_component_ids(snapshot), "/api/i18n/locales": locales}


def read(base: str, token: str) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"}
    snapshot: dict[str, Any] = {}
    with httpx.Client(base_url=base, headers=headers, timeout=30) as http:
        for path, params in READS:
            response = http.get(path, params=params)
            response.raise_for_status()
            snapshot[path] = clean(response.json())
    return snapshot


if __name__ == "__main__":
    command, first, second = sys.argv[1:4]
    if command == "seed":
        seed(first, second)
    elif command == "read":
        json.dump(read(first, second), sys.stdout, indent=1, sort_keys=True)
    else:
        with open(first) as a, open(second) as b:
            left, right = json.load(a), json.load(b)
        if "--no-component-ids" in sys.argv:
            left, right = without_renumbered_ids(left), without_renumbered_ids(right)
        if left != right:
            print(f"DIFFERENT: {first} {second}")
            sys.exit(1)
        print(f"same: {first} {second}")
