"""Settings from the environment (``CONTENTAPI_*``) and an optional ``contentapi.toml``.

Nothing else in the code base reads ``os.environ``: every part receives a ``Settings``.
Environment variables win over the TOML file, which wins over the defaults (README,
"Configuration"). ``contentapi.settings_loader.load_settings`` turns what is wrong in either into
one line naming the variable or the file.
"""

from __future__ import annotations

import ipaddress
import re
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from contentapi.db.urls import normalise_database_url

__all__ = ["Settings", "parse_duration"]

_DURATION = re.compile(r"^\s*(\d+)\s*(ms|s|m|h|d|w|y)?\s*$")
_UNIT_SECONDS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, "y": 31557600}


def _list(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def parse_duration(text: str) -> timedelta:
    """Parse a duration the way Strapi's ``expiresIn`` does (``30d``, ``12h``, ``3600``).

    A bare number is seconds, as in the ``jsonwebtoken`` package Strapi uses.
    """
    match = _DURATION.match(text)
    if not match:
        raise ValueError(f"invalid duration {text!r}: use a number with s, m, h, d, w or y")
    amount, unit = int(match.group(1)), match.group(2) or "s"
    return timedelta(seconds=amount * _UNIT_SECONDS[unit])


class Settings(BaseSettings):
    """Every configuration key (the README's "Configuration" table)."""

    model_config = SettingsConfigDict(
        env_prefix="CONTENTAPI_", toml_file="contentapi.toml", extra="ignore"
    )

    database_url: str = "sqlite+aiosqlite:///.data/content.db"
    #: seconds a SQLite write waits for the database lock before answering 503
    sqlite_busy_timeout: float = 30
    content_types_dir: Path = Path("content-types")
    host: str = "127.0.0.1"
    port: Annotated[int, Field(ge=1, le=65535)] = 1337
    env: Literal["development", "staging", "production"] = "development"
    public_url: str | None = None
    jwt_secret: str | None = None
    jwt_expires_in: str = "30d"
    admin_token: str | None = None
    api_token_salt: str | None = None
    uploads_dir: Path = Path("public/uploads")
    upload_max_size: int = 200 * 1024 * 1024  # bytes per upload request (Strapi's sizeLimit)
    locales: str = "en"
    rest_default_limit: int = 25
    rest_max_limit: int = 100
    rest_with_count: bool = True
    graphql_enabled: bool = True
    graphql_endpoint: str = "/graphql"
    graphql_shadow_crud: bool = True
    graphql_playground_always: bool = False
    graphql_depth_limit: int = 10
    graphql_amount_limit: int = 100
    extensions: str | None = None
    auth_rate_limit_max: int = 10
    auth_rate_limit_window: str = "60s"
    cors_origins: str = "*"
    #: Peers whose ``X-Forwarded-For`` / ``X-Forwarded-Proto`` are believed (comma-separated
    #: addresses or networks, ``*`` for any); none by default, so a client cannot choose the
    #: address the rate limit counts it under.
    trusted_proxies: str = ""
    log_sql: bool = False

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls))

    @field_validator("database_url")
    @classmethod
    def _check_database_url(cls, value: str) -> str:
        return normalise_database_url(value)

    @field_validator("jwt_expires_in")
    @classmethod
    def _check_duration(cls, value: str) -> str:
        parse_duration(value)
        return value

    @field_validator("trusted_proxies")
    @classmethod
    def _check_proxies(cls, value: str) -> str:
        for item in _list(value):
            if item != "*":
                try:
                    ipaddress.ip_network(item, strict=False)
                except ValueError:
                    raise ValueError(f"{item!r} is not an IP address or network") from None
        return value

    @property
    def trusted_proxy_list(self) -> list[str]:
        """``trusted_proxies`` as a list (empty: forwarded headers are ignored)."""
        return _list(self.trusted_proxies)

    @property
    def locale_codes(self) -> tuple[str, ...]:
        """Configured i18n locales; the first is the default locale."""
        codes = tuple(code.strip() for code in self.locales.split(",") if code.strip())
        return codes or ("en",)

    @property
    def default_locale(self) -> str:
        return self.locale_codes[0]

    @property
    def base_url(self) -> str:
        return self.public_url or f"http://{self.host}:{self.port}"

    @property
    def auth_rate_limit_seconds(self) -> int:
        return max(1, int(parse_duration(self.auth_rate_limit_window).total_seconds()))

    @property
    def jwt_lifetime(self) -> timedelta:
        return parse_duration(self.jwt_expires_in)
