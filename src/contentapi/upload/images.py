"""Image dimensions and Strapi's responsive formats, with Pillow.

Formats (only those smaller than the original): ``thumbnail`` fits 245x156, then ``large``
1000, ``medium`` 750 and ``small`` 500 (fit inside a square of that side).

Decompression bombs: a file of a few hundred bytes may declare 100,000 x 100,000 pixels, and
decoding it would take gigabytes. Pillow reads only the header when it opens a file (every
format is opened lazily), so the size is checked right after ``open`` and before ``load``:
more than ``MAX_PIXELS`` is refused without decoding a byte. (Pillow's own
``MAX_IMAGE_PIXELS`` only warns between one and two times the cap; it is set too, as a second
net for any other code path.)
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import BinaryIO

__all__ = [
    "FORMATS",
    "MAX_PIXELS",
    "ImageError",
    "ImageInfo",
    "ImageTooLargeError",
    "Rendition",
    "inspect_image",
    "renditions",
]

MAX_PIXELS = 50_000_000


@cache
def _pillow() -> ModuleType:
    """Pillow's ``Image``, imported at the first image: a server that never receives one does
    not hold it (2 MB per worker)."""
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    # Between one and two times the cap Pillow only warns; ``inspect_image`` refuses those.
    warnings.filterwarnings("ignore", category=Image.DecompressionBombWarning)
    return Image


FORMATS: tuple[tuple[str, int, int], ...] = (
    ("thumbnail", 245, 156),
    ("large", 1000, 1000),
    ("medium", 750, 750),
    ("small", 500, 500),
)


class ImageError(ValueError):
    """Not a decodable image (corrupt, truncated, or over the pixel cap)."""


class ImageTooLargeError(ImageError):
    """More pixels declared than ``MAX_PIXELS``: refused before decoding."""


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


def _too_large(width: int, height: int) -> str:
    return f"{width}x{height} pixels, more than the {MAX_PIXELS:,} pixels allowed"


def inspect_image(source: BinaryIO) -> ImageInfo:
    """Decode the whole image once (``load``): a truncated or corrupt file fails here."""
    source.seek(0)
    Image = _pillow()
    try:
        with Image.open(source) as image:  # the header only
            width, height = image.size
            if width * height > MAX_PIXELS:
                raise ImageTooLargeError(_too_large(width, height))
            image.load()
            return ImageInfo(width, height, image.format or "PNG")
    except Image.DecompressionBombError as error:  # Pillow's check, at twice the cap
        raise ImageTooLargeError(f"more than the {MAX_PIXELS:,} pixels allowed") from error
    except ImageTooLargeError:
        raise
    except (
        OSError,  # Pillow's UnidentifiedImageError too
        SyntaxError,
        ValueError,
    ) as error:
        raise ImageError(str(error)) from error


def renditions(source: BinaryIO, info: ImageInfo) -> list[Rendition]:
    """The formats smaller than the original, encoded like the original."""
    found: list[Rendition] = []
    Image = _pillow()
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
