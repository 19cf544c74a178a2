"""``BodyBudget``: the one count of a request's body (``http/limits.py``), lowered by routes."""

from __future__ import annotations

import pytest

from contentapi.errors import PayloadTooLargeError
from contentapi.http.limits import BodyBudget


def test_counts_up_to_the_limit_then_refuses() -> None:
    budget = BodyBudget(10, json_limit=5)
    budget.count(6)
    budget.count(4)
    with pytest.raises(PayloadTooLargeError):
        budget.count(1)


def test_lowering_applies_to_the_rest_of_the_body() -> None:
    budget = BodyBudget(100, json_limit=10)
    budget.lower(budget.json_limit, None)
    budget.count(10)
    with pytest.raises(PayloadTooLargeError):
        budget.count(1)


def test_a_route_never_raises_the_limit() -> None:
    budget = BodyBudget(10, json_limit=10)
    budget.lower(1000, None)
    assert budget.limit == 10


@pytest.mark.parametrize("declared", ["11", b"11"])
def test_a_declared_length_over_the_lowered_limit_is_refused_before_reading(declared) -> None:
    budget = BodyBudget(100, json_limit=10)
    with pytest.raises(PayloadTooLargeError):
        budget.lower(10, declared)


@pytest.mark.parametrize("declared", [None, "10", "abc", ""])
def test_a_declared_length_within_or_unreadable_is_counted_instead(declared) -> None:
    budget = BodyBudget(100, json_limit=10)
    budget.lower(10, declared)
    assert budget.limit == 10


def test_bytes_already_counted_over_the_lowered_limit_are_refused() -> None:
    budget = BodyBudget(100, json_limit=10)
    budget.count(20)
    with pytest.raises(PayloadTooLargeError):
        budget.lower(10, None)
