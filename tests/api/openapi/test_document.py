"""``GET /documentation/openapi.json``: a valid OpenAPI 3.1 document of every route the server
generates, with the models' rules in its request schemas and Strapi's envelopes in its answers;
FastAPI's own generated documentation stays off; ``/documentation`` follows the setting."""

from __future__ import annotations

import re

import pytest
from openapi_spec_validator import validate
from starlette.routing import Mount, Route

from contentapi.rest.router import ContentRoutes

#: Routes that are not part of the REST API the document describes.
UNDOCUMENTED = re.compile(r"^/(documentation|graphql|uploads)")


@pytest.fixture
async def document(client) -> dict:
    response = await client.get("/documentation/openapi.json")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    return response.json()


def _schema(document: dict, name: str) -> dict:
    return document["components"]["schemas"][name]


async def test_the_document_is_valid_openapi_3_1(document):
    assert document["openapi"] == "3.1.0"
    validate(document)  # raises on any violation of the OpenAPI 3.1 schema


def _routes(routes: list) -> list[tuple[str, set[str]]]:
    """Every route's path and methods, also inside included routers (FastAPI keeps those as
    their own nodes) and the content types' core routes (one route, ``ContentRoutes``)."""
    found: list[tuple[str, set[str]]] = []
    for route in routes:
        included = getattr(route, "original_router", None)
        if included is not None:
            found += _routes(included.routes)
        elif isinstance(route, ContentRoutes):
            found += [(served.path, set(served.methods)) for served in route.served()]
        elif isinstance(route, Route) and not isinstance(route, Mount):
            found.append((route.path, set(route.methods or ())))
    return found


async def test_every_served_route_and_method_is_in_the_document(app, document):
    served: dict[str, set[str]] = {}
    for route_path, methods in _routes(app.app.routes):
        if UNDOCUMENTED.match(route_path):
            continue
        path = re.sub(r"\{[a-z_]+\}", "{id}", route_path)
        served.setdefault(path, set()).update(m.lower() for m in methods)
    documented = {
        path: {method for method in item if method != "parameters"}
        for path, item in document["paths"].items()
    }
    served = {path: methods - {"head"} for path, methods in served.items()}
    assert served == documented
    for path in ("/api/articles", "/api/articles/{id}", "/api/articles/{id}/localizations"):
        assert path in documented
    assert documented["/api/global"] == {"get", "put", "delete"}
    assert "/api/authors/{id}/localizations" not in documented  # i18n is off for authors


async def test_request_bodies_carry_the_models_rules(document):
    create = _schema(document, "ArticleCreateRequest")["properties"]["data"]
    attributes = create["properties"]
    assert create["required"] == ["title"]
    assert attributes["title"] == {"type": "string", "minLength": 3, "maxLength": 120}
    assert attributes["kind"]["enum"] == ["news", "opinion", "tutorial", None]
    assert attributes["kind"]["default"] == "news"
    assert (attributes["readingTime"]["minimum"], attributes["readingTime"]["maximum"]) == (1, 600)
    assert attributes["summary"]["maxLength"] == 280
    assert attributes["slug"]["pattern"] == "^[A-Za-z0-9-_.~]*$"
    assert attributes["contactEmail"]["format"] == "email"
    assert attributes["author"] == {"$ref": "#/components/schemas/RelationInput"}
    assert attributes["links"]["type"] == ["array", "null"]
    assert attributes["links"]["maxItems"] == 10
    zone = attributes["blocks"]["items"]["oneOf"]
    assert {item["$ref"].rsplit("/", 1)[1] for item in zone} == {
        "ComponentBlocksRichTextZoneInput",
        "ComponentBlocksQuoteZoneInput",
        "ComponentBlocksMediaZoneInput",
    }
    assert attributes["locale"]["enum"] == ["en", "fr"]
    assert attributes["publishedAt"]["type"] == ["string", "null"]
    assert "editorNotes" in attributes  # private: writable, never answered
    update = _schema(document, "ArticleRequest")["properties"]["data"]
    assert "required" not in update and "locale" not in update["properties"]
    author = _schema(document, "AuthorCreateRequest")["properties"]["data"]
    assert author["properties"]["handle"]["pattern"] == "^[a-z0-9_]+$"
    assert author["properties"]["password"]["minLength"] == 8
    seo = _schema(document, "ComponentSharedSeoInput")
    assert seo["required"] == ["metaTitle"]
    assert seo["properties"]["metaTitle"]["maxLength"] == 60
    relation = _schema(document, "RelationInput")
    connect = relation["anyOf"][-1]["properties"]["connect"]["items"]["anyOf"][1]
    assert connect["properties"]["position"] == {"$ref": "#/components/schemas/RelationPosition"}


async def test_answers_are_strapis_envelopes_with_populated_shapes(document):
    listing = _schema(document, "ArticleListResponse")
    assert listing["properties"]["data"]["items"] == {"$ref": "#/components/schemas/ArticleEntry"}
    assert listing["properties"]["meta"]["properties"]["pagination"] == {
        "$ref": "#/components/schemas/Pagination"
    }
    assert _schema(document, "ArticleEntry")["required"] == ["id", "attributes"]
    attributes = _schema(document, "ArticleAttributes")["properties"]
    assert attributes["author"]["properties"]["data"]["anyOf"] == [
        {"$ref": "#/components/schemas/AuthorEntry"},
        {"type": "null"},
    ]
    many = attributes["categories"]["properties"]["data"]["anyOf"][0]
    assert many == {"type": "array", "items": {"$ref": "#/components/schemas/CategoryEntry"}}
    assert attributes["cover"]["properties"]["data"]["anyOf"][0] == {
        "$ref": "#/components/schemas/UploadFileEntry"
    }
    assert attributes["views"]["type"] == ["string", "null"]  # biginteger as a string
    assert "editorNotes" not in attributes  # private
    assert "password" not in _schema(document, "AuthorAttributes")["properties"]
    assert "email" not in _schema(document, "AuthorAttributes")["properties"]  # private
    user = _schema(document, "UsersPermissionsUser")["properties"]
    assert "password" not in user and "resetPasswordToken" not in user
    error = _schema(document, "Error")
    assert error["required"] == ["data", "error"]
    operation = document["paths"]["/api/articles/{id}"]["get"]
    assert set(operation["responses"]) == {"200", "400", "401", "403", "404", "503"}
    not_found = document["components"]["responses"]["NotFound"]
    assert not_found["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Error"
    }


async def test_query_parameters_describe_the_bracket_syntax(document):
    parameters = {p["name"]: p for p in document["paths"]["/api/articles"]["get"]["parameters"]}
    assert set(parameters) == {
        "filters",
        "sort",
        "pagination",
        "fields",
        "populate",
        "locale",
        "publicationState",
    }
    for name in ("filters", "pagination", "populate"):
        assert parameters[name]["style"] == "deepObject", name
        assert "example" in parameters[name]
    assert "$containsi" in parameters["filters"]["description"]
    assert parameters["publicationState"]["schema"]["enum"] == ["live", "preview"]
    assert "title" in parameters["fields"]["schema"]["items"]["enum"]
    assert "editorNotes" not in parameters["fields"]["schema"]["items"]["enum"]
    assert set(parameters["populate"]["schema"]["properties"]) >= {"author", "blocks", "seo"}
    single = {p["name"] for p in document["paths"]["/api/global"]["get"]["parameters"]}
    assert single == {"fields", "populate"}  # no draft & publish, no i18n


async def test_plugins_routes_and_security_schemes_are_described(document):
    paths = document["paths"]
    for path in (
        "/api/auth/local",
        "/api/auth/local/register",
        "/api/users/me",
        "/api/users-permissions/roles/{id}",
        "/api/upload",
        "/api/upload/files/{id}",
        "/api/i18n/locales",
        "/_health",
        "/_ready",
    ):
        assert path in paths, path
    login = paths["/api/auth/local"]["post"]
    assert "429" in login["responses"]
    assert login["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/LoginRequest"
    }
    assert "multipart/form-data" in paths["/api/upload"]["post"]["requestBody"]["content"]
    schemes = document["components"]["securitySchemes"]
    assert schemes["bearerAuth"] == {**schemes["bearerAuth"], "scheme": "bearer"}
    assert schemes["bearerAuth"]["bearerFormat"] == "JWT"
    assert schemes["apiToken"]["scheme"] == "bearer"
    assert document["security"] == [{}, {"bearerAuth": []}, {"apiToken": []}]


@pytest.mark.parametrize("path", ["/docs", "/redoc", "/openapi.json", "/docs/oauth2-redirect"])
async def test_fastapis_generated_documentation_is_not_served(client, path):
    response = await client.get(path)
    assert response.status_code == 404
    assert response.json()["error"]["name"] == "NotFoundError"


async def test_documentation_is_off_in_production_unless_enabled(start_app):
    production = await start_app(env="production")
    for path in ("/documentation", "/documentation/openapi.json"):
        assert (await production.client.get(path)).status_code == 404
    enabled = await start_app(env="production", documentation=True)
    assert (await enabled.client.get("/documentation/openapi.json")).status_code == 200
    disabled = await start_app(documentation=False)  # development, switched off
    assert (await disabled.client.get("/documentation/openapi.json")).status_code == 404
