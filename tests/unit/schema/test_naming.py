"""Strapi v4 (lodash ``snakeCase``) storage names, as the reference server created them."""

from __future__ import annotations

import pytest

from contentapi.schema.naming import MAX_IDENTIFIER_LENGTH, column_name, link_table, shorten


@pytest.mark.parametrize(
    ("attribute", "column"),
    [
        ("readingTime", "reading_time"),
        ("metaTitle", "meta_title"),
        ("eventDate", "event_date"),
        ("newTab", "new_tab"),
        ("metaHTMLTitle", "meta_html_title"),
        ("field2Name", "field_2_name"),
        ("URLSlug", "url_slug"),
        ("already_snake", "already_snake"),
        ("title", "title"),
    ],
)
def test_column_names_follow_lodash_snake_case(attribute, column):
    assert column_name(attribute) == column


def test_link_table_name():
    assert link_table("articles", "author") == "articles_author_links"
    assert (
        link_table("components_shared_seos", "shareImage")
        == "components_shared_seos_share_image_links"
    )


def test_long_identifiers_are_shortened_deterministically_and_distinctly():
    long_a = "x" * 70 + "_a"
    long_b = "x" * 70 + "_b"
    assert len(shorten(long_a)) == MAX_IDENTIFIER_LENGTH
    assert shorten(long_a) == shorten(long_a)
    assert shorten(long_a) != shorten(long_b)
    assert shorten("short") == "short"
