"""The users-permissions e-mail flows: forgot and reset password, confirm an address.

As users-permissions 4.25 answers them (``controllers/auth.js``): ``forgot-password`` answers
``{ok: true}`` whether or not the address has an account (no oracle); ``reset-password`` takes
the code from the mail and answers ``{jwt, user}``; ``email-confirmation`` confirms and
redirects to the ``email_confirmation_redirection`` setting; ``send-email-confirmation`` sends
the confirmation mail again. Codes are ``users.codes``: random, stored as digests, single use.
Mails are rendered from the plugin's stored templates and posted to the outbox after the
transaction that stored their code (``mail.outbox``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from email.utils import formataddr
from typing import Any

from sqlalchemy import Table, func, select

from contentapi.auth.plugin_settings import MailTemplate, read_advanced, read_mail_templates
from contentapi.config import Settings
from contentapi.db.async_engine import AsyncConnection
from contentapi.entries.access import EntryAccess
from contentapi.entries.input import parse_entry_input
from contentapi.entries.messages import RequestError
from contentapi.entries.serialize import RestSerializer
from contentapi.errors import ValidationError
from contentapi.mail.message import OutgoingMail
from contentapi.mail.outbox import Outbox
from contentapi.mail.template import render_template
from contentapi.query.ast import ReadQuery
from contentapi.schema.builtin import USER_UID
from contentapi.schema.model import ContentType
from contentapi.users.codes import digest_matches, new_code, stored_digest

__all__ = ["AccountMail"]

CONFIRMATION_PATH = "/api/auth/email-confirmation"


def _sender(template: MailTemplate) -> str | None:
    """The template's sender; ``None`` (``CONTENTAPI_EMAIL_FROM``) when it names no address."""
    if not template.from_email:
        return None
    return formataddr((template.from_name, template.from_email))


@dataclass(slots=True, eq=False)
class AccountMail(EntryAccess):
    """The flows over the ``up_users`` table, the plugin settings and the outbox (a dataclass:
    it holds what it is handed, and the users' table and content type, looked up once)."""

    serializer: RestSerializer
    settings: Settings
    outbox: Outbox
    users: Table = field(init=False)
    content_type: ContentType = field(init=False)

    def __post_init__(self) -> None:
        self.users = self.tables.entity(USER_UID)
        self.content_type = self.registry.content_types[USER_UID]

    async def _user_info(self, user_id: int) -> dict[str, Any] | None:
        """The user as a template sees it (``USER.username``): no private attribute."""
        entry = await self.entries.find_one(USER_UID, user_id, ReadQuery())
        return None if entry is None else self.serializer.plain(self.content_type, entry)

    async def _spend_code(
        self, conn: AsyncConnection, user_id: int, column: str, code: str, values: dict[str, Any]
    ) -> bool:
        """Write ``values`` (which clear the code) to the user only while ``column`` still
        holds ``code``'s digest: of two requests with one code, only one writes; ``False``
        for the other."""
        users = self.users
        used = await conn.execute(
            users.update()
            .where(users.c.id == user_id, users.c[column] == stored_digest(code))
            .values(values)
            .returning(users.c.id)
        )
        return used.first() is not None

    async def _user_by_code(self, conn: AsyncConnection, column: str, code: str) -> int | None:
        """The id of the user whose one-time code in ``column`` (``reset_password_token``,
        ``confirmation_token``) is ``code``; ``None`` when no stored digest matches."""
        stored = self.users.c[column]
        row = (
            await conn.execute(select(self.users.c.id, stored).where(stored == stored_digest(code)))
        ).first()
        if row is None or not digest_matches(row[1], code):
            return None
        return int(row.id)

    def _mail(
        self, template: MailTemplate, to: str, data: dict[str, Any], user: dict[str, Any]
    ) -> OutgoingMail:
        body = render_template(template.message, data)
        subject = render_template(template.object, {"USER": user}).text.strip()
        return OutgoingMail(
            to=to,
            subject=subject,
            text=body.text,
            html=body.html,
            sender=_sender(template),
            reply_to=template.response_email or None,
        )

    def _server_url(self) -> str:
        return self.settings.base_url.rstrip("/")

    # ------------------------------------------------------------ password reset

    async def forgot_password(self, email: str) -> None:
        """Store a new reset code for the account of ``email`` and mail it; nothing (and the
        same answer) when there is no such account or it is blocked."""
        users = self.users
        async with self.database.read() as conn:
            row = (
                await conn.execute(
                    select(users.c.id, users.c.email, users.c.blocked)
                    .where(func.lower(users.c.email) == email.lower())
                    .order_by(users.c.id)
                    .limit(1)
                )
            ).first()
            if row is None or row.blocked:
                return
            advanced = await read_advanced(conn)
            templates = await read_mail_templates(conn)
        user = await self._user_info(int(row.id))
        if user is None:  # deleted meanwhile
            return
        code = new_code()
        async with self.database.write() as conn:
            await conn.execute(
                users.update()
                .where(users.c.id == row.id)
                .values(reset_password_token=stored_digest(code))
            )
            await self.entries.writes.record_update(conn, USER_UID, int(row.id))
        data = {
            "URL": advanced.email_reset_password,
            "SERVER_URL": self._server_url(),
            "ADMIN_URL": None,  # contentapi has no admin panel
            "USER": user,
            "TOKEN": code,
        }
        self.outbox.post(self._mail(templates.reset_password, str(row.email), data, user))

    async def reset_password(self, password: str, confirmation: str, code: str) -> int:
        """Set the password of the account whose reset code is ``code``; its user id.

        The password is checked (the user model's rules) before the code is used, and the
        write that sets it clears the code only if it is still the stored one: two requests
        with one code cannot both succeed.
        """
        if password != confirmation:
            raise ValidationError("Passwords do not match")
        async with self.database.read() as conn:
            user_id = await self._user_by_code(conn, "reset_password_token", code)
        if user_id is None:
            raise ValidationError("Incorrect code provided")
        write = parse_entry_input(
            self.content_type,
            {"password": password},
            registry=self.registry,
            creating=False,
            locales=(),  # an update: the locale is chosen at creation only
        )
        columns = dict(write.columns)
        for column, plain in write.passwords.items():
            columns[column] = await asyncio.to_thread(self.entries.passwords.hash, plain)
        columns["reset_password_token"] = None
        async with self.database.write() as conn:
            if not await self._spend_code(conn, user_id, "reset_password_token", code, columns):
                raise ValidationError("Incorrect code provided")  # a concurrent request used it
            await self.entries.writes.record_update(conn, USER_UID, user_id)
        return user_id

    # ------------------------------------------------------------ address confirmation

    async def send_confirmation(self, user_id: int) -> None:
        """Store a new confirmation code for the user and mail the link that uses it."""
        user = await self._user_info(user_id)
        if user is None or not user.get("email"):
            return
        async with self.database.read() as conn:
            templates = await read_mail_templates(conn)
        code = new_code()
        async with self.database.write() as conn:
            await conn.execute(
                self.users.update()
                .where(self.users.c.id == user_id)
                .values(confirmation_token=stored_digest(code))
            )
            await self.entries.writes.record_update(conn, USER_UID, user_id)
        data = {
            "URL": self._server_url() + CONFIRMATION_PATH,
            "SERVER_URL": self._server_url(),
            "ADMIN_URL": None,
            "USER": user,
            "CODE": code,
        }
        self.outbox.post(self._mail(templates.email_confirmation, str(user["email"]), data, user))

    async def confirm(self, code: str) -> int:
        """Confirm the address whose confirmation code is ``code``; its user id."""
        async with self.database.write() as conn:
            user_id = await self._user_by_code(conn, "confirmation_token", code)
            if user_id is None:
                raise ValidationError("Invalid token")
            values = {"confirmed": True, "confirmation_token": None}
            if not await self._spend_code(conn, user_id, "confirmation_token", code, values):
                raise ValidationError("Invalid token")
            await self.entries.writes.record_update(conn, USER_UID, user_id)
        return user_id

    async def confirmation_redirect(self) -> str:
        async with self.database.read() as conn:
            advanced = await read_advanced(conn)
        return advanced.email_confirmation_redirection or "/"

    async def resend_confirmation(self, email: str) -> dict[str, Any]:
        """``POST /api/auth/send-email-confirmation``: Strapi's answers, its errors included
        (``Already confirmed``, ``User blocked``); an unknown address answers as a known one."""
        users = self.users
        async with self.database.read() as conn:
            row = (
                await conn.execute(
                    select(users.c.id, users.c.email, users.c.confirmed, users.c.blocked)
                    .where(func.lower(users.c.email) == email.lower())
                    .order_by(users.c.id)
                    .limit(1)
                )
            ).first()
        if row is None:
            return {"email": email, "sent": True}
        if row.confirmed:
            raise RequestError("Already confirmed")
        if row.blocked:
            raise RequestError("User blocked")
        await self.send_confirmation(int(row.id))
        return {"email": row.email, "sent": True}
