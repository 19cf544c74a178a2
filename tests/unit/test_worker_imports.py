"""What a worker imports: heavy libraries that only some servers use stay out of the others
(peak RSS of ``serve --workers N`` is their sum per worker; docs/benchmarks.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

MODELS = Path(__file__).resolve().parent.parent / "models"

_PROBE = """
import json, sys
from contentapi.app import create_app
create_app()
names = sys.modules if "--submodules" in sys.argv else {n.split(".")[0] for n in sys.modules}
print(json.dumps(sorted(names)))
"""


def _imported_by_a_server(tmp_path: Path, *, submodules: bool = False) -> set[str]:
    """The top-level packages (or all modules) a server has imported once its app is built."""
    env = {
        "CONTENTAPI_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'probe.db'}",
        "CONTENTAPI_CONTENT_TYPES_DIR": str(MODELS),
        "CONTENTAPI_UPLOADS_DIR": str(tmp_path / "uploads"),
        "PATH": "/usr/bin:/bin",
    }
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, *(["--submodules"] if submodules else [])],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    imported = set(json.loads(result.stdout.strip().splitlines()[-1]))
    assert "contentapi" in imported
    return imported


def test_a_server_without_strawberry_extensions_does_not_import_strawberry(tmp_path: Path) -> None:
    """Strawberry (10 MB per worker) is imported when an extension asks for it, not before."""
    assert "strawberry" not in _imported_by_a_server(tmp_path)


def test_pyjwt_and_cryptography_wait_for_the_first_user_jwt(tmp_path: Path) -> None:
    """PyJWT imports ``cryptography`` (about 10 MB per worker) when it is installed, as it is
    for encrypted transfer archives: both are imported when a user's JWT is first issued or
    verified (``auth/jwt.py``), not by a server whose callers send API tokens."""
    imported = _imported_by_a_server(tmp_path)
    assert "jwt" not in imported
    assert "cryptography" not in imported


def test_the_supervisor_imports_neither_asyncio_nor_the_app() -> None:
    """The supervisor (``serve --workers N``) is one more process beside the workers: the
    standard library it needs and nothing else (asyncio alone is 11 MB of RSS)."""
    probe = "import json, sys, contentapi.supervisor; print(json.dumps(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    imported = set(json.loads(result.stdout.strip().splitlines()[-1]))
    assert "asyncio" not in imported
    assert not {name for name in imported if name.startswith("contentapi.")} - {
        "contentapi.supervisor",
        "contentapi.connection_shares",
        "contentapi.heartbeat",
        "contentapi.listening",
    }


def test_the_orm_stays_out_of_a_server(tmp_path: Path) -> None:
    """contentapi uses SQLAlchemy Core: its asyncio engine is imported without the package
    ``sqlalchemy.ext.asyncio``'s session, which imports the ORM (about 8 MB per worker;
    ``db/async_engine.py``)."""
    imported = _imported_by_a_server(tmp_path, submodules=True)
    assert "sqlalchemy.ext.asyncio.engine" in imported
    assert not {name for name in imported if name.startswith("sqlalchemy.orm")}


def test_an_extension_still_imports_the_whole_asyncio_package() -> None:
    """What the deferred package holds is there on first use, as after a normal import:
    names (``AsyncSession``), submodules, and a missing name is an ``AttributeError``."""
    probe = """
import sys
import contentapi.db.async_engine as ours
assert "sqlalchemy.orm" not in sys.modules
import sqlalchemy.ext.asyncio as package
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession, async_sessionmaker
from sqlalchemy.ext.asyncio.session import AsyncSession as same
assert AsyncSession is same and AsyncConnection is ours.AsyncConnection
assert package.create_async_engine is ours.create_async_engine
try:
    package.no_such_name
except AttributeError:
    print("ok")
"""
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "ok"
