"""Fields an extension resolves inside a generated read, resolved after the compiled pass.

The compiled shaper writes a ``Deferred`` where such a field is selected (a field added to
``Article`` by ``type_defs``, a generated field given a resolver, or one wrapped by
``resolvers_config``). ``complete_deferred`` then finds each one in the shaped value — with its
exact response path — and resolves it as graphql-core would: the resolver (wrapped by its
``resolvers_config``) is called with the entry as ``parent``, and its result is completed by
the running ``ExecutionContext`` (sub-selections, scalars, errors located on the field). The
rest of the read keeps its one statement per populated relation per level; only the custom
resolvers themselves run per row, as in Strapi.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from graphql import GraphQLResolveInfo, default_field_resolver, located_error
from graphql.pyutils import Path

from contentapi.graphql.context import GraphQLContext, Precompleted
from contentapi.graphql.executor import get_argument_values
from contentapi.graphql.roles import custom_of
from contentapi.graphql.shape import Deferred
from contentapi.graphql.wrap import settle

__all__ = ["complete_deferred"]

_Slot = tuple[Any, Any, Deferred, Path]


def _find(value: Any, path: Path, into: deque[_Slot]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if item.__class__ is Deferred:
                into.append((value, key, item, path.add_key(key)))
            elif isinstance(item, dict | list):
                _find(item, path.add_key(key), into)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if item.__class__ is Deferred:
                into.append((value, index, item, path.add_key(index)))
            elif isinstance(item, dict | list):
                _find(item, path.add_key(index), into)


async def _resolve(root: GraphQLResolveInfo, slot: Deferred, path: Path) -> Any:
    context: GraphQLContext = root.context
    execution = context.execution
    definition, nodes = slot.definition, slot.nodes
    info = root._replace(
        field_name=nodes[0].name.value,
        field_nodes=nodes,
        return_type=definition.type,
        parent_type=slot.parent_type,
        path=path,
    )
    try:
        args = get_argument_values(definition, nodes[0], root.variable_values)
        custom = custom_of(definition)
        if slot.has_value:  # a generated field that is only wrapped: its compiled value
            computed = Precompleted(slot.computed)
            if custom is not None and custom.config is not None:
                result = await custom.config.call(
                    lambda *_a, **_k: computed, slot.parent, info, args
                )
            else:
                result = computed
        else:
            resolver = definition.resolve or default_field_resolver
            result = await settle(resolver(slot.parent, info, **args))
        return await settle(execution.complete_value(definition.type, nodes, info, path, result))
    except Exception as raw:
        # as graphql-core's own field errors: a nullable field becomes null with the error
        # collected, a non-null one raises to the root field
        execution.handle_field_error(
            located_error(raw, nodes, path.as_list()), definition.type, path
        )
        return None


async def complete_deferred(info: GraphQLResolveInfo, value: Any) -> Any:
    """``value`` with every ``Deferred`` in it resolved (in place; also inside values that
    wrapped generated fields computed)."""
    slots: deque[_Slot] = deque()
    _find(value, info.path, slots)
    while slots:
        container, key, slot, path = slots.popleft()
        resolved = await _resolve(info, slot, path)
        container[key] = resolved
        if isinstance(resolved, dict | list):
            _find(resolved, path, slots)
    return value
