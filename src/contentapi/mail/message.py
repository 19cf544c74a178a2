"""One outgoing mail, as the users-permissions flows hand it to a provider."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["OutgoingMail"]


@dataclass(frozen=True, slots=True)
class OutgoingMail:
    """A rendered mail. ``sender`` and ``reply_to`` ``None``: the configured defaults."""

    to: str
    subject: str
    text: str
    html: str
    sender: str | None = None
    reply_to: str | None = None

    def __repr__(self) -> str:  # never the body or the secret, wherever it is printed
        return f"OutgoingMail(to={self.to!r}, subject={self.subject!r})"
