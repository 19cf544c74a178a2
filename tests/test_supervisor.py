"""``contentapi serve --workers N``: the supervisor and its workers, as real processes.

One server for the module (starting one takes seconds): the tests run in file order, each
leaving two ready workers behind, and the last one stops it."""

from __future__ import annotations

import http.client
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import psutil
import pytest

from contentapi.listening import bind
from contentapi.supervisor import Supervisor
from tests.conftest import ADMIN_TOKEN, MODELS

READY = "Application startup complete"
#: the supervisor heard a worker's first heartbeat
BEATING = "is serving (its first heartbeat)"
#: what a stopping worker logs before it finishes the requests of its connections
STOPPED_ACCEPTING = "Stopped accepting connections"
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


def _wait_for(condition, seconds: float = 60, what: str = "a condition") -> float:
    """Seconds until ``condition()`` holds, polled; fails past ``seconds``."""
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > seconds:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)
    return time.monotonic() - started


def _gone(process: psutil.Process) -> bool:
    """Whether ``process`` has exited (a zombie not yet reaped counts); one reaped between two
    looks at it is gone too, not an error."""
    try:
        return not process.is_running() or process.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _answers(base: str) -> bool:
    try:
        return httpx.get(f"{base}/api/articles", headers=ADMIN, timeout=5).status_code == 200
    except httpx.TransportError:
        return False


#: the ``CONTENTAPI_WORKER_TIMEOUT`` of these tests: short, so a hung worker is replaced fast
WORKER_TIMEOUT = 1.0
#: bound on a replacement's start (loading the app on a busy 2-core machine), not a speed claim
START_BOUND = 20.0


class _Log:
    """What the supervisor and its workers printed."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def text(self) -> str:
        return self.path.read_text(errors="replace")

    def count(self, needle: str) -> int:
        return self.text.count(needle)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("supervisor")


@pytest.fixture(scope="module")
def log(folder: Path) -> _Log:
    return _Log(folder / "serve.log")


@contextmanager
def _serving(
    folder: Path, log: _Log, workers: int
) -> Iterator[tuple[subprocess.Popen[bytes], psutil.Process, str]]:
    """``contentapi serve --workers N`` on a SQLite database in ``folder``, every worker
    ready; the supervisor and its workers killed at the end."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONTENTAPI_")}
    env.update(
        CONTENTAPI_DATABASE_URL=f"sqlite+aiosqlite:///{folder / 'data.db'}",
        CONTENTAPI_CONTENT_TYPES_DIR=str(MODELS),
        CONTENTAPI_ADMIN_TOKEN=ADMIN_TOKEN,
        CONTENTAPI_UPLOADS_DIR=str(folder / "uploads"),
        CONTENTAPI_WORKER_TIMEOUT=str(WORKER_TIMEOUT),
        CONTENTAPI_SHUTDOWN_TIMEOUT="3",
        CONTENTAPI_TEST_HANG_ON_SIGUSR1="1",
    )
    subprocess.run([CONTENTAPI, "migrate"], env=env, check=True, capture_output=True)
    with log.path.open("wb") as output:
        process = subprocess.Popen(
            [CONTENTAPI, "serve", "--port", str(port), "--workers", str(workers)],
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_for(lambda: _answers(base))
        supervisor = psutil.Process(process.pid)
        _wait_for(lambda: len(_workers(supervisor)) == workers)
        _wait_for(lambda: log.count(READY) >= workers, what="every worker ready")
        # before its first heartbeat a worker is starting (60 s allowed), not hung
        _wait_for(lambda: log.count(BEATING) >= workers, what="every worker's first heartbeat")
        yield process, supervisor, base
    finally:
        if process.poll() is None:
            children = psutil.Process(process.pid).children(recursive=True)
            process.kill()
            for child in children:
                child.kill()
            process.wait(timeout=10)


@pytest.fixture(scope="module")
def served(folder: Path, log: _Log):
    with _serving(folder, log, 2) as running:
        yield running


def test_a_killed_worker_is_replaced(served, log):
    _process, supervisor, base = served
    ready = log.count(READY)
    workers = _workers(supervisor)
    assert all("contentapi.worker" in " ".join(w.cmdline()) for w in workers)
    # one supervisor and its workers: no resource-tracker process beside them
    assert len(supervisor.children(recursive=True)) == 2

    killed = workers[0]
    killed.send_signal(signal.SIGKILL)
    assert _answers(base)  # the other worker goes on serving
    _wait_for(lambda: len(_workers(supervisor)) == 2 and killed not in _workers(supervisor))
    _wait_for(lambda: log.count(READY) == ready + 1, what="a replacement ready")
    assert _answers(base)


def test_workers_that_cannot_start_stop_the_supervisor():
    with bind("127.0.0.1", 0) as sock:
        failing = [sys.executable, "-c", "import sys; sys.exit(3)", "--fd"]
        started = time.monotonic()
        assert Supervisor(sock, 2, worker_command=failing).run() == 1
        assert time.monotonic() - started < 30


class _Clients:
    """A thread sending GET requests, each on a new connection (so the kernel hands it to a
    worker that accepts), and counting answers by status and failures by kind."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.statuses: dict[int, int] = {}
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                response = httpx.get(f"{self.base}/api/articles", headers=ADMIN, timeout=10)
            except httpx.TransportError as error:
                self.failures.append(repr(error))
                continue
            self.statuses[response.status_code] = self.statuses.get(response.status_code, 0) + 1
            self._stop.wait(0.02)  # steady traffic that leaves the cores to starting workers

    def __enter__(self) -> _Clients:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join(30)


def test_a_hung_worker_is_replaced_while_the_other_serves(served, log):
    _process, supervisor, base = served
    hung, healthy = _workers(supervisor)
    ready = log.count(READY)
    with _Clients(base) as clients:
        hung.send_signal(signal.SIGUSR1)  # its event loop spins for ever (TEST_HANG)
        killed_after = _wait_for(
            lambda: _gone(hung),
            seconds=WORKER_TIMEOUT + START_BOUND,
            what="the hung worker killed",
        )
        ready_after = killed_after + _wait_for(
            lambda: log.count(READY) == ready + 1, seconds=START_BOUND, what="a replacement ready"
        )
        served_meanwhile = sum(clients.statuses.values())
    assert killed_after < WORKER_TIMEOUT + 1.5, killed_after
    assert ready_after < WORKER_TIMEOUT + START_BOUND
    assert healthy in _workers(supervisor) and len(_workers(supervisor)) == 2
    assert clients.statuses.keys() == {200}, clients.statuses
    assert served_meanwhile > 0 and not clients.failures, clients.failures[:3]
    assert f"Worker [{hung.pid}] has not answered" in log.text
    print(
        f"hung worker killed after {killed_after:.1f} s, replacement ready after "
        f"{ready_after:.1f} s, {served_meanwhile} answers meanwhile"
    )


def test_sighup_replaces_the_workers_one_by_one_refusing_no_connection(served, log):
    process, supervisor, base = served
    old = {worker.pid for worker in _workers(supervisor)}
    ready = log.count(READY)
    with _Clients(base) as clients:
        process.send_signal(signal.SIGHUP)
        _wait_for(
            lambda: (
                log.count(READY) == ready + 2
                and len(_workers(supervisor)) == 2
                and not old & {worker.pid for worker in _workers(supervisor)}
            ),
            seconds=3 * START_BOUND,
            what="both workers replaced",
        )
        _wait_for(lambda: sum(clients.statuses.values()) > 0)
    assert not clients.failures, clients.failures[:3]  # a refused connection is a ConnectError
    assert clients.statuses.keys() == {200}, clients.statuses
    assert process.poll() is None


def _held(worker: psutil.Process, port: int) -> int:
    """The connections ``worker`` holds open on the server's ``port``."""
    return sum(
        1
        for connection in worker.net_connections(kind="tcp")
        if connection.status == psutil.CONN_ESTABLISHED and connection.laddr.port == port
    )


def test_connections_piled_on_one_worker_are_spread_over_both(served):
    """Kept-alive connections all accepted by one worker (the other stopped meanwhile): the
    worker over its share answers ``Connection: close``, the clients reconnect, and each worker
    ends up holding half (``connection_shares.py``)."""
    _process, supervisor, base = served
    port = int(base.rsplit(":", 1)[1])
    paused, other = _workers(supervisor)
    clients = [http.client.HTTPConnection("127.0.0.1", port, timeout=10) for _ in range(12)]
    paused.suspend()  # for well under the heartbeat timeout: it only must not accept
    try:
        for client in clients:
            client.connect()
        # 0.6 s at most: the paused worker's heartbeat must not fall silent for WORKER_TIMEOUT
        _wait_for(lambda: _held(other, port) == 12, seconds=0.6, what="one worker holding all")
    finally:
        paused.resume()
    told_to_close = 0
    try:
        # rounds of a request on each connection, until one where no worker closed any and the
        # split is even: a worker sees the other's count as of the other's last request, so a
        # few rounds may move a connection back; 40 is far more than that takes
        for _ in range(40):
            closed_now = 0
            for client in clients:
                client.request("GET", "/api/articles", headers=ADMIN)
                response = client.getresponse()
                response.read()
                assert response.status == 200
                if response.getheader("connection") == "close":
                    closed_now += 1  # http.client reconnects at the next request
            told_to_close += closed_now
            if not closed_now and sorted((_held(paused, port), _held(other, port))) == [6, 6]:
                break
        assert sorted((_held(paused, port), _held(other, port))) == [6, 6]
        assert told_to_close >= 6
    finally:
        for client in clients:
            client.close()


def test_sigterm_finishes_a_request_in_flight_and_stops_all(served, log):
    process, supervisor, base = served
    workers = _workers(supervisor)
    stopping = log.count(STOPPED_ACCEPTING)
    port = int(base.rsplit(":", 1)[1])
    body = b'{"data": {"title": "sent across a shutdown"}}'
    head = (
        f"POST /api/articles HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {ADMIN_TOKEN}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    get = f"GET /api/articles HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {ADMIN_TOKEN}\r\n\r\n"
    with (
        socket.create_connection(("127.0.0.1", port), timeout=10) as client,
        socket.create_connection(("127.0.0.1", port), timeout=10) as fresh,
    ):
        client.sendall(head + body[:10])
        time.sleep(0.2)  # the worker reads the head and starts the request; accepts `fresh`
        process.send_signal(signal.SIGTERM)
        _wait_for(
            lambda: log.count(STOPPED_ACCEPTING) >= stopping + 2, seconds=10, what="no accepting"
        )
        # accepted before the shutdown, its request sent after it began: answered, not dropped
        fresh.sendall(get.encode())
        assert fresh.recv(65536).startswith(b"HTTP/1.1 200")
        client.sendall(body[10:])
        answer = client.recv(65536)
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
    assert process.wait(timeout=10) == 0
    assert not any(worker.is_running() for worker in workers)


#: A stand-in worker (no app: fast): beats on its heartbeat pipe; exits 3 at once while the
#: file ``broken`` exists in its folder, stops beating (hangs) while ``hang`` exists.
_FAKE_WORKER = """
import os, sys, time
args = sys.argv[1:]
fd = int(args[args.index("--heartbeat-fd") + 1])
if os.path.exists("broken"):
    sys.exit(3)
open(f"ready-{os.getpid()}", "w").close()
while True:
    if not os.path.exists("hang"):
        os.write(fd, b".")
    time.sleep(0.05)
"""

_SUPERVISE = """
import sys
from contentapi.listening import bind
from contentapi.supervisor import Supervisor
command = [sys.executable, "-c", sys.argv[1], "--fd"]
sys.exit(Supervisor(bind("127.0.0.1", 0), 2, command, worker_timeout=0.5).run())
"""


@pytest.fixture
def fake_served(tmp_path: Path):
    log = _Log(tmp_path / "supervisor.log")
    with log.path.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-c", _SUPERVISE, _FAKE_WORKER],
            cwd=tmp_path,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    supervisor = psutil.Process(process.pid)
    try:
        _wait_for(
            lambda: (
                len(_workers(supervisor)) == 2
                and all(
                    (tmp_path / f"ready-{worker.pid}").exists() for worker in _workers(supervisor)
                )
            ),
            seconds=20,
            what="two workers",
        )
        yield process, supervisor, log, tmp_path
    finally:
        if process.poll() is None:
            workers = _workers(supervisor)
            process.kill()
            for worker in workers:
                worker.kill()
            process.wait(timeout=10)


def test_a_worker_that_stops_beating_is_killed_and_replaced(fake_served):
    process, supervisor, log, folder = fake_served
    first = {worker.pid for worker in _workers(supervisor)}
    (folder / "hang").touch()
    _wait_for(lambda: log.count("has not answered") >= 2, seconds=10, what="both killed")
    (folder / "hang").unlink()
    _wait_for(
        lambda: (
            len(_workers(supervisor)) == 2
            and not first & {worker.pid for worker in _workers(supervisor)}
        ),
        seconds=10,
        what="two new workers",
    )
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 0


def test_sighup_keeps_the_old_workers_when_the_new_ones_cannot_start(fake_served):
    process, supervisor, log, folder = fake_served
    old = {worker.pid for worker in _workers(supervisor)}
    (folder / "broken").touch()
    process.send_signal(signal.SIGHUP)
    _wait_for(lambda: "old workers keep serving" in log.text, seconds=10, what="the roll given up")
    assert {worker.pid for worker in _workers(supervisor)} == old
    assert process.poll() is None
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 0


def test_workers_stop_when_their_supervisor_is_gone(tmp_path: Path):
    """A supervisor killed (SIGKILL, no chance to stop them): its workers see the heartbeat
    pipe closed and exit, instead of serving for ever with nobody to replace or stop them."""
    with bind("127.0.0.1", 0) as sock:
        read_end, write_end = os.pipe()
        env = {k: v for k, v in os.environ.items() if not k.startswith("CONTENTAPI_")}
        env.update(
            CONTENTAPI_DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path / 'data.db'}",
            CONTENTAPI_CONTENT_TYPES_DIR=str(MODELS),
            CONTENTAPI_UPLOADS_DIR=str(tmp_path / "uploads"),
        )
        command = [sys.executable, "-m", "contentapi.worker", "--fd", str(sock.fileno())]
        command += ["--heartbeat-fd", str(write_end), "--heartbeat-interval", "0.05"]
        worker = subprocess.Popen(
            command,
            pass_fds=(sock.fileno(), write_end),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(write_end)
        try:
            _wait_for(
                lambda: bool(select.select([read_end], [], [], 0)[0]), seconds=60, what="a beat"
            )
            os.close(read_end)  # the supervisor's end: gone
            assert worker.wait(timeout=15) == 0
        finally:
            if worker.poll() is None:
                worker.kill()
                worker.wait()


def test_a_lone_hung_worker_is_replaced_too(tmp_path: Path):
    """``serve --workers 1`` runs under the supervisor as well: with nobody else to answer,
    a hung lone worker needs replacing most."""
    log = _Log(tmp_path / "serve.log")
    with _serving(tmp_path, log, 1) as (_process, supervisor, base):
        (hung,) = _workers(supervisor)
        ready = log.count(READY)
        hung.send_signal(signal.SIGUSR1)  # its event loop spins for ever (TEST_HANG)
        _wait_for(
            lambda: _gone(hung),
            seconds=WORKER_TIMEOUT + START_BOUND,
            what="the hung worker killed",
        )
        _wait_for(lambda: log.count(READY) == ready + 1, seconds=START_BOUND, what="its successor")
        assert _answers(base)
        assert f"Worker [{hung.pid}] has not answered" in log.text
