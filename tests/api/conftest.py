"""Fixtures of the API tests beyond ``tests/conftest.py``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from contentapi.auth.passwords import PasswordHasher


@pytest.fixture(autouse=True, scope="session")
def _hash_each_password_once() -> Iterator[None]:
    """Each password is hashed, and each (password, hash) pair verified, once per session.

    bcrypt at Strapi's cost 10 takes 0.1 to 0.2 s a call on purpose, and the API tests sign up
    and sign in with the same few passwords thousands of times: repeating that work tested
    nothing and was a tenth of the suite's time. Answers stay real — every hash is a genuine
    ``$2a$10$`` (or argon2) hash its verification accepts; only users given the same password
    share a salt. ``tests/unit/test_passwords.py`` tests the hasher itself, unmemoized.
    """
    real_hash, real_verify = PasswordHasher.hash, PasswordHasher.verify
    hashes: dict[tuple[str, str], str] = {}
    verdicts: dict[tuple[str, str], bool] = {}

    def hash_once(self: PasswordHasher, password: str) -> str:
        key = (self.scheme, password)
        if key not in hashes:
            hashes[key] = real_hash(self, password)
        return hashes[key]

    def verify_once(self: PasswordHasher, password: str, hashed: str | None) -> bool:
        if not hashed:
            return real_verify(self, password, hashed)
        key = (password, hashed)
        if key not in verdicts:
            verdicts[key] = real_verify(self, password, hashed)
        return verdicts[key]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(PasswordHasher, "hash", hash_once)
        patch.setattr(PasswordHasher, "verify", verify_once)
        yield
