"""The GraphQL budget of one request: its cost limit, its batch limit, and how a refusal and
a reported cost read.

``cost.py`` computes what an operation costs; this module holds what the settings allow
(``CONTENTAPI_GRAPHQL_COST_LIMIT``, ``CONTENTAPI_GRAPHQL_BATCH_LIMIT``) and words the answers:
an operation — or a batch, whose operations' costs add up — over the limit is refused before
any of it runs, with HTTP 400 and a ``BAD_USER_INPUT`` error naming the cost and the limit
(Strapi's error shape: ``extensions.error.details`` holds the numbers); an operation whose
``extensions`` ask for ``cost`` gets it back in the answer's ``extensions.cost``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphql import GraphQLError

from contentapi.errors import ValidationError
from contentapi.graphql.cost import READ_COST, Cost
from contentapi.graphql.errors import format_error

__all__ = ["Budget", "asks_for_cost"]


@dataclass(frozen=True, slots=True)
class Budget:
    """What one request may cost (``limit``, 0: no limit) and how many operations one batched
    POST may hold (``batch_limit``); ``amount_limit`` bounds each list (``amountLimit``)."""

    limit: int
    batch_limit: int
    amount_limit: int

    def refusal(self, cost: Cost, *, batch: int | None = None) -> dict[str, Any] | None:
        """The error refusing ``cost`` (a batch's total when ``batch`` holds its size), or
        ``None`` when it is within the limit."""
        if not self.limit or cost.total <= self.limit:
            return None
        what = f"The batch of {batch} operations costs" if batch else "The query costs"
        message = (
            f"{what} {cost.total}, more than the limit of {self.limit}: each field counts once "
            f"per item of the lists it is in, each field that reads the database {READ_COST} "
            "more. Ask for fewer items, fields or aliases, or split the query."
        )
        error = ValidationError(message, details=self.report(cost))
        return format_error(GraphQLError(message, original_error=error))

    def report(self, cost: Cost, batch: Cost | None = None) -> dict[str, Any]:
        """``extensions.cost`` of an answer (and the refusal's details)."""
        reported: dict[str, Any] = {
            "requested": cost.total,
            "values": cost.values,
            "reads": cost.reads,
            "limit": self.limit,
        }
        if batch is not None:
            reported["batch"] = batch.total
        return reported


def asks_for_cost(payload: Mapping[str, Any]) -> bool:
    """Whether an operation asks for its cost: ``"extensions": {"cost": true}``."""
    extensions = payload.get("extensions")
    return isinstance(extensions, Mapping) and extensions.get("cost") is True
