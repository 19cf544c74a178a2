"""What ``contentapi serve`` becomes: one worker, or the supervisor of several."""

from __future__ import annotations

import sys

from contentapi import cli
from contentapi.config import Settings


def test_one_worker_runs_under_the_supervisor_which_replaces_it_when_hung():
    command = cli.serve_command("0.0.0.0", 1337, 1, Settings(worker_timeout=30))
    assert command[1:3] == ["-m", "contentapi.supervisor"]
    assert command[command.index("--workers") + 1] == "1"
    assert command[command.index("--worker-timeout") + 1] == "30.0"


def test_one_worker_without_hang_detection_is_the_server_itself():
    command = cli.serve_command("0.0.0.0", 1337, 1, Settings(worker_timeout=0, shutdown_timeout=12))
    assert command == [
        sys.executable,
        "-m",
        "contentapi.worker",
        "--host",
        "0.0.0.0",
        "--port",
        "1337",
        "--shutdown-timeout",
        "12.0",
    ]


def test_several_workers_run_under_the_supervisor():
    command = cli.serve_command("127.0.0.1", 8080, 3, Settings(worker_timeout=7))
    assert command[1:3] == ["-m", "contentapi.supervisor"]
    assert command[command.index("--workers") + 1] == "3"
    assert command[command.index("--port") + 1] == "8080"
    assert command[command.index("--worker-timeout") + 1] == "7.0"
