"""Fixtures: every API test runs on SQLite and on PostgreSQL.

``backend`` is a session-scoped parameter; each worker starts the example-models app of each
backend once and keeps it (``SharedApps``), and ``client`` empties its tables before each test.
A file that needs its own models or settings in every test uses ``reused_app`` (started once,
emptied per test), one that needs a fresh database ``start_app``.
PostgreSQL is required, but need not be installed: ``tests/support/pgplugin.py`` picks the
server once per run (``CONTENTAPI_TEST_POSTGRES_URL``, else the default address, else a
throwaway server of the run's own: ``tests/support/pgsession.py``); a chosen server that
cannot be reached fails the suite (README). ``CONTENTAPI_TEST_BACKENDS=sqlite`` leaves
PostgreSQL out for a quick local run.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
from fastapi import FastAPI

from contentapi.app import create_app
from contentapi.auth.tokens import create_token
from contentapi.config import Settings
from contentapi.db.engine import StatementCounter
from contentapi.db.sync import sync_database
from contentapi.runtime import Runtime
from tests.support import pgcluster, pgsession
from tests.support.pgproxy import RoundTripProxy
from tests.support.reset import reset_tables
from tests.support.s3emulator import S3Emulator
from tests.support.server import FIGURES

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "content-types"
#: Test-only models beside the examples, so that every relation kind exists.
EXTRA_MODELS = Path(__file__).resolve().parent / "models"
ADMIN_TOKEN = "test-admin-token"
BACKENDS = pgsession.BACKENDS
#: The admin URL the suite's PostgreSQL databases are created through: the run's choice
#: (``tests/support/pgplugin.py``), read in ``pytest_configure`` below, before any test module
#: imports it.
POSTGRES_ADMIN_URL = pgsession.DEFAULT_URL
pytest_plugins = ("tests.support.pgplugin",)


def pytest_configure(config: pytest.Config) -> None:
    global POSTGRES_ADMIN_URL
    POSTGRES_ADMIN_URL = os.environ.get(pgsession.URL_VARIABLE, pgsession.DEFAULT_URL)


#: The files that take longest for their number of tests (server processes, fault injection,
#: schemathesis, tsc, many apps), heaviest first: 6 s and more each, 378 of the suite's 631 s
#: of test time (``--junitxml`` of two whole runs, 2026-11-27).
HEAVY_FILES = (
    "tests/api/security/test_faults.py",
    "tests/api/events/test_live_updates.py",
    "tests/api/test_transfer.py",
    "tests/test_supervisor.py",
    "tests/test_setup.py",
    "tests/api/security/test_resources.py",
    "tests/api/security/test_memory_after_burst.py",
    "tests/api/test_corpus.py",
    "tests/api/events/test_webhooks.py",
    "tests/api/events/test_event_faults.py",
    "tests/api/upload/test_s3.py",
    "tests/api/test_cli_locales.py",
    "tests/api/events/test_strapi_recordings.py",
    "tests/test_reload.py",
    "tests/api/openapi/test_schemathesis.py",
    "tests/api/typescript/test_compiles.py",
    "tests/test_soak.py",
    "tests/api/mail/test_providers.py",
    "tests/test_readme_examples.py",
    "tests/api/users/test_rate_limit.py",
    "tests/api/perf/test_caller_cache.py",
    "tests/api/mail/test_advanced_settings.py",
    "tests/api/test_sync.py",
    "tests/api/test_cli_tokens.py",
    "tests/api/test_instances.py",
    "tests/api/security/test_fuzz_graphql.py",
    "tests/api/security/test_fuzz_queries.py",
    "tests/api/security/test_fuzz_users_upload.py",
    "tests/api/mail/test_email_confirmation.py",
    "tests/api/mail/test_password_reset.py",
    "tests/api/events/test_cli_webhooks.py",
    "tests/api/extensions/test_rest_customization.py",
    "tests/api/security/test_statement_timeout.py",
    # two servers per parameter, 5,000 reads each (about 20 s a parameter, four parameters)
    "tests/api/perf/test_response_cache_staleness.py",
)
#: one heavy file among this many files at the head of the queue
_HEAVY_EVERY = 3


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The order ``--dist loadfile`` hands files to the workers in (``make test`` passes
    ``--no-loadscope-reorder``, so xdist keeps it): the heavy files first, each followed by
    two of the others (most tests first), then the rest. Left to the end, as xdist's own order
    (most tests first) leaves them, the heavy files ran together and slowed each other down,
    with nothing light left to fill the workers that finished.
    """
    files: dict[str, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.nodeid.partition("::")[0], []).append(item)
    heavy = [path for path in HEAVY_FILES if path in files]
    light = sorted(
        (path for path in files if path not in HEAVY_FILES), key=lambda p: -len(files[p])
    )
    order: list[str] = []
    for path in heavy:
        order.append(path)
        order += light[: _HEAVY_EVERY - 1]
        light = light[_HEAVY_EVERY - 1 :]
    order += light
    items[:] = [item for path in order for item in files[path]]


def pytest_unconfigure(config: pytest.Config) -> None:
    """A pytest-xdist worker leaves without tearing its heap down object by object: its
    results are sent by then, and the teardown of a whole run's objects (one to two GB) took seconds
    the controller waits for before the run can end."""
    if hasattr(config, "workerinput"):
        atexit.register(_leave_now)  # registered last, run first


def _leave_now() -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """The figures the fault, resource and soak tests measured (``tests/support/server.py``)."""
    for name, figures in FIGURES.items():
        terminalreporter.write_line(f"{name}: {figures}")


def _asyncpg_dsn(url: str) -> str:
    return url.replace("postgresql+asyncpg://", "postgresql://")


class Databases:
    """Creates throw-away databases of one backend; drops them at the end of the session.

    On PostgreSQL, a database for known models is a copy of a template whose tables those
    models' sync already made (``CREATE DATABASE … TEMPLATE``, one template per models folder
    and worker). The start-up's sync then finds nothing to create, just as it finds nothing on
    a database it made itself, and writes its rows (roles, locales, settings) as on an empty
    database: the same start, 0.3 s less of PostgreSQL DDL each, some hundred times a run.
    """

    def __init__(self, backend: str, tmp: Path) -> None:
        self.backend = backend
        self.tmp = tmp
        self.created: list[str] = []
        self._templates: dict[tuple[object, ...], str] = {}

    async def new_url(self, models: Path | None = None, **overrides: object) -> str:
        """A new, empty database; with ``models`` (and the settings ``overrides`` an app will
        start with), its tables already made (PostgreSQL)."""
        name = f"contentapi_test_{uuid.uuid4().hex[:12]}"
        if self.backend == "sqlite":
            return f"sqlite+aiosqlite:///{self.tmp / name}.db"
        template = await self._template(models, overrides) if models is not None else None
        await self._create(name, template)
        return self._url(name)

    async def _template(self, models: Path, overrides: dict[str, object]) -> str:
        """The template database of ``models``: migrations and content tables, no rows. The
        tables depend on the models and on the custom fields the settings declare (their own
        and the extensions'), so those settings are part of the template's key."""
        shaping = {k: v for k, v in overrides.items() if k in ("custom_fields", "extensions")}
        key = (models, repr(sorted(shaping.items())))
        if key not in self._templates:
            name = f"contentapi_template_{uuid.uuid4().hex[:12]}"
            await self._create(name, None)
            runtime = Runtime.build(make_settings(self._url(name), models, **shaping))
            try:
                await sync_database(runtime.database, runtime.tables)
            finally:
                await runtime.database.dispose()  # a template may have no connection
            self._templates[key] = name
        return self._templates[key]

    async def _create(self, name: str, template: str | None) -> None:
        try:
            conn = await asyncpg.connect(_asyncpg_dsn(POSTGRES_ADMIN_URL), timeout=10)
        except (OSError, asyncpg.PostgresError) as exc:
            pytest.fail(f"PostgreSQL is not reachable at {POSTGRES_ADMIN_URL}: {exc}")
        try:
            copy = f' TEMPLATE "{template}"' if template else ""
            await conn.execute(f'CREATE DATABASE "{name}"{copy}')
        finally:
            await conn.close()
        self.created.append(name)

    @staticmethod
    def _url(name: str) -> str:
        base, _, _ = POSTGRES_ADMIN_URL.rpartition("/")
        return f"{base}/{name}"

    async def drop_all(self) -> None:
        if not self.created:
            return
        conn = await asyncpg.connect(_asyncpg_dsn(POSTGRES_ADMIN_URL), timeout=10)
        try:
            for name in self.created:
                await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await conn.close()
        self.created.clear()
        self._templates.clear()


@pytest.fixture(scope="session", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="session")
async def databases(
    backend: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Databases]:
    manager = Databases(backend, tmp_path_factory.mktemp(backend))
    yield manager
    await manager.drop_all()


def make_settings(database_url: str, models: Path = MODELS, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "database_url": database_url,
        "content_types_dir": models,
        "admin_token": ADMIN_TOKEN,
        "locales": "en,fr",
        "api_token_salt": "test-salt",
        "jwt_secret": "test-jwt-secret-that-is-long-enough-for-hs512-keys-0123456789abcdef",
        # Every test client has the same address; the limit itself is tested on its own app.
        "auth_rate_limit_max": 10_000,
        "uploads_dir": Path(tempfile.mkdtemp(prefix="contentapi-uploads-")),
        # A worker looks at the change feed every second; a session keeps dozens of apps, whose
        # looks would add up. The event tests ask for their own (tests/api/events).
        "events_poll_interval": 30.0,
    }
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]


class AppHandle:
    """A started app and a client talking to it in-process."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app
        self.runtime: Runtime = app.state.runtime
        self.client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url="http://testserver",
            event_hooks={"response": [_no_password_hash]},
        )
        self._lifespan = app.router.lifespan_context(app)

    async def __aenter__(self) -> AppHandle:
        await self._lifespan.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.client.aclose()
        await self._lifespan.__aexit__(None, None, None)


StartApp = Callable[..., Awaitable[AppHandle]]

#: Prefixes of password hashes (argon2, and bcrypt as Strapi writes it).
HASH_PREFIXES = (b"$argon2", b"$2a$", b"$2b$", b"$2y$")


async def _no_password_hash(response: httpx.Response) -> None:
    """Every response of the whole suite is scanned: no password hash may ever leave."""
    body = await response.aread()
    leaked = [prefix for prefix in HASH_PREFIXES if prefix in body]
    assert not leaked, f"a password hash left the server: {response.request.url}"


@pytest.fixture
async def start_app(databases: Databases) -> AsyncIterator[StartApp]:
    """Start extra apps (own models, own settings) on fresh databases; stopped after the test."""
    handles: list[AppHandle] = []

    async def start(models: Path = MODELS, database_url: str | None = None, **overrides: object):
        url = database_url or await databases.new_url(models, **overrides)
        handle = AppHandle(create_app(make_settings(url, models, **overrides)))
        await handle.__aenter__()
        handles.append(handle)
        return handle

    yield start
    for handle in reversed(handles):
        await handle.__aexit__()


@pytest.fixture(scope="session")
def test_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example models plus ``tests/models``: every relation kind in one registry."""
    folder = tmp_path_factory.mktemp("models") / "content-types"
    shutil.copytree(MODELS, folder)
    for path in EXTRA_MODELS.glob("*.json"):
        shutil.copy(path, folder / path.name)
    return folder


class SharedApps:
    """Apps kept for the whole session of a worker, one per backend, models and settings.

    ``backend`` is a session-scoped parameter, but ``--dist loadfile`` hands a worker whole
    files, so a worker's tests switch backend at nearly every file; a fixture parametrized by
    it would start its app again at each switch (a second on PostgreSQL). These outlive it.
    """

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.handles: dict[tuple[str, Path, tuple[tuple[str, object], ...]], AppHandle] = {}
        self.databases: list[Databases] = []

    async def get(self, backend: str, models: Path, **overrides: object) -> AppHandle:
        """The app of these models and settings on ``backend``, started on first use."""
        key = (backend, models, tuple(sorted(overrides.items())))
        if key not in self.handles:
            databases = Databases(backend, self.tmp)
            self.databases.append(databases)
            url = await databases.new_url(models, **overrides)
            settings = make_settings(url, models, **overrides)
            handle = AppHandle(create_app(settings))
            await handle.__aenter__()
            self.handles[key] = handle
        return self.handles[key]

    async def release_connections(self) -> None:
        """Close the pooled connections the apps keep idle (up to 20 each on PostgreSQL), so
        that the workers together stay well below the server's ``max_connections``; the next
        request opens what it needs."""
        for handle in self.handles.values():
            await handle.runtime.database.close_idle()

    async def close(self) -> None:
        for handle in self.handles.values():
            await handle.__aexit__()
        for databases in self.databases:
            await databases.drop_all()


@pytest.fixture(scope="session")
async def shared_apps(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[SharedApps]:
    apps = SharedApps(tmp_path_factory.mktemp("shared"))
    yield apps
    await apps.close()


@pytest.fixture(autouse=True, scope="module")
async def _idle_connections_closed_after_each_file(
    shared_apps: SharedApps,
) -> AsyncIterator[None]:
    yield
    await shared_apps.release_connections()


@pytest.fixture(scope="session")
async def shared_app(backend: str, shared_apps: SharedApps, test_models: Path) -> AppHandle:
    return await shared_apps.get(backend, test_models)


@pytest.fixture
def reused_app(backend: str, shared_apps: SharedApps) -> StartApp:
    """``start_app`` for a file whose every test wants an app of its own models or settings:
    that app is started once per worker and, like ``app``, its tables are emptied before each
    test. Not for tests that leave files, connections or extension state behind."""

    async def get(models: Path = MODELS, **overrides: object) -> AppHandle:
        handle = await shared_apps.get(backend, models, **overrides)
        await _empty_content_tables(handle.runtime)
        return handle

    return get


async def _empty_content_tables(runtime: Runtime) -> None:
    """A fresh start-up's state: content tables empty, the default roles in place."""
    await reset_tables(runtime)


@pytest.fixture
async def app(shared_app: AppHandle) -> AppHandle:
    """The example-models app with empty content tables."""
    await _empty_content_tables(shared_app.runtime)
    return shared_app


@pytest.fixture
def cluster() -> Iterator[pgcluster.TempCluster]:
    """A PostgreSQL cluster of the test's own (temporary folder, own port), running: the fault
    tests stop, crash and restart it. Skipped where no PostgreSQL binaries can run."""
    reason = pgcluster.available()
    if reason is not None:
        pytest.skip(reason)
    made = pgcluster.TempCluster()
    try:
        made.init()
        made.start()
        yield made
    finally:
        made.destroy()


@pytest.fixture
def client(app: AppHandle) -> httpx.AsyncClient:
    return app.client


@pytest.fixture
def admin() -> dict[str, str]:
    """Headers of a full-access request."""
    return {"Authorization": f"Bearer {ADMIN_TOKEN}"}


@pytest.fixture
def make_token(app: AppHandle) -> Callable[..., Awaitable[dict[str, str]]]:
    """Create an API token; returns the headers that carry it."""

    async def make(token_type: str, actions: tuple[str, ...] = ()) -> dict[str, str]:
        runtime = app.runtime
        assert runtime.token_hasher is not None
        async with runtime.database.write() as conn:
            created = await create_token(
                conn,
                runtime.token_hasher,
                name=f"{token_type}-{uuid.uuid4().hex[:6]}",
                token_type=token_type,  # type: ignore[arg-type]
                actions=actions,
            )
        return {"Authorization": f"Bearer {created.secret}"}

    return make


@pytest.fixture
def statements() -> type[StatementCounter]:
    return StatementCounter


@pytest.fixture(scope="session")
def s3_emulator() -> Iterator[S3Emulator]:
    """moto's S3 server on a free local port (``tests/support/s3emulator.py``)."""
    emulator = S3Emulator()
    emulator.start()
    yield emulator
    emulator.stop()


@pytest.fixture
def s3_bucket(s3_emulator: S3Emulator) -> dict[str, object]:
    """A new bucket of the emulator; the settings of the ``aws-s3`` provider that use it."""
    bucket = f"media-{uuid.uuid4().hex[:12]}"
    s3_emulator.client().create_bucket(Bucket=bucket)
    s3_emulator.heal()
    return {
        "upload_provider": "aws-s3",
        "s3_bucket": bucket,
        "s3_endpoint": s3_emulator.endpoint,
        "s3_force_path_style": True,
        "s3_access_key_id": "test",
        "s3_secret_access_key": "test",
    }


@pytest.fixture
async def postgres_relay(backend: str) -> AsyncIterator[RoundTripProxy]:
    """A relay in front of PostgreSQL (``tests/support/pgproxy.py``): it counts round trips,
    and a test can stop it — the database going away."""
    if backend != "postgres":
        pytest.skip("a relay in front of PostgreSQL")
    relay = RoundTripProxy(POSTGRES_ADMIN_URL)
    await relay.start()
    yield relay
    await relay.stop()
