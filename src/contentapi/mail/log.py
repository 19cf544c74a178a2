"""The development provider: mail goes to the log (logger ``contentapi.mail``), not to a mailbox.

With ``CONTENTAPI_ENV=development`` the whole text part is logged — the reset or confirmation
link in it is what a developer needs to go on. In any other environment a log line must never
carry a one-time code (logs are kept, shipped and read by others than the recipient), so only
the recipient and subject are logged, with a warning that nothing was delivered.
"""

from __future__ import annotations

import logging

from contentapi.config import Settings
from contentapi.mail.message import OutgoingMail

__all__ = ["LogProvider"]

log = logging.getLogger("contentapi.mail")


class LogProvider:
    def __init__(self, settings: Settings) -> None:
        self.show_body = settings.env == "development"

    async def send(self, mail: OutgoingMail) -> None:
        if self.show_body:
            log.info(
                "mail (not sent: CONTENTAPI_EMAIL_PROVIDER=log) to %s, subject %r:\n%s",
                mail.to,
                mail.subject,
                mail.text,
            )
            return
        log.warning(
            "mail NOT delivered (CONTENTAPI_EMAIL_PROVIDER=log) to %s, subject %r; its body "
            "is withheld outside development: configure CONTENTAPI_EMAIL_PROVIDER=smtp",
            mail.to,
            mail.subject,
        )
