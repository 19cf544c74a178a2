"""Several worker processes on one listening socket, kept running.

``contentapi serve --workers N`` (N > 1) becomes this process. It binds the socket once, starts
N workers (``python -m contentapi.worker --fd …``) that accept on it, starts a new worker when
one dies, and stops them all gracefully on SIGTERM / SIGINT.

Why not uvicorn's own ``--workers``: its supervisor is a full uvicorn process (27 MB) and its
``spawn`` start method adds a multiprocessing resource tracker process (12 MB) that nothing
here uses; this one imports only the standard library it needs (about 11 MB). Measured with
``make bench``: peak RSS of the server's process tree (docs/benchmarks.md).

A worker that dies within ``QUICK_DEATH`` seconds of its start did not come up (a database
that refuses, a model error): after ``MAX_QUICK_DEATHS`` of those in a row the supervisor
stops and exits 1 rather than restart it for ever.

``request_restart()`` (safe from another thread: ``serve --reload``'s watcher calls it) makes
the loop stop every worker gracefully and start new ones on the same socket: connections that
arrive meanwhile wait in the socket's backlog instead of being refused.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import threading
import time

from contentapi.listening import AddressError, bind

__all__ = ["Supervisor", "main"]

QUICK_DEATH = 10.0
MAX_QUICK_DEATHS = 5
STOP_GRACE = 30.0
POLL = 0.2


def _say(message: str) -> None:
    print(f"INFO:     {message}", file=sys.stderr, flush=True)


class Supervisor:
    """Keeps ``workers`` worker processes serving on ``sock``."""

    def __init__(
        self, sock: socket.socket, workers: int, worker_command: list[str] | None = None
    ) -> None:
        self.sock = sock
        self.workers = workers
        #: started with the socket's descriptor appended
        self.worker_command = worker_command or [sys.executable, "-m", "contentapi.worker", "--fd"]
        self.running: dict[subprocess.Popen[bytes], float] = {}  # process → start time
        self.stop_signal: int | None = None
        self.quick_deaths = 0
        self._restart = threading.Event()

    def _start_worker(self) -> None:
        fd = self.sock.fileno()
        process = subprocess.Popen([*self.worker_command, str(fd)], pass_fds=(fd,))
        self.running[process] = time.monotonic()

    def request_restart(self) -> None:
        """Replace every worker at the loop's next turn (new code and models are read)."""
        self._restart.set()

    def _on_signal(self, signum: int, _frame: object) -> None:
        self.stop_signal = signum

    def run(self) -> int:
        """Serve until a stop signal (exit 0) or workers that cannot start (exit 1)."""
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT):
            signal.signal(signum, self._on_signal)
        _say(f"Started supervisor process [{os.getpid()}] with {self.workers} workers")
        for _ in range(self.workers):
            self._start_worker()
        status = 0
        while self.stop_signal is None:
            time.sleep(POLL)
            if self._restart.is_set():
                self._restart.clear()
                self._stop_all()
                self.running.clear()
                for _ in range(self.workers):
                    self._start_worker()
            if self._replace_dead_workers():
                status = 1
                break
        self._stop_all()
        _say(f"Stopped supervisor process [{os.getpid()}]")
        return status

    def _replace_dead_workers(self) -> bool:
        """Start a new worker for each that exited; ``True``: give up (they cannot start)."""
        for process, started in list(self.running.items()):
            code = process.poll()
            if code is None or self.stop_signal is not None:
                continue
            del self.running[process]
            lived = time.monotonic() - started
            _say(f"Worker [{process.pid}] exited with {code} after {lived:.1f}s; starting another")
            self.quick_deaths = self.quick_deaths + 1 if lived < QUICK_DEATH else 0
            if self.quick_deaths >= MAX_QUICK_DEATHS:
                _say(f"{MAX_QUICK_DEATHS} workers in a row exited while starting; stopping")
                return True
            self._start_worker()
        return False

    def _stop_all(self) -> None:
        """SIGTERM every worker (uvicorn finishes requests in flight), SIGKILL after grace."""
        for process in self.running:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE
        for process in self.running:
            try:
                process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m contentapi.supervisor", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=1337)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    try:
        sock = bind(args.host, args.port)
    except AddressError as error:  # taken since ``serve`` checked it: one line, as ``serve``
        print(f"error: {error}", file=sys.stderr, flush=True)
        sys.exit(2)
    sys.exit(Supervisor(sock, args.workers).run())


if __name__ == "__main__":
    main()
