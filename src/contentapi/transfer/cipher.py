"""The encryption of Strapi's archives: AES-128-ECB under a key derived by scrypt.

Strapi's default transfer cipher (``aes-128-ecb``) hashes the user's key with Node's
``scryptSync(key, '', 16)`` (N=16384, r=8, p=1, empty salt) and pads with PKCS#7; matching it
byte for byte is what lets an archive encrypted by one side be opened by the other.
"""

from __future__ import annotations

import hashlib

from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

__all__ = ["WrongKeyError", "decrypt", "encrypt"]


class WrongKeyError(ValueError):
    """The bytes do not decrypt under the key (wrong key, or not encrypted)."""


def _cipher(key: str) -> Cipher[modes.ECB]:
    secret = hashlib.scrypt(key.encode(), salt=b"", n=16384, r=8, p=1, dklen=16)
    return Cipher(algorithms.AES(secret), modes.ECB())


def encrypt(data: bytes, key: str) -> bytes:
    padder = padding.PKCS7(128).padder()
    padded = padder.update(data) + padder.finalize()
    encryptor = _cipher(key).encryptor()
    return encryptor.update(padded) + encryptor.finalize()


def decrypt(data: bytes, key: str) -> bytes:
    if not data or len(data) % 16:
        raise WrongKeyError("the archive is not encrypted (or is truncated)")
    decryptor = _cipher(key).decryptor()
    padded = decryptor.update(data) + decryptor.finalize()
    unpadder = padding.PKCS7(128).unpadder()
    try:
        return unpadder.update(padded) + unpadder.finalize()
    except ValueError:
        raise WrongKeyError("the archive does not decrypt with this key") from None
