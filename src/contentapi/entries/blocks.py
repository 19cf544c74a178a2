"""The ``blocks`` attribute (Strapi 4.15+'s rich-text "Blocks" editor): its value checked and
cast as Strapi 4.25's entity validator does (``services/entity-validator/blocks-validator``).

A blocks value is a JSON array of block nodes — ``paragraph``, ``heading`` (``level`` 1-6),
``quote``, ``code`` (``syntax``), ``list`` (``ordered``/``unordered``, nested lists), ``image``
(an upload file's fields) — whose children are inline nodes: ``text`` (with ``bold``,
``italic``, ``underline``, ``strikethrough``, ``code``) and ``link`` (``url`` and text
children). Unknown keys are kept. The schema below is Strapi's, written as data for
``entries/yup.py``; the messages are Strapi's own sentences (one of them says "Quote" for a
code block, as Strapi's does).

Strapi's quirks kept, each seen on the reference: a value that is not an array (``5``,
``{}``, ``"x"``) is stored as ``null`` unless the attribute is required; a string holding a
JSON array is read as that array; casts are stored (``"text": 5`` → ``"5"``). One changed:
``null`` among the blocks (or among a node's children) is Strapi's 500 and a 400 here.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from contentapi.entries.yup import (
    ArrayNode,
    BooleanNode,
    Choice,
    MixedNode,
    NumberNode,
    ObjectNode,
    StringNode,
)
from contentapi.errors import FieldError

__all__ = ["parse_blocks", "valid_link"]

Path = tuple[str | int, ...]

#: the WHATWG URL parser's schemes with an authority (a host is required after them)
_SPECIAL = frozenset({"http", "https", "ws", "wss", "ftp"})
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")
#: characters a host may not hold (the forbidden host code points, with ``%``)
_FORBIDDEN_HOST = re.compile(r"[\x00-\x20#/:<>?@\[\\\]^|%\x7f]")


def valid_link(link: str) -> bool:
    """Strapi's ``checkValidLink``: ``new URL(link)`` succeeds, a leading ``/`` read against
    ``https://strapi.io``. The WHATWG rules that decide links in practice: a scheme is needed,
    and after ``http``/``https``/``ws``/``wss``/``ftp`` a host without forbidden characters and
    a port of at most 65535."""
    text = link.strip("\x00\x20\t\n\r\x0b\x0c").replace("\t", "").replace("\n", "")
    text = text.replace("\r", "")
    if text.startswith("/"):
        return True
    scheme, colon, rest = text.partition(":")
    if not colon or not _SCHEME.fullmatch(scheme):
        return False
    if scheme.lower() == "file":
        return True
    if scheme.lower() not in _SPECIAL:
        return True
    authority = rest.replace("\\", "/").lstrip("/").split("/")[0].split("?")[0].split("#")[0]
    host_port = authority.rpartition("@")[2]
    if host_port.startswith("["):
        return host_port.partition("]")[1] == "]"
    host, _, port = host_port.partition(":")
    if not host or _FORBIDDEN_HOST.search(host):
        return False
    if port and (not port.isdigit() or int(port) > 65535):
        return False
    try:
        urlsplit(text)
    except ValueError:
        return False
    return True


def _is_text(value: Any) -> bool:
    return isinstance(value, str)


_TEXT = ObjectNode(
    fields=(
        ("type", StringNode(required=True, one_of=("text",))),
        (
            "text",
            StringNode(checks=(("Text must be defined with at least an empty string", _is_text),)),
        ),
        ("bold", BooleanNode()),
        ("italic", BooleanNode()),
        ("underline", BooleanNode()),
        ("strikethrough", BooleanNode()),
        ("code", BooleanNode()),
    )
)

_LINK = ObjectNode(
    fields=(
        ("type", StringNode(required=True, one_of=("link",))),
        (
            "url",
            StringNode(
                checks=(
                    (
                        "Please specify a valid link.",
                        lambda value: valid_link(value if isinstance(value, str) else ""),
                    ),
                )
            ),
        ),
        ("children", ArrayNode(items=_TEXT, required=True)),
    )
)

#: Strapi's message when a node's ``children`` is empty
_EMPTY = "{} node children must have at least one Text or Link node"

_INLINE = Choice(message="Inline node must be Text or Link", options={"text": _TEXT, "link": _LINK})


def _inline_children(message: str | None, of: Any = _INLINE) -> ArrayNode:
    return ArrayNode(items=of, min=(1, message) if message else None, required=True)


def _block(kind: str, *fields: tuple[str, Any]) -> ObjectNode:
    return ObjectNode(fields=(("type", StringNode(required=True, one_of=(kind,))), *fields))


_LIST_ITEM = _block("list-item", ("children", _inline_children(None)))
_LIST_CHILDREN = Choice(message="Inline node must be list-item or list")
_LIST = _block(
    "list",
    ("format", StringNode(required=True, one_of=("ordered", "unordered"))),
    (
        "children",
        _inline_children(
            "List node children must have at least one ListItem or ListNode", _LIST_CHILDREN
        ),
    ),
)
_LIST_CHILDREN.options.update({"list": _LIST, "list-item": _LIST_ITEM})

_IMAGE_FILE = ObjectNode(
    fields=(
        ("name", StringNode(required=True)),
        ("alternativeText", StringNode(nullable=True)),
        ("url", StringNode(required=True)),
        ("caption", StringNode(nullable=True)),
        ("width", NumberNode(required=True)),
        ("height", NumberNode(required=True)),
        ("formats", ObjectNode(required=True)),
        ("hash", StringNode(required=True)),
        ("ext", StringNode(required=True)),
        ("mime", StringNode(required=True)),
        ("size", NumberNode(required=True)),
        ("previewUrl", StringNode(nullable=True)),
        ("provider", StringNode(required=True)),
        ("provider_metadata", MixedNode(nullable=True)),
        ("createdAt", StringNode(required=True)),
        ("updatedAt", StringNode(required=True)),
    )
)

_BLOCK = Choice(
    message="Block node is of invalid type",
    options={
        "paragraph": _block(
            "paragraph",
            (
                "children",
                _inline_children(_EMPTY.format("Paragraph")),
            ),
        ),
        "heading": _block(
            "heading",
            ("level", NumberNode(required=True, one_of=(1, 2, 3, 4, 5, 6))),
            (
                "children",
                _inline_children(_EMPTY.format("Heading")),
            ),
        ),
        "quote": _block(
            "quote",
            (
                "children",
                _inline_children(_EMPTY.format("Quote")),
            ),
        ),
        "list": _LIST,
        "image": _block("image", ("image", _IMAGE_FILE), ("children", _inline_children(None))),
        "code": _block(
            "code",
            ("syntax", StringNode(nullable=True)),
            (
                "children",
                _inline_children(_EMPTY.format("Quote"), _TEXT),  # sic: Strapi's message
            ),
        ),
    },
)

_NULLABLE = ArrayNode(items=_BLOCK, nullable=True)
_REQUIRED = ArrayNode(items=_BLOCK)


def parse_blocks(raw: Any, path: Path, *, nullable: bool) -> tuple[Any, list[FieldError]]:
    """A blocks attribute's value as sent (not ``None``) → (the value to store, the problems).

    ``nullable`` is false when the attribute is required (and the entry no draft): a value
    that is not an array is then an error instead of ``null``."""
    node = _NULLABLE if nullable else _REQUIRED
    value = node.cast(raw)
    errors: list[FieldError] = []
    node.validate(value, raw, path, errors)
    return value, errors
