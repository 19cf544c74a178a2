"""The mail provider interface and the choice of one by ``CONTENTAPI_EMAIL_PROVIDER``."""

from __future__ import annotations

from typing import Protocol

from contentapi.config import Settings
from contentapi.mail.message import OutgoingMail

__all__ = ["MailProvider", "build_mail_provider"]


class MailProvider(Protocol):
    """Delivers one mail or raises; the outbox logs the failure."""

    async def send(self, mail: OutgoingMail) -> None: ...


def build_mail_provider(settings: Settings) -> MailProvider:
    if settings.email_provider == "smtp":
        from contentapi.mail.smtp import SmtpProvider

        return SmtpProvider(settings)
    from contentapi.mail.log import LogProvider

    return LogProvider(settings)
