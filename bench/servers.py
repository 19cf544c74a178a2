"""Starting the servers under test on fresh PostgreSQL databases, and measuring their process
trees (peak RSS, CPU seconds) and PostgreSQL's CPU while a load runs."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
import httpx
import psutil

__all__ = [
    "ContentapiServer",
    "Sampler",
    "StrapiServer",
    "analyze_database",
    "process_tree",
    "recreate_database",
]

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "bench" / "models"
PG_ADMIN = os.environ.get("BENCH_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")
#: the scripts that install and run the reference Strapi (bench/reference/README.md)
REFERENCE = ROOT / "bench" / "reference"


async def recreate_database(name: str, admin_url: str = PG_ADMIN) -> str:
    """An empty database ``name`` (dropped first); its URL on the server of ``admin_url``."""
    conn = await asyncpg.connect(admin_url)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return admin_url.rsplit("/", 1)[0] + f"/{name}"


async def analyze_database(name: str) -> None:
    """``VACUUM (ANALYZE)`` after seeding: the planner's statistics and the visibility map as
    autovacuum leaves them in a running system. Right after a bulk load the statistics are
    empty (plans are wrong for both servers) and no page is marked all-visible, so every
    index-only scan reads the table too; a server whose PostgreSQL runs with autovacuum off
    (as some test machines do) would never catch up during a run."""
    conn = await asyncpg.connect(PG_ADMIN.rsplit("/", 1)[0] + f"/{name}")
    try:
        await conn.execute("VACUUM (ANALYZE)")
    finally:
        await conn.close()


async def _wait(url: str, process: subprocess.Popen | None, seconds: float = 240) -> None:
    deadline = time.monotonic() + seconds
    async with httpx.AsyncClient() as client:
        while time.monotonic() < deadline:
            if process is not None and process.poll() is not None:
                raise RuntimeError(f"server exited with {process.returncode}")
            try:
                await client.get(url, timeout=2)
                return
            except httpx.TransportError:
                await asyncio.sleep(0.5)
    raise RuntimeError(f"{url} did not answer in {seconds}s")


@dataclass
class ContentapiServer:
    port: int = 1339
    workers: int = 2
    token: str = "bench-token"
    name: str = "contentapi"
    process: subprocess.Popen | None = None
    database_url: str = ""
    database: str = "contentapi_bench"
    #: where its ``contentapi`` command is (``bench/serve_env.py``; default: this environment)
    bin_dir: Path = field(default_factory=lambda: Path(sys.executable).parent)
    #: settings beside the benchmark's own (``CONTENTAPI_…`` names), e.g. the response cache
    settings: dict[str, str] = field(default_factory=dict)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self, fresh: bool = True) -> None:
        """Start on a fresh database (``fresh``), or again on the one it has (its rows kept)."""
        url = (
            await recreate_database(self.database)
            if fresh
            else PG_ADMIN.rsplit("/", 1)[0] + f"/{self.database}"
        )
        self.database_url = url.replace("postgresql://", "postgresql+asyncpg://")
        env = {
            **os.environ,
            "CONTENTAPI_DATABASE_URL": self.database_url,
            "CONTENTAPI_CONTENT_TYPES_DIR": str(MODELS),
            "CONTENTAPI_ADMIN_TOKEN": self.token,
            "CONTENTAPI_UPLOADS_DIR": tempfile.mkdtemp(prefix="bench-uploads-"),
            "CONTENTAPI_REST_MAX_LIMIT": "100",
            **self.settings,
        }
        command = [str(self.bin_dir / "contentapi"), "migrate"]
        subprocess.run(command, env=env, check=True, capture_output=True)
        self.process = subprocess.Popen(
            [
                str(self.bin_dir / "contentapi"),
                "serve",
                "--port",
                str(self.port),
                "--workers",
                str(self.workers),
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        await _wait(f"{self.base_url}/api/books", self.process)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)


@dataclass
class StrapiServer:
    port: int = 1338
    name: str = "strapi"
    token: str = ""
    pid: int | None = None
    database: str = "strapi_bench"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @staticmethod
    def available() -> bool:
        """Whether the reference can be installed here (it needs Node.js and npm)."""
        return all(shutil.which(tool) for tool in ("node", "npm", "psql", "createdb"))

    async def start(self, fresh: bool = True) -> None:
        """Install and start on a fresh database (``fresh``), or start again on the one it has."""
        env = {**os.environ, "MODELS_DIR": str(MODELS)}
        subprocess.run(["bash", str(REFERENCE / "stop.sh")], env=env, capture_output=True)
        if fresh:
            subprocess.run(
                ["bash", str(REFERENCE / "setup.sh")],
                cwd=ROOT,
                env=env,
                check=True,
                capture_output=True,
            )
            await recreate_database(self.database)
        subprocess.run(
            ["bash", str(REFERENCE / "start.sh"), self.database],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
        )
        reference_dir = Path(
            os.environ.get("REFERENCE_DIR", Path.home() / ".cache/strapi-reference")
        )
        self.token = (reference_dir / "TOKEN").read_text().strip()
        self.pid = int((reference_dir / "strapi.pid").read_text().strip())
        await _wait(f"{self.base_url}/_health", None)

    def stop(self) -> None:
        subprocess.run(["bash", str(REFERENCE / "stop.sh")], capture_output=True)

    @property
    def process(self) -> psutil.Process | None:
        return psutil.Process(self.pid) if self.pid else None


def process_tree(pid: int) -> list[psutil.Process]:
    """A process and its descendants (empty once it is gone)."""
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return []


def _cpu(processes: list[psutil.Process]) -> float:
    total = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
            total += times.user + times.system
        except psutil.Error:
            continue
    return total


def _postgres() -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter(["name"]):
        if process.info["name"] in ("postgres", "postmaster"):
            found.append(process)
    return found


@dataclass
class Sampler:
    """Peak RSS of a process tree and CPU seconds of it and of PostgreSQL during a run."""

    pid: int
    peak_rss: int = 0
    server_cpu: float = 0.0
    postgres_cpu: float = 0.0
    _stop: threading.Event = field(default_factory=threading.Event)

    def __enter__(self) -> Sampler:
        self._server_start = _cpu(process_tree(self.pid))
        self._pg = _postgres()
        self._pg_start = _cpu(self._pg)
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.is_set():
            rss = 0
            for process in process_tree(self.pid):
                try:
                    rss += process.memory_info().rss
                except psutil.Error:
                    continue
            self.peak_rss = max(self.peak_rss, rss)
            self._stop.wait(0.2)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.server_cpu = _cpu(process_tree(self.pid)) - self._server_start
        self.postgres_cpu = _cpu(self._pg) - self._pg_start
