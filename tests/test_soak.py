"""The soak test of ``make soak`` (``bench/soak.py``), short: a real ``contentapi serve
--workers 2`` under mixed REST and GraphQL reads and writes for ``CONTENTAPI_TEST_SOAK_SECONDS``
(5) on PostgreSQL, the database the hour runs on: no 5xx, no transport error, every
acknowledged write present at the end.
The slopes of RSS and descriptors mean little over seconds: the hour of ``make soak`` measures
them (docs/security.md); here they are only printed."""

from __future__ import annotations

import os

import pytest
from bench.soak import TOKEN, run_soak, start_server, wait_ready

from tests.support.server import FIGURES, free_port

SECONDS = float(os.environ.get("CONTENTAPI_TEST_SOAK_SECONDS", "5"))


async def test_a_short_soak_answers_no_5xx_and_keeps_every_write(databases, tmp_path):
    if databases.backend != "postgres":
        pytest.skip("make soak runs on PostgreSQL (BENCH_POSTGRES); so does its short version")
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    log = tmp_path / "serve.log"
    process = start_server(await databases.new_url(), port, workers=2, log=log)
    try:
        await wait_ready(base_url, process)
        report = await run_soak(base_url, TOKEN, SECONDS, process.pid, clients=4)
    finally:
        process.terminate()
        process.wait(timeout=60)
    FIGURES[f"soak ({databases.backend})"] = "; ".join(report.lines())
    assert report.server_errors == 0, report.statuses
    assert not report.failures, report.failures[:3]
    assert report.written > 0 and not report.missing, report.missing[:3]
    assert "Traceback" not in log.read_text(errors="replace")
