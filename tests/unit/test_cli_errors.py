"""What the command line says when the configuration or the database is wrong: one line naming
the variable or the file (and the forms that work), exit code 2, never a traceback."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from contentapi import __version__
from contentapi.cli import app
from contentapi.db.urls import URL_FORMS, normalise_database_url
from contentapi.listening import AddressError, check_address
from tests.conftest import BACKENDS, MODELS, POSTGRES_ADMIN_URL

CONTENTAPI = str(Path(sys.executable).parent / "contentapi")


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> CliRunner:
    """A clean configuration in an empty folder (no contentapi.toml), the example models."""
    for name in list(os.environ):
        if name.upper().startswith("CONTENTAPI_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CONTENTAPI_CONTENT_TYPES_DIR", str(MODELS))
    monkeypatch.setenv("CONTENTAPI_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path}/c.db")
    return CliRunner()


def one_line_error(result, *expected: str) -> str:
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    for text in expected:
        assert text in lines[0], lines[0]
    assert "pydantic" not in lines[0] and "Traceback" not in result.stderr
    return lines[0]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_version(cli: CliRunner):
    result = cli.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout == f"contentapi {__version__}\n"


# ---------------------------------------------------------------- configuration


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("abc", "valid integer"),
        ("99999", "less than or equal to 65535"),
        ("0", "greater than or equal to 1"),
    ],
)
def test_bad_port_names_the_variable(cli, monkeypatch, value, expected):
    monkeypatch.setenv("CONTENTAPI_PORT", value)
    one_line_error(cli.invoke(app, ["check"]), "CONTENTAPI_PORT: ", expected, repr(value))


def test_bad_port_in_the_file_names_the_file_and_key(cli, tmp_path):
    (tmp_path / "contentapi.toml").write_text('port = "eighty"\n')
    one_line_error(cli.invoke(app, ["check"]), "contentapi.toml: port: ", "valid integer")


def test_the_environment_wins_and_is_named(cli, monkeypatch, tmp_path):
    (tmp_path / "contentapi.toml").write_text("port = 8080\n")
    monkeypatch.setenv("CONTENTAPI_PORT", "70000")
    one_line_error(cli.invoke(app, ["check"]), "CONTENTAPI_PORT: ")


def test_unknown_key_in_the_file_is_an_error_with_a_hint(cli, tmp_path):
    (tmp_path / "contentapi.toml").write_text("prot = 8080\n")
    one_line_error(
        cli.invoke(app, ["check"]), "contentapi.toml: unknown key 'prot'", "did you mean 'port'?"
    )


@pytest.mark.parametrize("written", ["CONTENTAPI_PORT", "contentapi_port", "PORT"])
def test_a_variable_name_in_the_file_is_answered_with_its_key(cli, tmp_path, written):
    (tmp_path / "contentapi.toml").write_text(f"{written} = 8080\n")
    one_line_error(
        cli.invoke(app, ["check"]),
        f"contentapi.toml: unknown key {written!r} (did you mean 'port'?)",
        "lower case without the prefix",
    )


def test_a_misspelt_plugin_setting_is_answered_with_its_name(cli):
    one_line_error(
        cli.invoke(app, ["settings", "set", "allow_registr=false"]),
        "unknown setting 'allow_registr' (did you mean 'allow_register'?): one of ",
    )


def test_toml_syntax_error_names_the_file(cli, tmp_path):
    (tmp_path / "contentapi.toml").write_text("port = \n")
    one_line_error(cli.invoke(app, ["check"]), "contentapi.toml: not valid TOML", "line 1")


def test_a_good_file_is_read(cli, tmp_path):
    (tmp_path / "contentapi.toml").write_text('locales = "en,de"\nport = 8080\n')
    result = cli.invoke(app, ["check"])
    assert result.exit_code == 0, result.output


def test_other_settings_name_their_variable(cli, monkeypatch):
    monkeypatch.setenv("CONTENTAPI_ENV", "prod")
    one_line_error(cli.invoke(app, ["check"]), "CONTENTAPI_ENV: ", "'development'")


def test_production_without_jwt_secret(cli, monkeypatch):
    monkeypatch.setenv("CONTENTAPI_ENV", "production")
    one_line_error(cli.invoke(app, ["check"]), "CONTENTAPI_JWT_SECRET is required")


def test_serve_refuses_an_out_of_range_port_option(cli):
    one_line_error(cli.invoke(app, ["serve", "--port", "70000"]), "--port must be between")
    one_line_error(cli.invoke(app, ["serve", "--workers", "0"]), "--workers must be at least 1")


# ---------------------------------------------------------------- database URLs


def test_url_forms_are_normalised():
    assert normalise_database_url("postgresql://u:p@h/db") == "postgresql+asyncpg://u:p@h/db"
    assert normalise_database_url("postgres://u@h:5433/db") == "postgresql+asyncpg://u@h:5433/db"
    assert normalise_database_url("sqlite:///x.db") == "sqlite+aiosqlite:///x.db"
    kept = "postgresql+asyncpg://u@h/db?ssl=disable"
    assert normalise_database_url(kept) == kept


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("not a url", "not a database URL"),
        ("mysql://root@localhost/blog", "database 'mysql' is not supported"),
        ("postgresql+psycopg2://u@h/db", "driver 'postgresql+psycopg2' is not supported"),
        ("postgresql://u@h", "names no database"),
    ],
)
def test_unusable_url_is_one_line_with_the_accepted_forms(cli, monkeypatch, url, expected):
    monkeypatch.setenv("CONTENTAPI_DATABASE_URL", url)
    line = one_line_error(cli.invoke(app, ["migrate"]), "CONTENTAPI_DATABASE_URL: ", expected)
    if expected != "names no database":
        assert URL_FORMS in line


def test_password_is_never_echoed(cli, monkeypatch):
    monkeypatch.setenv("CONTENTAPI_DATABASE_URL", "oracle://scott:tiger-secret@db/orcl")
    line = one_line_error(cli.invoke(app, ["migrate"]), "not supported")
    assert "tiger-secret" not in line


needs_postgres = pytest.mark.skipif("postgres" not in BACKENDS, reason="PostgreSQL not tested")


@needs_postgres
def test_postgres_refused(cli, monkeypatch):
    port = free_port()  # nothing listens there
    monkeypatch.setenv("CONTENTAPI_DATABASE_URL", f"postgresql://u:pw-secret@127.0.0.1:{port}/db")
    line = one_line_error(
        cli.invoke(app, ["migrate"]),
        f"cannot connect to PostgreSQL at 127.0.0.1:{port} (connection refused)",
        "is it running?",
    )
    assert "pw-secret" not in line


@needs_postgres
def test_missing_postgres_database(cli, monkeypatch):
    name = f"contentapi_missing_{uuid.uuid4().hex[:8]}"
    url = POSTGRES_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
    monkeypatch.setenv("CONTENTAPI_DATABASE_URL", url.replace("+asyncpg", ""))
    one_line_error(cli.invoke(app, ["migrate"]), f"database '{name}' does not exist", "createdb")


def test_sqlite_path_that_is_a_folder(cli, monkeypatch, tmp_path):
    monkeypatch.setenv("CONTENTAPI_DATABASE_URL", f"sqlite:///{tmp_path}")
    one_line_error(cli.invoke(app, ["migrate"]), "is a folder")


def test_serve_as_a_process_exits_2_with_one_line(tmp_path):
    """The whole command, as an operator runs it: no traceback, exit code 2."""
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("CONTENTAPI_")}
    env["CONTENTAPI_CONTENT_TYPES_DIR"] = str(MODELS)
    env["CONTENTAPI_DATABASE_URL"] = f"postgresql://u@127.0.0.1:{free_port()}/db"
    result = subprocess.run(
        [CONTENTAPI, "serve"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "connection refused" in result.stderr
    assert "Traceback" not in result.stderr


# ---------------------------------------------------------------- the listening address


@pytest.fixture
def held_port():
    """A port something else listens on (as a server left running would)."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield int(holder.getsockname()[1])


def test_a_port_in_use_is_named_with_the_fix(held_port):
    with pytest.raises(AddressError) as raised:
        check_address("127.0.0.1", held_port)
    assert str(raised.value) == (
        f"port {held_port} on 127.0.0.1 is in use; stop what holds it "
        "or set CONTENTAPI_PORT / --port"
    )


def test_a_host_not_of_this_machine_is_named():
    with pytest.raises(AddressError, match=r"192\.0\.2\.1 is not an address of this machine"):
        check_address("192.0.2.1", free_port())


def test_serve_refuses_a_port_in_use_before_anything_starts(cli, held_port):
    one_line_error(
        cli.invoke(app, ["serve", "--port", str(held_port)]),
        f"error: port {held_port} on 127.0.0.1 is in use",
        "CONTENTAPI_PORT / --port",
    )


@pytest.mark.parametrize("workers", ["1", "2"])
def test_serve_as_a_process_on_a_port_in_use_exits_2_with_one_line(tmp_path, held_port, workers):
    """As an operator meets it, with one worker (no uvicorn error after start-up) and with the
    supervisor (no traceback)."""
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("CONTENTAPI_")}
    env["CONTENTAPI_CONTENT_TYPES_DIR"] = str(MODELS)
    env["CONTENTAPI_DATABASE_URL"] = f"sqlite:///{tmp_path}/c.db"
    env["CONTENTAPI_PORT"] = str(held_port)
    result = subprocess.run(
        [CONTENTAPI, "serve", "--workers", workers],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr == (
        f"error: port {held_port} on 127.0.0.1 is in use; stop what holds it "
        "or set CONTENTAPI_PORT / --port\n"
    )


@pytest.mark.parametrize("module", ["contentapi.worker", "contentapi.supervisor"])
def test_a_server_process_on_a_port_taken_since_the_check_exits_2_with_one_line(held_port, module):
    """The address taken between ``serve``'s check and the bind: the worker binds before its
    app starts, the supervisor before its workers, and each says so in one line."""
    result = subprocess.run(
        [sys.executable, "-m", module, "--port", str(held_port)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr == (
        f"error: port {held_port} on 127.0.0.1 is in use; stop what holds it "
        "or set CONTENTAPI_PORT / --port\n"
    )


# ---------------------------------------------------------------- the ready line


def _ready_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "ready: worker" in r.getMessage()]


@pytest.mark.parametrize(
    "command",
    [["migrate"], ["tokens", "list"], ["settings", "show"]],
    ids=["migrate", "tokens", "settings"],
)
def test_one_shot_commands_do_not_say_they_serve(cli, caplog, command):
    caplog.set_level(logging.INFO, logger="contentapi")
    result = cli.invoke(app, command)
    assert result.exit_code == 0, result.output
    assert _ready_lines(caplog) == []


async def test_a_served_app_says_it_is_ready(start_app, caplog):
    caplog.set_level(logging.INFO, logger="contentapi")
    await start_app()
    [line] = _ready_lines(caplog)
    assert line == f"contentapi ready: worker {os.getpid()} serving http://127.0.0.1:1337"


def test_replicas_of_sqlite_are_one_line_naming_both_variables(cli, monkeypatch):
    monkeypatch.setenv("CONTENTAPI_DATABASE_REPLICA_URLS", "postgresql://app:secret@r1/content")
    one_line_error(
        cli.invoke(app, ["check"]),
        "CONTENTAPI_DATABASE_REPLICA_URLS needs a PostgreSQL CONTENTAPI_DATABASE_URL",
    )


def test_a_bad_replica_url_is_not_echoed(cli, monkeypatch):
    monkeypatch.setenv("CONTENTAPI_DATABASE_URL", "postgresql://app@primary/content")
    monkeypatch.setenv("CONTENTAPI_DATABASE_REPLICA_URLS", "mysql://app:secret@r1/content")
    result = cli.invoke(app, ["check"])
    one_line_error(result, "CONTENTAPI_DATABASE_REPLICA_URLS: database 'mysql' is not supported")
    assert "secret" not in result.output
