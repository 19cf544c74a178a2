"""Delivery over SMTP with aiosmtplib: implicit TLS or required STARTTLS, optional login.

Certificates are verified (against ``CONTENTAPI_SMTP_CA_FILE`` when set); ``none`` sends in
plain text and is meant for a relay on the same host. The password is never logged: it is a
``SecretStr`` until the moment it is handed to the client.
"""

from __future__ import annotations

import aiosmtplib

from contentapi.config import Settings
from contentapi.mail.compose import compose
from contentapi.mail.message import OutgoingMail

__all__ = ["SmtpProvider"]


class SmtpProvider:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    async def send(self, mail: OutgoingMail) -> None:
        settings = self.settings
        message = compose(mail, settings.email_from, settings.email_reply_to)
        password = settings.smtp_password.get_secret_value() if settings.smtp_password else None
        await aiosmtplib.send(
            message,
            hostname=settings.smtp_host,
            port=settings.smtp_port_or_default,
            username=settings.smtp_username or None,
            password=password if settings.smtp_username else None,
            use_tls=settings.smtp_security == "tls",
            start_tls=settings.smtp_security == "starttls",
            cert_bundle=str(settings.smtp_ca_file) if settings.smtp_ca_file else None,
            timeout=settings.smtp_timeout,
        )
