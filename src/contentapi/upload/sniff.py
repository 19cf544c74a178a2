"""What a file really is, from its bytes — never from the client's ``Content-Type``.

``filetype`` recognises binary formats by their signatures; UTF-8 text that is none of them is
``text/plain`` (or ``image/svg+xml`` when it is an SVG document); anything else is
``application/octet-stream``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import filetype

__all__ = ["Sniffed", "sniff"]

_SAFE_EXT = re.compile(r"^\.[a-z0-9]{1,10}$")
_TEXT_EXTS = frozenset({".txt", ".csv", ".md", ".json", ".xml", ".html", ".htm", ".yaml", ".yml"})


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
            return Sniffed("application/octet-stream", _client_ext(filename) or ".bin")
        text = head[: error.start].decode("utf-8")
    if "\x00" in text:
        return Sniffed("application/octet-stream", _client_ext(filename) or ".bin")
    if "<svg" in text[:1024].lower():
        return Sniffed("image/svg+xml", ".svg")
    ext = _client_ext(filename)
    return Sniffed("text/plain", ext if ext in _TEXT_EXTS else ".txt")
