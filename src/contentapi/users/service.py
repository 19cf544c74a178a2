"""Users: sign-up, sign-in, password change, and the user records the routes answer with.

Passwords are verified off the event loop and a missing user costs the same verification
work as a wrong password, so response times do not reveal which accounts exist. Strapi's
bcrypt hashes verify and are kept as they are (``auth.passwords`` says when a sign-in rehashes).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Table, func, or_, select

from contentapi.auth.jwt import issue_jwt
from contentapi.auth.passwords import PasswordHasher
from contentapi.auth.permissions import role_id_of_type
from contentapi.auth.plugin_settings import read_advanced
from contentapi.auth.secrets import ServerSecrets
from contentapi.config import Settings
from contentapi.entries.access import EntryAccess
from contentapi.entries.messages import MESSAGES, RequestError
from contentapi.errors import FieldError, NotFoundError, ValidationError
from contentapi.query.ast import ReadQuery
from contentapi.schema.builtin import USER_UID
from contentapi.users.account_mail import AccountMail
from contentapi.users.register_fields import pick_register_fields, register_keys

__all__ = ["UsersService"]


def _required_strings(body: Mapping[str, Any], names: tuple[str, ...]) -> dict[str, str]:
    errors = [
        FieldError((name,), MESSAGES["required"].format(path=name))
        for name in names
        if not isinstance(body.get(name), str) or not body.get(name)
    ]
    # PostgreSQL text cannot hold U+0000 (a login's identifier would fail the query there).
    errors += [
        FieldError((name,), MESSAGES["nul"].format(path=name))
        for name in names
        if isinstance(body.get(name), str) and "\x00" in body[name]
    ]
    if errors:
        raise ValidationError.from_errors(errors)
    return {name: str(body[name]) for name in names}


@dataclass(slots=True, eq=False)
class UsersService(EntryAccess):
    """User operations over the shared entry service and the ``up_users`` table (a dataclass:
    it holds what it is handed, and what it derives from it once)."""

    settings: Settings
    secrets: ServerSecrets
    mail: AccountMail
    users: Table = field(init=False)
    passwords: PasswordHasher = field(init=False)
    register_keys: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        self.users = self.tables.entity(USER_UID)
        self.passwords = self.entries.passwords
        self.register_keys = register_keys(
            self.registry.content_types[USER_UID], self.settings.register_allowed_fields
        )

    def issue(self, user_id: int) -> str:
        assert self.secrets.jwt_secret is not None
        return issue_jwt(user_id, self.secrets.jwt_secret, self.settings.jwt_lifetime)

    async def user(self, user_id: int, query: ReadQuery | None = None) -> dict[str, Any] | None:
        return await self.entries.find_one(USER_UID, user_id, query or ReadQuery())

    async def _taken(self, email: str | None, username: str | None, exclude: int | None) -> bool:
        conditions = []
        if email:
            conditions.append(func.lower(self.users.c.email) == email.lower())
        if username:
            conditions.append(self.users.c.username == username)
        if not conditions:
            return False
        statement = select(self.users.c.id).where(or_(*conditions))
        if exclude is not None:
            statement = statement.where(self.users.c.id != exclude)
        async with self.database.read() as conn:
            return (await conn.execute(statement.limit(1))).first() is not None

    async def default_role(self) -> int:
        """The role of type ``default_role`` (the plugin's advanced settings)."""
        async with self.database.read() as conn:
            advanced = await read_advanced(conn)
            role_id = await role_id_of_type(conn, self.tables, advanced.default_role)
        if role_id is None:
            raise RequestError("Impossible to find the default role")
        return role_id

    # ------------------------------------------------------------ flows

    async def register(self, body: Mapping[str, Any]) -> tuple[str | None, dict[str, Any]]:
        """``POST /api/auth/local/register``, as the plugin's advanced settings say: refused
        unless ``allow_register``; the role of type ``default_role``; with
        ``email_confirmation``, an unconfirmed user, the confirmation mail, and no JWT.

        Only the keys ``register.allowedFields`` allows are written, the others dropped
        (``users.register_fields``); role, provider and confirmation are the flow's own."""
        async with self.database.read() as conn:
            advanced = await read_advanced(conn)
            role_id = await role_id_of_type(conn, self.tables, advanced.default_role)
        if not advanced.allow_register:
            raise RequestError("Register action is currently disabled")
        picked = pick_register_fields(body, self.register_keys)
        values = _required_strings(picked, ("username", "email", "password"))
        if role_id is None:
            raise RequestError("Impossible to find the default role")
        email = values["email"].lower()
        if await self._taken(email, values["username"], None):  # Strapi: an ApplicationError
            raise RequestError("Email or Username are already taken")
        data = {
            "blocked": False,
            **picked,
            "provider": "local",
            "role": role_id,
            "email": email,
            "confirmed": not advanced.email_confirmation,
        }
        try:
            created = await self.entries.create(USER_UID, data)
        except ValidationError:
            # A concurrent sign-up took the address or name after the check above: the
            # columns' unique constraint refused this one; answer as the check would have.
            if await self._taken(email, values["username"], None):
                raise RequestError("Email or Username are already taken") from None
            raise
        if advanced.email_confirmation:
            await self.mail.send_confirmation(int(created["id"]))
            return None, created
        return self.issue(int(created["id"])), created

    async def login(self, body: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """``POST /api/auth/local`` with ``identifier`` (username or email) and ``password``."""
        values = _required_strings(body, ("identifier", "password"))
        identifier = values["identifier"]
        users = self.users
        statement = select(users.c.id, users.c.password, users.c.blocked, users.c.confirmed).where(
            users.c.provider == "local",
            or_(func.lower(users.c.email) == identifier.lower(), users.c.username == identifier),
        )
        async with self.database.read() as conn:
            row = (await conn.execute(statement.order_by(users.c.id).limit(1))).first()
        stored = row.password if row is not None else None
        valid = await asyncio.to_thread(self.passwords.verify, values["password"], stored)
        if row is None or not valid:
            raise ValidationError("Invalid identifier or password")
        if not row.confirmed:  # refused only while the plugin asks for confirmed addresses
            async with self.database.read() as conn:
                advanced = await read_advanced(conn)
            if advanced.email_confirmation:
                raise RequestError("Your account email is not confirmed")
        if row.blocked:  # Strapi's ApplicationError (400; STRAPI_APPLICATION_ERROR in GraphQL)
            raise RequestError("Your account has been blocked by an administrator")
        if stored and self.passwords.needs_rehash(values["password"], stored):
            rehashed = await asyncio.to_thread(self.passwords.hash, values["password"])
            async with self.database.write() as conn:
                await conn.execute(
                    users.update().where(users.c.id == row.id).values(password=rehashed)
                )
        user = await self.user(int(row.id))
        assert user is not None
        return self.issue(int(row.id)), user

    async def change_password(
        self, user_id: int, body: Mapping[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        """``POST /api/auth/change-password`` for the signed-in user."""
        values = _required_strings(body, ("currentPassword", "password", "passwordConfirmation"))
        async with self.database.read() as conn:
            stored = (
                await conn.execute(select(self.users.c.password).where(self.users.c.id == user_id))
            ).scalar()
        if not await asyncio.to_thread(self.passwords.verify, values["currentPassword"], stored):
            raise ValidationError("The provided current password is invalid")
        if values["password"] != values["passwordConfirmation"]:
            raise ValidationError("Passwords do not match")
        if values["password"] == values["currentPassword"]:
            raise ValidationError("Your new password must be different than your current password")
        user = await self.entries.update(USER_UID, user_id, {"password": values["password"]})
        return self.issue(user_id), user

    async def create(self, body: Mapping[str, Any], query: ReadQuery) -> dict[str, Any]:
        """``POST /api/users``: an administrator's create (role, confirmed, blocked allowed).

        The REST route checks the body as Strapi 4.25 does first (``users.validation``, which
        requires ``role``); GraphQL's ``createUsersPermissionsUser`` still falls back to the
        default role here.
        """
        values = _required_strings(body, ("username", "email", "password"))
        email = values["email"].lower()
        if await self._taken(email, None, None):
            raise RequestError("Email already taken")
        if await self._taken(None, values["username"], None):
            raise RequestError("Username already taken")
        data = {**body, "email": email}
        data.setdefault("provider", "local")
        data.setdefault("confirmed", False)
        if data.get("role") is None:
            data["role"] = await self.default_role()
        try:
            return await self.entries.create(USER_UID, data, query)
        except ValidationError:
            # Taken concurrently, after the checks above: answer as they would have.
            if await self._taken(email, None, None):
                raise RequestError("Email already taken") from None
            if await self._taken(None, values["username"], None):
                raise RequestError("Username already taken") from None
            raise

    async def update(
        self, user_id: int, body: Mapping[str, Any], query: ReadQuery
    ) -> dict[str, Any]:
        """``PUT /api/users/:id``: an unknown id is ``User not found`` before the body counts."""
        async with self.database.read() as conn:
            found = await conn.execute(select(self.users.c.id).where(self.users.c.id == user_id))
            if found.first() is None:
                raise NotFoundError("User not found")
        data = dict(body)
        if isinstance(data.get("email"), str):
            data["email"] = data["email"].lower()
            if await self._taken(data["email"], None, user_id):
                raise RequestError("Email already taken")
        if isinstance(data.get("username"), str) and await self._taken(
            None, data["username"], user_id
        ):
            raise RequestError("Username already taken")
        try:
            return await self.entries.update(USER_UID, user_id, data, query)
        except NotFoundError:  # deleted meanwhile
            raise NotFoundError("User not found") from None
