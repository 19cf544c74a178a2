"""The GraphQL half of `make diff` (called by ``diff/run.py``): users registered on both
servers, ids of users, roles and locales learnt, the seeded documents sent to both, each
mismatch classified, one document per class shrunk."""

from __future__ import annotations

import asyncio
import json
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

import httpx

from diff.graphql_compare import GraphqlAnswer, GraphqlNormalizer, GraphqlVerdict, compare_graphql
from diff.graphql_generate import USERS, Doc, candidates, render, widen
from diff.seed import Ids

__all__ = ["GraphqlSide", "prepare", "report_lines", "run_graphql"]

#: documents judged at once (each is one request to each server, two when widened)
CONCURRENCY = 4
IDS_QUERY = """{
  usersPermissionsUsers(pagination: {limit: 100}) { data { id attributes { username } } }
  usersPermissionsRoles(pagination: {limit: 100}) { data { id attributes { type } } }
  i18NLocales(pagination: {limit: 100}) { data { id attributes { code } } }
}"""


@dataclass
class GraphqlSide:
    name: str
    client: httpx.AsyncClient
    ids: Ids
    jwt: str
    normalizer: GraphqlNormalizer


async def prepare(name: str, client: httpx.AsyncClient, ids: Ids) -> GraphqlSide:
    """Registers the users (once per server) and learns the plugin entities' ids."""
    jwt = ""
    for username, email, password in USERS:
        response = await client.post(
            "/api/auth/local/register",
            json={"username": username, "email": email, "password": password},
        )
        if response.status_code != 200:
            raise RuntimeError(f"registering {username} on {name}: {response.text[:300]}")
        jwt = jwt or response.json()["jwt"]
    response = await client.post("/graphql", json={"query": IDS_QUERY})
    data = response.json().get("data") or {}
    for root, kind, key in (
        ("usersPermissionsUsers", "users", "username"),
        ("usersPermissionsRoles", "roles", "type"),
        ("i18NLocales", "locales", "code"),
    ):
        for entry in (data.get(root) or {}).get("data") or []:
            ids.add(kind, entry["attributes"][key], int(entry["id"]))
    return GraphqlSide(name, client, ids, jwt, GraphqlNormalizer(ids))


async def ask(side: GraphqlSide, doc: Doc) -> dict[str, Any]:
    text, variables = render(doc, side.ids)
    headers = {"Authorization": f"Bearer {side.jwt}"} if doc.auth == "user" else {}
    body: dict[str, Any] = {"query": text}
    if variables:
        body["variables"] = variables
    try:
        response = await side.client.post("/graphql", json=body, headers=headers)
        answer = GraphqlAnswer(response.status_code, response.text)
    except httpx.HTTPError as error:
        answer = GraphqlAnswer(599, f'{{"transport": "{type(error).__name__}"}}')
    return side.normalizer.answer(text, variables, answer)


async def judge(doc: Doc, ours: GraphqlSide, theirs: GraphqlSide) -> GraphqlVerdict:
    a, b = await asyncio.gather(ask(ours, doc), ask(theirs, doc))
    verdict = compare_graphql(doc, a, b)
    if verdict.widen:
        # Only the choice of tied entries on a page may differ: read every page whole.
        whole = widen(doc)
        a, b = await asyncio.gather(ask(ours, whole), ask(theirs, whole))
        again = compare_graphql(whole, a, b)
        if again.same or again.expected:
            return GraphqlVerdict(
                False,
                "page content" + (f" ({again.kind})" if again.kind else ""),
                again.expected or "on purpose: pages ordered by id under ties",
                verdict.detail,
                status=verdict.status,
            )
    return verdict


async def shrink(
    doc: Doc, verdict: GraphqlVerdict, ours: GraphqlSide, theirs: GraphqlSide, budget: int = 80
) -> Doc:
    """Greedy: drop one node (selection, argument, filter key, list item) at a time while
    the same class of mismatch remains."""
    current = doc
    changed = True
    while changed and budget > 0:
        changed = False
        for candidate in candidates(current):
            if budget <= 0:
                break
            budget -= 1
            again = await judge(candidate, ours, theirs)
            if not again.same and (again.kind, again.expected) == (verdict.kind, verdict.expected):
                current, changed = candidate, True
                break
    return current


async def run_graphql(docs: list[Doc], ours: GraphqlSide, theirs: GraphqlSide) -> dict[str, Any]:
    classes: dict[tuple[str, str], list[tuple[Doc, GraphqlVerdict]]] = defaultdict(list)
    statuses: Counter[int] = Counter()
    for start in range(0, len(docs), CONCURRENCY):
        # a few documents at a time: the reference answers while contentapi works
        batch = docs[start : start + CONCURRENCY]
        verdicts = await asyncio.gather(*(judge(doc, ours, theirs) for doc in batch))
        for doc, verdict in zip(batch, verdicts, strict=True):
            statuses[verdict.status] += 1
            if not verdict.same:
                classes[(verdict.kind, verdict.expected)].append((doc, verdict))
    report: dict[str, Any] = {"documents": len(docs), "classes": []}
    for (kind, expected), items in sorted(classes.items(), key=lambda kv: -len(kv[1])):
        doc, verdict = min(items[:20], key=lambda item: len(render(item[0], ours.ids)[0]))
        smallest = await shrink(doc, verdict, ours, theirs) if not expected else doc
        text, variables = render(smallest, ours.ids)
        a, b = await asyncio.gather(ask(ours, smallest), ask(theirs, smallest))
        tags = Counter(t for d, _ in items for t in d.tags).most_common(5)
        report["classes"].append(
            {
                "class": kind,
                "expected": expected,
                "known": verdict.known,
                "count": len(items),
                "example": text,
                "variables": variables,
                "auth": smallest.auth,
                "ours": _short(a),
                "strapi": _short(b),
                "detail": verdict.detail[:400],
                "tags": [t for t, _ in tags],
            }
        )
    report["statuses"] = {str(k): v for k, v in sorted(statuses.items())}
    report["mismatches"] = sum(c["count"] for c in report["classes"])
    report["unexplained"] = sum(c["count"] for c in report["classes"] if not c["expected"])
    return report


def _short(answer: dict[str, Any]) -> str:
    return json.dumps(answer, ensure_ascii=False)[:600]


def report_lines(backend: str, report: dict[str, Any]) -> list[str]:
    """The GraphQL section of docs/diff-report.md for one database."""
    server_errors = sum(v for k, v in report.get("statuses", {}).items() if int(k) >= 500)
    lines = [
        f"## GraphQL: contentapi on {backend}",
        "",
        f"{report['documents']} documents: {report['documents'] - report['mismatches']} "
        f"identical, {report['mismatches'] - report['unexplained']} expected differences "
        f"(made on purpose), **{report['unexplained']} unexplained**"
        + (
            f" ({sum(c['count'] for c in report['classes'] if c['known'] and not c['expected'])}"
            " of them in the classes issue 24 lists)."
            if report["unexplained"]
            else "."
        ),
        "",
        "contentapi's HTTP statuses: "
        + ", ".join(f"{k}: {v}" for k, v in report.get("statuses", {}).items())
        + f" — **{server_errors} answers 5xx** (each would be unexplained).",
        "",
        "| class | expected because / issue 24 class | count | smallest document | "
        "contentapi | Strapi |",
        "|---|---|---|---|---|---|",
    ]

    def cell(text: Any, limit: int) -> str:
        return str(text).replace("|", "\\|").replace("\n", " ")[:limit]

    for item in report["classes"]:
        example = item["example"]
        if item.get("variables"):
            example += f"  variables {json.dumps(item['variables'], ensure_ascii=False)}"
        if item.get("auth") == "user":
            example += "  (as a signed-in user)"
        because = item["expected"] or (
            f"**unexplained** (known {item['known']})" if item["known"] else "**unexplained**"
        )
        lines.append(
            f"| {cell(item['class'], 120)} | {because} | {item['count']} | "
            f"`{cell(example, 700)}` | `{cell(item['ours'], 300)}` | "
            f"`{cell(item['strapi'], 300)}` |"
        )
    lines.append("")
    return lines
