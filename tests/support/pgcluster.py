"""A PostgreSQL cluster of the test's own: ``initdb`` in a temporary folder, its own free port,
started, stopped and restarted at will — the machine's PostgreSQL is never touched.

PostgreSQL refuses to run as root; when the tests are root, the cluster runs as the
``postgres`` OS user (``runuser``) in a folder that user owns. ``available()`` says why a
cluster cannot be made here (no server binaries, no such user), for a skip with that reason.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

__all__ = ["TempCluster", "available"]

_BIN_DIRS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)


def _bin(name: str) -> str | None:
    for folder in _BIN_DIRS:
        if (folder / name).is_file():
            return str(folder / name)
    return shutil.which(name)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def available() -> str | None:
    """``None`` when a cluster can be made, else the reason it cannot."""
    if _bin("initdb") is None or _bin("pg_ctl") is None:
        return "PostgreSQL's server binaries (initdb, pg_ctl) are not installed"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no postgres OS user to run a cluster as"
        if shutil.which("runuser") is None:
            return "running as root without runuser"
    return None


class TempCluster:
    """``start()``/``stop(mode)``/``restart``; ``url`` is the SQLAlchemy URL of ``database``."""

    def __init__(self, database: str = "contentapi") -> None:
        self.port = _free_port()
        self.database = database
        self.root = Path(tempfile.mkdtemp(prefix="contentapi-pgfault-"))
        self.data = self.root / "data"
        self._as_postgres = os.geteuid() == 0
        if self._as_postgres:
            entry = pwd.getpwnam("postgres")
            os.chown(self.root, entry.pw_uid, entry.pw_gid)

    @property
    def url(self) -> str:
        return f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/{self.database}"

    @property
    def admin_dsn(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *command: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        prefix = ["runuser", "-u", "postgres", "--"] if self._as_postgres else []
        return subprocess.run(
            [*prefix, *command], capture_output=True, text=True, check=check, timeout=120
        )

    def init(self) -> None:
        initdb = _bin("initdb")
        assert initdb is not None
        self._run(
            initdb, "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8",
            "--no-sync",
        )  # fmt: skip

    def start(self) -> None:
        """Start and wait until it accepts connections (``pg_ctl -w``)."""
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
            "-c max_connections=100 -c shared_buffers=16MB"
        )
        pg_ctl = _bin("pg_ctl")
        assert pg_ctl is not None
        self._run(
            pg_ctl, "-D", str(self.data), "-o", options, "-l", str(self.root / "log"),
            "-w", "-t", "60", "start",
        )  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        """``fast``: sessions are ended cleanly (57P01); ``immediate``: as a crash, with WAL
        recovery at the next start."""
        pg_ctl = _bin("pg_ctl")
        assert pg_ctl is not None
        self._run(pg_ctl, "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def destroy(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)
