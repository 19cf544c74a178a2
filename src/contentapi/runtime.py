"""Runtime: the parts a running server shares, built from ``Settings`` and started once.

``Runtime.start()`` brings the database up to date (migrations, additive sync), then makes sure
the server's secrets exist (API-token salt, JWT secret), adds the locales of
``CONTENTAPI_LOCALES`` the database lacks, bootstraps ``CONTENTAPI_ADMIN_TOKEN`` and stores the
users-permissions plugin's default settings where missing — all in one locked
transaction, so several workers may start at once.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass, field

from contentapi.auth.cache import CallerCache
from contentapi.auth.passwords import PasswordHasher
from contentapi.auth.permissions import auth_tables, ensure_default_roles
from contentapi.auth.plugin_settings import ensure_plugin_settings
from contentapi.auth.secrets import ServerSecrets
from contentapi.auth.token_usage import TokenUsage
from contentapi.auth.tokens import TokenHasher, ensure_admin_token
from contentapi.config import Settings
from contentapi.db.core_store import ensure_setting
from contentapi.db.engine import Database
from contentapi.db.locales import LOCALE_TABLES, LocaleCache
from contentapi.db.notify import (
    AUTH_CHANNEL,
    CONTENT_CHANNEL,
    LOCALES_CHANNEL,
    ChangeListener,
    install_auth_triggers,
    install_content_triggers,
    install_locale_triggers,
)
from contentapi.db.sync import SyncReport, sync_database
from contentapi.db.tables import ContentTables, build_tables
from contentapi.db.versions import (
    VersionWatcher,
    install_version_triggers,
)
from contentapi.entries import EntryService
from contentapi.entries.events import EntryEvents
from contentapi.entries.serialize import RestSerializer
from contentapi.events.cdn_purge import CdnPurger
from contentapi.http.answer_store import AnswerStore
from contentapi.http.read_tables import ReadTables
from contentapi.http.response_cache import ResponseCache
from contentapi.http.shared_answers import SharedAnswers
from contentapi.i18n.store import ensure_locales
from contentapi.mail.outbox import Outbox
from contentapi.mail.provider import build_mail_provider
from contentapi.models import load_models
from contentapi.query.parse import QueryLimits, QueryParser
from contentapi.schema import Registry
from contentapi.upload.storage import StorageProvider, build_storage

__all__ = ["Runtime"]

log = logging.getLogger("contentapi")
_BOOTSTRAP_LOCK = 0x636F6E75


@dataclass
class Runtime:
    """Settings, models, tables, database and services of one server process."""

    settings: Settings
    registry: Registry
    tables: ContentTables
    database: Database
    entries: EntryService
    query_parser: QueryParser
    serializer: RestSerializer
    #: where uploaded files are stored (``CONTENTAPI_UPLOAD_PROVIDER``)
    storage: StorageProvider
    #: mail of the users-permissions flows, delivered after the request (``mail.outbox``)
    outbox: Outbox
    #: the token hasher and JWT secret, filled in by ``start()``
    secrets: ServerSecrets = field(default_factory=ServerSecrets)
    sync_report: SyncReport = field(default_factory=SyncReport)
    #: resolved callers per credential (PostgreSQL: trusted while ``change_listener`` listens)
    caller_cache: CallerCache = field(default_factory=CallerCache)
    change_listener: ChangeListener | None = None
    #: content GETs' answers (``CONTENTAPI_RESPONSE_CACHE``; also on for the surrogate keys of
    #: ``CONTENTAPI_CDN_PURGE``), ``None`` when neither is on
    response_cache: ResponseCache | None = None
    #: the CDN purges of changed tables' keys (``CONTENTAPI_CDN_PURGE``), ``None`` when off
    cdn_purger: CdnPurger | None = None
    #: API tokens' ``last_used_at``, stamped at most once a minute per token and worker
    token_usage: TokenUsage = field(init=False)

    def __post_init__(self) -> None:
        self.token_usage = TokenUsage(self.database)
        # this process's own role and user changes apply to its very next request; the
        # notification (``change_listener``) is for the other workers and processes
        self.database.after_caller_change.append(self.caller_cache.clear)

    @property
    def token_hasher(self) -> TokenHasher | None:
        return self.secrets.token_hasher

    @property
    def jwt_secret(self) -> str | None:
        return self.secrets.jwt_secret

    @classmethod
    def build(cls, settings: Settings) -> Runtime:
        """Load and validate the models (raises ``ModelErrors``) and prepare, without I/O."""
        if settings.env == "production" and not settings.jwt_secret:
            raise ValueError("CONTENTAPI_JWT_SECRET is required when CONTENTAPI_ENV=production")
        registry = load_models(settings)
        tables = build_tables(registry)
        database = Database(
            settings.database_url,
            echo=settings.log_sql,
            sqlite_busy_timeout=settings.sqlite_busy_timeout,
            statement_timeout=settings.statement_timeout,
            read_concurrency=settings.database_read_concurrency,
            replica_urls=settings.database_replica_urls,
            replica_max_lag=settings.replica_max_lag,
        )
        serializer = RestSerializer(registry)
        entries = EntryService(
            registry,
            tables,
            database,
            locales=LocaleCache(database),
            events=EntryEvents(serializer, database.kept),
            passwords=PasswordHasher(settings.password_hash),
        )
        limits = QueryLimits(
            default_limit=settings.rest_default_limit,
            max_limit=settings.rest_max_limit,
            with_count=settings.rest_with_count,
            locales=settings.locale_codes,
            cost_limit=settings.rest_cost_limit,
        )
        runtime = cls(
            settings,
            registry,
            tables,
            database,
            entries,
            QueryParser(registry, limits),
            serializer,
            build_storage(settings),
            Outbox(build_mail_provider(settings)),
        )
        if settings.response_cache != "off" or settings.cdn_purge != "off":
            shared = None
            if settings.response_cache == "redis":
                shared = SharedAnswers(
                    settings.response_cache_redis_url,
                    settings.response_cache_ttl,
                    settings.response_cache_redis_prefix,
                )
            runtime.response_cache = ResponseCache(
                AnswerStore(settings.response_cache_size, settings.response_cache_max_bytes),
                ReadTables(tables.metadata.tables),
                keeps=settings.response_cache != "off",
                shared=shared,
            )
        if settings.cdn_purge != "off":
            if not settings.cdn_purge_url:
                raise ValueError("CONTENTAPI_CDN_PURGE needs CONTENTAPI_CDN_PURGE_URL")
            token = settings.cdn_purge_token
            runtime.cdn_purger = CdnPurger(
                settings.cdn_purge,
                settings.cdn_purge_url,
                token.get_secret_value() if token else None,
                tables.metadata.tables,
                max_attempts=settings.webhooks_max_attempts,
                retry_ceiling=settings.webhooks_retry_ceiling,
                timeout=settings.webhooks_timeout,
            )
        return runtime

    async def start(self) -> None:
        self.sync_report = await sync_database(self.database, self.tables)
        async with self.database.write() as conn:
            await self.database.dialect.lock(conn, _BOOTSTRAP_LOCK)
            salt = self.settings.api_token_salt or await ensure_setting(
                conn, "contentapi_api_token_salt", lambda: secrets.token_urlsafe(32)
            )
            self.secrets.token_hasher = TokenHasher(salt)
            self.secrets.jwt_secret = self.settings.jwt_secret or await ensure_setting(
                conn, "contentapi_jwt_secret", lambda: secrets.token_urlsafe(48)
            )
            if self.settings.admin_token:
                await ensure_admin_token(conn, self.secrets.token_hasher, self.settings.admin_token)
            await ensure_default_roles(conn, self.tables)
            await ensure_locales(
                conn,
                self.settings.locale_codes,
                fill_only="locales" not in self.settings.model_fields_set,
            )
            await ensure_plugin_settings(conn)
            if self.database.dialect.notifies:
                await install_auth_triggers(conn, auth_tables(self.tables))
                await install_content_triggers(conn, list(self.tables.metadata.tables))
                await install_locale_triggers(conn, LOCALE_TABLES)
            elif self._keeps_answers:
                await install_version_triggers(conn, [*self.tables.metadata.tables, *LOCALE_TABLES])
        if self.database.dialect.notifies:
            self.change_listener = self._listen()
            await self.change_listener.start()
        elif self._keeps_answers:
            await self._watch_versions()

    @property
    def _keeps_answers(self) -> bool:
        return self.response_cache is not None and self.response_cache.keeps

    async def _watch_versions(self) -> None:
        """SQLite: the response cache follows the tables' versions (``db/versions.py``), read
        by each cached request before it looks at the cache."""
        assert self.response_cache is not None
        answers = self.response_cache.store
        watcher = VersionWatcher(self.database)
        watcher.subscribe(self.tables.metadata.tables, answers.changed)
        watcher.subscribe(LOCALE_TABLES, answers.clear)
        shared = self.response_cache.shared
        if shared is not None:
            watcher.subscribe(self.tables.metadata.tables, shared.changed)
            watcher.subscribe(LOCALE_TABLES, lambda _table: shared.missed())
        await watcher.start()
        answers.set_live(True)
        self.response_cache.catch_up = watcher.caught_up

    def _listen(self) -> ChangeListener:
        """The change listener with this process's subscribers: the caller cache follows the
        auth tables, the list totals every content table, the locales their two tables; none
        is trusted while the listener cannot hear (``caching.InvalidatedCache``)."""
        listener = ChangeListener(self.settings.database_listen_url or self.settings.database_url)
        for channel, cache in (
            (AUTH_CHANNEL, self.caller_cache),
            (CONTENT_CHANNEL, self.entries.totals),
            (LOCALES_CHANNEL, self.entries.locales),
        ):
            listener.subscribe(channel, cache.changed)
            listener.on_live(cache.set_live)
        if self.response_cache is not None:
            # each table's change evicts the answers that read it; the locales (whose default a
            # read without ``locale`` uses, kept by ``db/locales.py``) forget every answer
            answers = self.response_cache.store
            listener.subscribe(CONTENT_CHANNEL, answers.changed)
            listener.subscribe(LOCALES_CHANNEL, answers.clear)
            listener.on_live(answers.set_live)
            self.response_cache.catch_up = listener.caught_up
            shared = self.response_cache.shared
            if shared is not None:  # Redis: versions raised, the epoch when changes were missed
                listener.subscribe(CONTENT_CHANNEL, shared.changed)
                listener.subscribe(LOCALES_CHANNEL, lambda _table: shared.missed())
                listener.on_live(shared.missed)
        if self.cdn_purger is not None:
            listener.subscribe(CONTENT_CHANNEL, self.cdn_purger.changed)
            listener.on_live(self.cdn_purger.set_live)
        return listener

    async def stop(self) -> None:
        await self.outbox.drain()
        await self.token_usage.close()
        if self.change_listener is not None:
            await self.change_listener.stop()
        if self.cdn_purger is not None:
            await self.cdn_purger.stop()
        if self.response_cache is not None and self.response_cache.shared is not None:
            await self.response_cache.shared.close()
        await self.database.dispose()
