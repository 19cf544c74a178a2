"""Image dimensions and Strapi's responsive formats, with Pillow.

Formats (only those smaller than the original): ``thumbnail`` fits 245x156, then ``large``
1000, ``medium`` 750 and ``small`` 500 (fit inside a square of that side). Decoding has a
pixel cap, so a small file cannot expand into gigabytes ("decompression bomb").
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import BinaryIO

from PIL import Image, UnidentifiedImageError

__all__ = ["FORMATS", "ImageError", "ImageInfo", "Rendition", "inspect_image", "renditions"]

MAX_PIXELS = 50_000_000
Image.MAX_IMAGE_PIXELS = MAX_PIXELS
FORMATS: tuple[tuple[str, int, int], ...] = (
    ("thumbnail", 245, 156),
    ("large", 1000, 1000),
    ("medium", 750, 750),
    ("small", 500, 500),
)


class ImageError(ValueError):
    """Not a decodable image (corrupt, truncated, or over the pixel cap)."""


@dataclass(frozen=True, slots=True)
class ImageInfo:
    width: int
    height: int
    format: str


@dataclass(frozen=True, slots=True)
class Rendition:
    name: str
    width: int
    height: int
    data: bytes


def inspect_image(source: BinaryIO) -> ImageInfo:
    """Decode the whole image once (``load``): a truncated or corrupt file fails here."""
    source.seek(0)
    try:
        with Image.open(source) as image:
            image.load()
            return ImageInfo(image.width, image.height, image.format or "PNG")
    except (
        UnidentifiedImageError,
        OSError,
        SyntaxError,
        ValueError,
        Image.DecompressionBombError,
    ) as error:
        raise ImageError(str(error)) from error


def renditions(source: BinaryIO, info: ImageInfo) -> list[Rendition]:
    """The formats smaller than the original, encoded like the original."""
    found: list[Rendition] = []
    for name, max_width, max_height in FORMATS:
        if info.width <= max_width and info.height <= max_height:
            continue
        source.seek(0)
        with Image.open(source) as image:
            copy = image.copy()
        copy.thumbnail((max_width, max_height))
        buffer = io.BytesIO()
        save_format = info.format if info.format in ("PNG", "JPEG", "GIF", "WEBP") else "PNG"
        if save_format == "JPEG" and copy.mode not in ("RGB", "L"):
            copy = copy.convert("RGB")
        copy.save(buffer, format=save_format)
        found.append(Rendition(name, copy.width, copy.height, buffer.getvalue()))
    return found
