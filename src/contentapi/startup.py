"""What ``contentapi serve`` tells the operator before it listens: which database (password
hidden), which models, locales, uploads folder, environment and whether the admin token is set —
the answers to "is it running on what I think it is?" without reading the configuration."""

from __future__ import annotations

from contentapi import __version__
from contentapi.config import Settings
from contentapi.db.urls import redacted
from contentapi.schema import Registry
from contentapi.schema.builtin import BUILTIN_DOCUMENTS

__all__ = ["summary_lines"]


def summary_lines(
    settings: Settings, registry: Registry, *, host: str, port: int, workers: int
) -> list[str]:
    """The start-up summary, one fact per line."""
    own = [ct for uid, ct in registry.content_types.items() if uid not in BUILTIN_DOCUMENTS]
    builtin = sorted(
        ct.singular_name for uid, ct in registry.content_types.items() if uid in BUILTIN_DOCUMENTS
    )
    locales = settings.locale_codes
    admin = "set (CONTENTAPI_ADMIN_TOKEN)" if settings.admin_token else "not set"
    graphql = settings.graphql_endpoint if settings.graphql_enabled else "off"
    plural = "s" if workers != 1 else ""
    replicas = [
        f"  replica:      {redacted(url)} (reads, at most {settings.replica_max_lag:g} s behind)"
        for url in settings.database_replica_urls
    ]
    return [
        f"contentapi {__version__}",
        f"  environment:  {settings.env}",
        f"  database:     {redacted(settings.database_url)}",
        *replicas,
        f"  models:       {settings.content_types_dir}: {len(own)} content types "
        f"({', '.join(sorted(ct.singular_name for ct in own)) or 'none'}), "
        f"{len(registry.components)} components; {len(builtin)} built-in types "
        f"({', '.join(builtin)})",
        f"  locales:      {locales[0]} (default)"
        + (f", {', '.join(locales[1:])}" if len(locales) > 1 else ""),
        f"  uploads:      {settings.uploads_dir}",
        f"  admin token:  {admin}",
        f"  GraphQL:      {graphql}",
        f"  listening on: http://{host}:{port} ({workers} worker{plural})",
    ]
