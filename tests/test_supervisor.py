"""``contentapi serve --workers N``: the supervisor and its workers, as real processes."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil
import pytest

from contentapi.listening import bind
from contentapi.supervisor import Supervisor
from tests.conftest import ADMIN_TOKEN, MODELS

CONTENTAPI = str(Path(sys.executable).parent / "contentapi")
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _workers(supervisor: psutil.Process) -> list[psutil.Process]:
    """The supervisor's live children (a killed one is gone once the supervisor reaped it)."""
    alive = []
    try:
        children = supervisor.children()
    except psutil.Error:
        return []
    for child in children:
        try:
            if child.status() != psutil.STATUS_ZOMBIE:
                alive.append(child)
        except psutil.Error:
            continue
    return alive


def _wait_for(condition, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail("timed out")
        time.sleep(0.2)


def _answers(base: str) -> bool:
    try:
        return httpx.get(f"{base}/api/articles", headers=ADMIN, timeout=5).status_code == 200
    except httpx.TransportError:
        return False


@pytest.fixture
def served(tmp_path: Path):
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONTENTAPI_")}
    env.update(
        CONTENTAPI_DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path / 'data.db'}",
        CONTENTAPI_CONTENT_TYPES_DIR=str(MODELS),
        CONTENTAPI_ADMIN_TOKEN=ADMIN_TOKEN,
        CONTENTAPI_UPLOADS_DIR=str(tmp_path / "uploads"),
    )
    subprocess.run([CONTENTAPI, "migrate"], env=env, check=True, capture_output=True)
    process = subprocess.Popen(
        [CONTENTAPI, "serve", "--port", str(port), "--workers", "2"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_for(lambda: _answers(base))
        supervisor = psutil.Process(process.pid)
        _wait_for(lambda: len(_workers(supervisor)) == 2)
        yield process, supervisor, base
    finally:
        if process.poll() is None:
            process.kill()
            for worker in psutil.Process().children(recursive=True):
                worker.kill()
            process.wait(timeout=10)


def test_a_killed_worker_is_replaced_and_a_stop_signal_stops_all(served):
    process, supervisor, base = served
    workers = _workers(supervisor)
    assert all("contentapi.worker" in " ".join(w.cmdline()) for w in workers)
    # one supervisor and its workers: no resource-tracker process beside them
    assert len(supervisor.children(recursive=True)) == 2

    killed = workers[0]
    killed.send_signal(signal.SIGKILL)
    assert _answers(base)  # the other worker goes on serving
    _wait_for(lambda: len(_workers(supervisor)) == 2 and killed not in _workers(supervisor))
    _wait_for(lambda: _answers(base))

    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=40) == 0
    assert not any(worker.is_running() for worker in _workers(supervisor))


def test_workers_that_cannot_start_stop_the_supervisor():
    with bind("127.0.0.1", 0) as sock:
        failing = [sys.executable, "-c", "import sys; sys.exit(3)", "--fd"]
        started = time.monotonic()
        assert Supervisor(sock, 2, worker_command=failing).run() == 1
        assert time.monotonic() - started < 30
