"""The read-your-writes token on the way in and out (``http/read_position.py``), on a bare
ASGI app: which reads may go to a replica, the position a request carries, and the header and
cookie after a write."""

from __future__ import annotations

from typing import Any

import httpx

from contentapi.db.lsn import parse_lsn
from contentapi.db.read_position import ReadPosition, current_read_position
from contentapi.http.read_position import ReadPositionMiddleware, token_of


def test_the_later_of_header_and_cookie_wins() -> None:
    headers = [
        (b"contentapi-lsn", b"0/10"),
        (b"cookie", b"a=1; contentapi_lsn=0/20; b=2"),
    ]
    assert token_of(headers) == 0x20
    assert token_of([(b"contentapi-lsn", b"1/0"), *headers[1:]]) == 1 << 32


def test_no_token_or_a_malformed_one_is_position_zero() -> None:
    assert token_of([]) == 0
    assert token_of([(b"contentapi-lsn", b"garbage"), (b"cookie", b"contentapi_lsn=x")]) == 0


async def _app(scope: Any, receive: Any, send: Any) -> None:
    position = current_read_position()
    assert isinstance(position, ReadPosition)
    seen = f"{position.replica_ok} {position.at_least}"
    if scope["path"] == "/write":
        position.wrote(0x3000148)
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": seen.encode()})


def _client() -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=ReadPositionMiddleware(_app))
    return httpx.AsyncClient(transport=transport, base_url="http://testserver")


async def test_only_gets_may_read_on_a_replica() -> None:
    async with _client() as client:
        assert (await client.get("/read")).text == "True 0"
        assert (await client.post("/read")).text == "False 0"
        assert (await client.get("/read", headers={"Contentapi-Lsn": "0/5"})).text == "True 5"


async def test_a_write_hands_back_its_position_as_header_and_cookie() -> None:
    async with _client() as client:
        read = await client.get("/read")
        assert "contentapi-lsn" not in read.headers and "set-cookie" not in read.headers
        written = await client.post("/write")
        assert written.headers["contentapi-lsn"] == "0/3000148"
        cookie = written.headers["set-cookie"]
        assert cookie.startswith("contentapi_lsn=0/3000148;")
        assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/" in cookie
        # the client's cookie jar carries it to the next request
        assert (await client.get("/read")).text == f"True {parse_lsn('0/3000148')}"
    assert current_read_position() is None
