"""Password hashes Strapi wrote verify, and new ones are hashes Strapi can verify.

``STRAPI_HASH`` was made by Strapi 4.25's own hashing (``bcryptjs`` 2.4.3,
``bcrypt.hash(password, 10)``), not by the library under test: a test that only verifies hashes
this project made passes without a bcrypt backend at all, which is how a missing backend once
went unnoticed (every hash the suite checked was argon2, made and verified by contentapi).
"""

from __future__ import annotations

import pytest

from contentapi.auth.passwords import PasswordHasher

STRAPI_PASSWORD = "Strapi-Passw0rd!"
STRAPI_HASH = "$2a$10$IMBxkskLoMmgQ2nrpImgSedoHtLF1vccfI3dufZaCU7GbdMlMhPeu"
#: bcryptjs of "é" * 10 + "x" (multi-byte characters: bcrypt hashes UTF-8 bytes)
STRAPI_UTF8_HASH = "$2a$10$saYgnfpk.KFVHkH4pkMkB.DfJJS.d6oIFyBg.SHPxpSRtDGj5NsIO"


def test_a_hash_strapi_made_verifies():
    hasher = PasswordHasher()
    assert hasher.verify(STRAPI_PASSWORD, STRAPI_HASH)
    assert not hasher.verify(STRAPI_PASSWORD + "x", STRAPI_HASH)
    assert hasher.verify("é" * 10 + "x", STRAPI_UTF8_HASH)


def test_argon2_setting_still_verifies_strapi_hashes():
    assert PasswordHasher("argon2").verify(STRAPI_PASSWORD, STRAPI_HASH)


def test_new_hashes_are_bcrypt_at_strapis_cost_and_prefix():
    hashed = PasswordHasher().hash("correct horse 1")
    assert hashed.startswith("$2a$10$") and len(hashed) == 60
    assert PasswordHasher().verify("correct horse 1", hashed)


def test_argon2_only_when_asked():
    hashed = PasswordHasher("argon2").hash("correct horse 1")
    assert hashed.startswith("$argon2")
    assert PasswordHasher().verify("correct horse 1", hashed)


def test_a_strapi_hash_is_never_rewritten_by_default():
    hasher = PasswordHasher()
    assert not hasher.needs_rehash(STRAPI_PASSWORD, STRAPI_HASH)
    # a cost other than ours is not a reason either: Strapi reads any cost
    assert not hasher.needs_rehash("abc", "$2b$12$" + "a" * 53)


def test_rehash_follows_the_operators_choice():
    argon = PasswordHasher("argon2").hash("correct horse 1")
    assert PasswordHasher().needs_rehash("correct horse 1", argon)  # back to Strapi-readable
    assert PasswordHasher("argon2").needs_rehash(STRAPI_PASSWORD, STRAPI_HASH)
    assert not PasswordHasher("argon2").needs_rehash("correct horse 1", argon)


@pytest.mark.parametrize("scheme", ["bcrypt", "argon2"])
def test_over_72_bytes_is_argon2_and_never_cut(scheme):
    hasher = PasswordHasher(scheme)  # type: ignore[arg-type]
    long = "x" * 72
    hashed = hasher.hash(long + "A")
    assert hashed.startswith("$argon2")
    assert not hasher.verify(long + "B", hashed)
    assert not hasher.needs_rehash(long + "A", hashed)
    # a bcrypt hash of the first 72 bytes does not accept longer passwords
    assert not hasher.verify(long + "A", hasher.hash(long) if scheme == "bcrypt" else "")


def test_unusable_hashes_are_refused_not_raised():
    hasher = PasswordHasher()
    for stored in (None, "", "plain-text", "$2a$10$short", "$argon2id$broken"):
        assert not hasher.verify("x", stored)
