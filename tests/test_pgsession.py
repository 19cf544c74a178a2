"""The choice of the run's PostgreSQL (``tests/support/pgsession.py``) and the programs its own
server and the fault tests' clusters come from (``tests/support/pgbinaries.py``)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import asyncpg
import pytest

from tests.conftest import BACKENDS, POSTGRES_ADMIN_URL, ROOT
from tests.support import pgbinaries, pgcluster, pgsession


def _closed_address() -> str:
    """A URL where nothing listens: a port just freed."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"postgresql+asyncpg://postgres@127.0.0.1:{port}/postgres"


def _dsn(url: str) -> str:
    return url.replace("postgresql+asyncpg://", "postgresql://")


async def test_nothing_at_the_default_address_starts_a_server_of_the_runs_own_then_removes_it():
    chosen = pgsession.resolve(None, _closed_address())
    assert chosen.origin == "embedded" and chosen.cluster is not None
    folder = chosen.cluster.root
    try:
        conn = await asyncpg.connect(_dsn(chosen.url), timeout=10)
        try:
            assert await conn.fetchval("SELECT 1") == 1
        finally:
            await conn.close()
        assert chosen.cluster.bin_dir == pgbinaries.wheel_bin()
        assert "the run's own" in chosen.describe()
    finally:
        chosen.close()
    assert not folder.exists()
    with pytest.raises(OSError):
        await asyncpg.connect(_dsn(chosen.url), timeout=5)


@pytest.mark.parametrize("default", ["closed", "answering"])
def test_an_explicit_url_wins_and_is_never_replaced(default):
    explicit = _closed_address()
    chosen = pgsession.resolve(
        explicit, _closed_address() if default == "closed" else POSTGRES_ADMIN_URL
    )
    assert (chosen.url, chosen.origin, chosen.cluster) == (explicit, "explicit", None)


@pytest.mark.skipif("postgres" not in BACKENDS, reason="needs the run's PostgreSQL")
@pytest.mark.parametrize(
    ("part", "refused"),
    [("database", "contentapi_no_such_database"), ("role", "contentapi_no_such_role")],
)
def test_a_server_that_answers_but_refuses_stops_the_run(part, refused, tmp_path, monkeypatch):
    base, _, _ = POSTGRES_ADMIN_URL.rpartition("/")
    if part == "database":
        url = f"{base}/{refused}"
    else:
        url = base.replace("://postgres@", f"://{refused}@", 1) + "/postgres"
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where a server of its own goes
    with pytest.raises(pgsession.SuitePostgresError, match="refuses the suite") as caught:
        pgsession.resolve(None, url)
    assert refused in str(caught.value)
    assert not list(tmp_path.iterdir())


@pytest.mark.skipif("postgres" not in BACKENDS, reason="needs the run's PostgreSQL")
async def test_the_runs_server_answers_at_the_admin_url():
    conn = await asyncpg.connect(_dsn(POSTGRES_ADMIN_URL), timeout=10)
    try:
        assert await conn.fetchval("SELECT 1") == 1
    finally:
        await conn.close()
    assert os.environ[pgsession.URL_VARIABLE] == POSTGRES_ADMIN_URL


def test_fault_clusters_use_the_wheels_programs_when_the_system_has_none(monkeypatch):
    monkeypatch.setattr(pgbinaries, "system_bin", lambda: None)
    assert pgbinaries.wheel_bin() is not None
    assert pgbinaries.find("system") == pgbinaries.wheel_bin()
    assert pgcluster.available() is None
    cluster = pgcluster.TempCluster()
    try:
        assert cluster.bin_dir == pgbinaries.wheel_bin()
    finally:
        cluster.destroy()


def test_the_systems_newest_version_is_preferred_to_the_path(tmp_path):
    for version in ("9.6", "15", "16"):
        folder = tmp_path / "lib" / version / "bin"
        folder.mkdir(parents=True)
        for name in pgbinaries.PROGRAMS if version != "16" else ("initdb",):
            (folder / name).write_text("")
    assert pgbinaries.system_bin(tmp_path / "lib", path="") == tmp_path / "lib" / "15" / "bin"
    assert pgbinaries.system_bin(tmp_path / "none", path="") is None


_PROBE = """
import asyncio, os
import asyncpg

async def _select_1():
    url = os.environ["CONTENTAPI_TEST_POSTGRES_URL"].replace("+asyncpg", "")
    conn = await asyncpg.connect(url, timeout=10)
    try:
        return await conn.fetchval("SELECT 1")
    finally:
        await conn.close()

def test_one():
    assert asyncio.run(_select_1()) == 1

def test_two():
    assert asyncio.run(_select_1()) == 1
"""


#: ``make test``'s xdist with the plugin alone (no autoloaded plugins, no suite conftest).
_XDIST_RUN = [
    *("-p", "xdist.plugin", "-p", "tests.support.pgplugin", "-p", "no:cacheprovider"),
    *("-n", "2", "--dist", "load", "test_probe.py"),
]


def test_a_run_with_nothing_at_the_default_address_shares_one_server_among_its_workers(
    tmp_path: Path,
):
    """``-n 2`` as ``make test`` runs, with the plugin alone (a small test file of two tests,
    one per worker, instead of the suite, whose imports take seconds per worker): the
    controller starts the only server, both workers use it, and it is gone when the run ends.
    The run's temporary folder is one of this test's, where its servers are counted, beside
    the system's own: as root the server runs as another OS user, and pytest's folders are
    closed to it."""
    (tmp_path / "test_probe.py").write_text(_PROBE)
    temporary = Path(tempfile.mkdtemp(prefix="contentapi-pgsession-test-"))
    temporary.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != pgsession.URL_VARIABLE}
    env.update(
        {
            pgsession.DEFAULT_URL_VARIABLE: _closed_address(),
            "CONTENTAPI_TEST_BACKENDS": "postgres",
            "TMPDIR": str(temporary),
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
            "PYTHONPATH": os.pathsep.join(
                [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
            ),
        }
    )
    log = tmp_path / "run.log"
    servers: set[str] = set()
    try:
        with log.open("w") as out:
            run = subprocess.Popen(
                [sys.executable, "-m", "pytest", *_XDIST_RUN, "--rootdir", str(tmp_path)],
                cwd=tmp_path,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
            deadline = time.monotonic() + 240
            while run.poll() is None:
                servers.update(path.name for path in temporary.glob("contentapi-pgsuite-*"))
                if time.monotonic() > deadline:
                    run.kill()
                time.sleep(0.05)
        left = list(temporary.glob("contentapi-pgsuite-*"))
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
    output = log.read_text()
    assert run.returncode == 0, output
    assert "PostgreSQL: the run's own" in output
    assert "2 passed" in output
    assert len(servers) == 1, servers
    assert not left
