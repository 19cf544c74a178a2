"""Password hashing: argon2 for new hashes; bcrypt hashes (as Strapi writes them) still verify.

``libpass`` is the maintained fork of passlib (same import path). bcrypt only reads the first
72 bytes of a password, so a password is never handed to bcrypt longer than that silently:
new hashes are argon2, which has no such limit.
"""

from __future__ import annotations

from passlib.context import CryptContext

__all__ = ["hash_password", "needs_rehash", "verify_password"]

_context = CryptContext(schemes=["argon2", "bcrypt"], deprecated=["bcrypt"])


def hash_password(password: str) -> str:
    return _context.hash(password)


def verify_password(password: str, hashed: str | None) -> bool:
    """Constant work whether or not ``hashed`` exists, so timing reveals nothing."""
    if not hashed:
        _context.dummy_verify()
        return False
    try:
        return _context.verify(password, hashed)
    except (ValueError, TypeError):
        return False


def needs_rehash(hashed: str) -> bool:
    return _context.needs_update(hashed)
