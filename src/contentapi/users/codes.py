"""One-time codes of the e-mail flows (password reset, address confirmation).

A code is 32 bytes from the OS's random source, as 64 hex characters: it travels in a link,
so it needs no escaping. Only its SHA-256 is stored (in ``resetPasswordToken`` /
``confirmationToken``, marked ``sha256:``): someone who reads the database cannot use a pending
link, and the lookup by digest gives timing nothing to learn about the code — the database
compares digests of the attacker's guesses, not the guesses; the row found is compared once
more with ``hmac.compare_digest``. A code is cleared by the write that uses it (single use).

Strapi stores these codes in plain text: a link Strapi sent before the switch to contentapi is
not accepted (the user asks for a new one).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

__all__ = ["digest_matches", "new_code", "stored_digest"]

_PREFIX = "sha256:"


def new_code() -> str:
    return secrets.token_hex(32)


def stored_digest(code: str) -> str:
    """What the user row keeps for ``code``."""
    return _PREFIX + hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()


def digest_matches(stored: str | None, code: str) -> bool:
    if not stored:
        return False
    return hmac.compare_digest(stored.encode(), stored_digest(code).encode())
