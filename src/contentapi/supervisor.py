"""Several worker processes on one listening socket, kept running and answering.

``contentapi serve`` becomes this process (unless it runs one worker with hang detection
off). It binds the socket once, starts N workers (``python -m contentapi.worker --fd …``) that
accept on it, and keeps N of them serving:

- a worker that dies is replaced;
- a worker that hangs is replaced: each writes a heartbeat to a pipe from its event loop
  (``heartbeat.py``); one silent for ``--worker-timeout`` seconds (``CONTENTAPI_WORKER_TIMEOUT``)
  is killed (SIGKILL: its blocked loop would never act on SIGTERM) and another started. Until
  its first beat a worker is starting, and may take ``STARTUP_TIMEOUT`` seconds;
- SIGTERM / SIGINT stop them all gracefully: each finishes the requests in flight, for at most
  ``--shutdown-timeout`` seconds (then SIGKILL);
- SIGHUP replaces them one by one (new code, models and settings are read): a new worker is
  started, and only once it beats (it accepts) is an old one stopped gracefully, so the socket
  always has a worker accepting and no connection is refused.

Why not uvicorn's own ``--workers``: its supervisor is a full uvicorn process (27 MB) and its
``spawn`` start method adds a multiprocessing resource tracker process (12 MB) that nothing
here uses; this one imports only the standard library it needs (about 11 MB). Measured with
``make bench``: peak RSS of the server's process tree (docs/benchmarks.md).

A worker that dies within ``QUICK_DEATH`` seconds of its start, before its first heartbeat,
did not come up (a database
that refuses, a model error): after ``MAX_QUICK_DEATHS`` of those in a row the supervisor
stops and exits 1 rather than restart it for ever — except during a SIGHUP replacement, which
stops instead and keeps the old workers serving.

``request_restart()`` (safe from another thread: ``serve --reload``'s watcher calls it) makes
the loop stop every worker gracefully and start new ones on the same socket: connections that
arrive meanwhile wait in the socket's backlog instead of being refused.
"""

from __future__ import annotations

import argparse
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

from contentapi.connection_shares import ConnectionShares
from contentapi.heartbeat import beat_interval
from contentapi.listening import AddressError, bind

__all__ = ["Supervisor", "main"]

QUICK_DEATH = 10.0
MAX_QUICK_DEATHS = 5
#: seconds a worker may take from its start to its first heartbeat (loading the app, the
#: database's start-up sync)
STARTUP_TIMEOUT = 60.0
#: defaults of ``CONTENTAPI_WORKER_TIMEOUT`` and ``CONTENTAPI_SHUTDOWN_TIMEOUT``
WORKER_TIMEOUT = 30.0
STOP_GRACE = 30.0
POLL = 0.2


def _say(message: str) -> None:
    print(f"INFO:     {message}", file=sys.stderr, flush=True)


@dataclass
class _Worker:
    """A started worker process and the read end of its heartbeat pipe."""

    process: subprocess.Popen[bytes]
    beats: int  # read end of the pipe
    started: float = field(default_factory=time.monotonic)
    last_beat: float | None = None  # None: not ready yet

    @property
    def ready(self) -> bool:
        return self.last_beat is not None


class Supervisor:
    """Keeps ``workers`` worker processes serving on ``sock``."""

    def __init__(
        self,
        sock: socket.socket,
        workers: int,
        worker_command: list[str] | None = None,
        *,
        worker_timeout: float = WORKER_TIMEOUT,
        stop_grace: float = STOP_GRACE,
    ) -> None:
        self.sock = sock
        self.workers = workers
        #: started with the socket's descriptor appended, then the heartbeat's options
        self.worker_command = worker_command or [sys.executable, "-m", "contentapi.worker", "--fd"]
        self.worker_timeout = worker_timeout  # 0: hung workers are not looked for
        self.stop_grace = stop_grace
        self.running: dict[subprocess.Popen[bytes], _Worker] = {}
        self.stopping: dict[subprocess.Popen[bytes], float] = {}  # process → SIGKILL deadline
        self.stop_signal: int | None = None
        self.quick_deaths = 0
        self._restart = threading.Event()
        self._roll = threading.Event()
        #: the workers a SIGHUP replaces, oldest first, and the one started to replace them
        self._to_replace: list[subprocess.Popen[bytes]] = []
        self._successor: subprocess.Popen[bytes] | None = None
        #: each worker's count of its connections (``connection_shares.py``): a slot for
        #: every worker that may be alive at once (a SIGHUP's successor and the workers still
        #: finishing their requests beside the running ones)
        self.shares = ConnectionShares.create(2 * workers + 2)
        #: the slot of each worker started that has not been reaped yet
        self._slots: dict[subprocess.Popen[bytes], int] = {}

    def _start_worker(self) -> subprocess.Popen[bytes]:
        fd = self.sock.fileno()
        read_end, write_end = os.pipe()
        interval = beat_interval(self.worker_timeout or WORKER_TIMEOUT)
        command = [*self.worker_command, str(fd), "--heartbeat-fd", str(write_end)]
        command += ["--heartbeat-interval", str(interval)]
        if self.stop_grace:
            command += ["--shutdown-timeout", str(self.stop_grace)]
        inherited = [fd, write_end]
        slot = self._free_slot()
        if slot is not None:  # none free (restarts faster than workers exit): not counted
            command += ["--shares-fd", str(self.shares.fd), "--shares-slot", str(slot)]
            inherited.append(self.shares.fd)
        try:
            process = subprocess.Popen(command, pass_fds=inherited)
        finally:
            os.close(write_end)
        self.running[process] = _Worker(process, read_end)
        if slot is not None:  # the worker marks it taken once it serves (``EvenShares``)
            self._slots[process] = slot
        return process

    def _free_slot(self) -> int | None:
        """A slot no live worker has: those of exited workers are freed first (a worker
        killed could not free its own)."""
        for process, slot in list(self._slots.items()):
            if process.poll() is not None:
                self.shares.free(slot)
                del self._slots[process]
        taken = set(self._slots.values())
        return next((slot for slot in range(len(self.shares)) if slot not in taken), None)

    def request_restart(self) -> None:
        """Replace every worker at the loop's next turn (new code and models are read)."""
        self._restart.set()

    def _on_signal(self, signum: int, _frame: object) -> None:
        if signum == signal.SIGHUP:
            self._roll.set()
        else:
            self.stop_signal = signum

    def run(self) -> int:
        """Serve until a stop signal (exit 0) or workers that cannot start (exit 1)."""
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT, signal.SIGHUP):
            signal.signal(signum, self._on_signal)
        _say(f"Started supervisor process [{os.getpid()}] with {self.workers} workers")
        for _ in range(self.workers):
            self._start_worker()
        status = 0
        while self.stop_signal is None:
            self._read_beats(POLL)
            if self._restart.is_set():
                self._restart.clear()
                self._stop_all()
                for _ in range(self.workers):
                    self._start_worker()
            if self._roll.is_set():
                self._roll.clear()
                _say("SIGHUP: replacing the workers one by one")
                self._to_replace = list(self.running)
            self._kill_hung_workers()
            if self._replace_dead_workers():
                status = 1
                break
            self._replace_next()
            self._reap_stopping()
        self._stop_all()
        self.shares.close()
        _say(f"Stopped supervisor process [{os.getpid()}]")
        return status

    def _read_beats(self, timeout: float) -> None:
        """Wait up to ``timeout`` for heartbeats and note when each worker last beat."""
        by_fd = {worker.beats: worker for worker in self.running.values()}
        try:
            readable, _, _ = select.select(list(by_fd), [], [], timeout)
        except InterruptedError:  # pragma: no cover - PEP 475 retries; kept for clarity
            return
        now = time.monotonic()
        for fd in readable:
            try:
                data = os.read(fd, 4096)
            except OSError:
                continue
            if data:
                worker = by_fd[fd]
                if worker.last_beat is None:
                    _say(f"Worker [{worker.process.pid}] is serving (its first heartbeat)")
                worker.last_beat = now
        if not by_fd:
            time.sleep(timeout)

    def _kill_hung_workers(self) -> None:
        """SIGKILL workers silent too long; ``_replace_dead_workers`` starts others."""
        if not self.worker_timeout:
            return
        now = time.monotonic()
        for worker in self.running.values():
            if worker.process.poll() is not None:
                continue
            if worker.last_beat is None:
                silent, limit = now - worker.started, max(STARTUP_TIMEOUT, self.worker_timeout)
            else:
                silent, limit = now - worker.last_beat, self.worker_timeout
            if silent > limit:
                _say(
                    f"Worker [{worker.process.pid}] has not answered for {silent:.1f}s; killing it"
                )
                worker.process.kill()
                worker.process.wait()

    def _replace_dead_workers(self) -> bool:
        """Start a new worker for each that exited; ``True``: give up (they cannot start)."""
        for process, worker in list(self.running.items()):
            code = process.poll()
            if code is None or self.stop_signal is not None:
                continue
            self._forget(process)
            lived = time.monotonic() - worker.started
            _say(f"Worker [{process.pid}] exited with {code} after {lived:.1f}s")
            # a worker that beat did come up (a hung one killed is no start-up failure)
            quick = lived < QUICK_DEATH and not worker.ready
            self.quick_deaths = self.quick_deaths + 1 if quick else 0
            if process is self._successor:
                self._successor = None
                if quick:
                    _say("a new worker exited while starting: the old workers keep serving")
                    self._to_replace.clear()
                    self.quick_deaths = 0
            if self.quick_deaths >= MAX_QUICK_DEATHS:
                _say(f"{MAX_QUICK_DEATHS} workers in a row exited while starting; stopping")
                return True
            if len(self.running) < self.workers:
                _say("starting another worker")
                self._start_worker()
        return False

    def _replace_next(self) -> None:
        """One step of a SIGHUP replacement: start a successor, and once every worker is
        ready (the successor accepts), stop the oldest worker to replace gracefully."""
        self._to_replace = [process for process in self._to_replace if process in self.running]
        if not self._to_replace:
            self._successor = None
            return
        if not all(worker.ready for worker in self.running.values()):
            return  # a worker is starting: the successor, or one replacing a dead worker
        if len(self.running) <= self.workers:
            self._successor = self._start_worker()
            return
        self._retire(self._to_replace.pop(0))
        self._successor = None

    def _retire(self, process: subprocess.Popen[bytes]) -> None:
        """SIGTERM: the worker stops accepting and finishes its requests in flight."""
        self._forget(process)
        process.send_signal(signal.SIGTERM)
        self.stopping[process] = time.monotonic() + (self.stop_grace or STOP_GRACE)

    def _forget(self, process: subprocess.Popen[bytes]) -> None:
        worker = self.running.pop(process)
        os.close(worker.beats)

    def _reap_stopping(self) -> None:
        now = time.monotonic()
        for process, deadline in list(self.stopping.items()):
            if process.poll() is not None:
                del self.stopping[process]
            elif now > deadline:
                process.kill()
                process.wait()
                del self.stopping[process]

    def _stop_all(self) -> None:
        """SIGTERM every worker (uvicorn finishes requests in flight), SIGKILL after grace."""
        for process in list(self.running):
            if process.poll() is None:
                self._retire(process)
            else:
                self._forget(process)
        for process, deadline in list(self.stopping.items()):
            try:
                process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.stopping.clear()
        self._to_replace.clear()
        self._successor = None


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m contentapi.supervisor", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=1337)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--worker-timeout", type=float, default=WORKER_TIMEOUT)
    parser.add_argument("--shutdown-timeout", type=float, default=STOP_GRACE)
    args = parser.parse_args()
    try:
        sock = bind(args.host, args.port)
    except AddressError as error:  # taken since ``serve`` checked it: one line, as ``serve``
        print(f"error: {error}", file=sys.stderr, flush=True)
        sys.exit(2)
    supervisor = Supervisor(
        sock, args.workers, worker_timeout=args.worker_timeout, stop_grace=args.shutdown_timeout
    )
    sys.exit(supervisor.run())


if __name__ == "__main__":
    main()
