"""Password hashing that keeps the way back to Strapi open.

Strapi v4 hashes with ``bcryptjs`` at cost 10 (``$2a$10$…``). New hashes are made the same way
by default, so a Strapi started again on the database verifies every password contentapi set.
``CONTENTAPI_PASSWORD_HASH=argon2`` opts into argon2 for new hashes (and rehashes bcrypt ones
at sign-in): stronger, but Strapi cannot verify those users any more (docs/strapi-migration.md).

bcrypt reads only the first 72 bytes of a password. A longer password is never handed to bcrypt
(where it would be cut silently, so any password sharing its first 72 bytes would pass): it is
hashed with argon2 whatever the setting — Strapi could not check it faithfully anyway.
``libpass`` is the maintained fork of passlib (same import path); the ``bcrypt`` package is its
bcrypt backend and ``argon2-cffi`` its argon2 backend.
"""

from __future__ import annotations

from typing import Literal

from passlib.context import CryptContext

__all__ = ["BCRYPT_MAX_BYTES", "PasswordHasher", "PasswordScheme"]

PasswordScheme = Literal["bcrypt", "argon2"]

#: bcrypt ignores what follows the 72nd byte of a password.
BCRYPT_MAX_BYTES = 72
#: Strapi's ``bcrypt.hash(password, 10)`` (bcryptjs writes the ``2a`` prefix).
_STRAPI_BCRYPT = {"bcrypt__rounds": 10, "bcrypt__ident": "2a"}


class PasswordHasher:
    """Hash, verify and decide rehashing for one configured scheme."""

    def __init__(self, scheme: PasswordScheme = "bcrypt") -> None:
        self.scheme: PasswordScheme = scheme
        # Both schemes verify whatever the setting; ``default`` only picks new hashes.
        self._context = CryptContext(schemes=["bcrypt", "argon2"], default=scheme, **_STRAPI_BCRYPT)

    def _scheme_for(self, password: str) -> PasswordScheme:
        if len(password.encode("utf-8")) > BCRYPT_MAX_BYTES:
            return "argon2"
        return self.scheme

    def hash(self, password: str) -> str:
        return str(self._context.handler(self._scheme_for(password)).hash(password))

    def verify(self, password: str, hashed: str | None) -> bool:
        """Constant work whether or not ``hashed`` exists, so timing reveals nothing.

        A bcrypt hash is only checked against a password bcrypt reads whole: a password over
        72 bytes never matches one (its first 72 bytes alone would otherwise pass).
        """
        if not hashed:
            self._context.dummy_verify()
            return False
        try:
            scheme = self._context.identify(hashed)
        except ValueError:
            scheme = None
        if scheme is None:
            self._context.dummy_verify()
            return False
        if scheme == "bcrypt" and len(password.encode("utf-8")) > BCRYPT_MAX_BYTES:
            self._context.dummy_verify()
            return False
        try:
            return bool(self._context.verify(password, hashed))
        except (ValueError, TypeError):
            return False

    def needs_rehash(self, password: str, hashed: str) -> bool:
        """Whether a sign-in with ``password`` should store a new hash.

        Only for a change of scheme the operator asked for: with the default (bcrypt) a hash
        Strapi can read is never rewritten; an argon2 hash (an earlier contentapi, or a
        password over 72 bytes) becomes bcrypt when the password fits, so Strapi can read it.
        Cost changes alone never rewrite, so Strapi's own cost-10 hashes stay as Strapi wrote.
        """
        try:
            current = self._context.identify(hashed)
        except ValueError:
            return False
        return current is not None and current != self._scheme_for(password)
