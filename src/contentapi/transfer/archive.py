"""The archive file of Strapi's data transfer, to and from plain Python values.

A ``.tar`` (gzip-compressed: ``.tar.gz``; then encrypted: ``.tar.gz.enc``) holding
``metadata.json``, the JSON-lines stages ``schemas/``, ``entities/``, ``links/`` and
``configuration/`` (``<stage>/<stage>_00001.jsonl``, ...), and ``assets/uploads/<name>`` with
``assets/metadata/<name>.json``. The whole archive is read before anything is written, so a
damaged one is refused before the database is touched.
"""

from __future__ import annotations

import gzip
import io
import tarfile
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from contentapi.transfer.cipher import WrongKeyError, decrypt, encrypt

__all__ = ["STAGES", "Archive", "ArchiveError", "Asset", "read_archive", "write_archive"]

STAGES = ("schemas", "entities", "links", "configuration")
_GZIP_MAGIC = b"\x1f\x8b"


class ArchiveError(ValueError):
    """Not a readable transfer archive; the message says why, for the CLI."""


@dataclass(slots=True)
class Asset:
    """One uploaded file: its bytes and Strapi's description of it (the file row's fields)."""

    name: str
    data: bytes
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Archive:
    metadata: dict[str, Any] = field(default_factory=dict)
    schemas: list[dict[str, Any]] = field(default_factory=list)
    entities: list[dict[str, Any]] = field(default_factory=list)
    links: list[dict[str, Any]] = field(default_factory=list)
    configuration: list[dict[str, Any]] = field(default_factory=list)
    assets: dict[str, Asset] = field(default_factory=dict)


def _unwrap(raw: bytes, key: str | None) -> bytes:
    """Decrypt (with a key) and decompress to the tar bytes."""
    if key is not None:
        try:
            raw = decrypt(raw, key)
        except WrongKeyError as error:
            raise ArchiveError(str(error)) from None
        if not raw.startswith(_GZIP_MAGIC) and not _looks_like_tar(raw):
            raise ArchiveError("the archive does not decrypt with this key")
    if raw.startswith(_GZIP_MAGIC):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as error:
            raise ArchiveError(f"the archive is damaged ({error})") from None
    elif key is None and not _looks_like_tar(raw):
        raise ArchiveError("not a transfer archive (an encrypted one needs --key)")
    return raw


def _looks_like_tar(raw: bytes) -> bool:
    return len(raw) >= 512 and raw[257:262] == b"ustar"


def _jsonl(text: bytes, name: str) -> list[dict[str, Any]]:
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError:
            raise ArchiveError(f"{name} line {number} is not JSON") from None
        if not isinstance(row, dict):
            raise ArchiveError(f"{name} line {number} is not a JSON object")
        rows.append(row)
    return rows


def read_archive(path: Path, key: str | None = None) -> Archive:
    """The whole archive at ``path``; ``ArchiveError`` if it is not one (or the key is wrong)."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ArchiveError(f"cannot read {path}: {error.strerror}") from None
    tar_bytes = _unwrap(raw, key)
    archive = Archive()
    found_metadata = False
    try:
        with tarfile.open(fileobj=io.BytesIO(tar_bytes), mode="r:") as tar:
            members = sorted((m for m in tar.getmembers() if m.isfile()), key=lambda m: m.name)
            asset_metadata: dict[str, dict[str, Any]] = {}
            for member in members:
                name = member.name.removeprefix("./")
                handle = tar.extractfile(member)
                data = handle.read() if handle else b""
                stage = name.split("/", 1)[0]
                if name == "metadata.json":
                    archive.metadata = orjson.loads(data)
                    found_metadata = True
                elif stage in STAGES and name.endswith(".jsonl"):
                    getattr(archive, stage).extend(_jsonl(data, name))
                elif name.startswith("assets/uploads/"):
                    asset = name.removeprefix("assets/uploads/")
                    archive.assets[asset] = Asset(asset, data)
                elif name.startswith("assets/metadata/") and name.endswith(".json"):
                    asset = name.removeprefix("assets/metadata/").removesuffix(".json")
                    asset_metadata[asset] = orjson.loads(data)
            for asset, meta in asset_metadata.items():
                if asset in archive.assets:
                    archive.assets[asset].metadata = meta
    except (tarfile.TarError, EOFError) as error:
        raise ArchiveError(f"the archive is damaged ({error})") from None
    except orjson.JSONDecodeError:
        raise ArchiveError("the archive holds a JSON file that does not parse") from None
    if not found_metadata:
        raise ArchiveError("not a transfer archive: it has no metadata.json")
    return archive


def _add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = int(datetime.now(UTC).timestamp())
    tar.addfile(info, io.BytesIO(data))


def _lines(rows: list[dict[str, Any]]) -> bytes:
    return b"".join(orjson.dumps(row) + b"\n" for row in rows)


def write_archive(
    path: Path, archive: Archive, *, key: str | None = None, compress: bool = True
) -> None:
    """Write ``archive`` as Strapi writes one (gzip, then encryption with a key)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:", format=tarfile.USTAR_FORMAT) as tar:
        for stage in STAGES:
            _add(tar, f"{stage}/{stage}_00001.jsonl", _lines(getattr(archive, stage)))
        for asset in archive.assets.values():
            _add(tar, f"assets/uploads/{asset.name}", asset.data)
            _add(tar, f"assets/metadata/{asset.name}.json", orjson.dumps(asset.metadata))
        _add(tar, "metadata.json", orjson.dumps(archive.metadata))
    data = buffer.getvalue()
    if compress:
        data = gzip.compress(data)
    if key is not None:
        data = encrypt(data, key)
    path.write_bytes(data)
