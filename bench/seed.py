"""Seed a server through its public REST API: concurrent, with a progress bar."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
from rich.progress import Progress

from bench.dataset import Dataset

__all__ = ["seed"]


async def _post(client: httpx.AsyncClient, path: str, data: dict[str, Any]) -> None:
    for attempt in range(5):
        response = await client.post(path, json={"data": data})
        if response.status_code == 200:
            return
        if attempt == 4 or response.status_code < 500:
            raise RuntimeError(
                f"seeding {path} failed: {response.status_code} {response.text[:300]}"
            )
        await asyncio.sleep(0.5)


async def seed(
    base_url: str, token: str, data: Dataset, label: str, concurrency: int = 16
) -> float:
    """Create the data set; returns the books created per second (each a POST with three
    relations, a component, a repeatable component and a two-block dynamic zone, 16 at once)."""
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=60) as client:
        with Progress() as progress:
            # One at a time, so their ids are 1..n on every server.
            small = progress.add_task(
                f"{label}: authors, tags, publishers",
                total=len(data.authors) + len(data.tags) + len(data.publishers),
            )
            for path, items in (
                ("/api/authors", data.authors),
                ("/api/tags", data.tags),
                ("/api/publishers", data.publishers),
            ):
                for item in items:
                    await _post(client, path, item)
                    progress.advance(small)
            task = progress.add_task(f"{label}: books", total=len(data.books))
            queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
            for book in data.books:
                queue.put_nowait(book)

            async def worker() -> None:
                while not queue.empty():
                    book = queue.get_nowait()
                    await _post(client, "/api/books", book)
                    progress.advance(task)

            started = time.monotonic()
            await asyncio.gather(*(worker() for _ in range(concurrency)))
            return len(data.books) / (time.monotonic() - started)
