"""Record what the real Strapi 4.25 sends to a webhook, for a fixed list of writes: the fixture
``tests/fixtures/strapi_webhooks.json``. Run by hand, from the repository root, with the dev
extra installed:

    python -m diff.webhooks_record --reference-dir ~/.cache/strapi-reference [--port 1338]

The reference needed: Strapi 4.25 (``@strapi/strapi`` and its users-permissions, upload, i18n
and graphql plugins, 4.25.24) serving this repository's models (``content-types/``, ``fr``
besides the default ``en`` locale) on 127.0.0.1:<port> against PostgreSQL, with a full-access
API token in ``<reference-dir>/TOKEN`` and no admin user yet; the admin panel need not be
built (its API answers without it). ``bench/reference/`` installs and runs exactly that
(README there): unless ``--no-start`` is given, this script runs its ``stop.sh``, ``setup.sh``
(``npm install`` into ``--reference-dir``, ~2 min the first time) and ``start.sh`` on a fresh
database ``strapi_webhooks`` (``strapi_webhooks_<port>`` on another port), and ``stop.sh`` at
the end. PostgreSQL is reached at ``DIFF_POSTGRES`` (default
``postgresql://postgres@127.0.0.1:5432/postgres``). With ``--no-start`` the reference must
already run, on a database with no admin user.

What it does: starts a local HTTP receiver (a plain asyncio server that answers 200 and keeps
each request's method, path, headers in the order received and body); registers the first
admin (``POST /admin/register-admin``) and creates, through the admin API (Strapi reads
``strapi_webhooks`` at start-up only; the admin route registers the webhook live), a webhook
to the receiver for all eight events (``entry.create|update|delete|publish|unpublish``,
``media.create|update|delete``) with its own headers ``{"X-Own": "o"}``. Then it makes each
write of ``steps()`` in order — REST with the API token, the content manager's publish and
unpublish with the admin's JWT, GraphQL with the token — and after each waits until no
delivery has arrived for ``--settle`` seconds (1.5 by default; Strapi sends asynchronously):
the deliveries that arrived meanwhile are the step's, zero included. The fixture holds, per
step, the request, the answer's status and JSON body and the deliveries (method, path, every
header with its name lower-cased in received order, the body parsed). Ids and times are kept
as Strapi made them: the tests normalize them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from contentapi.events.webhooks import WEBHOOK_EVENTS

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "content-types"
#: the scripts that install and run the reference Strapi (bench/reference/README.md)
REFERENCE = ROOT / "bench" / "reference"
FIXTURE = ROOT / "tests" / "fixtures" / "strapi_webhooks.json"
#: the reference's database as it was before the writes (its webhook row included)
DUMP = ROOT / "tests" / "fixtures" / "strapi_webhooks_db.sql"
PG_ADMIN = os.environ.get("DIFF_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")
EVENTS = list(WEBHOOK_EVENTS)
OWN_HEADERS = {"X-Own": "o"}
ADMIN = {
    "firstname": "Ada",
    "lastname": "Admin",
    "email": "admin@example.com",
    "password": "Admin-Passw0rd",
}
ARTICLE = "api::article.article"
TEXT_FILE = ("note.txt", b"hello webhooks\n", "text/plain")


# ----------------------------------------------------------------------------- the receiver


@dataclass
class Delivery:
    method: str
    path: str
    #: (name as sent, value), in the order received
    headers: list[tuple[str, str]]
    body: bytes
    at: float

    def as_fixture(self) -> dict[str, Any]:
        names = [name.lower() for name, _ in self.headers]
        if len(set(names)) != len(names):
            raise SystemExit(f"a header repeated in a delivery: {names}")
        try:
            body: Any = json.loads(self.body)
        except ValueError:
            body = self.body.decode("utf-8", "replace")
        return {
            "method": self.method,
            "path": self.path,
            "headers": {name.lower(): value for name, value in self.headers},
            "body": body,
        }


@dataclass
class Receiver:
    url: str = ""
    deliveries: list[Delivery] = field(default_factory=list)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                request_line, *lines = head.decode("latin-1").split("\r\n")
                method, path, _ = request_line.split(" ", 2)
                headers = []
                for line in lines:
                    if line:
                        name, _, value = line.partition(":")
                        headers.append((name.strip(), value.strip()))
                lowered = {name.lower(): value for name, value in headers}
                if lowered.get("transfer-encoding", "").lower() == "chunked":
                    body = b""
                    while True:
                        size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                        chunk = await reader.readexactly(size + 2)
                        if size == 0:
                            break
                        body += chunk[:-2]
                else:
                    body = await reader.readexactly(int(lowered.get("content-length", "0")))
                self.deliveries.append(Delivery(method, path, headers, body, time.monotonic()))
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n"
                    b"Connection: close\r\n\r\nok"
                )
                await writer.drain()
                return
        finally:
            writer.close()

    async def settle(self, seconds: float) -> None:
        """Waits until no delivery has arrived for ``seconds``."""
        start = time.monotonic()
        while True:
            last = self.deliveries[-1].at if self.deliveries else start
            quiet_since = max(last, start)
            remaining = quiet_since + seconds - time.monotonic()
            if remaining <= 0:
                return
            await asyncio.sleep(remaining)


# ----------------------------------------------------------------------------- the steps


def _multipart(fields: list[tuple[str, Any]]) -> tuple[bytes, str]:
    """A multipart/form-data body of text fields and (filename, bytes, type) files."""
    boundary = f"----webhooks{uuid.uuid4().hex}"
    parts = []
    for name, value in fields:
        if isinstance(value, tuple):
            filename, content, kind = value
            head = (
                f'Content-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                f"Content-Type: {kind}\r\n"
            )
            data = content
        else:
            head = f'Content-Disposition: form-data; name="{name}"\r\n'
            data = str(value).encode()
        parts.append(f"--{boundary}\r\n{head}\r\n".encode() + data + b"\r\n")
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def _describe_multipart(fields: list[tuple[str, Any]]) -> dict[str, Any]:
    described: dict[str, Any] = {}
    for name, value in fields:
        if isinstance(value, tuple):
            filename, content, kind = value
            described[name] = {
                "filename": filename,
                "contentType": kind,
                "content": content.decode(),
            }
        else:
            described[name] = value
    return {"multipart/form-data": described}


@dataclass
class Recorder:
    client: httpx.AsyncClient
    receiver: Receiver
    token: str
    settle_seconds: float
    admin_jwt: str = ""
    steps: list[dict[str, Any]] = field(default_factory=list)

    async def step(
        self,
        name: str,
        method: str,
        path: str,
        body: Any = None,
        *,
        multipart: list[tuple[str, Any]] | None = None,
        auth: str = "api-token",
    ) -> tuple[int, Any]:
        bearer = self.admin_jwt if auth == "admin-jwt" else self.token
        headers = {"Authorization": f"Bearer {bearer}"}
        request: dict[str, Any] = {"method": method, "path": path, "auth": auth}
        first = len(self.receiver.deliveries)
        if multipart is not None:
            content, headers["Content-Type"] = _multipart(multipart)
            request["body"] = _describe_multipart(multipart)
            response = await self.client.request(method, path, content=content, headers=headers)
        else:
            if body is not None:
                request["body"] = body
            response = await self.client.request(method, path, json=body, headers=headers)
        await self.receiver.settle(self.settle_seconds)
        try:
            answer: Any = response.json()
        except ValueError:
            answer = response.text
        deliveries = [d.as_fixture() for d in self.receiver.deliveries[first:]]
        self.steps.append(
            {
                "name": name,
                "request": request,
                "status": response.status_code,
                "answer": answer,
                "deliveries": deliveries,
            }
        )
        events = [d["headers"].get("x-strapi-event") for d in deliveries]
        print(f"{response.status_code} {method} {path}: {events or 'no delivery'}  ({name})")
        return response.status_code, answer


def _expect(status: int, answer: Any, what: str) -> Any:
    if status >= 300:
        raise SystemExit(f"{what}: {status} {json.dumps(answer)[:500]}")
    return answer


async def steps(rec: Recorder) -> None:
    """The writes, in order (the numbers are the brief's)."""
    graphql = "/graphql"
    cm = f"/content-manager/collection-types/{ARTICLE}"
    # relations for step 2, recorded too
    author = _expect(
        *await rec.step(
            "0a. REST create of an author (private email and password)",
            "POST",
            "/api/authors",
            {
                "data": {
                    "name": "Ada Lovelace",
                    "email": "ada@example.com",
                    "password": "Ada-Passw0rd",
                    "handle": "ada",
                }
            },
        ),
        "author",
    )["data"]["id"]
    category = _expect(
        *await rec.step(
            "0b. REST create of a category",
            "POST",
            "/api/categories",
            {"data": {"name": "News", "slug": "news"}},
        ),
        "category",
    )["data"]["id"]
    # 1
    article = _expect(
        *await rec.step(
            "1. REST create of an article",
            "POST",
            "/api/articles",
            {"data": {"title": "Hello"}},
        ),
        "article",
    )["data"]["id"]
    # 2
    related = {
        "title": "With relations",
        "editorNotes": "a private note",
        "author": author,
        "categories": [category],
        "seo": {"metaTitle": "Seo title"},
    }
    article_with_relations = _expect(
        *await rec.step(
            "2a. REST create with relations, a component and a private field, populate=*",
            "POST",
            "/api/articles?populate=*",
            {"data": related},
        ),
        "article with relations",
    )["data"]["id"]
    _expect(
        *await rec.step(
            "2b. REST create with relations, a component and a private field, no populate",
            "POST",
            "/api/articles",
            {"data": {**related, "title": "With relations, unpopulated"}},
        ),
        "article with relations, no populate",
    )
    # 3
    await rec.step(
        "3. REST update of the title",
        "PUT",
        f"/api/articles/{article}",
        {"data": {"title": "Hello again"}},
    )
    # 4 (the article is published: a REST create publishes)
    await rec.step(
        "4a. REST update setting publishedAt",
        "PUT",
        f"/api/articles/{article}",
        {"data": {"publishedAt": "2024-01-02T03:04:05.000Z"}},
    )
    await rec.step(
        "4b. REST update with publishedAt null (back to a draft)",
        "PUT",
        f"/api/articles/{article}",
        {"data": {"publishedAt": None}},
    )
    # 5
    await rec.step(
        "5a. content manager publish (admin)",
        "POST",
        f"{cm}/{article}/actions/publish",
        {},
        auth="admin-jwt",
    )
    await rec.step(
        "5b. content manager unpublish (admin)",
        "POST",
        f"{cm}/{article}/actions/unpublish",
        {},
        auth="admin-jwt",
    )
    # 6
    await rec.step(
        "6. REST new localization (fr)",
        "POST",
        f"/api/articles/{article}/localizations",
        {"locale": "fr", "title": "Bonjour"},
    )
    # 7
    await rec.step("7. REST delete of the article", "DELETE", f"/api/articles/{article}")
    # 8
    await rec.step(
        "8a. REST create refused (a wrong type value)",
        "POST",
        "/api/articles",
        {"data": {"title": "Refused", "readingTime": "not a number"}},
    )
    await rec.step("8b. REST read", "GET", "/api/articles?populate=*")
    # 9
    _, roles = await rec.step("9a. REST read of the roles", "GET", "/api/users-permissions/roles")
    authenticated = next(r["id"] for r in roles["roles"] if r["type"] == "authenticated")
    user = _expect(
        *await rec.step(
            "9b. REST create of a user (authenticated role)",
            "POST",
            "/api/users",
            {
                "username": "webhook-user",
                "email": "user@example.com",
                "password": "User-Passw0rd",
                "role": authenticated,
                "confirmed": True,
            },
        ),
        "user",
    )["id"]
    await rec.step(
        "9c. REST update of the user",
        "PUT",
        f"/api/users/{user}",
        {"username": "webhook-user-renamed"},
    )
    await rec.step("9d. REST delete of the user", "DELETE", f"/api/users/{user}")
    # 10
    uploaded = _expect(
        *await rec.step(
            "10a. upload of one text file",
            "POST",
            "/api/upload",
            multipart=[("files", TEXT_FILE)],
        ),
        "upload",
    )[0]["id"]
    info = {"name": "renamed.txt", "alternativeText": "Alternative", "caption": "Caption"}
    await rec.step(
        "10b. a file's description (?id=N with only fileInfo)",
        "POST",
        f"/api/upload?id={uploaded}",
        multipart=[("fileInfo", json.dumps(info))],
    )
    await rec.step("10c. a file's delete", "DELETE", f"/api/upload/files/{uploaded}")
    await rec.step(
        "10d. a second upload (the API Uploads folder made by the first is there now)",
        "POST",
        "/api/upload",
        multipart=[("files", ("second.txt", b"second file\n", "text/plain"))],
    )
    # 11
    await rec.step(
        "11a. single type: first PUT",
        "PUT",
        "/api/global",
        {"data": {"siteName": "My site"}},
    )
    await rec.step(
        "11b. single type: second PUT",
        "PUT",
        "/api/global",
        {"data": {"siteName": "My site, renamed"}},
    )
    await rec.step("11c. single type: DELETE", "DELETE", "/api/global")
    # 12
    fields = "data { id attributes { title locale publishedAt } }"
    _, created = await rec.step(
        "12a. GraphQL createArticle",
        "POST",
        graphql,
        {
            "query": f"mutation Create($data: ArticleInput!) {{ createArticle(data: $data) "
            f"{{ {fields} }} }}",
            "variables": {"data": {"title": "From GraphQL"}},
        },
    )
    gql_id = created["data"]["createArticle"]["data"]["id"]
    await rec.step(
        "12b. GraphQL updateArticle",
        "POST",
        graphql,
        {
            "query": f"mutation Update($id: ID!, $data: ArticleInput!) "
            f"{{ updateArticle(id: $id, data: $data) {{ {fields} }} }}",
            "variables": {"id": gql_id, "data": {"title": "From GraphQL, renamed"}},
        },
    )
    await rec.step(
        "12c. GraphQL deleteArticle",
        "POST",
        graphql,
        {
            "query": f"mutation Delete($id: ID!) {{ deleteArticle(id: $id) {{ {fields} }} }}",
            "variables": {"id": gql_id},
        },
    )
    # 13: the admin's publish and unpublish of an entry with something in each kind of
    # attribute (what their payload populates: relations as counts, media, components, a
    # dynamic zone, localizations)
    second_file = _expect(
        *await rec.step("13a. REST read of the files", "GET", "/api/upload/files"), "files"
    )[0]["id"]
    rich = _expect(
        *await rec.step(
            "13b. REST create of an article with media, components, a dynamic zone, relations",
            "POST",
            "/api/articles",
            {
                "data": {
                    "title": "Rich",
                    "editorNotes": "a private note",
                    "author": author,
                    "categories": [category],
                    "related": [article_with_relations],
                    "cover": second_file,
                    "gallery": [second_file],
                    "seo": {
                        "metaTitle": "Rich seo",
                        "shareImage": second_file,
                        "keywords": [{"label": "k", "url": "/k"}],
                    },
                    "links": [{"label": "Home", "url": "/", "newTab": True}],
                    "blocks": [
                        {"__component": "blocks.quote", "body": "Quoted", "author": author},
                        {"__component": "blocks.rich-text", "body": "Some *text*"},
                        {"__component": "blocks.media", "file": second_file},
                    ],
                }
            },
        ),
        "rich article",
    )["data"]["id"]
    await rec.step(
        "13c. REST new localization (fr) of it",
        "POST",
        f"/api/articles/{rich}/localizations",
        {"locale": "fr", "title": "Riche"},
    )
    await rec.step(
        "13d. content manager unpublish (admin) of it",
        "POST",
        f"{cm}/{rich}/actions/unpublish",
        {},
        auth="admin-jwt",
    )
    await rec.step(
        "13e. content manager publish (admin) of it",
        "POST",
        f"{cm}/{rich}/actions/publish",
        {},
        auth="admin-jwt",
    )
    await rec.step(
        "13f. REST update populating the localizations (their non-localized values follow)",
        "PUT",
        f"/api/articles/{rich}?populate=localizations",
        {"data": {"readingTime": 7}},
    )


# ----------------------------------------------------------------------------- the reference


def _database(port: int) -> str:
    return "strapi_webhooks" if port == 1338 else f"strapi_webhooks_{port}"


def _env(reference_dir: Path, port: int) -> dict[str, str]:
    return {
        **os.environ,
        "REFERENCE_DIR": str(reference_dir),
        "PORT": str(port),
        "MODELS_DIR": str(MODELS),
    }


def _script(name: str, env: dict[str, str], *args: str, check: bool = True) -> None:
    subprocess.run(["bash", str(REFERENCE / name), *args], cwd=ROOT, env=env, check=check)


async def _start(reference_dir: Path, port: int) -> None:
    from bench.servers import recreate_database

    env = _env(reference_dir, port)
    _script("stop.sh", env, check=False)
    _script("setup.sh", env)
    await recreate_database(_database(port), PG_ADMIN)
    _script("start.sh", env, _database(port))


def _dump(database: str, out: Path) -> None:
    """The database as Strapi made it, its webhook row written by its admin API, before any
    write: plain SQL, as ``pg_dump --no-owner --no-privileges`` writes it."""
    url = f"{PG_ADMIN.rpartition('/')[0]}/{database}"
    with out.open("w") as file:
        subprocess.run(
            ["pg_dump", "--no-owner", "--no-privileges", "--dbname", url], stdout=file, check=True
        )
    print(f"the database before the writes: {out}")


async def record(args: argparse.Namespace) -> dict[str, Any]:
    reference_dir: Path = args.reference_dir.expanduser()
    receiver = Receiver()
    server = await asyncio.start_server(receiver._serve, "127.0.0.1", 0)
    receiver.url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/hook"
    token = (reference_dir / "TOKEN").read_text().strip()
    try:
        async with httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{args.port}", timeout=60
        ) as client:
            registered = await client.post("/admin/register-admin", json=ADMIN)
            if registered.status_code != 200:
                raise SystemExit(
                    f"register-admin: {registered.status_code} {registered.text[:300]} "
                    "(the reference's database must have no admin user)"
                )
            jwt = registered.json()["data"]["token"]
            hook = await client.post(
                "/admin/webhooks",
                json={
                    "name": "recorder",
                    "url": receiver.url,
                    "headers": OWN_HEADERS,
                    "events": EVENTS,
                },
                headers={"Authorization": f"Bearer {jwt}"},
            )
            if hook.status_code >= 300:
                raise SystemExit(f"create webhook: {hook.status_code} {hook.text[:300]}")
            _dump(args.database or _database(args.port), args.dump)
            recorder = Recorder(client, receiver, token, args.settle, jwt)
            await steps(recorder)
    finally:
        server.close()
        await server.wait_closed()
    package = reference_dir / "node_modules" / "@strapi" / "strapi" / "package.json"
    # the fixture's header names are lower-cased; how Strapi spelled them, once per spelling
    spellings: list[list[str]] = []
    for delivery in receiver.deliveries:
        names = [name for name, _ in delivery.headers]
        if names not in spellings:
            spellings.append(names)
    return {
        "strapi_version": json.loads(package.read_text())["version"],
        "webhook": {"headers": OWN_HEADERS, "events": EVENTS, "path": "/hook"},
        "header_names_as_sent": spellings,
        "settle_seconds": args.settle,
        "steps": recorder.steps,
    }


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--reference-dir",
        type=Path,
        default=Path(os.environ.get("REFERENCE_DIR", Path.home() / ".cache/strapi-reference")),
        help="where the reference Strapi is (or is to be) installed",
    )
    parser.add_argument("--port", type=int, default=1338)
    parser.add_argument("--settle", type=float, default=1.5, help="seconds without a delivery")
    parser.add_argument("--no-start", action="store_true", help="use a reference already running")
    parser.add_argument("--keep", action="store_true", help="leave the reference running")
    parser.add_argument("--out", type=Path, default=FIXTURE)
    parser.add_argument("--dump", type=Path, default=DUMP, help="where the database dump goes")
    parser.add_argument(
        "--database", help="the reference's database (with --no-start; default as started)"
    )
    args = parser.parse_args()
    env = _env(args.reference_dir.expanduser(), args.port)
    try:
        if not args.no_start:
            await _start(args.reference_dir.expanduser(), args.port)
        fixture = await record(args)
    finally:
        if not args.no_start and not args.keep:
            _script("stop.sh", env, check=False)
    args.out.write_text(json.dumps(fixture, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(fixture['steps'])} steps written to {args.out}")


if __name__ == "__main__":
    asyncio.run(main())
