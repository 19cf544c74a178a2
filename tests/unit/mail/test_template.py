"""Mail templates: only the given names are replaced, nothing is evaluated, HTML is escaped."""

from __future__ import annotations

import pytest

from contentapi.auth.plugin_settings import DEFAULT_TEMPLATES
from contentapi.mail.template import render_template, single_line
from contentapi.users.codes import digest_matches, new_code, stored_digest

USER = {"id": 7, "username": "a<b>&\"c'", "confirmed": False, "email": None}


@pytest.mark.parametrize(
    ("layout", "html", "text"),
    [
        ("<%= URL %>?code=<%= TOKEN %>", "https://x.test/r?code=T0K", "https://x.test/r?code=T0K"),
        ("<%=USER.username%>", "a&lt;b&gt;&amp;&quot;c&#x27;", "a<b>&\"c'"),
        ("<%= USER.id %>/<%= USER.confirmed %>/<%= USER.email %>.", "7/false/.", "7/false/."),
        ("<%= USER %> <%= process.env.X %>", "<%= USER %> <%= process.env.X %>", None),
        ("<%- USER.username %> <% while(1){} %>", "<%- USER.username %> <% while(1){} %>", None),
        ("${URL} {{URL}}", "${URL} {{URL}}", "${URL} {{URL}}"),
        ('<a href="<%= URL %>">Reset</a>', '<a href="https://x.test/r">Reset</a>',
         "Reset (https://x.test/r)"),
        ("<p>x &amp; y</p>", "<p>x &amp; y</p>", "x & y"),
    ],
)  # fmt: skip
def test_render(layout, html, text):
    rendered = render_template(layout, {"URL": "https://x.test/r", "TOKEN": "T0K", "USER": USER})
    assert rendered.html == html
    if text is not None:
        assert rendered.text == text + "\n"


def test_a_value_that_looks_like_a_marker_is_kept_as_it_is():
    rendered = render_template("<%= A %>|<%= B %>", {"A": "\x001\x00", "B": "b"})
    assert rendered.text == "\x001\x00|b\n"


def test_strapis_default_reset_template_renders_the_link():
    rendered = render_template(
        DEFAULT_TEMPLATES.reset_password.message, {"URL": "https://f.test/reset", "TOKEN": "abc"}
    )
    assert "<p>https://f.test/reset?code=abc</p>" in rendered.html
    assert "https://f.test/reset?code=abc\n" in rendered.text


def test_single_line_removes_header_breaks():
    assert single_line("Hi\r\nBcc: x@y.z") == "Hi Bcc: x@y.z"


def test_codes_are_random_and_stored_as_digests():
    first, second = new_code(), new_code()
    assert first != second and len(first) == 64
    stored = stored_digest(first)
    assert first not in stored and stored.startswith("sha256:")
    assert digest_matches(stored, first)
    assert not digest_matches(stored, second)
    assert not digest_matches(None, first)
