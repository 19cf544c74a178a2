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

from pydantic import Field, Json, SecretStr, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from contentapi.db.urls import normalise_database_url
from contentapi.schema.custom_fields import parse_custom_fields_setting

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
    #: PostgreSQL only: where each worker's ``LISTEN`` connection goes (``db/notify.py``);
    #: unset: ``database_url``. Behind pgbouncer in transaction mode, a direct (or session
    #: mode) URL: LISTEN needs a connection of its own for its whole life.
    database_listen_url: str | None = None
    #: PostgreSQL only: streaming replicas of the primary that serve reads (REST ``GET`` content
    #: reads, GraphQL queries), comma-separated in the environment, a list in the TOML file
    #: (``db/replicas.py``; ``docs/deployment.md``)
    database_replica_urls: Annotated[list[str], NoDecode] = Field(default_factory=list)
    #: seconds a replica may be behind the primary (measured on WAL positions) and still serve
    #: reads; further behind, it is skipped until it catches up
    replica_max_lag: Annotated[float, Field(gt=0)] = 5
    #: seconds a SQLite write waits for the database lock before answering 503
    sqlite_busy_timeout: float = 30
    #: seconds a PostgreSQL statement may run before it is cancelled and the request answers
    #: 503 (0: no limit); SQLite has no statement timeout
    statement_timeout: float = 30
    #: PostgreSQL only: reads a worker runs at once, granted to the oldest request first
    #: (0: no limit but the pool's; unset: 2 for a database on this machine that serves
    #: every read, else 0). For a database on the workers' own cores: fewer statements at
    #: once, in arrival order, cut the tail latency (``db/gate.py``)
    database_read_concurrency: Annotated[int | None, Field(ge=0)] = None
    #: bytes of a JSON request body (REST, users-permissions, GraphQL; Strapi's ``jsonLimit``
    #: default); more is 413
    body_limit: int = 1024 * 1024
    #: bytes of a request's query string; more is 414
    query_string_limit: int = 64 * 1024
    #: ``serve``: seconds a worker may go without a heartbeat from its event loop (a blocked
    #: loop, a hung worker) before the supervisor kills and replaces it (0: never, and a single
    #: worker then runs without a supervisor)
    worker_timeout: float = 30
    #: seconds a stopping worker (SIGTERM, SIGHUP's replacement) may take to finish the requests
    #: in flight before it is killed (0: the default, 30)
    shutdown_timeout: float = 30
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
    #: where uploaded bytes go: ``local`` (``uploads_dir``, served at ``/uploads``) or
    #: ``aws-s3`` (any S3-compatible object storage; ``upload/s3.py``)
    upload_provider: Literal["local", "aws-s3"] = "local"
    s3_bucket: str | None = None
    s3_region: str = "us-east-1"
    #: an S3-compatible service's URL (MinIO, R2, …); unset: AWS's endpoint of ``s3_region``
    s3_endpoint: str | None = None
    #: ``http://host/bucket/key`` addressing instead of ``http://bucket.host/key``
    s3_force_path_style: bool = False
    #: unset: boto3's default chain (``AWS_ACCESS_KEY_ID``…, a profile, an instance role)
    s3_access_key_id: str | None = None
    s3_secret_access_key: SecretStr | None = None
    #: Strapi's ``baseUrl``: media URLs are ``<base>/<key>`` (a CDN) instead of the bucket's
    s3_base_url: str | None = None
    #: Strapi's ``rootPath``: a folder inside the bucket for every key
    s3_root_path: str = ""
    #: the canned ACL of every object; empty: none sent (buckets with ACLs disabled)
    s3_acl: str = "public-read"
    upload_max_size: int = 200 * 1024 * 1024  # bytes per upload request (Strapi's sizeLimit)
    locales: str = "en"
    rest_default_limit: int = 25
    rest_max_limit: int = 100
    rest_with_count: bool = True
    #: the most entries and components a REST answer may hold: the page times what each
    #: entry populates, down the tree (query/parse/cost.py); 0: no limit
    rest_cost_limit: Annotated[int, Field(ge=0)] = 100_000
    #: ``Cache-Control`` of the cacheable reads (REST content GETs, GraphQL GET queries;
    #: docs/caching.md): seconds a browser (and a CDN, without ``s-maxage``) may reuse an
    #: answer; unset: ``no-cache`` (ask again each time, a 304 when unchanged)
    cache_control_max_age: Annotated[int, Field(ge=0)] | None = None
    #: seconds a shared cache (CDN) may reuse an answer to the public role; never sent on
    #: answers to a request with ``Authorization``
    cache_control_s_maxage: Annotated[int, Field(ge=0)] | None = None
    #: seconds a cache may keep serving an expired answer while it fetches a fresh one
    cache_control_stale_while_revalidate: Annotated[int, Field(ge=0)] | None = None
    graphql_enabled: bool = True
    graphql_endpoint: str = "/graphql"
    graphql_shadow_crud: bool = True
    graphql_playground_always: bool = False
    #: a ``Subscription`` type and ``graphql-transport-ws`` on the endpoint (beyond Strapi,
    #: whose schema has none: off, the schema stays Strapi's)
    graphql_subscriptions: bool = False
    graphql_depth_limit: int = 10
    graphql_amount_limit: int = 100
    #: the most an operation (or a batch) may cost: each field once per item of the lists it
    #: is in, each field that reads the database 1,000 more (graphql/cost.py); 0: no limit
    graphql_cost_limit: Annotated[int, Field(ge=0)] = 100_000
    #: operations in one batched POST (a JSON array); more is 400
    graphql_batch_limit: Annotated[int, Field(ge=1)] = 10
    #: tokens one document may hold (graphql-core's ``max_tokens``); more is a parse error
    #: before any validation; 0: no limit
    graphql_token_limit: Annotated[int, Field(ge=0)] = 10_000
    extensions: str | None = None
    #: custom fields beyond the known public plugins': ``<uid>=<type>`` pairs, comma-separated
    #: (``plugin::rating.stars=integer,global::slug=string``; schema/custom_fields.py)
    custom_fields: str | None = None
    #: scheme of new password hashes: ``bcrypt`` (Strapi's, cost 10: Strapi started again on the
    #: database verifies them) or ``argon2`` (stronger; Strapi can no longer verify the users
    #: who register or sign in afterwards — it closes the way back to Strapi)
    password_hash: Literal["bcrypt", "argon2"] = "bcrypt"
    #: users-permissions' ``register.allowedFields``: the user attributes a sign-up body may
    #: set besides username, e-mail and password (comma-separated; empty: none); unset:
    #: Strapi v4's default, every attribute that is not private nor the plugin's own
    #: (``users/register_fields.py``)
    register_allowed_fields: str | None = None
    auth_rate_limit_max: int = 10
    auth_rate_limit_window: str = "60s"
    cors_origins: str = "*"
    #: Peers whose ``X-Forwarded-For`` / ``X-Forwarded-Proto`` are believed (comma-separated
    #: addresses or networks, ``*`` for any); none by default, so a client cannot choose the
    #: address the rate limit counts it under.
    trusted_proxies: str = ""
    log_sql: bool = False
    #: Serve ``/documentation`` (the OpenAPI document and its page); unset: on outside
    #: production, off in production.
    documentation: bool | None = None
    #: ``smtp`` delivers mail; ``log`` writes it to the log instead (the whole mail, one-time
    #: link included, only when ``env`` is ``development``; otherwise the body is withheld)
    email_provider: Literal["log", "smtp"] = "log"
    #: sender when a mail template names none (``"Name <address>"`` or an address)
    email_from: str = "no-reply@localhost"
    email_reply_to: str | None = None
    smtp_host: str = "localhost"
    #: default: 465 for ``tls``, 587 for ``starttls``, 25 for ``none``
    smtp_port: int | None = None
    #: ``starttls`` (upgrade a plain connection, required), ``tls`` (TLS from the first byte),
    #: ``none`` (plain text: a relay on the same host only)
    smtp_security: Literal["starttls", "tls", "none"] = "starttls"
    smtp_username: str | None = None
    smtp_password: SecretStr | None = None
    #: PEM file of the certificate authorities to trust (a private CA); the system's by default
    smtp_ca_file: Path | None = None
    smtp_timeout: float = 10
    #: headers every webhook request carries (a JSON object, Strapi's
    #: ``server.webhooks.defaultHeaders``); a webhook's own header of the same name wins
    webhooks_default_headers: Json[dict[str, str]] | None = None
    #: seconds one delivery may take (Strapi's 10)
    webhooks_timeout: Annotated[float, Field(gt=0)] = 10
    #: tries per delivery: a network error or a 5xx is tried again, with the wait doubling from
    #: a second up to ``webhooks_retry_ceiling`` seconds (1: once, as Strapi)
    webhooks_max_attempts: Annotated[int, Field(ge=1)] = 5
    webhooks_retry_ceiling: Annotated[float, Field(gt=0)] = 300
    #: with a secret, each request is signed: ``X-Contentapi-Signature: sha256=<HMAC-SHA256 of
    #: the body, hex>``
    webhooks_secret: SecretStr | None = None
    #: webhook targets in private, loopback and link-local ranges; unset: allowed outside
    #: production, refused in production
    webhooks_allow_private: bool | None = None
    #: seconds between a worker's looks at the change feed when no write of its own woke it
    #: (other processes' events, retries coming due)
    events_poll_interval: Annotated[float, Field(gt=0)] = 1.0
    #: seconds delivered and undeliverable events are kept (the change feed's retention)
    events_retention: Annotated[float, Field(gt=0)] = 86_400
    #: webhooks also get ``entry.publish`` / ``entry.unpublish`` (recorded for every update
    #: that publishes or unpublishes; Strapi sends them only for its admin's publish action)
    events_publication: bool = False
    #: events a live-update stream (server-sent events, a GraphQL subscription) may have
    #: waiting for its client before it is cut off with a reason
    events_queue_limit: Annotated[int, Field(ge=1)] = 1000
    #: the response cache of content GETs (``docs/response-cache.md``): ``off``, ``memory``
    #: (per worker) or ``redis`` (per worker, then shared by every instance through Redis)
    response_cache: Literal["off", "memory", "redis"] = "off"
    #: answers one worker's response cache keeps at most in memory (first in, first out)
    response_cache_size: Annotated[int, Field(ge=1)] = 10_000
    #: bytes of answer bodies one worker's response cache keeps at most in memory
    response_cache_max_bytes: Annotated[int, Field(ge=1)] = 64 * 1024 * 1024
    #: the Redis the ``redis`` response cache shares answers through
    response_cache_redis_url: str = "redis://127.0.0.1:6379/0"
    #: the prefix of the response cache's Redis keys: one per deployment (database) sharing a
    #: Redis
    response_cache_redis_prefix: str = "contentapi:answers:"
    #: seconds an answer stays in Redis (``maxmemory`` bounds it too)
    response_cache_ttl: Annotated[int, Field(ge=1)] = 3600
    #: a CDN to tell about changes (``docs/response-cache.md``): ``fastly``, ``cloudflare`` or
    #: ``varnish`` purge by the ``Surrogate-Key``/``Cache-Tag`` keys answers carry
    cdn_purge: Literal["off", "fastly", "cloudflare", "varnish"] = "off"
    #: the purge endpoint (Fastly: ``https://api.fastly.com/service/<id>/purge``; Cloudflare:
    #: ``https://api.cloudflare.com/client/v4/zones/<zone>/purge_cache``; Varnish: the server)
    cdn_purge_url: str | None = None
    #: the purge endpoint's credential (Fastly's ``Fastly-Key``, Cloudflare's bearer token)
    cdn_purge_token: SecretStr | None = None

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

    @field_validator(
        "statement_timeout",
        "sqlite_busy_timeout",
        "body_limit",
        "query_string_limit",
        "worker_timeout",
        "shutdown_timeout",
    )
    @classmethod
    def _not_negative(cls, value: float) -> float:
        if value < 0:
            raise ValueError("must be 0 or more")
        return value

    @field_validator("database_url")
    @classmethod
    def _check_database_url(cls, value: str) -> str:
        return normalise_database_url(value)

    @field_validator("database_replica_urls", mode="before")
    @classmethod
    def _split_replica_urls(cls, value: object) -> object:
        return _list(value) if isinstance(value, str) else value

    @field_validator("database_replica_urls")
    @classmethod
    def _check_replica_urls(cls, value: list[str]) -> list[str]:
        urls = [normalise_database_url(url) for url in value]
        if any(not url.startswith("postgresql") for url in urls):
            raise ValueError("replicas are PostgreSQL streaming replicas: postgresql:// URLs only")
        return urls

    @model_validator(mode="after")
    def _check_replicas_have_a_primary(self) -> Settings:
        if self.database_replica_urls and not self.database_url.startswith("postgresql"):
            raise ValueError(
                "CONTENTAPI_DATABASE_REPLICA_URLS needs a PostgreSQL CONTENTAPI_DATABASE_URL "
                "(the primary they replicate); SQLite has no replicas"
            )
        return self

    @field_validator("jwt_expires_in")
    @classmethod
    def _check_duration(cls, value: str) -> str:
        parse_duration(value)
        return value

    @field_validator("custom_fields")
    @classmethod
    def _check_custom_fields(cls, value: str | None) -> str | None:
        parse_custom_fields_setting(value)
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

    @model_validator(mode="after")
    def _check_upload_provider(self) -> Settings:
        if self.upload_provider != "aws-s3":
            return self
        if not self.s3_bucket:
            raise ValueError(
                "CONTENTAPI_S3_BUCKET is required when CONTENTAPI_UPLOAD_PROVIDER=aws-s3"
            )
        if self.s3_acl == "private" and not self.s3_base_url:
            raise ValueError(
                "CONTENTAPI_S3_ACL=private needs CONTENTAPI_S3_BASE_URL (a CDN that reads the "
                "bucket): contentapi does not sign media URLs"
            )
        if bool(self.s3_access_key_id) != bool(self.s3_secret_access_key):
            raise ValueError(
                "set both CONTENTAPI_S3_ACCESS_KEY_ID and CONTENTAPI_S3_SECRET_ACCESS_KEY, "
                "or neither"
            )
        return self

    @property
    def webhooks_private_allowed(self) -> bool:
        if self.webhooks_allow_private is not None:
            return self.webhooks_allow_private
        return self.env != "production"

    @property
    def trusted_proxy_list(self) -> list[str]:
        """``trusted_proxies`` as a list (empty: forwarded headers are ignored)."""
        return _list(self.trusted_proxies)

    @property
    def documentation_enabled(self) -> bool:
        """Whether ``/documentation`` is served (``documentation``, else not in production)."""
        if self.documentation is not None:
            return self.documentation
        return self.env != "production"

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
    def smtp_port_or_default(self) -> int:
        return self.smtp_port or {"tls": 465, "starttls": 587, "none": 25}[self.smtp_security]

    @property
    def jwt_lifetime(self) -> timedelta:
        return parse_duration(self.jwt_expires_in)
