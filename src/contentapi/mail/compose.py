"""An ``OutgoingMail`` as a MIME message: text and HTML alternatives, default sender applied."""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import formatdate, make_msgid

from contentapi.mail.message import OutgoingMail
from contentapi.mail.template import single_line

__all__ = ["compose"]


def compose(mail: OutgoingMail, default_from: str, default_reply_to: str | None) -> EmailMessage:
    message = EmailMessage()
    sender = mail.sender or default_from
    message["From"] = single_line(sender)
    message["To"] = single_line(mail.to)
    reply_to = mail.reply_to or default_reply_to
    if reply_to:
        message["Reply-To"] = single_line(reply_to)
    message["Subject"] = single_line(mail.subject)
    message["Date"] = formatdate(localtime=False)
    domain = sender.rpartition("@")[2].strip("> ") or None
    message["Message-ID"] = make_msgid(domain=domain)
    message.set_content(mail.text)
    message.add_alternative(mail.html, subtype="html")
    return message
