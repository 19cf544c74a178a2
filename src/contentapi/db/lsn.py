"""PostgreSQL WAL positions (LSNs) as numbers: ``16/B374D848`` ⇄ ``0x16B374D848``.

A log sequence number is a 64-bit byte offset into the write-ahead log, which PostgreSQL prints
as two hexadecimal halves. The read-your-writes token (``http/read_position.py``) is such a
position, and a replica may serve a read once it has replayed past it (``db/replicas.py``):
comparing them needs numbers, and a client's token needs parsing that refuses anything else.
"""

from __future__ import annotations

import re

__all__ = ["format_lsn", "parse_lsn"]

_LSN = re.compile(r"^([0-9A-Fa-f]{1,8})/([0-9A-Fa-f]{1,8})$")


def parse_lsn(text: str) -> int | None:
    """The position ``text`` names (``"0/3000148"``), ``None`` when it is not one — a client's
    token is untrusted, and a bad one is ignored rather than refused."""
    match = _LSN.match(text.strip())
    if match is None:
        return None
    return (int(match.group(1), 16) << 32) | int(match.group(2), 16)


def format_lsn(position: int) -> str:
    """PostgreSQL's text of ``position`` (``pg_lsn``'s output)."""
    return f"{position >> 32:X}/{position & 0xFFFFFFFF:X}"
