"""Driving a scenario with wrk (Debian's package, installed when missing) and reading its report."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass

import psutil

from bench.scenarios import Scenario

__all__ = ["LoadResult", "ensure_wrk", "run_wrk", "settle"]

_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


@dataclass
class LoadResult:
    requests_per_second: float
    p50_ms: float
    p99_ms: float
    errors: int


def ensure_wrk() -> str:
    found = shutil.which("wrk")
    if found:
        return found
    subprocess.run(["apt-get", "install", "-y", "-q", "wrk"], check=True, capture_output=True)
    found = shutil.which("wrk")
    if not found:
        raise RuntimeError("wrk is not installed and could not be installed")
    return found


def _latency(text: str, percentile: str) -> float:
    match = re.search(rf"^\s*{percentile}%\s+([\d.]+)(us|ms|s)\s*$", text, re.MULTILINE)
    return float(match.group(1)) * _UNITS[match.group(2)] if match else float("nan")


def run_wrk(
    base_url: str, token: str, scenario: Scenario, seconds: int, connections: int
) -> LoadResult:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(f'wrk.method = "{scenario.method}"\n')
        script.write('wrk.headers["Content-Type"] = "application/json"\n')
        if scenario.body is not None:
            script.write(f"wrk.body = [[{scenario.body}]]\n")
        if scenario.lua_request is not None:
            script.write(scenario.lua_request)
    output = subprocess.run(
        [
            ensure_wrk(),
            "-t2",
            f"-c{connections}",
            f"-d{seconds}s",
            "--latency",
            "-s",
            script.name,
            "-H",
            f"Authorization: Bearer {token}",
            f"{base_url}{scenario.path}",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    rps = re.search(r"Requests/sec:\s+([\d.]+)", output)
    non_2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    socket = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output
    )
    errors = int(non_2xx.group(1)) if non_2xx else 0
    if socket:
        errors += sum(int(value) for value in socket.groups())
    return LoadResult(
        float(rps.group(1)) if rps else 0.0, _latency(output, "50"), _latency(output, "99"), errors
    )


def settle(busy_below: float = 15.0, most: float = 60.0) -> float:
    """Wait until the machine is idle (all cores under ``busy_below`` percent busy over half a
    second), at most ``most`` seconds; the seconds waited.

    Why: a server that timed out under wrk goes on working through the requests wrk gave up on
    (Strapi, after a scenario with errors, for seconds), and whatever scenario is measured next
    — the other server's — shared the cores with that leftover work: on 2026-11-28 contentapi's
    one-entry p99 was 127 ms right after Strapi's related-attribute filter (1.03 s p99) and
    38-51 ms measured alone on the same database a minute later."""
    started = time.monotonic()
    while time.monotonic() - started < most:
        if psutil.cpu_percent(interval=0.5) < busy_below:
            break
    return round(time.monotonic() - started, 1)
