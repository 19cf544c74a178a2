"""Shadow CRUD switches: what an extension turns off in the generated schema.

``app.graphql.shadow_crud("api::article.article")`` gives the switches of one content type (or
component), with the names and semantics of Strapi's ``extension.shadowCRUD(uid)``: the type as
a whole, its queries, its mutations, single actions, and per field its output, input and
filters. The schema builder reads the getters; nothing here touches the schema itself, so the
switches must be set in ``register(app)``, before the schema is built.

Every setter returns its switches, so calls chain as in Strapi
(``shadow_crud(uid).disable_queries().disable_action("delete")``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = ["ACTIONS", "ContentTypeSwitches", "FieldSwitches", "ShadowCrud"]

#: The actions a content type's generated operations stand for; ``*`` stands for all of them.
ACTIONS = frozenset({"find", "findOne", "create", "update", "delete", "createLocalization", "*"})
_QUERY_ACTIONS = frozenset({"find", "findOne"})


@dataclass(slots=True)
class FieldSwitches:
    """One attribute of one model: shown in output types, input types, filter inputs."""

    enabled: bool = True
    output: bool = True
    input: bool = True
    filters: bool = True

    def disable(self) -> FieldSwitches:
        self.enabled = self.output = self.input = self.filters = False
        return self

    def disable_output(self) -> FieldSwitches:
        self.output = False
        return self

    def disable_input(self) -> FieldSwitches:
        self.input = False
        return self

    def disable_filters(self) -> FieldSwitches:
        self.filters = False
        return self

    def is_enabled(self) -> bool:
        return self.enabled

    def is_disabled(self) -> bool:
        return not self.enabled

    def has_output_enabled(self) -> bool:
        return self.enabled and self.output

    def has_input_enabled(self) -> bool:
        return self.enabled and self.input

    def has_filters_enabled(self) -> bool:
        return self.enabled and self.filters


@dataclass(slots=True)
class ContentTypeSwitches:
    """One model's generated types and operations."""

    uid: str
    enabled: bool = True
    queries: bool = True
    mutations: bool = True
    disabled_actions: list[str] = field(default_factory=list)
    fields: dict[str, FieldSwitches] = field(default_factory=dict)

    # ------------------------------------------------------------ setters

    def disable(self) -> ContentTypeSwitches:
        """No types, queries or mutations at all; relations to it are left out too."""
        self.enabled = False
        return self

    def disable_queries(self) -> ContentTypeSwitches:
        self.queries = False
        return self

    def disable_mutations(self) -> ContentTypeSwitches:
        self.mutations = False
        return self

    def disable_action(self, action: str) -> ContentTypeSwitches:
        if action not in ACTIONS:
            known = ", ".join(sorted(ACTIONS))
            raise ValueError(f"Unknown Shadow CRUD action {action!r} (one of: {known})")
        if action not in self.disabled_actions:
            self.disabled_actions.append(action)
        return self

    def disable_actions(self, actions: Iterable[str]) -> ContentTypeSwitches:
        for action in actions:
            self.disable_action(action)
        return self

    def field(self, name: str) -> FieldSwitches:
        """The switches of attribute ``name`` (created enabled on first use)."""
        return self.fields.setdefault(name, FieldSwitches())

    # ------------------------------------------------------------ getters

    def is_enabled(self) -> bool:
        return self.enabled

    def is_disabled(self) -> bool:
        return not self.enabled

    def are_queries_enabled(self) -> bool:
        return self.enabled and self.queries

    def are_queries_disabled(self) -> bool:
        return not self.are_queries_enabled()

    def are_mutations_enabled(self) -> bool:
        return self.enabled and self.mutations

    def are_mutations_disabled(self) -> bool:
        return not self.are_mutations_enabled()

    def is_action_enabled(self, action: str) -> bool:
        """Whether the action itself is switched on (``*`` disables every action)."""
        return action not in self.disabled_actions and "*" not in self.disabled_actions

    def is_action_disabled(self, action: str) -> bool:
        return not self.is_action_enabled(action)

    def generates(self, action: str) -> bool:
        """Whether the operation for ``action`` is part of the schema: the type, its queries or
        mutations and the action all switched on."""
        if action in _QUERY_ACTIONS:
            return self.are_queries_enabled() and self.is_action_enabled(action)
        return self.are_mutations_enabled() and self.is_action_enabled(action)


class ShadowCrud:
    """The switches of every model, by uid; ``shadow_crud(uid)`` creates them on first use."""

    def __init__(self) -> None:
        self._models: dict[str, ContentTypeSwitches] = {}

    def __call__(self, uid: str) -> ContentTypeSwitches:
        return self._models.setdefault(uid, ContentTypeSwitches(uid))

    def of(self, uid: str) -> ContentTypeSwitches:
        """The switches of ``uid`` for reading (all on when never touched)."""
        return self._models.get(uid) or ContentTypeSwitches(uid)

    def _field(self, uid: str, name: str) -> FieldSwitches | None:
        switches = self._models.get(uid)
        return switches.fields.get(name) if switches else None

    def output(self, uid: str, name: str) -> bool:
        found = self._field(uid, name)
        return found is None or found.has_output_enabled()

    def input(self, uid: str, name: str) -> bool:
        found = self._field(uid, name)
        return found is None or found.has_input_enabled()

    def filters(self, uid: str, name: str) -> bool:
        found = self._field(uid, name)
        return found is None or found.has_filters_enabled()

    def enabled(self, uid: str) -> bool:
        switches = self._models.get(uid)
        return switches is None or switches.enabled
