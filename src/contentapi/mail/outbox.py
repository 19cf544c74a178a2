"""Mail is sent after the request's transaction, in the background, and failures are logged.

Why not inside the request: a reset request for an existing address must answer exactly as one
for an unknown address — same body, and no SMTP round trip that would make it measurably
slower (an account oracle). A delivery that fails is logged (never the mail's body) and the
user asks again; the code stored for it stays valid until used or replaced. ``drain`` waits for
the mails under way (at shutdown, and in tests).
"""

from __future__ import annotations

import asyncio
import logging

from contentapi.mail.message import OutgoingMail
from contentapi.mail.provider import MailProvider

__all__ = ["Outbox"]

log = logging.getLogger("contentapi.mail")


class Outbox:
    def __init__(self, provider: MailProvider) -> None:
        self.provider = provider
        self._pending: set[asyncio.Task[None]] = set()

    def post(self, mail: OutgoingMail) -> None:
        task = asyncio.get_running_loop().create_task(self._deliver(mail))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _deliver(self, mail: OutgoingMail) -> None:
        try:
            await self.provider.send(mail)
        except Exception as error:  # logged, never raised: the request answered already
            log.error(
                "mail %r to %s not delivered: %s: %s",
                mail.subject,
                mail.to,
                type(error).__name__,
                error,
            )

    async def drain(self, timeout: float = 30) -> None:
        """Wait (at most ``timeout`` seconds) for every mail under way."""
        if self._pending:
            await asyncio.wait(set(self._pending), timeout=timeout)
