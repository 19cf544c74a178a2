"""Applies the registered extensions to the generated schema, once, at start-up.

In registration order: Strawberry ``types`` are converted to graphql-core types and added;
each extension's ``type_defs`` extend the schema (graphql-core's ``extend_schema``, which
checks them: a type or field defined twice fails with its own message); ``resolvers`` are set
on their fields; ``resolvers_config`` entries are merged per ``Type.field`` (policies and
middlewares concatenated; two different ``auth`` values conflict) and installed. Custom root
fields get the default auth check. Every failure is an ``ExtensionError`` naming the
extension, raised before the server answers anything.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from graphql import (
    GraphQLError,
    GraphQLField,
    GraphQLList,
    GraphQLNamedType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLSchema,
    GraphQLType,
    default_field_resolver,
    extend_schema,
    parse,
    specified_scalar_types,
    validate_schema,
)

from contentapi.graphql.extension import Extension, ExtensionError, Plugin
from contentapi.graphql.roles import CUSTOM_KEY, CustomField, custom_of, root_of
from contentapi.graphql.shadow_crud import ShadowCrud
from contentapi.graphql.wrap import NO_AUTH_CONFIG, ResolverConfig
from contentapi.schema.registry import Registry

__all__ = ["Customized", "customize"]

_ROOTS = ("Query", "Mutation")
_PLACEHOLDER = "ContentapiExtensionPlaceholder"


class Customized:
    """The customized schema and what the engine needs from the extensions."""

    def __init__(self, schema: GraphQLSchema, plugins: list[Plugin]) -> None:
        self.schema = schema
        self.plugins = plugins


def check_switches(switches: ShadowCrud, registry: Registry) -> None:
    """Switches naming an unknown model or attribute fail start-up (a typo would silently
    leave the operation on)."""
    for uid, model_switches in switches._models.items():
        model = registry.content_types.get(uid) or registry.components.get(uid)
        if model is None:
            raise ExtensionError(f"shadow_crud({uid!r}): no content type or component has this uid")
        system = {"createdAt", "updatedAt", "publishedAt", "locale", "localizations"}
        for name in model_switches.fields:
            if name not in model.attributes and name not in system:
                raise ExtensionError(f"shadow_crud({uid!r}).field({name!r}): no such attribute")


# ---------------------------------------------------------------- Strawberry types


def _swap_scalars(kind: GraphQLType, ours: Mapping[str, GraphQLNamedType]) -> GraphQLType:
    if isinstance(kind, GraphQLNonNull):
        return GraphQLNonNull(_swap_scalars(kind.of_type, ours))  # type: ignore[type-var]
    if isinstance(kind, GraphQLList):
        return GraphQLList(_swap_scalars(kind.of_type, ours))
    if isinstance(kind, GraphQLScalarType) and kind.name in ours:
        return ours[kind.name]
    return kind


def strawberry_types(extension: Extension, schema: GraphQLSchema) -> list[GraphQLNamedType]:
    """An extension's Strawberry classes as graphql-core types. A Strawberry scalar named like
    one of ours (``DateTime``, ``JSON`` …) is replaced by ours."""
    if not extension.types:
        return []
    import strawberry

    @strawberry.type(name=_PLACEHOLDER)
    class Placeholder:
        placeholder: str | None = None

    try:
        converted = strawberry.Schema(query=Placeholder, types=extension.types)._schema
    except Exception as error:  # Strawberry's own errors say what is wrong with a class
        raise ExtensionError(f"{extension.name}: types: {error}") from error
    ours = {
        name: kind
        for name, kind in schema.type_map.items()
        if isinstance(kind, GraphQLScalarType) and name not in specified_scalar_types
    }
    found: list[GraphQLNamedType] = []
    for name, kind in converted.type_map.items():
        if name.startswith("__") or name == _PLACEHOLDER or name in specified_scalar_types:
            continue
        if name in ours:
            continue
        if name in schema.type_map:
            raise ExtensionError(
                f"{extension.name}: types: the schema already has a type named {name!r}"
            )
        if isinstance(kind, GraphQLObjectType):
            for field in kind.fields.values():
                field.type = _swap_scalars(field.type, ours)
        found.append(kind)
    return found


# ---------------------------------------------------------------- the steps


def _add_types(schema: GraphQLSchema, extension: Extension) -> GraphQLSchema:
    added = strawberry_types(extension, schema)
    if not added:
        return schema
    try:
        return GraphQLSchema(
            query=schema.query_type,
            mutation=schema.mutation_type,
            types=[*schema.type_map.values(), *added],
        )
    except TypeError as error:
        raise ExtensionError(f"{extension.name}: types: {error}") from error


def _extend(schema: GraphQLSchema, extension: Extension) -> GraphQLSchema:
    if not extension.type_defs.strip():
        return schema
    try:
        document = parse(extension.type_defs)
    except GraphQLError as error:
        raise ExtensionError(f"{extension.name}: type_defs: {error.message}") from error
    try:
        return extend_schema(schema, document)
    except (GraphQLError, TypeError) as error:
        raise ExtensionError(f"{extension.name}: type_defs: {error}") from error


def _field(schema: GraphQLSchema, key: str, where: str) -> GraphQLField:
    type_name, _, field_name = key.partition(".")
    owner = schema.get_type(type_name)
    if not isinstance(owner, GraphQLObjectType):
        raise ExtensionError(f"{where}: {key}: the schema has no object type {type_name!r}")
    field = owner.fields.get(field_name)
    if field is None:
        raise ExtensionError(
            f"{where}: {key}: {type_name} has no field {field_name!r} (add it with type_defs)"
        )
    return field


def _mark(field: GraphQLField) -> CustomField:
    custom = custom_of(field)
    if custom is None:
        custom = CustomField()
        field.extensions = {**(field.extensions or {}), CUSTOM_KEY: custom}
    return custom


def _set_resolvers(schema: GraphQLSchema, extensions: list[Extension]) -> None:
    owners: dict[str, str] = {}
    for extension in extensions:
        for type_name, fields in extension.resolvers.items():
            for field_name, resolver in fields.items():
                key = f"{type_name}.{field_name}"
                field = _field(schema, key, extension.name)
                if key in owners:
                    raise ExtensionError(
                        f"{extension.name}: resolvers: {key} is already resolved by {owners[key]}"
                    )
                owners[key] = extension.name
                _mark(field).resolver = resolver
                field.resolve = resolver


def _auth(value: Any, where: str) -> Any:
    if value is False:
        return False
    if isinstance(value, Mapping) and set(value) <= {"scope"}:
        scope = value.get("scope")
        if scope is None or isinstance(scope, str):
            return {"scope": [scope] if scope else []}
        if isinstance(scope, list) and all(isinstance(s, str) for s in scope):
            return {"scope": list(scope)}
    raise ExtensionError(f"{where}: auth is False or {{'scope': [permission, ...]}}")


def _merge_configs(
    schema: GraphQLSchema,
    extensions: list[Extension],
    policies: Any,
    middlewares: Any,
    app: Any,
) -> dict[str, ResolverConfig]:
    merged: dict[str, ResolverConfig] = {}
    for extension in extensions:
        for key, options in extension.resolvers_config.items():
            where = f"{extension.name}: resolvers_config[{key!r}]"
            _field(schema, key, extension.name)
            config = merged.setdefault(key, ResolverConfig(key, app=app))
            if "auth" in options:
                auth = _auth(options["auth"], where)
                if config.auth is not NO_AUTH_CONFIG and config.auth != auth:
                    raise ExtensionError(f"{where}: auth conflicts with an earlier extension's")
                config.auth = auth
            for reference in options.get("policies") or []:
                config.policies.append(policies.resolve(reference, where))
            for reference in options.get("middlewares") or []:
                config.middlewares.append(middlewares.resolve(reference, where))
    return merged


def _wrapped(config: ResolverConfig, base: Callable[..., Any]) -> Callable[..., Any]:
    def resolve(parent: Any, info: Any, **args: Any) -> Any:
        return config.call(base, parent, info, args)

    return resolve


def _install(
    schema: GraphQLSchema, merged: dict[str, ResolverConfig], generated: set[str], app: Any
) -> None:
    for root in _ROOTS:  # custom root fields need the default auth check
        owner = schema.get_type(root)
        if isinstance(owner, GraphQLObjectType):
            for name in owner.fields:
                key = f"{root}.{name}"
                if key not in generated:
                    merged.setdefault(key, ResolverConfig(key, app=app)).check_auth = True
    for key, config in merged.items():
        field = _field(schema, key, "resolvers_config")
        custom = custom_of(field)
        replaced = custom is not None and custom.resolver is not None
        generated_root = root_of(field)
        if generated_root is not None and not replaced:
            # the Shadow CRUD resolver checks its own permission; `auth` replaces it
            if config.auth is not NO_AUTH_CONFIG:
                generated_root.resolvers.auth[generated_root.action] = config.auth
        elif generated_root is not None:
            # a user's resolver in place of a generated one keeps the generated permission
            config.check_auth = True
            if config.auth is NO_AUTH_CONFIG:
                scope = generated_root.resolvers.scope(generated_root.action)
                config.auth = {"scope": [scope]}
        elif config.auth is not NO_AUTH_CONFIG:
            config.check_auth = True  # Strapi checks auth wherever it is configured
        if not config.runs_anything():
            continue
        _mark(field).config = config
        field.resolve = _wrapped(config, field.resolve or default_field_resolver)


def customize(
    schema: GraphQLSchema,
    extensions: list[Extension],
    *,
    policies: Any,
    middlewares: Any,
    app: Any = None,
) -> Customized:
    """The schema with every extension applied (``schema`` itself when there are none)."""
    plugins = [plugin for extension in extensions for plugin in extension.plugins]
    if not extensions:
        return Customized(schema, plugins)
    generated = {
        f"{root}.{name}"
        for root in _ROOTS
        if isinstance(owner := schema.get_type(root), GraphQLObjectType)
        for name in owner.fields
    }
    for extension in extensions:
        schema = _add_types(schema, extension)
        schema = _extend(schema, extension)
    problems = validate_schema(schema)
    if problems:
        raise ExtensionError("; ".join(problem.message for problem in problems))
    _set_resolvers(schema, extensions)
    merged = _merge_configs(schema, extensions, policies, middlewares, app)
    _install(schema, merged, generated, app)
    return Customized(schema, plugins)
