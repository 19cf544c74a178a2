"""What every resolver of one GraphQL request shares: the services, the caller, the planner.

``Precompleted`` marks a value a resolver has already shaped into its final JSON form; the
executor (``executor.py``, where it is defined) passes it through untouched instead of walking
it field by field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson
from fastapi import Request
from graphql import GraphQLResolveInfo

from contentapi.auth.actor import Actor, may
from contentapi.caching import GRAPHQL_PLANS, BoundedCache
from contentapi.db.engine import Database
from contentapi.entries import EntryService
from contentapi.errors import ForbiddenError
from contentapi.graphql.executor import Precompleted
from contentapi.graphql.plan import Planner
from contentapi.graphql.selection import PlanContext
from contentapi.graphql.shape import ShapeErrors
from contentapi.query.parse import QueryParser
from contentapi.schema.registry import Registry
from contentapi.users.flows import AuthFlows
from contentapi.users.roles import RolesService
from contentapi.users.service import UsersService

__all__ = ["GraphQLContext", "GraphQLServices", "PlanCache", "Precompleted"]


class PlanCache:
    """Compiled plans per (field node, variables, caller's readable types), the first stored
    dropped past ``size``. The node is kept and compared, so a recycled ``id()`` never
    matches."""

    def __init__(self, size: int = GRAPHQL_PLANS) -> None:
        self._plans: BoundedCache[tuple[Any, ...], tuple[Any, Any]] = BoundedCache(size)

    def get(self, key: tuple[Any, ...], node: Any) -> Any:
        found = self._plans.get(key)
        if found is None or found[0] is not node:
            return None
        return found[1]

    def put(self, key: tuple[Any, ...], node: Any, plan: Any) -> None:
        self._plans.put(key, (node, plan))


@dataclass(frozen=True)
class GraphQLServices:
    """What the resolvers use, built once by the composition root (``app.py``) and shared by
    every request's context."""

    registry: Registry
    #: the locales query reads ``i18n_locale``
    database: Database
    entries: EntryService
    query_parser: QueryParser
    users: UsersService
    #: the auth flows (``users/flows.py``), shared with REST
    flows: AuthFlows
    roles: RolesService


@dataclass
class GraphQLContext:
    """Per request: who calls, the services, the errors shapers collected."""

    services: GraphQLServices
    actor: Actor
    request: Request
    planner: Planner
    plans: PlanCache
    shape_errors: ShapeErrors = field(default_factory=list)
    #: the running ``ExecutionContext`` (set by ``ShapedExecutionContext``): completes the
    #: fields extensions resolve inside generated reads (``deferred.py``)
    execution: Any = None
    _parser: QueryParser | None = None
    _readable: tuple[bool, ...] | None = None

    def may(self, action: str) -> bool:
        return may(self.actor, action)

    def may_find(self, uid: str) -> bool:
        return may(self.actor, f"{uid}.find")

    def authorize(self, action: str) -> None:
        """Strapi's resolver auth: any refusal is ``Forbidden access`` (``FORBIDDEN``)."""
        if not may(self.actor, action):
            raise ForbiddenError("Forbidden access")

    @property
    def parser(self) -> QueryParser:
        if self._parser is None:
            self._parser = self.services.query_parser.for_caller(self.may_find)
        return self._parser

    def readable(self) -> tuple[bool, ...]:
        """Which content types the caller may find: part of every plan's cache key."""
        if self._readable is None:
            self._readable = tuple(
                self.may_find(uid) for uid in self.services.registry.content_types
            )
        return self._readable

    def plan_context(self, info: GraphQLResolveInfo) -> PlanContext:
        return PlanContext(
            info.schema, info.fragments, info.variable_values, self.parser, self.may_find
        )

    def plan_key(self, info: GraphQLResolveInfo, kind: str) -> tuple[Any, ...] | None:
        """``None`` when the variables cannot key a cache (uploads)."""
        try:
            variables = orjson.dumps(info.variable_values, option=orjson.OPT_SORT_KEYS)
        except TypeError:
            return None
        return (id(info.field_nodes[0]), kind, variables, self.readable())
