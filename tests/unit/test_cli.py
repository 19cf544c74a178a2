"""The CLI's defaults."""

from __future__ import annotations

import os

import pytest

from contentapi import cli


def test_serve_defaults_to_one_worker_per_available_core(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    assert cli.default_workers() == 2
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(64)), raising=False)
    assert cli.default_workers() == 8
