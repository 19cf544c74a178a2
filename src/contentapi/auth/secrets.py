"""``ServerSecrets``: the API-token salt's hasher and the JWT secret of one server process.

Neither exists when the app is wired: ``Runtime.start()`` reads them from the database (or
makes them) once the schema is in place. The services that need them (caller resolution, JWT
issue) are built before that and hold this one object, filled in at start-up.
"""

from __future__ import annotations

from dataclasses import dataclass

from contentapi.auth.tokens import TokenHasher

__all__ = ["ServerSecrets"]


@dataclass
class ServerSecrets:
    #: hashes API tokens with the server's salt (``CONTENTAPI_API_TOKEN_SALT`` or the stored one)
    token_hasher: TokenHasher | None = None
    #: signs and checks users' JWTs (``CONTENTAPI_JWT_SECRET`` or the stored one)
    jwt_secret: str | None = None
