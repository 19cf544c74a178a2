"""What a file really is, from its bytes — never from the client's ``Content-Type``.

``filetype`` recognises binary formats by their signatures; UTF-8 text that is none of them is
``text/plain`` (or ``image/svg+xml`` when it is an SVG document); anything else is
``application/octet-stream``.

The stored key ends with the extension chosen here, and ``/uploads`` serves a file with the type
that extension stands for (``MIME_BY_EXT``), so a file is always served as the type stored in
its row: a text file named ``page.html`` keeps ``.html`` and is served as ``text/plain``; a
binary file keeps its own extension only when that extension stands for no type (``x.psd1``),
else it becomes ``.bin`` (an unrecognised ``x.png`` is not served as ``image/png``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import filetype

__all__ = ["MIME_BY_EXT", "Sniffed", "is_passive", "sniff", "stored_mime"]

_SAFE_EXT = re.compile(r"^\.[a-z0-9]{1,10}$")
_TEXT_EXTS = frozenset({".txt", ".csv", ".md", ".json", ".xml", ".html", ".htm", ".yaml", ".yml"})
_OCTET_STREAM = "application/octet-stream"

#: The type each extension ``sniff`` can give a stored file stands for.
MIME_BY_EXT: dict[str, str] = {
    **{f".{kind.extension}": kind.mime for kind in filetype.types},
    ".svg": "image/svg+xml",
    **dict.fromkeys(_TEXT_EXTS, "text/plain"),
}


#: Types a browser only displays (no script, no document of the origin serving them).
_PASSIVE_PREFIXES = ("image/", "video/", "audio/")
_PASSIVE = frozenset({"application/pdf", "text/plain"})


def is_passive(mime: str) -> bool:
    """Whether a browser only displays this type: anything else (SVG, HTML-like text, XML,
    archives…) is served sandboxed or as an attachment."""
    return (mime.startswith(_PASSIVE_PREFIXES) and mime != "image/svg+xml") or mime in _PASSIVE


def stored_mime(ext: str) -> str:
    """The type of a stored file from its key's extension (``.bin`` or unknown: bytes)."""
    return MIME_BY_EXT.get(ext, _OCTET_STREAM)


@dataclass(frozen=True, slots=True)
class Sniffed:
    mime: str
    ext: str

    @property
    def is_raster_image(self) -> bool:
        return self.mime.startswith("image/") and self.mime != "image/svg+xml"


def _client_ext(filename: str) -> str:
    dot = filename.rfind(".")
    ext = filename[dot:].lower() if dot > 0 else ""
    return ext if _SAFE_EXT.match(ext) else ""


def _binary(filename: str) -> Sniffed:
    ext = _client_ext(filename)
    return Sniffed(_OCTET_STREAM, ext if ext and ext not in MIME_BY_EXT else ".bin")


def sniff(head: bytes, filename: str) -> Sniffed:
    """The type of a file from its first bytes (``head``); ``filename`` only picks a text
    extension among equivalent ones."""
    kind = filetype.guess(head)
    if kind is not None:
        return Sniffed(kind.mime, f".{kind.extension}")
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as error:
        if error.start < len(head) - 4:  # not just a character cut at the end of the sample
            return _binary(filename)
        text = head[: error.start].decode("utf-8")
    if "\x00" in text:
        return _binary(filename)
    if "<svg" in text[:1024].lower():
        return Sniffed("image/svg+xml", ".svg")
    ext = _client_ext(filename)
    return Sniffed("text/plain", ext if ext in _TEXT_EXTS else ".txt")
