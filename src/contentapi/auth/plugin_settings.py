"""The users-permissions plugin's settings, where Strapi keeps them (the core store table).

``plugin_users-permissions_advanced`` holds the advanced settings (sign-up allowed, default
role, e-mail confirmation, the links mails point to), ``plugin_users-permissions_email`` the
reset-password and confirmation mail templates. Start-up stores Strapi's defaults when a row is
missing (Strapi's bootstrap does the same), so a database Strapi made keeps its values. They are
read from the database on every flow that needs them: a change (``contentapi settings set`` or
another instance) applies at once, and these flows are rare enough that one small read is free.
"""

from __future__ import annotations

import difflib
from dataclasses import asdict, dataclass, fields
from typing import Any

from contentapi.auth.permissions import role_types
from contentapi.db.async_engine import AsyncConnection
from contentapi.db.core_store import read_json, write_json
from contentapi.db.tables import ContentTables

__all__ = [
    "ADVANCED_KEY",
    "ADVANCED_NAMES",
    "DEFAULT_TEMPLATES",
    "EMAIL_KEY",
    "TEMPLATE_NAMES",
    "AdvancedSettings",
    "MailTemplate",
    "MailTemplates",
    "UnknownRoleError",
    "ensure_plugin_settings",
    "parse_advanced_value",
    "read_advanced",
    "read_mail_templates",
    "write_advanced",
    "write_mail_template",
]

ADVANCED_KEY = "plugin_users-permissions_advanced"
EMAIL_KEY = "plugin_users-permissions_email"


class UnknownRoleError(ValueError):
    """A ``default_role`` that names no role; ``str()`` names the roles there are."""


@dataclass(frozen=True, slots=True)
class AdvancedSettings:
    """Strapi's "Advanced settings" of the users-permissions plugin, with its defaults."""

    unique_email: bool = True
    allow_register: bool = True
    email_confirmation: bool = False
    #: the front-end page a reset mail links to (``<%= URL %>?code=<%= TOKEN %>``)
    email_reset_password: str | None = None
    #: where ``GET /api/auth/email-confirmation`` redirects after confirming
    email_confirmation_redirection: str | None = None
    #: the ``type`` of the role a new sign-up gets
    default_role: str = "authenticated"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


_BOOLEAN_SETTINGS = frozenset({"unique_email", "allow_register", "email_confirmation"})
_URL_SETTINGS = frozenset({"email_reset_password", "email_confirmation_redirection"})
ADVANCED_NAMES = tuple(field.name for field in fields(AdvancedSettings))


def parse_advanced_value(name: str, text: str) -> Any:
    """A command-line value for setting ``name`` (``true``/``false``, a URL or ``null``)."""
    if name in _BOOLEAN_SETTINGS:
        lowered = text.strip().lower()
        if lowered not in ("true", "false"):
            raise ValueError(f"{name} is true or false, not {text!r}")
        return lowered == "true"
    if name in _URL_SETTINGS:
        stripped = text.strip()
        if stripped in ("", "null"):
            return None
        if not stripped.startswith(("http://", "https://", "/")):
            raise ValueError(f"{name} is an absolute http(s) URL or a path starting with /")
        return stripped
    if name == "default_role":
        if not text.strip():
            raise ValueError("default_role is the type of a role, e.g. authenticated")
        return text.strip()
    close = difflib.get_close_matches(name.lower(), ADVANCED_NAMES, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ValueError(f"unknown setting {name!r}{hint}: one of {', '.join(ADVANCED_NAMES)}")


def _advanced_from(value: Any) -> AdvancedSettings:
    """Stored values of the expected types win; anything else keeps Strapi's default."""
    defaults = AdvancedSettings()
    if not isinstance(value, dict):
        return defaults
    chosen: dict[str, Any] = {}
    for name in ADVANCED_NAMES:
        stored = value.get(name)
        if name in _BOOLEAN_SETTINGS:
            # Strapi tests these for truthiness; stored by its admin panel as booleans.
            chosen[name] = bool(stored) if name in value else getattr(defaults, name)
        elif name in _URL_SETTINGS:
            chosen[name] = stored if isinstance(stored, str) and stored else None
        elif isinstance(stored, str) and stored:
            chosen[name] = stored
    return AdvancedSettings(**chosen)


@dataclass(frozen=True, slots=True)
class MailTemplate:
    """One of the plugin's mail templates (``options`` of Strapi's stored object)."""

    from_name: str
    from_email: str
    response_email: str
    object: str
    message: str

    @classmethod
    def from_options(cls, options: Any, default: MailTemplate) -> MailTemplate:
        if not isinstance(options, dict):
            return default
        stored_from = options.get("from")
        sender: dict[str, Any] = stored_from if isinstance(stored_from, dict) else {}

        def text(value: Any, fallback: str) -> str:
            return value if isinstance(value, str) else fallback

        return cls(
            from_name=text(sender.get("name"), ""),
            from_email=text(sender.get("email"), ""),
            response_email=text(options.get("response_email"), ""),
            object=text(options.get("object"), default.object),
            message=text(options.get("message"), default.message),
        )


@dataclass(frozen=True, slots=True)
class MailTemplates:
    reset_password: MailTemplate
    email_confirmation: MailTemplate


# Strapi 4.25's defaults (its bootstrap writes these on first start), except the sender: Strapi
# writes "Administration Panel <no-reply@strapi.io>", which a real mail server would refuse to
# relay or a receiver mark as spoofed; an empty sender means CONTENTAPI_EMAIL_FROM.
_RESET_MESSAGE = """<p>We heard that you lost your password. Sorry about that!</p>

<p>But don\u2019t worry! You can use the following link to reset your password:</p>
<p><%= URL %>?code=<%= TOKEN %></p>

<p>Thanks.</p>"""
_CONFIRMATION_MESSAGE = """<p>Thank you for registering!</p>

<p>You have to confirm your email address. Please click on the link below.</p>

<p><%= URL %>?confirmation=<%= CODE %></p>

<p>Thanks.</p>"""
DEFAULT_TEMPLATES = MailTemplates(
    reset_password=MailTemplate("", "", "", "Reset password", _RESET_MESSAGE),
    email_confirmation=MailTemplate("", "", "", "Account confirmation", _CONFIRMATION_MESSAGE),
)


def _template_json(template: MailTemplate, display: str, icon: str) -> dict[str, Any]:
    return {
        "display": display,
        "icon": icon,
        "options": {
            "from": {"name": template.from_name, "email": template.from_email},
            "response_email": template.response_email,
            "object": template.object,
            "message": template.message,
        },
    }


_DEFAULT_EMAIL_VALUE = {
    "reset_password": _template_json(
        DEFAULT_TEMPLATES.reset_password, "Email.template.reset_password", "sync"
    ),
    "email_confirmation": _template_json(
        DEFAULT_TEMPLATES.email_confirmation, "Email.template.email_confirmation", "check-square"
    ),
}


async def ensure_plugin_settings(conn: AsyncConnection) -> None:
    """Store Strapi's defaults for whichever of the two rows is missing (never overwrite)."""
    if await read_json(conn, ADVANCED_KEY) is None:
        await write_json(conn, ADVANCED_KEY, AdvancedSettings().to_json())
    if await read_json(conn, EMAIL_KEY) is None:
        await write_json(conn, EMAIL_KEY, _DEFAULT_EMAIL_VALUE)


async def read_advanced(conn: AsyncConnection) -> AdvancedSettings:
    return _advanced_from(await read_json(conn, ADVANCED_KEY))


async def write_advanced(
    conn: AsyncConnection, tables: ContentTables, changes: dict[str, Any]
) -> AdvancedSettings:
    """Merge ``changes`` (already parsed) into the stored object; keys Strapi added are kept.

    A ``default_role`` must name a role that exists (``UnknownRoleError`` naming those that do):
    Strapi's admin panel offers only existing roles, and a missing one would refuse every
    sign-up with "Impossible to find the default role"."""
    if "default_role" in changes:
        existing = await role_types(conn, tables)
        if changes["default_role"] not in existing:
            raise UnknownRoleError(
                f"default_role {changes['default_role']!r} is not a role; "
                f"the roles are {', '.join(existing)}"
            )
    stored = await read_json(conn, ADVANCED_KEY)
    value = dict(stored) if isinstance(stored, dict) else AdvancedSettings().to_json()
    value.update(changes)
    await write_json(conn, ADVANCED_KEY, value)
    return _advanced_from(value)


async def read_mail_templates(conn: AsyncConnection) -> MailTemplates:
    stored = await read_json(conn, EMAIL_KEY)
    stored = stored if isinstance(stored, dict) else {}

    def options(name: str) -> Any:
        entry = stored.get(name)
        return entry.get("options") if isinstance(entry, dict) else None

    return MailTemplates(
        reset_password=MailTemplate.from_options(
            options("reset_password"), DEFAULT_TEMPLATES.reset_password
        ),
        email_confirmation=MailTemplate.from_options(
            options("email_confirmation"), DEFAULT_TEMPLATES.email_confirmation
        ),
    )


TEMPLATE_NAMES = ("reset_password", "email_confirmation")


async def write_mail_template(
    conn: AsyncConnection, name: str, changes: dict[str, str]
) -> MailTemplate:
    """Change fields of one stored template: ``from_name``, ``from_email``,
    ``response_email``, ``object`` (the subject), ``message``; its other keys are kept."""
    if name not in TEMPLATE_NAMES:
        raise ValueError(f"unknown template {name!r}: one of {', '.join(TEMPLATE_NAMES)}")
    stored = await read_json(conn, EMAIL_KEY)
    value = dict(stored) if isinstance(stored, dict) else dict(_DEFAULT_EMAIL_VALUE)
    entry = dict(value.get(name) or _DEFAULT_EMAIL_VALUE[name])
    options = dict(entry.get("options") or {})
    sender = dict(options.get("from") or {})
    for key, text in changes.items():
        if key == "from_name":
            sender["name"] = text
        elif key == "from_email":
            sender["email"] = text
        elif key in ("response_email", "object", "message"):
            options[key] = text
        else:
            raise ValueError(f"unknown template field {key!r}")
    options["from"] = sender
    entry["options"] = options
    value[name] = entry
    await write_json(conn, EMAIL_KEY, value)
    return getattr(await read_mail_templates(conn), name)
