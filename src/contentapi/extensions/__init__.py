"""Python extensions: the modules of ``CONTENTAPI_EXTENSIONS``, each with ``register(app)``.

``register(app)`` runs at start-up, before the GraphQL schema is built, and receives an
``App``: the settings and models, ``app.graphql`` (``shadow_crud(uid)`` switches and the
``extension_service``), ``app.rest`` (core routers' configuration, custom routes,
controllers, global middlewares: ``rest/customize.py``), ``app.services`` (the entry
service's methods overridden for a content type, in both protocols:
``entries/overrides.py``), the named ``policies`` and
``middlewares`` that both refer to, ``app.lifecycles`` (hooks inside the entry flows:
``entries/lifecycles.py``) and ``app.events`` (listeners of the committed change feed:
``events/listeners.py``). What Strapi does in ``src/index.js`` ``register()`` is done
here (README, "Extensions"). A module's ``register_custom_fields(fields)``, if it has one, runs
earlier, before the models are read (``declare_custom_fields``).
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any

import graphql

from contentapi.entries.lifecycles import LifecycleError, Lifecycles
from contentapi.entries.overrides import ServiceOverrideError, ServiceOverrides
from contentapi.events.listeners import EventListeners, ListenerError
from contentapi.graphql.extension import ExtensionError, ExtensionService, Helpers
from contentapi.graphql.shadow_crud import ContentTypeSwitches, ShadowCrud
from contentapi.rest.customize import RestCustomization, RestCustomizationError

__all__ = [
    "App",
    "ExtensionError",
    "GraphQLCustomization",
    "NamedHandlers",
    "declare_custom_fields",
    "extension_modules",
    "load_extensions",
]


class NamedHandlers:
    """Policies or middlewares registered by name (``app.policies.register("is-owner", fn)``)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._handlers: dict[str, Callable[..., Any]] = {}

    def register(self, name: str, handler: Callable[..., Any]) -> None:
        if not isinstance(name, str) or not name:
            raise ExtensionError(f"A {self.kind} name is a non-empty string")
        if not callable(handler):
            raise ExtensionError(f"The {self.kind} {name!r} is not callable")
        if name in self._handlers:
            raise ExtensionError(f"The {self.kind} {name!r} is registered twice")
        self._handlers[name] = handler

    def get(self, name: str) -> Callable[..., Any] | None:
        return self._handlers.get(name)

    def resolve(self, reference: Any, where: str) -> Callable[..., Any]:
        """A name, an inline callable, or Strapi's ``{"name": …, "config": {…}}`` — the
        registered handler then called with ``config=`` that mapping as a keyword."""
        if callable(reference):
            return reference
        if isinstance(reference, Mapping) and set(reference) <= {"name", "config"}:
            named = self.resolve(reference.get("name"), where)
            if "config" not in reference:
                return named
            return functools.partial(named, config=reference["config"])
        if isinstance(reference, str):
            found = self._handlers.get(reference)
            if found is None:
                raise ExtensionError(f"{where}: no {self.kind} is registered as {reference!r}")
            return found
        raise ExtensionError(
            f"{where}: a {self.kind} is a registered name, a callable or {{'name', 'config'}}"
        )


class GraphQLCustomization:
    """``app.graphql``: the Shadow CRUD switches and the extension service."""

    def __init__(self, helpers: Callable[[], Helpers], registry: Any) -> None:
        self.switches = ShadowCrud()
        self.extension_service = ExtensionService(helpers)
        self._registry = registry

    def find(self, uid: str) -> Callable[..., Any]:
        """A resolver ``(parent, info, **args)`` reading entries of ``uid`` as the generated
        ``xs`` query does, for a field returning ``XEntityResponseCollection``: the selection
        is compiled and populated in one pass; ``args`` are the generated query's (``filters``,
        ``sort``, ``pagination``, ``publicationState``, ``locale``) and may be computed by the
        calling resolver. It checks no permission: the field's ``resolvers_config`` does
        (Strapi's ``toEntityResponseCollection`` over a service call)."""
        from contentapi.graphql.crud import ContentTypeResolvers

        return ContentTypeResolvers.for_extensions(self._registry.content_types[uid]).find

    def find_one(self, uid: str) -> Callable[..., Any]:
        """As ``find`` for a field returning ``XEntityResponse`` (argument ``id``)."""
        from contentapi.graphql.crud import ContentTypeResolvers

        return ContentTypeResolvers.for_extensions(self._registry.content_types[uid]).find_one

    def shadow_crud(self, uid: str) -> ContentTypeSwitches:
        """The switches of one content type or component (Strapi's ``shadowCRUD(uid)``)."""
        return self.switches(uid)


class App:
    """What ``register(app)`` receives."""

    def __init__(self, settings: Any, registry: Any, runtime: Any = None) -> None:
        self.settings = settings
        self.registry = registry
        self.policies = NamedHandlers("policy")
        self.middlewares = NamedHandlers("middleware")
        self.graphql = GraphQLCustomization(lambda: self._helpers(registry), registry)
        #: REST's routes, controllers and middlewares (``rest/customize.py``)
        self.rest = RestCustomization(registry, self.policies, self.middlewares)
        #: the entry service's methods overridden per content type (``entries/overrides.py``)
        self.services = ServiceOverrides(registry)
        #: the running server's services (``Runtime``); ``None`` for commands that only check
        self.runtime = runtime
        #: hooks around every entry flow, in its transaction (Strapi's db lifecycles)
        self.lifecycles = runtime.entries.lifecycles if runtime is not None else Lifecycles()
        #: listeners of committed events (``app.events.on("entry.create", fn)``)
        self.events = EventListeners()

    def _helpers(self, registry: Any) -> Helpers:
        """What a callable extension receives. Strawberry is imported here, when an extension
        asks for it, not with the server: 10 MB per worker that a server without Strawberry
        extensions never uses (docs/benchmarks.md)."""
        import strawberry

        return Helpers(strawberry=strawberry, graphql=graphql, registry=registry, app=self)


def _import(name: str) -> Any:
    if os.getcwd() not in sys.path:  # `contentapi serve` from a project folder, as `python -m`
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(name)
    except ImportError as error:
        raise ExtensionError(f"CONTENTAPI_EXTENSIONS: cannot import {name!r}: {error}") from error
    except SyntaxError as error:  # a module being edited: one line, not a traceback
        where = f"{error.filename}:{error.lineno}"
        raise ExtensionError(
            f"CONTENTAPI_EXTENSIONS: cannot import {name!r}: {where}: {error.msg}"
        ) from error


def extension_modules(settings: Any) -> list[str]:
    """The module names ``CONTENTAPI_EXTENSIONS`` lists (``serve --reload`` watches their files)."""
    return [name.strip() for name in (settings.extensions or "").split(",") if name.strip()]


def declare_custom_fields(settings: Any, fields: Any) -> None:
    """Call each extension module's ``register_custom_fields(fields)``, if it has one, before
    the models are read: Strapi registers custom fields in ``register()`` and converts the
    models' custom fields after it, but here the models are read first (``register(app)``
    receives them), so the declaration is a function of its own (``contentapi/models.py``)."""
    from contentapi.schema.custom_fields import CustomFieldError

    for name in extension_modules(settings):
        declare = getattr(_import(name), "register_custom_fields", None)
        if declare is None:
            continue
        if not callable(declare):
            raise ExtensionError(
                f"Extension module {name!r}: register_custom_fields is not callable"
            )
        try:
            declare(_SourceNamed(fields, name))
        except CustomFieldError as error:
            raise ExtensionError(f"Extension module {name!r}: {error}") from error


class _SourceNamed:
    """``fields`` as an extension sees it: each declaration names the module it came from."""

    def __init__(self, fields: Any, module: str) -> None:
        self._fields = fields
        self._module = module

    def register(self, field: Any, type: str | None = None) -> None:
        self._fields.register(field, type, source=f"extension {self._module!r}")


def load_extensions(settings: Any, registry: Any, runtime: Any = None) -> App:
    """Import every module of ``CONTENTAPI_EXTENSIONS`` and call its ``register(app)``."""
    app = App(settings, registry, runtime)
    for name in extension_modules(settings):
        module = _import(name)
        register = getattr(module, "register", None)
        if not callable(register):
            raise ExtensionError(f"Extension module {name!r} has no register(app) function")
        app.graphql.extension_service.current_source = name
        app.rest.current_source = app.services.current_source = name
        try:
            register(app)
        except (LifecycleError, ListenerError) as error:
            raise ExtensionError(f"Extension module {name!r}: {error}") from error
        except (RestCustomizationError, ServiceOverrideError) as error:
            raise ExtensionError(str(error)) from error
    try:  # names resolved once every module registered: one may use another's policy
        app.rest.resolve(app)
    except RestCustomizationError as error:
        raise ExtensionError(str(error)) from error
    return app
