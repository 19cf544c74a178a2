"""The GraphQL endpoint over HTTP: ``POST`` (JSON, batched arrays, multipart uploads), ``GET``
(queries only) and the GraphiQL page (``graphql/playground.py``: the page and its files).

The caller is resolved first, exactly as for REST: a bad or expired token is a 401 with the REST
error body. Resolver errors are HTTP 200 with ``extensions.code``; a request that never reached
execution (parse, validation, variables) is 400, as Apollo Server 3 answers Strapi's clients;
so is a batch of more operations than ``CONTENTAPI_GRAPHQL_BATCH_LIMIT``, or an operation or
batch over the cost budget (``budget.py``), before any of it runs.

A query over ``GET`` (or ``HEAD``) answered without errors carries validators and the configured
``Cache-Control`` (``http/conditional.py``; the global lifetimes: one document reads many
types); every other answer — ``POST``, mutations, answers with ``errors`` — is ``no-store``.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from fastapi import APIRouter, Request
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.responses import HTMLResponse, Response

from contentapi.auth.actor import Actor
from contentapi.auth.deps import CallerResolver
from contentapi.config import Settings
from contentapi.events.feed import ChangeFeed
from contentapi.graphql.context import GraphQLContext, GraphQLServices, PlanCache
from contentapi.graphql.execute import Engine, Outcome
from contentapi.graphql.plan import Planner
from contentapi.graphql.playground import build_playground
from contentapi.http.conditional import (
    CacheDirectives,
    CachePolicy,
    cacheable_response,
    no_store,
)
from contentapi.http.limits import hold_body_to_json
from contentapi.http.response_cache import ResponseCache, asks_for_caller, with_surrogate_keys
from contentapi.http.responses import OrjsonResponse
from contentapi.upload.service import IncomingFile

__all__ = ["build_graphql_router"]

_SPEC = "(https://github.com/jaydenseric/graphql-multipart-request-spec)"


class _BadRequest(Exception):
    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def _transport_error(message: str, status: int = 400) -> Response:
    body = {"errors": [{"message": message, "extensions": {"code": "BAD_REQUEST"}}]}
    return no_store(OrjsonResponse(body, status_code=status))


async def _json_body(request: Request) -> Any:
    """The JSON body, at most ``CONTENTAPI_BODY_LIMIT`` bytes (counted by ``http/limits.py``)."""
    hold_body_to_json(request)
    chunks = [chunk async for chunk in request.stream()]
    try:
        return orjson.loads(b"".join(chunks))
    except orjson.JSONDecodeError:
        raise _BadRequest("POST body is not valid JSON.") from None


def _place(operations: Any, path: str, value: IncomingFile) -> None:
    """Put a file where ``map`` says (``variables.files.1``)."""
    keys = path.split(".")
    target = operations
    try:
        for key in keys[:-1]:
            target = target[int(key)] if isinstance(target, list) else target[key]
        last = keys[-1]
        if isinstance(target, list):
            target[int(last)] = value
        elif isinstance(target, dict):
            target[last] = value
        else:
            raise TypeError
    except (KeyError, IndexError, ValueError, TypeError):
        raise _BadRequest(
            f"Invalid object path for the ‘map’ multipart field entry key ‘{path}’ {_SPEC}."
        ) from None


async def _multipart_body(request: Request) -> tuple[Any, Any]:
    """The GraphQL multipart request spec: ``operations``, then ``map``, then the files (at
    most the multipart limit, counted by ``http/limits.py``)."""
    parser = MultiPartParser(request.headers, request.stream(), max_files=50, max_fields=50)
    try:
        form = await parser.parse()
    except MultiPartException as error:
        raise _BadRequest(f"Invalid multipart body: {error.message}") from error
    raw_operations = form.get("operations")
    raw_map = form.get("map")
    if not isinstance(raw_operations, str):
        await form.close()
        raise _BadRequest(f"Missing multipart field ‘operations’ {_SPEC}.")
    if not isinstance(raw_map, str):
        await form.close()
        raise _BadRequest(f"Missing multipart field ‘map’ {_SPEC}.")
    try:
        operations = json.loads(raw_operations)
    except ValueError:
        await form.close()
        raise _BadRequest(f"Invalid JSON in the ‘operations’ multipart field {_SPEC}.") from None
    try:
        mapping = json.loads(raw_map)
    except ValueError:
        await form.close()
        raise _BadRequest(f"Invalid JSON in the ‘map’ multipart field {_SPEC}.") from None
    if not isinstance(mapping, dict):
        await form.close()
        raise _BadRequest(f"Invalid type for the ‘map’ multipart field {_SPEC}.")
    for key, paths in mapping.items():
        part = form.get(key)
        if not isinstance(part, UploadFile):
            await form.close()
            raise _BadRequest(
                f"File missing in the request for the ‘map’ entry key ‘{key}’ {_SPEC}."
            )
        if not isinstance(paths, list):
            await form.close()
            raise _BadRequest(
                f"Invalid type for the ‘map’ multipart field entry key ‘{key}’ array {_SPEC}."
            )
        for path in paths:
            _place(operations, str(path), IncomingFile(part.filename or "file", part.file, {}))
    return operations, form


def build_graphql_router(
    settings: Settings,
    callers: CallerResolver,
    services: GraphQLServices,
    engine: Engine,
    planner: Planner,
    feed: ChangeFeed,
    responses: ResponseCache | None = None,
) -> APIRouter:
    router = APIRouter()
    plans = PlanCache()
    if engine.schema.subscription_type is not None:
        from contentapi.graphql.websocket import SubscriptionServer

        subscriptions = SubscriptionServer(engine, callers, services, planner, plans, feed)
        router.add_api_websocket_route(settings.graphql_endpoint, subscriptions)
    shows_playground = settings.env != "production" or settings.graphql_playground_always
    playground = build_playground(settings.graphql_endpoint) if shows_playground else None
    if playground is not None:
        router.include_router(playground.router)

    cache = CachePolicy.of(CacheDirectives.configured(settings))

    def respond(request: Request, outcome: Outcome | list[Outcome], read_only: bool) -> Response:
        if isinstance(outcome, list):
            return no_store(OrjsonResponse([o.body for o in outcome]))
        if read_only and outcome.status == 200 and "errors" not in outcome.body:
            return cacheable_response(request, orjson.dumps(outcome.body), cache)
        return no_store(OrjsonResponse(outcome.body, status_code=outcome.status))

    async def run(
        request: Request, payload: Any, *, read_only: bool, actor: Actor | None = None
    ) -> Response:
        actor = actor or await callers.current_actor(request)

        def context() -> GraphQLContext:
            return GraphQLContext(services, actor, request, planner, plans)

        if isinstance(payload, list):
            if not payload:
                return _transport_error("No operations found in request.")
            outcomes = await engine.run_batch(payload, context, read_only=read_only)
            return respond(request, outcomes, read_only)
        outcome = await engine.run(payload, context(), read_only=read_only)
        return respond(request, outcome, read_only)

    async def kept_answer(
        request: Request, payload: dict[str, Any], responses: ResponseCache
    ) -> Response:
        """A GET query through the response cache, keyed by its document, variables,
        operation name and extensions (as sent: the query string's encoding apart); only an
        answer without errors is kept, and every answer is rendered as ``respond`` does."""
        actor = await callers.current_actor(request)
        params = request.query_params
        normalized = tuple(params.get(k) for k in ("query", "variables", "operationName"))
        normalized += (params.get("extensions"),)
        unkept: list[Outcome] = []

        async def render() -> bytes | None:
            context = GraphQLContext(services, actor, request, planner, plans)
            outcome = await engine.run(payload, context, read_only=True)
            if outcome.status == 200 and "errors" not in outcome.body:
                return orjson.dumps(outcome.body)
            unkept.append(outcome)
            return None

        body, tables = await responses.body(request, actor, render, normalized)
        if body is None:
            return respond(request, unkept[0], True)
        return with_surrogate_keys(cacheable_response(request, body, cache), tables)

    @router.api_route(settings.graphql_endpoint, methods=["GET", "HEAD", "POST"])
    async def endpoint(request: Request) -> Response:
        if request.method in ("GET", "HEAD"):
            accepts_html = "text/html" in request.headers.get("accept", "")
            if "query" not in request.query_params and accepts_html and playground is not None:
                return HTMLResponse(playground.page)
            params = request.query_params
            payload: dict[str, Any] = {"query": params.get("query")}
            try:
                for key in ("variables", "extensions"):
                    if params.get(key):
                        payload[key] = json.loads(params[key])
            except ValueError:
                return _transport_error("Variables are invalid JSON.")
            if params.get("operationName"):
                payload["operationName"] = params["operationName"]
            if payload["query"] is None:
                return _transport_error("GET query missing.")
            if responses is not None and not asks_for_caller(payload["query"]):
                return await kept_answer(request, payload, responses)
            return await run(request, payload, read_only=True)
        content_type = request.headers.get("content-type", "")
        form = None
        try:
            if content_type.startswith("multipart/form-data"):
                operations, form = await _multipart_body(request)
                return await run(request, operations, read_only=False)
            return await run(request, await _json_body(request), read_only=False)
        except _BadRequest as error:
            return _transport_error(error.message, error.status)
        finally:
            if form is not None:
                await form.close()

    return router
