"""Fixtures of the parser's unit tests: ``library.py``'s models loaded as the server loads
models, a parser for a caller who may not find vaults, and ``parse`` to run one of its
methods on one parameter of a query string."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from contentapi.query.parse import QueryLimits, QueryParser
from contentapi.query.qs import parse_query
from contentapi.schema import load_registry
from contentapi.schema.registry import Registry

from .library import BOOK, COMPONENTS, CONTENT_TYPES, VAULT


@pytest.fixture(scope="session")
def library(tmp_path_factory: pytest.TempPathFactory) -> Registry:
    folder = tmp_path_factory.mktemp("library")
    for name, document in CONTENT_TYPES.items():
        (folder / f"{name}.json").write_text(json.dumps(document))
    for (category, name), attributes in COMPONENTS.items():
        path = folder / "components" / category / f"{name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        document = {
            "collectionName": f"components_{category}_{name}",
            "info": {"displayName": name},
            "attributes": attributes,
        }
        path.write_text(json.dumps(document))
    return load_registry(Path(folder))


def _no_vault(uid: str) -> bool:
    return uid != VAULT


@pytest.fixture(scope="session")
def parser(library: Registry) -> QueryParser:
    """A parser for a caller who may find books and writers, not vaults."""
    return QueryParser(library, QueryLimits(), _no_vault)


@pytest.fixture(scope="session")
def parse(parser: QueryParser) -> Callable[..., Any]:
    """``parse(method, query, uid=BOOK)``: one ``QueryParser`` method on one parameter of a
    query string, as the REST handlers hand it over."""

    def run(method: str, query: str, uid: str = BOOK) -> Any:
        params = parse_query(query)
        model = parser.registry.model(uid)
        if method == "pagination":
            return parser.pagination(params.get("pagination"))
        return getattr(parser, method)(model, params[method])

    return run
