"""A bounded load of reads and writes against a server process, recording every answer: what
the fault tests run while they break things, and then judge."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import Counter
from dataclasses import dataclass, field

import httpx

__all__ = ["Answer", "Load"]


@dataclass(frozen=True, slots=True)
class Answer:
    kind: str  # "read", "read-one" or "write"
    started: float
    ended: float
    status: int  # 0: no HTTP answer (the connection failed)
    body: str
    headers: httpx.Headers | None


@dataclass
class Load:
    """``clients`` loops, each alternating a write (a new article, its title unique) and two
    reads (a list and one entry) then ``pause`` seconds, until ``stop()``. ``acknowledged``
    holds the title of every write answered 2xx."""

    base_url: str
    headers: dict[str, str]
    clients: int = 4
    #: seconds between a client's rounds: a steady load, not the most the machine can send
    pause: float = 0.01
    answers: list[Answer] = field(default_factory=list)
    acknowledged: set[str] = field(default_factory=set)
    _running: bool = True
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)
    _titles: itertools.count = field(default_factory=itertools.count)

    def start(self) -> None:
        self._tasks = [asyncio.create_task(self._client(n)) for n in range(self.clients)]

    async def stop(self) -> None:
        self._running = False
        await asyncio.gather(*self._tasks)

    async def _client(self, number: int) -> None:
        timeout = httpx.Timeout(30.0)
        async with httpx.AsyncClient(
            base_url=self.base_url, headers=self.headers, timeout=timeout
        ) as client:
            while self._running:
                title = f"load-{number}-{next(self._titles)}"
                body = {"data": {"title": title}}
                answer = await self._send(client, "write", "POST", "/api/articles", body)
                if 200 <= answer.status < 300:
                    self.acknowledged.add(title)
                await self._send(client, "read", "GET", "/api/articles?pagination[pageSize]=5")
                await self._send(client, "read-one", "GET", "/api/articles/1")
                await asyncio.sleep(self.pause)

    async def _send(
        self,
        client: httpx.AsyncClient,
        kind: str,
        method: str,
        path: str,
        body: object = None,
    ) -> Answer:
        started = time.monotonic()
        try:
            response = await client.request(method, path, json=body)
            answer = Answer(
                kind, started, time.monotonic(), response.status_code, response.text,
                response.headers,
            )  # fmt: skip
        except httpx.TransportError as error:
            answer = Answer(kind, started, time.monotonic(), 0, repr(error), None)
        self.answers.append(answer)
        return answer

    def statuses(self, since: float = 0.0) -> Counter[int]:
        return Counter(a.status for a in self.answers if a.started >= since)

    def failures(self) -> list[Answer]:
        """Answers that are not 2xx (the read of entry 1 may be 404 before it exists)."""
        return [
            a
            for a in self.answers
            if not (200 <= a.status < 300 or (a.kind == "read-one" and a.status == 404))
        ]
