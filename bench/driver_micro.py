"""CPU per execution of one kept ``SELECT`` by id: through SQLAlchemy's ``AsyncConnection``
and straight through asyncpg (``db/driver.py`` explains why both exist).

    python -m bench.driver_micro [--url postgresql+asyncpg://…/contentapi_bench] [--runs 3000]

Needs a database with a ``books`` table (the one ``make bench`` seeds). No timing is asserted
anywhere; the figures go into docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Awaitable, Callable

from sqlalchemy import Integer, bindparam, column, select, table
from sqlalchemy.ext.asyncio import create_async_engine

DEFAULT_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/contentapi_bench"


async def _measure(label: str, runs: int, once: Callable[[], Awaitable[object]]) -> None:
    for _ in range(200):
        await once()
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(runs):
        await once()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(f"{label:<24} CPU {cpu / runs * 1e6:6.0f} µs   wall {wall / runs * 1e6:6.0f} µs")


async def main(url: str, runs: int) -> None:
    engine = create_async_engine(url)
    books = table("books", column("id"), column("title"), column("pages"), column("price"))
    statement = select(books).where(books.c.id == bindparam("id", type_=Integer))
    sql = "SELECT books.id, books.title, books.pages, books.price FROM books WHERE books.id = $1"
    async with engine.connect() as conn:
        conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
        driver = (await conn.get_raw_connection()).driver_connection
        assert driver is not None
        prepared = await driver.prepare(sql)

        async def through_sqlalchemy() -> object:
            return (await conn.execute(statement, {"id": 17})).all()

        await _measure("SQLAlchemy execute", runs, through_sqlalchemy)
        await _measure("asyncpg fetch", runs, lambda: driver.fetch(sql, 17))
        await _measure("asyncpg prepared fetch", runs, lambda: prepared.fetch(17))
    await engine.dispose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=DEFAULT_URL)
    parser.add_argument("--runs", type=int, default=3000)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.url, arguments.runs))
