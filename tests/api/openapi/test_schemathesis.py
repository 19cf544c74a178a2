"""schemathesis against a live server, on SQLite and PostgreSQL: for every operation of the
served OpenAPI document, requests generated from it (a bounded number per operation, the same
ones every run) must never answer 5xx, and every answer must be one the document declares —
its status code, its media type and its body's schema."""

from __future__ import annotations

import os
import time

import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.conftest import ADMIN_TOKEN

#: Examples per operation (hand runs may raise it: ``CONTENTAPI_SCHEMATHESIS_EXAMPLES=200``).
EXAMPLES = int(os.environ.get("CONTENTAPI_SCHEMATHESIS_EXAMPLES", "5"))
#: ``positive`` (requests the document allows) in ``make test``; ``negative`` for a hand run
#: (requests it forbids: they too must answer as documented, a 4xx).
MODE = schemathesis.GenerationMode(os.environ.get("CONTENTAPI_SCHEMATHESIS_MODE", "positive"))
#: Operations that hash a password (argon2, on purpose slow): fewer examples keep the run short.
SLOW = {"/api/auth/local", "/api/auth/local/register", "/api/users"}
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
AUTH = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


def _run_operation(operation, base: str) -> None:
    slow = operation.method.upper() == "POST" and operation.path in SLOW

    @given(case=operation.as_strategy(generation_mode=MODE))
    @settings(
        max_examples=max(1, EXAMPLES // 3) if slow else EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def run(case) -> None:
        response = case.call(base_url=base, headers=AUTH, timeout=30)
        case.validate_response(response, checks=CHECKS)

    run()


def test_every_operation_answers_as_its_openapi_document_says(live_server: str):
    schema = schemathesis.openapi.from_url(f"{live_server}/documentation/openapi.json")
    failures: list[str] = []
    durations: dict[str, float] = {}
    for result in schema.get_all_operations():
        operation = result.ok()
        if operation.path.endswith("/events"):
            continue  # a stream answers for ever (tests/api/events/test_event_stream.py)
        name = f"{operation.method.upper()} {operation.path}"
        started = time.monotonic()
        try:
            _run_operation(operation, live_server)
        except Unsatisfiable:  # negative mode: an operation without inputs has no wrong ones
            assert MODE is schemathesis.GenerationMode.NEGATIVE
        except (Exception, BaseExceptionGroup) as error:  # report every operation's failures
            failures.append(f"{name}: {error}")
        durations[name] = time.monotonic() - started
    slowest = sorted(durations.items(), key=lambda item: -item[1])[:5]
    print(f"schemathesis: {len(durations)} operations in {sum(durations.values()):.1f} s;", slowest)
    assert len(durations) >= 40
    assert not failures, "\n\n".join(failures)
