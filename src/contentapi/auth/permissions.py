"""Roles and their permissions: the actions a role may perform, the default roles, and
Strapi's nested permissions tree (``{"api::article": {"controllers": {"article": {"find":
{"enabled": true, "policy": ""}}}}}``) in both directions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select

from contentapi.db.async_engine import AsyncConnection
from contentapi.db.tables import ContentTables
from contentapi.schema.builtin import PERMISSION_UID, ROLE_UID, USER_UID
from contentapi.schema.registry import Registry

__all__ = [
    "PLUGIN",
    "all_actions",
    "ensure_default_roles",
    "permissions_tree",
    "public_actions",
    "role_actions",
    "role_id_of_type",
    "tree_actions",
    "user_access",
]

PLUGIN = "plugin::users-permissions"
PLUGIN_CONTROLLERS: dict[str, tuple[str, ...]] = {
    "auth": (
        "callback",
        "changePassword",
        "resetPassword",
        "connect",
        "forgotPassword",
        "register",
        "emailConfirmation",
        "sendEmailConfirmation",
    ),
    "user": ("create", "update", "find", "findOne", "count", "destroy", "me"),
    "role": ("createRole", "findOne", "find", "updateRole", "deleteRole"),
    "permissions": ("getPermissions",),
}
#: The plugins' sections of a role's permissions tree, in the order Strapi 4.25 shows them.
#: ``content-type-builder`` and ``email`` have Content API routes in Strapi that contentapi
#: does not serve (reading the models, sending mail); their actions are kept in the tree, and
#: stored when a role enables them, so a role read, changed and read back here and in Strapi
#: says the same (docs/strapi-migration.md).
PLUGINS: dict[str, dict[str, tuple[str, ...]]] = {
    "plugin::content-type-builder": {
        "components": ("getComponents", "getComponent"),
        "content-types": ("getContentTypes", "getContentType"),
    },
    "plugin::email": {"email": ("send",)},
    "plugin::upload": {"content-api": ("find", "findOne", "destroy", "upload")},
    PLUGIN: PLUGIN_CONTROLLERS,
    "plugin::i18n": {"locales": ("listLocales",)},
}
#: Strapi's defaults: the public role may log in and register; authenticated users may call
#: ``me`` and change their password.
DEFAULT_ROLES = {
    "authenticated": (
        "Authenticated",
        "Default role given to authenticated user.",
        [f"{PLUGIN}.auth.changePassword", f"{PLUGIN}.user.me"],
    ),
    "public": (
        "Public",
        "Default role given to unauthenticated user.",
        [
            f"{PLUGIN}.auth.callback",
            f"{PLUGIN}.auth.connect",
            f"{PLUGIN}.auth.forgotPassword",
            f"{PLUGIN}.auth.resetPassword",
            f"{PLUGIN}.auth.register",
            f"{PLUGIN}.auth.emailConfirmation",
            f"{PLUGIN}.auth.sendEmailConfirmation",
        ],
    ),
}


def _content_controllers(
    registry: Registry, custom: Mapping[str, tuple[str, ...]] | None = None
) -> dict[tuple[str, str], tuple[str, tuple[str, ...]]]:
    """(``api::<api>``, controller) → (uid, actions) for every content type with REST routes.
    The controller is the content type's name: ``api::blog.article`` (a Strapi project's
    ``api/blog/content-types/article``) is controller ``article`` of ``api::blog``. ``custom``:
    the actions of extensions' custom routes per uid, listed after the core ones (as Strapi
    lists a controller's custom actions)."""
    found: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {}
    for content_type in registry.content_types.values():
        if content_type.is_builtin:
            continue
        controller = content_type.uid.split("::", 1)[1].split(".", 1)[1]
        actions: tuple[str, ...] = (
            ("find", "update", "delete")
            if content_type.is_single
            else ("find", "findOne", "create", "update", "delete")
        )
        if content_type.localized and not content_type.is_single:
            actions += ("createLocalization",)
        actions += (custom or {}).get(content_type.uid, ())
        found[(f"api::{content_type.api_name}", controller)] = (content_type.uid, actions)
    return found


def all_actions(
    registry: Registry, custom: Mapping[str, tuple[str, ...]] | None = None
) -> list[str]:
    """Every action a role may be given, in the tree's order."""
    actions = [
        f"{uid}.{action}"
        for _, (uid, names) in sorted(_content_controllers(registry, custom).items())
        for action in names
    ]
    actions += [
        f"{plugin}.{controller}.{action}"
        for plugin, controllers in PLUGINS.items()
        for controller, names in controllers.items()
        for action in names
    ]
    return actions


def permissions_tree(
    registry: Registry,
    enabled: Iterable[str],
    custom: Mapping[str, tuple[str, ...]] | None = None,
) -> dict[str, Any]:
    """Strapi's nested permissions object with every action and whether it is enabled."""
    on = set(enabled)
    tree: dict[str, Any] = {}
    for (api, controller), (uid, names) in sorted(_content_controllers(registry, custom).items()):
        controllers = tree.setdefault(api, {"controllers": {}})["controllers"]
        controllers[controller] = {
            action: {"enabled": f"{uid}.{action}" in on, "policy": ""} for action in names
        }
    for plugin, controllers in PLUGINS.items():
        tree[plugin] = {
            "controllers": {
                controller: {
                    action: {"enabled": f"{plugin}.{controller}.{action}" in on, "policy": ""}
                    for action in names
                }
                for controller, names in controllers.items()
            }
        }
    return tree


def tree_actions(tree: Any) -> set[str] | None:
    """The enabled actions of a permissions tree from a request body; ``None`` if malformed.

    ``api::article`` + controller ``article`` + action ``find`` is the action
    ``api::article.article.find``; plugin actions likewise.
    """
    if not isinstance(tree, Mapping):
        return None
    enabled: set[str] = set()
    for type_name, type_entry in tree.items():
        controllers = type_entry.get("controllers") if isinstance(type_entry, Mapping) else None
        if not isinstance(controllers, Mapping):
            return None
        for controller, actions in controllers.items():
            if not isinstance(actions, Mapping):
                return None
            for action, flags in actions.items():
                if isinstance(flags, Mapping) and flags.get("enabled") is True:
                    enabled.add(f"{type_name}.{controller}.{action}")
    return enabled


def auth_tables(tables: ContentTables) -> list[str]:
    """Every table that decides who may do what: users, roles, permissions and their links,
    API tokens and their permissions (``db/notify.py`` watches them)."""
    from contentapi.db.system import api_token_permission_links, api_token_permissions, api_tokens

    return [
        tables.entity(USER_UID).name,
        tables.entity(ROLE_UID).name,
        tables.entity(PERMISSION_UID).name,
        tables.links["up_users_role_links"].name,
        tables.links["up_permissions_role_links"].name,
        api_tokens.name,
        api_token_permissions.name,
        api_token_permission_links.name,
    ]


async def role_actions(
    conn: AsyncConnection, tables: ContentTables, role_id: int
) -> frozenset[str]:
    """The actions granted to a role (one statement)."""
    permissions = tables.entity(PERMISSION_UID)
    links = tables.links["up_permissions_role_links"]
    rows = await conn.execute(
        select(permissions.c.action)
        .join(links, links.c.permission_id == permissions.c.id)
        .where(links.c.role_id == role_id)
    )
    return frozenset(str(action) for action in rows.scalars() if action)


async def public_actions(conn: AsyncConnection, tables: ContentTables) -> frozenset[str]:
    """The actions of the ``public`` role (one statement)."""
    permissions = tables.entity(PERMISSION_UID)
    links = tables.links["up_permissions_role_links"]
    roles = tables.entity(ROLE_UID)
    rows = await conn.execute(
        select(permissions.c.action)
        .join(links, links.c.permission_id == permissions.c.id)
        .join(roles, roles.c.id == links.c.role_id)
        .where(roles.c.type == "public")
    )
    return frozenset(str(action) for action in rows.scalars() if action)


async def user_access(
    conn: AsyncConnection, tables: ContentTables, user_id: int
) -> tuple[bool, int | None, frozenset[str]] | None:
    """(blocked, role id, role actions) of a user in one statement; ``None`` if no such user."""
    users = tables.entity(USER_UID)
    user_roles = tables.links["up_users_role_links"]
    role_permissions = tables.links["up_permissions_role_links"]
    permissions = tables.entity(PERMISSION_UID)
    statement = (
        select(users.c.blocked, user_roles.c.role_id, permissions.c.action)
        .select_from(
            users.outerjoin(user_roles, user_roles.c.user_id == users.c.id)
            .outerjoin(role_permissions, role_permissions.c.role_id == user_roles.c.role_id)
            .outerjoin(permissions, permissions.c.id == role_permissions.c.permission_id)
        )
        .where(users.c.id == user_id)
    )
    rows = (await conn.execute(statement)).all()
    if not rows:
        return None
    role_id = rows[0].role_id
    actions = frozenset(str(row.action) for row in rows if row.action)
    return bool(rows[0].blocked), int(role_id) if role_id is not None else None, actions


async def role_types(conn: AsyncConnection, tables: ContentTables) -> list[str]:
    """The ``type`` of every role, oldest first (what a default role may name)."""
    roles = tables.entity(ROLE_UID)
    found = await conn.execute(select(roles.c.type).order_by(roles.c.id))
    return [str(value) for value in found.scalars() if value is not None]


async def role_id_of_type(
    conn: AsyncConnection, tables: ContentTables, role_type: str
) -> int | None:
    roles = tables.entity(ROLE_UID)
    found = await conn.execute(select(roles.c.id).where(roles.c.type == role_type).limit(1))
    value = found.scalar()
    return int(value) if value is not None else None


async def grant(
    conn: AsyncConnection, tables: ContentTables, role_id: int, actions: Iterable[str]
) -> None:
    """Add permission rows for ``actions`` to a role."""
    permissions = tables.entity(PERMISSION_UID)
    links = tables.links["up_permissions_role_links"]
    now = datetime.now(UTC).replace(tzinfo=None)
    for action in actions:
        created = await conn.execute(
            permissions.insert()
            .values(action=action, created_at=now, updated_at=now)
            .returning(permissions.c.id)
        )
        await conn.execute(
            links.insert().values(permission_id=created.scalar_one(), role_id=role_id)
        )


async def ensure_default_roles(conn: AsyncConnection, tables: ContentTables) -> None:
    """Create the ``authenticated`` and ``public`` roles (with Strapi's defaults) if missing.

    Strapi creates them one after the other, ``authenticated`` first, so their ``createdAt``
    differ and a sort on it puts ``authenticated`` first; each role here is stamped a
    millisecond after the one before for the same order whatever the clock's resolution.
    """
    roles = tables.entity(ROLE_UID)
    started = datetime.now(UTC).replace(tzinfo=None)
    for position, (role_type, (name, description, actions)) in enumerate(DEFAULT_ROLES.items()):
        if await role_id_of_type(conn, tables, role_type) is not None:
            continue
        now = started + timedelta(milliseconds=position)
        created = await conn.execute(
            roles.insert()
            .values(
                name=name, description=description, type=role_type, created_at=now, updated_at=now
            )
            .returning(roles.c.id)
        )
        await grant(conn, tables, int(created.scalar_one()), actions)
