"""The webhook deliveries' HTTP client (``events/http_client.py``) against a raw local server
whose answers each test writes byte for byte: lengths, chunks, answers ended by the close,
kept-alive connections reused and replaced, long answers, timeouts, refused header values —
and redirects followed as Strapi's node-fetch follows them (``events/request.py``)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import pytest

from contentapi.events.http_client import HttpClient, WebhookSendError
from contentapi.events.request import RefusedTarget, WebhookRequest, post

Answer = Callable[[int], bytes | None]


@dataclass
class RawServer:
    """Answers the n-th request (over all connections) with ``answer(n)``; None: close."""

    answer: Answer
    url: str = ""
    requests: list[bytes] = field(default_factory=list)
    connections: int = 0
    close_after_each: bool = False

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                self.requests.append(head + await reader.readexactly(length))
                reply = self.answer(len(self.requests))
                if reply is None:
                    break
                writer.write(reply)
                await writer.drain()
                if self.close_after_each:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()


@asynccontextmanager
async def raw_server(answer: Answer, **options: bool) -> AsyncIterator[RawServer]:
    server = RawServer(answer, **options)
    listening = await asyncio.start_server(server.serve, "127.0.0.1", 0)
    server.url = f"http://127.0.0.1:{listening.sockets[0].getsockname()[1]}/hook?a=1"
    try:
        yield server
    finally:
        listening.close()


def ok(_: int) -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


async def test_a_post_is_sent_as_written_and_its_connection_kept():
    async with raw_server(ok) as server, HttpClient(5) as client:
        for _ in range(3):
            assert await client.post(server.url, {"X-Own": "o"}, b'{"a":1}') == (200, "ok")
    assert server.connections == 1  # kept alive
    head, body = server.requests[0].split(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    assert lines[0] == b"POST /hook?a=1 HTTP/1.1"
    assert lines[1] == b"X-Own: o"  # the webhook's headers first, then the transport's
    assert b"Content-Length: 7" in lines and body == b'{"a":1}'
    assert any(line.startswith(b"Host: 127.0.0.1:") for line in lines)


async def test_chunked_and_close_delimited_answers_are_read():
    chunked = (
        b"HTTP/1.1 503 Busy\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nbus\r\n1\r\ny\r\n0\r\n\r\n"
    )
    async with raw_server(lambda _: chunked) as server, HttpClient(5) as client:
        assert await client.post(server.url, {}, b"{}") == (503, "busy")
        assert await client.post(server.url, {}, b"{}") == (503, "busy")
    assert server.connections == 1
    # no length, no chunks: the answer ends with its connection, which is not reused
    until_closed = b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nthe end"
    async with (
        raw_server(lambda _: until_closed, close_after_each=True) as server,
        HttpClient(5) as client,
    ):
        assert await client.post(server.url, {}, b"{}") == (200, "the end")
        assert await client.post(server.url, {}, b"{}") == (200, "the end")
    assert server.connections == 2


async def test_a_connection_the_receiver_dropped_while_idle_is_replaced_once():
    async with raw_server(ok, close_after_each=True) as server, HttpClient(5) as client:
        # the server closes after each answer without saying so: the kept connection is
        # found closed by the next request, which goes again on a new one
        for _ in range(3):
            assert await client.post(server.url, {}, b"{}") == (200, "ok")
    assert len(server.requests) == 3


async def test_no_answer_a_long_answer_and_a_silent_receiver():
    async with raw_server(lambda _: None) as server, HttpClient(5) as client:
        with pytest.raises(WebhookSendError):
            await client.post(server.url, {}, b"{}")
    long = b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n" + b"x" * 1_000_000
    async with raw_server(lambda _: long) as server, HttpClient(5) as client:
        status, text = await client.post(server.url, {}, b"{}")
        assert (status, len(text)) == (200, 500)  # the start kept, the rest not read

    def never(_: int) -> bytes:
        return b""  # written, nothing sent: the client waits for its timeout

    async with raw_server(never) as server, HttpClient(0.3) as client:
        with pytest.raises(TimeoutError):
            await client.post(server.url, {}, b"{}")


async def test_refused_before_sending():
    async with HttpClient(5) as client:
        with pytest.raises(WebhookSendError, match="line break"):
            await client.post("http://127.0.0.1:9/hook", {"X-Bad": "a\r\nX-Injected: 1"}, b"")
        with pytest.raises(WebhookSendError, match="not an http"):
            await client.post("ftp://example.com/hook", {}, b"")
        with pytest.raises(WebhookSendError, match="cannot connect"):
            await client.post("http://127.0.0.1:9/hook", {}, b"")


async def test_redirects_are_followed_as_node_fetch_follows_them():
    def answer(n: int) -> bytes:
        hops = {
            1: b"HTTP/1.1 307 Temporary\r\nLocation: /again\r\nContent-Length: 0\r\n\r\n",
            2: b"HTTP/1.1 303 See Other\r\nLocation: /read\r\nContent-Length: 0\r\n\r\n",
        }
        return hops.get(n, b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\ndone")

    async with raw_server(answer) as server, HttpClient(5) as client:
        built = WebhookRequest(server.url, {"Content-Type": "application/json"}, b'{"a":1}')
        assert await post(client, built) == (200, "done")
    _, again, read = server.requests
    assert again.startswith(b"POST /again HTTP/1.1") and again.endswith(b'{"a":1}')
    assert read.startswith(b"GET /read HTTP/1.1") and read.endswith(b"\r\n\r\n")
    assert b"Content-Type" not in read


async def test_redirect_loops_and_refused_hops_end_the_delivery():
    looping = b"HTTP/1.1 302 Found\r\nLocation: /hook\r\nContent-Length: 0\r\n\r\n"
    async with raw_server(lambda _: looping) as server, HttpClient(5) as client:
        with pytest.raises(WebhookSendError, match="more than 20 redirects"):
            await post(client, WebhookRequest(server.url, {}, b"{}"))
    assert len(server.requests) == 21

    async def refuse(url: str) -> str | None:
        return "not there" if url.endswith("/inside") else None

    inside = b"HTTP/1.1 308 Permanent\r\nLocation: /inside\r\nContent-Length: 0\r\n\r\n"
    async with raw_server(lambda _: inside) as server, HttpClient(5) as client:
        with pytest.raises(RefusedTarget, match="not there"):
            await post(client, WebhookRequest(server.url, {}, b"{}"), refuse)
    assert len(server.requests) == 1  # the refused hop was never asked
