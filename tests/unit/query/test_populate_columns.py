"""What populated rows select and become (``query/populate/columns.py``) and the pure
decisions on component fields (``query/populate/component_specs.py``)."""

from __future__ import annotations

from contentapi.query.ast import (
    ComponentPopulate,
    DynamicZonePopulate,
    Populate,
    RelationPopulate,
)
from contentapi.query.populate import select_columns
from contentapi.query.populate.columns import to_entry
from contentapi.query.populate.component_specs import own_batch, wanted, zone_choices, zone_spec
from contentapi.schema import load_registry
from tests.unit.query.populate_fakes import ARTICLE, AUTHOR, MODELS, schema

# ------------------------------------------------------------------ select_columns


def test_all_readable_names_with_id_first_and_columns_in_snake_case() -> None:
    registry, _ = schema()
    pairs = select_columns(registry.content_types[ARTICLE], None)
    assert pairs[0] == ("id", "id")
    assert ("reading_time", "readingTime") in pairs
    assert ("event_date", "eventDate") in pairs
    assert ("published_at", "publishedAt") in pairs
    names = [name for _, name in pairs]
    # private and non-scalar attributes are never selected
    assert "editorNotes" not in names
    assert not {"author", "categories", "cover", "seo", "blocks"} & set(names)


def test_password_and_private_attributes_are_never_read() -> None:
    registry, _ = schema()
    names = [name for _, name in select_columns(registry.content_types[AUTHOR], None)]
    assert "password" not in names
    assert "email" not in names  # private
    assert "handle" in names and "born" in names


def test_requested_fields_keep_their_order_and_id_once() -> None:
    registry, _ = schema()
    article = registry.content_types[ARTICLE]
    pairs = select_columns(article, ("views", "id", "title"))
    assert pairs == [("id", "id"), ("views", "views"), ("title", "title")]


def test_pairs_are_computed_once_per_model_and_fields() -> None:
    registry, _ = schema()
    article = registry.content_types[ARTICLE]
    assert select_columns(article, ("title",)) is select_columns(article, ["title"])
    assert select_columns(article, None) is not select_columns(article, ("title",))


def test_another_registrys_model_is_not_served_the_cached_pairs() -> None:
    registry, _ = schema()
    first = select_columns(registry.content_types[ARTICLE], ("title",))
    other = load_registry(MODELS).content_types[ARTICLE]
    second = select_columns(other, ("title",))
    assert second == first and second is not first


def test_a_row_becomes_an_entry_keyed_by_attribute_name_in_column_order() -> None:
    row = {"id": 3, "reading_time": 7, "title": "x", "unused": 1}
    entry = to_entry(row, [("id", "id"), ("title", "title"), ("reading_time", "readingTime")])
    assert entry == {"id": 3, "title": "x", "readingTime": 7}
    assert list(entry) == ["id", "title", "readingTime"]


# ------------------------------------------------------------------ component_specs


def test_on_keeps_only_the_components_it_names() -> None:
    zone = DynamicZonePopulate(on={"blocks.quote": ComponentPopulate()})
    assert wanted(zone, "blocks.quote")
    assert not wanted(zone, "blocks.media")
    assert wanted(DynamicZonePopulate(), "blocks.media")  # no ``on``: every type
    assert wanted(ComponentPopulate(), "shared.seo")


def test_a_zone_items_populate_is_its_on_entry_or_the_shared_keys_it_has() -> None:
    registry, _ = schema()
    quote = registry.components["blocks.quote"]
    media = registry.components["blocks.media"]
    chosen = ComponentPopulate(fields=("title",))
    assert zone_spec(DynamicZonePopulate(on={"blocks.quote": chosen}), quote) is chosen
    assert zone_spec(DynamicZonePopulate(on={"blocks.quote": chosen}), media) == (
        ComponentPopulate()
    )
    shared: Populate = {"author": RelationPopulate(), "file": ComponentPopulate()}
    spec = zone_spec(DynamicZonePopulate(shared=shared), quote)
    assert spec.fields is None
    assert spec.populate == {"author": RelationPopulate()}  # ``file`` is not a quote's


def test_a_field_that_filters_or_sorts_has_a_batch_of_its_own() -> None:
    from contentapi.query.ast import Comparison, SortKey

    specs = {
        ("seo", "shared.seo"): ComponentPopulate(),
        ("links", "shared.link"): ComponentPopulate(sort=(SortKey((), "label", "string"),)),
        ("links#1", "shared.link"): ComponentPopulate(
            filters=Comparison("label", "string", "$eq", "x")
        ),
    }
    assert own_batch(specs, "seo", "shared.seo") is None
    assert own_batch(specs, "links", "shared.link") == "links"
    assert own_batch(specs, "links#1", "shared.link") == "links#1"


def test_zone_choices_name_each_zones_on_sorted() -> None:
    nodes = {
        "seo": ComponentPopulate(),
        "blocks": DynamicZonePopulate(
            on={"blocks.quote": ComponentPopulate(), "blocks.media": ComponentPopulate()}
        ),
        "blocks#1": DynamicZonePopulate(),
    }
    assert zone_choices(nodes) == (
        ("blocks", ("blocks.media", "blocks.quote")),
        ("blocks#1", None),
    )
