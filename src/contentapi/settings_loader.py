"""Loading ``Settings`` for the command line, with one-line errors an operator can act on.

pydantic names the internal field (``port``) and links its own documentation; an operator set
``CONTENTAPI_PORT`` or a key of ``contentapi.toml``. ``load_settings`` reads the TOML file
itself first (a syntax error or an unknown key names the file, with a did-you-mean for a
misspelt key), then turns each validation error into ``<where>: <what>`` where ``<where>`` is
the environment variable, or the key and file it came from.
"""

from __future__ import annotations

import difflib
import os
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from contentapi.config import Settings

__all__ = ["TOML_FILE", "ConfigError", "load_settings"]

TOML_FILE = Path("contentapi.toml")
ENV_PREFIX = "CONTENTAPI_"


class ConfigError(Exception):
    """Configuration the server cannot start with; ``str()`` is one line per problem."""


def load_settings(toml_file: Path = TOML_FILE) -> Settings:
    """The settings of the environment and ``toml_file``, or ``ConfigError``."""
    from_file = _read_toml(toml_file)
    try:
        settings = Settings()
    except ValidationError as error:
        lines = [_describe(problem, from_file, toml_file) for problem in error.errors()]
        raise ConfigError("\n".join(dict.fromkeys(lines))) from None
    if settings.env == "production" and not settings.jwt_secret:
        raise ConfigError("CONTENTAPI_JWT_SECRET is required when CONTENTAPI_ENV=production")
    return settings


def _read_toml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    known = set(Settings.model_fields)
    for key, value in data.items():
        if key not in known:
            hint = _closest_key(key, known)
            did_you_mean = f" (did you mean {hint!r}?)" if hint else ""
            raise ConfigError(
                f"{path}: unknown key {key!r}{did_you_mean}; keys are the CONTENTAPI_ variables "
                "in lower case without the prefix (see the README)"
            )
        if isinstance(value, dict):
            raise ConfigError(f"{path}: {key!r} must be a value, not a table")
    return data


def _closest_key(key: str, known: set[str]) -> str | None:
    """The key ``key`` was meant to be: the variable's own name written as a key
    (``CONTENTAPI_PORT`` → ``port``, ``PORT`` → ``port``), else the closest spelling."""
    candidate = key.strip().lower()
    candidate = candidate.removeprefix(ENV_PREFIX.lower())
    if candidate in known:
        return candidate
    close = difflib.get_close_matches(candidate, sorted(known), n=1)
    return close[0] if close else None


def _describe(problem: Any, from_file: dict[str, Any], toml_file: Path) -> str:
    field = str(problem["loc"][0]) if problem.get("loc") else ""
    message = str(problem["msg"])
    # pydantic prefixes messages raised by validators; the operator needs only the sentence
    message = message.removeprefix("Value error, ")
    if not field:  # a rule across settings: its sentence names the variables itself
        return message
    variable = ENV_PREFIX + field.upper()
    value = problem.get("input")
    if _set_in_environment(variable):
        where = variable
    elif field in from_file:
        where = f"{toml_file}: {field}"
    else:
        where = variable
    shown = "" if field in _SECRETS or isinstance(value, dict) else f" (got {value!r})"
    return f"{where}: {message}{shown}"


#: never echoed back in an error line
_SECRETS = frozenset(
    {
        "jwt_secret",
        "admin_token",
        "api_token_salt",
        "database_url",
        "database_listen_url",
        "database_replica_urls",
    }
)


def _set_in_environment(variable: str) -> bool:
    return any(name.upper() == variable for name in os.environ)
