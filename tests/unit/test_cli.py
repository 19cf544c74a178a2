"""The CLI's defaults and its --help."""

from __future__ import annotations

import os
import re

import pytest
import typer
from typer.core import TyperGroup
from typer.testing import CliRunner

from contentapi import cli


def test_serve_defaults_to_one_worker_per_available_core(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    assert cli.default_workers() == 2
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(64)), raising=False)
    assert cli.default_workers() == 8


def _commands(group: TyperGroup, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command's path below ``group`` (groups included: their --help is read too)."""
    found = [path]
    for name, command in group.commands.items():
        if isinstance(command, TyperGroup):
            found += _commands(command, (*path, name))
        else:
            found.append((*path, name))
    return found


COMMANDS = _commands(typer.main.get_command(cli.app))  # type: ignore[arg-type]


@pytest.mark.parametrize("path", COMMANDS, ids=lambda path: " ".join(path) or "contentapi")
def test_help_is_plain_text_an_operator_reads(path: tuple[str, ...]):
    """No Python type labels (``<bool>`` beside every flag, ``<str>``, ``<list[str]>``) and no
    reStructuredText markup (````name````) from the docstrings."""
    result = CliRunner().invoke(cli.app, [*path, "--help"], terminal_width=100)
    assert result.exit_code == 0, result.output
    assert re.findall(r"<(?:bool|str|int|path|list\[[^>]*\]|float)>", result.stdout) == []
    assert "``" not in result.stdout


def test_serve_help_shows_where_each_default_comes_from():
    result = CliRunner().invoke(cli.app, ["serve", "--help"], terminal_width=200)
    assert "--host ADDRESS" in result.stdout and "--port PORT" in result.stdout
    assert "[default: (CONTENTAPI_HOST, else 127.0.0.1)]" in result.stdout
    assert "[default: (CONTENTAPI_PORT, else 1337)]" in result.stdout
    assert "[default: (one per CPU core available, at most 8)]" in result.stdout
