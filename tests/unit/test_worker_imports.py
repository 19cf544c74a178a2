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
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
"""


def _imported_by_a_server(tmp_path: Path) -> set[str]:
    """The top-level packages a server has imported once its app is built."""
    env = {
        "CONTENTAPI_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'probe.db'}",
        "CONTENTAPI_CONTENT_TYPES_DIR": str(MODELS),
        "CONTENTAPI_UPLOADS_DIR": str(tmp_path / "uploads"),
        "PATH": "/usr/bin:/bin",
    }
    result = subprocess.run(
        [sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, check=True
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
        "contentapi.heartbeat",
        "contentapi.listening",
    }
