"""Roles and their permissions, as the ``/api/users-permissions/*`` routes manage them.

A role update takes Strapi's nested ``permissions`` tree; the role's permissions become
exactly the tree's enabled actions (what the admin panel sends: the whole tree). Changes are
read by the very next request of any worker, because callers' permissions are read from the
database on every request.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, func, select

from contentapi.auth.permissions import all_actions, grant, permissions_tree, tree_actions
from contentapi.db.engine import Database
from contentapi.db.tables import ContentTables
from contentapi.errors import NotFoundError, ValidationError
from contentapi.schema.builtin import PERMISSION_UID, ROLE_UID, USER_UID
from contentapi.schema.registry import Registry
from contentapi.values import format_datetime

__all__ = ["RolesService"]

PROTECTED_TYPES = frozenset({"public", "authenticated"})


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


#: ``up_roles``' text columns are ``varchar(255)``.
_VARCHAR = 255


def _column_text(name: str, value: str) -> str:
    """A role's text as its ``varchar(255)`` column can hold it: PostgreSQL refuses U+0000
    and longer values, which would otherwise fail as a 500 inside the write."""
    if "\x00" in value:
        raise ValidationError(f"{name} cannot contain the NUL character")
    if len(value) > _VARCHAR:
        raise ValidationError(f"{name} must be at most {_VARCHAR} characters")
    return value


class RolesService:
    def __init__(
        self,
        database: Database,
        tables: ContentTables,
        registry: Registry,
        custom_actions: Mapping[str, tuple[str, ...]] | None = None,
    ) -> None:
        self.database = database
        self.tables = tables
        self.registry = registry
        #: the actions of extensions' custom REST routes, per uid (``rest/customize.py``)
        self.custom_actions = dict(custom_actions or {})
        self.roles = tables.entity(ROLE_UID)
        self.permissions = tables.entity(PERMISSION_UID)
        self.role_links = tables.links["up_permissions_role_links"]
        self.user_roles = tables.links["up_users_role_links"]
        self.users = tables.entity(USER_UID)

    def _role(self, row: Any) -> dict[str, Any]:
        return {
            "id": row.id,
            "name": row.name,
            "description": row.description,
            "type": row.type,
            "createdAt": format_datetime(row.created_at) if row.created_at else None,
            "updatedAt": format_datetime(row.updated_at) if row.updated_at else None,
        }

    async def list(self) -> list[dict[str, Any]]:
        counts = (
            select(self.user_roles.c.role_id, func.count().label("users"))
            .group_by(self.user_roles.c.role_id)
            .subquery()
        )
        statement = (
            select(self.roles, func.coalesce(counts.c.users, 0).label("nb_users"))
            .outerjoin(counts, counts.c.role_id == self.roles.c.id)
            .order_by(self.roles.c.id)
        )
        async with self.database.read() as conn:
            rows = (await conn.execute(statement)).all()
        return [{**self._role(row), "nb_users": int(row.nb_users)} for row in rows]

    async def _actions(self, conn: Any, role_id: int) -> dict[str, int]:
        rows = await conn.execute(
            select(self.permissions.c.action, self.permissions.c.id)
            .join(self.role_links, self.role_links.c.permission_id == self.permissions.c.id)
            .where(self.role_links.c.role_id == role_id)
        )
        return {str(action): int(permission_id) for action, permission_id in rows}

    async def get(self, role_id: int) -> dict[str, Any]:
        async with self.database.read() as conn:
            row = (await conn.execute(select(self.roles).where(self.roles.c.id == role_id))).first()
            if row is None:
                raise NotFoundError("Role not found")
            enabled = await self._actions(conn, role_id)
        tree = permissions_tree(self.registry, enabled, self.custom_actions)
        return {**self._role(row), "permissions": tree}

    def all_permissions(self) -> dict[str, Any]:
        return permissions_tree(self.registry, (), self.custom_actions)

    def _validated(self, body: Mapping[str, Any], creating: bool) -> tuple[dict, set[str] | None]:
        values: dict[str, Any] = {}
        name = body.get("name")
        if creating or "name" in body:
            if not isinstance(name, str) or len(name.strip()) < 3:
                raise ValidationError("name must be at least 3 characters")
            values["name"] = _column_text("name", name.strip())
        if "description" in body:
            description = body["description"]
            if description is not None and not isinstance(description, str):
                raise ValidationError("description must be a `string` type")
            values["description"] = (
                None if description is None else _column_text("description", description)
            )
        if isinstance(body.get("type"), str):
            _column_text("type", body["type"])
        actions: set[str] | None = None
        if "permissions" in body:
            actions = tree_actions(body["permissions"])
            if actions is None:
                raise ValidationError("Invalid permissions: expected Strapi's permissions object")
            unknown = actions - set(all_actions(self.registry, self.custom_actions))
            if unknown:
                raise ValidationError(f"Unknown permission {sorted(unknown)[0]}")
        return values, actions

    async def _set_actions(self, conn: Any, role_id: int, actions: set[str]) -> None:
        current = await self._actions(conn, role_id)
        removed = [
            permission_id for action, permission_id in current.items() if action not in actions
        ]
        if removed:
            await conn.execute(self.permissions.delete().where(self.permissions.c.id.in_(removed)))
        await grant(conn, self.tables, role_id, sorted(actions - set(current)))

    async def create(self, body: Mapping[str, Any]) -> None:
        values, actions = self._validated(body, creating=True)
        role_type = body.get("type") if isinstance(body.get("type"), str) else None
        role_type = role_type or re.sub(r"[^a-z0-9]+", "_", values["name"].lower()).strip("_")
        now = _now()
        async with self.database.write(changes_callers=True) as conn:
            clash = await conn.execute(
                select(self.roles.c.id).where(self.roles.c.type == role_type)
            )
            if clash.first() is not None:
                raise ValidationError("A role with this type already exists")
            created = await conn.execute(
                self.roles.insert()
                .values(type=role_type, created_at=now, updated_at=now, **values)
                .returning(self.roles.c.id)
            )
            await self._set_actions(conn, int(created.scalar_one()), actions or set())

    async def update(self, role_id: int, body: Mapping[str, Any]) -> None:
        values, actions = self._validated(body, creating=False)
        async with self.database.write(changes_callers=True) as conn:
            found = await conn.execute(
                select(self.roles.c.id).where(self.roles.c.id == role_id).with_for_update()
            )
            if found.first() is None:
                raise NotFoundError("Role not found")
            await conn.execute(
                self.roles.update()
                .where(self.roles.c.id == role_id)
                .values(updated_at=_now(), **values)
            )
            if actions is not None:
                await self._set_actions(conn, role_id, actions)

    async def delete(self, role_id: int) -> None:
        """Delete a role; its users move to the ``authenticated`` role (as in Strapi)."""
        async with self.database.write(changes_callers=True) as conn:
            row = (await conn.execute(select(self.roles).where(self.roles.c.id == role_id))).first()
            if row is None:
                raise NotFoundError("Role not found")
            if row.type in PROTECTED_TYPES:
                raise ValidationError(f"The {row.type} role cannot be deleted")
            fallback = (
                await conn.execute(
                    select(self.roles.c.id).where(self.roles.c.type == "authenticated")
                )
            ).scalar_one()
            await conn.execute(
                self.user_roles.update()
                .where(self.user_roles.c.role_id == role_id)
                .values(role_id=fallback)
            )
            permission_ids = list((await self._actions(conn, role_id)).values())
            if permission_ids:
                await conn.execute(
                    self.permissions.delete().where(self.permissions.c.id.in_(permission_ids))
                )
            await conn.execute(self.roles.delete().where(and_(self.roles.c.id == role_id)))
