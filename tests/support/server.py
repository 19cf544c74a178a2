"""``contentapi serve`` as a real process on a free port: what the fault and resource tests
run against (worker processes, sockets and signals as in production)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import psutil

__all__ = ["FIGURES", "ServerProcess", "free_port"]

#: Figures the fault and resource tests measured, printed at the end of the session.
FIGURES: dict[str, str] = {}

CONTENTAPI = str(Path(sys.executable).parent / "contentapi")
ADMIN_TOKEN = "faults-admin-token"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServerProcess:
    """Started with ``start()``, stopped with ``stop()``; ``log`` holds what it printed."""

    def __init__(self, database_url: str, models: Path, workers: int = 1, **env: str) -> None:
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.workers = workers
        self.folder = Path(tempfile.mkdtemp(prefix="contentapi-serve-"))
        self.uploads = self.folder / "uploads"
        self.log_path = self.folder / "server.log"
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("CONTENTAPI_")}
        self.env.update(
            CONTENTAPI_DATABASE_URL=database_url,
            CONTENTAPI_CONTENT_TYPES_DIR=str(models),
            CONTENTAPI_ADMIN_TOKEN=ADMIN_TOKEN,
            CONTENTAPI_UPLOADS_DIR=str(self.uploads),
            CONTENTAPI_JWT_SECRET="faults-jwt-secret-long-enough-0123456789abcdef0123456789",
            CONTENTAPI_AUTH_RATE_LIMIT_MAX="1000000",
            **env,
        )
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {ADMIN_TOKEN}"}

    def start(self, timeout: float = 90) -> None:
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                [CONTENTAPI, "serve", "--port", str(self.port), "--workers", str(self.workers)],
                cwd=self.folder,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self.wait_ready(timeout)

    def wait_ready(self, timeout: float = 90) -> None:
        """Until every worker has started (``len(worker_pids())``) and the API answers."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited:\n{self.log}")
            try:
                response = httpx.get(f"{self.base_url}/api/articles", headers=self.headers)
                if response.status_code == 200 and self.started_workers() >= self.workers:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"server not ready in {timeout} s:\n{self.log}")

    def started_workers(self) -> int:
        return self.log.count("Application startup complete")

    @property
    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def worker_pids(self) -> list[int]:
        """The uvicorn worker processes (children of the supervisor that serve requests)."""
        children = psutil.Process(self.pid).children()
        return sorted(child.pid for child in children if "resource_tracker" not in _cmd(child))

    def serving_pid(self) -> int:
        """A process that answers: the first worker, or the server itself when it runs
        without a supervisor (one worker, ``CONTENTAPI_WORKER_TIMEOUT=0``)."""
        workers = self.worker_pids()
        return workers[0] if workers else self.pid

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


def _cmd(process: psutil.Process) -> str:
    try:
        return " ".join(process.cmdline())
    except psutil.Error:
        return ""
