"""``QueryParser.populate`` alone: which keys it ignores, and that an ignored key is never
looked into, so a private or unreadable attribute cannot be told from a missing one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from contentapi.errors import PaginationError, ValidationError
from contentapi.query.ast import (
    ComponentPopulate,
    DynamicZonePopulate,
    MediaPopulate,
    RelationPopulate,
)
from contentapi.query.parse import QueryLimits, QueryParser
from contentapi.query.qs import parse_query
from contentapi.schema import load_registry
from contentapi.schema.registry import Registry

MODELS = Path(__file__).resolve().parents[3] / "content-types"

#: a model whose populatable attributes are private, beside public ones
VAULT = {
    "kind": "collectionType",
    "collectionName": "vaults",
    "info": {"singularName": "vault", "pluralName": "vaults", "displayName": "Vault"},
    "options": {"draftAndPublish": False},
    "attributes": {
        "name": {"type": "string"},
        "owner": {
            "type": "relation",
            "relation": "manyToOne",
            "target": "api::author.author",
            "private": True,
        },
        "scan": {"type": "media", "private": True},
        "secretSeo": {"type": "component", "component": "shared.seo", "private": True},
        "seo": {"type": "component", "component": "shared.seo"},
        "blocks": {
            "type": "dynamiczone",
            "components": ["blocks.quote", "blocks.media", "blocks.rich-text"],
        },
    },
}


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Registry:
    folder = tmp_path_factory.mktemp("models") / "content-types"
    shutil.copytree(MODELS, folder)
    (folder / "vault.json").write_text(json.dumps(VAULT))
    return load_registry(folder)


def populate(registry: Registry, query: str, uid: str = "api::vault.vault", **kw: Any) -> Any:
    parser = QueryParser(registry, QueryLimits(), **kw)
    return parser.populate(registry.content_types[uid], parse_query(query)["populate"])


@pytest.mark.parametrize(
    "query",
    [
        "populate=owner",
        "populate=scan,secretSeo,name,Seo,nope",
        "populate[0]=owner.profile&populate[1]=secretSeo.shareImage",
        "populate[owner]=true",
        # nothing inside an ignored key is read: no 400 for what would be one elsewhere
        "populate[owner][filters][nope]=1&populate[owner][fields][0]=password",
        "populate[owner][page]=abc&populate[scan][page]=0",
        "populate[secretSeo][sort]=nope&populate[name][populate][nope]=x",
        "populate[nope][filters][nope]=1&populate[nope][page]=abc",
    ],
)
def test_private_and_unknown_keys_are_ignored_alike(registry, query):
    assert populate(registry, query) == {}


def test_relations_the_caller_may_not_find_are_ignored_unread(registry):
    hidden = {"may_find": lambda uid: uid != "api::author.author"}
    for query in (
        "populate=blocks.author.profile",
        "populate[blocks][populate][author][filters][nope]=1",
        "populate[blocks][on][blocks.quote][populate][author][page]=abc",
    ):
        result = populate(registry, query, **hidden)
        zone = result["blocks"]
        assert isinstance(zone, DynamicZonePopulate), query
        assert all("author" not in spec.populate for spec in (zone.on or {}).values()), query


def test_dotted_paths_through_a_zone_are_paths_at_every_depth(registry):
    dotted = populate(registry, "populate=blocks.author.profile,blocks.file,blocks.nope.x")
    objects = populate(
        registry,
        "populate[blocks][populate][author][populate][profile]=true"
        "&populate[blocks][populate][file]=true",
    )
    assert dotted == objects
    assert dotted["blocks"] == DynamicZonePopulate(
        on={
            "blocks.quote": ComponentPopulate(
                populate={"author": RelationPopulate(populate={"profile": RelationPopulate()})}
            ),
            "blocks.media": ComponentPopulate(populate={"file": MediaPopulate()}),
            "blocks.rich-text": ComponentPopulate(),
        }
    )


def test_a_zone_populate_is_read_against_each_component(registry):
    # `body` is a scalar of two components, `author` a relation of one: each component gets
    # what it has, as Strapi's per-type query skips what its type lacks.
    zone = populate(registry, "populate[blocks][populate]=author,body,nope")["blocks"]
    assert zone.on is not None
    assert zone.on["blocks.quote"] == ComponentPopulate(populate={"author": RelationPopulate()})
    assert zone.on["blocks.rich-text"] == zone.on["blocks.media"] == ComponentPopulate()
    assert populate(registry, "populate[blocks][populate]=nope") == {
        "blocks": DynamicZonePopulate()
    }


def test_options_strapi_does_not_read_are_ignored(registry):
    assert populate(registry, "populate[seo][bogus]=1&populate[seo][pagination][page]=x") == {
        "seo": ComponentPopulate()
    }
    limited = populate(registry, "populate[articles][pagination][limit]=1", "api::author.author")
    assert limited == {"articles": RelationPopulate()}


@pytest.mark.parametrize(
    "query",
    [
        "populate[seo][page]=abc",
        "populate[seo][pageSize]=-1",
        "populate[blocks][on][nope.nope][page]=0",
        "populate[seo][page]=1&populate[seo][start]=0",
    ],
)
def test_pages_inside_a_populate_are_checked(registry, query):
    with pytest.raises(PaginationError):
        populate(registry, query)


def test_page_beside_a_zones_on_is_not_read(registry):
    result = populate(registry, "populate[blocks][page]=abc&populate[blocks][on][blocks.quote]=1")
    assert result == {"blocks": DynamicZonePopulate(on={"blocks.quote": ComponentPopulate()})}


def test_a_malformed_populate_is_still_refused(registry):
    with pytest.raises(ValidationError):
        populate(registry, "populate[0][seo]=true")
