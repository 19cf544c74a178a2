"""The GraphQL extension service: what ``register(app)`` adds to the generated schema.

``app.graphql.extension_service.use(ext)`` takes an extension as Strapi's plugin does — a dict,
or a callable receiving the schema-builder helpers and returning one — with the keys
``types`` (Strawberry classes), ``type_defs`` (SDL), ``plugins``, ``resolvers`` and
``resolvers_config`` (Strapi's camelCase spellings ``typeDefs`` / ``resolversConfig`` are
accepted too). Extensions are kept in registration order; ``customize.py`` applies them when
the schema is built, and reports conflicts there with the extension's name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

__all__ = ["Extension", "ExtensionError", "ExtensionService", "Helpers", "Plugin"]

_KEYS = {
    "types": "types",
    "type_defs": "type_defs",
    "typeDefs": "type_defs",
    "plugins": "plugins",
    "resolvers": "resolvers",
    "resolvers_config": "resolvers_config",
    "resolversConfig": "resolvers_config",
}


class ExtensionError(Exception):
    """An extension that cannot be applied: start-up fails with this message."""


@dataclass(frozen=True, slots=True)
class Plugin:
    """A schema-level addition.

    - ``validation_rules``: graphql-core ``ASTValidationRule`` classes run on every document
      beside the specified rules (and the depth limit);
    - ``on_execute(context, document, operation_name)``: called before each operation is
      executed; raising an ``ApplicationError`` refuses it (Strapi's error shape);
    - ``on_result(context, body)``: called with each response body before it is written; it
      may change it in place.

    Either hook may be sync or async. A plain dict with these keys is accepted too.
    """

    validation_rules: Sequence[type] = ()
    on_execute: Callable[..., Any] | None = None
    on_result: Callable[..., Any] | None = None


@dataclass(slots=True)
class Extension:
    """One ``use()`` call, normalized."""

    name: str
    types: list[type] = field(default_factory=list)
    type_defs: str = ""
    plugins: list[Plugin] = field(default_factory=list)
    resolvers: dict[str, dict[str, Callable[..., Any]]] = field(default_factory=dict)
    resolvers_config: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Helpers:
    """What a callable extension receives (Strapi passes ``{strapi, nexus, typeRegistry}``):
    the schema-builder library (Strawberry), graphql-core, the models and the app."""

    strawberry: ModuleType
    graphql: ModuleType
    registry: Any
    app: Any


def _plugin(value: Any, name: str) -> Plugin:
    if isinstance(value, Plugin):
        return value
    if isinstance(value, Mapping):
        unknown = set(value) - {"validation_rules", "on_execute", "on_result"}
        if unknown:
            raise ExtensionError(f"{name}: unknown plugin keys {sorted(unknown)}")
        return Plugin(
            tuple(value.get("validation_rules") or ()),
            value.get("on_execute"),
            value.get("on_result"),
        )
    raise ExtensionError(f"{name}: a plugin is a Plugin or a dict, not {type(value).__name__}")


def normalize(value: Any, name: str) -> Extension:
    """A user's extension dict → ``Extension``, every key checked."""
    if not isinstance(value, Mapping):
        raise ExtensionError(f"{name}: an extension is a dict, not {type(value).__name__}")
    unknown = [key for key in value if key not in _KEYS]
    if unknown:
        known = ", ".join(sorted(k for k in _KEYS if "_" in k or k == k.lower()))
        raise ExtensionError(f"{name}: unknown keys {unknown} (known: {known})")
    found = {_KEYS[key]: item for key, item in value.items()}
    extension = Extension(name)
    types = found.get("types") or []
    if not isinstance(types, Sequence) or isinstance(types, str):
        raise ExtensionError(f"{name}: types is a list of Strawberry classes")
    extension.types = list(types)
    type_defs = found.get("type_defs") or ""
    if not isinstance(type_defs, str):
        raise ExtensionError(f"{name}: type_defs is an SDL string")
    extension.type_defs = type_defs
    extension.plugins = [_plugin(p, name) for p in found.get("plugins") or []]
    resolvers = found.get("resolvers") or {}
    if not isinstance(resolvers, Mapping):
        raise ExtensionError(f"{name}: resolvers is a dict {{type name: {{field: function}}}}")
    for type_name, fields in resolvers.items():
        if not isinstance(fields, Mapping) or not all(callable(f) for f in fields.values()):
            raise ExtensionError(f"{name}: resolvers[{type_name!r}] maps field names to functions")
        extension.resolvers[type_name] = dict(fields)
    config = found.get("resolvers_config") or {}
    if not isinstance(config, Mapping):
        raise ExtensionError(f"{name}: resolvers_config is a dict {{'Type.field': options}}")
    for key, options in config.items():
        if not isinstance(key, str) or key.count(".") != 1:
            raise ExtensionError(f"{name}: resolvers_config key {key!r} is not 'Type.field'")
        if not isinstance(options, Mapping):
            raise ExtensionError(f"{name}: resolvers_config[{key!r}] is a dict")
        unknown_options = set(options) - {"auth", "policies", "middlewares"}
        if unknown_options:
            raise ExtensionError(
                f"{name}: resolvers_config[{key!r}] has unknown options {sorted(unknown_options)}"
                " (auth, policies, middlewares)"
            )
        extension.resolvers_config[key] = dict(options)
    return extension


class ExtensionService:
    """``use()`` in ``register(app)``; read by the schema builder."""

    def __init__(self, helpers: Callable[[], Helpers]) -> None:
        self._helpers = helpers
        self.extensions: list[Extension] = []
        #: the module registering right now, to name its extensions in messages
        self.current_source = "extension"

    def use(self, extension: Mapping[str, Any] | Callable[[Helpers], Mapping[str, Any]]) -> None:
        name = f"{self.current_source} (extension {len(self.extensions) + 1})"
        value = extension(self._helpers()) if callable(extension) else extension
        self.extensions.append(normalize(value, name))
