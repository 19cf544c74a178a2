"""Alembic environment: runs on the connection contentapi hands over, or on its own engine.

``contentapi migrate`` and start-up pass a live connection in ``config.attributes``;
plain ``alembic upgrade head`` (with the project's ``alembic.ini``) builds an engine from
``CONTENTAPI_DATABASE_URL`` through the same ``Settings``.
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

from contentapi.db.system import system_metadata

config = context.config
target_metadata = system_metadata


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata)
    with context.begin_transaction():
        context.run_migrations()


def _run_with_own_engine() -> None:
    from contentapi.config import Settings
    from contentapi.db.engine import Database

    async def main() -> None:
        database = Database(Settings().database_url)
        async with database.engine.begin() as conn:
            await conn.run_sync(_run)
        await database.dispose()

    asyncio.run(main())


connection = config.attributes.get("connection")
if context.is_offline_mode():
    raise SystemExit("offline migrations are not supported: run `contentapi migrate`")
if connection is None:
    _run_with_own_engine()
else:
    _run(connection)
