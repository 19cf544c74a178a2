"""Hand-run: GraphQL subscription fan-out — many subscribers, one write.

    python -m bench.subscriptions [--subscribers 1000] [--workers 2] [--writes 3]

contentapi alone (``CONTENTAPI_GRAPHQL_SUBSCRIPTIONS=true``, PostgreSQL database
``contentapi_bench`` as ``make bench`` makes it, a small data set): ``--subscribers`` WebSocket
connections each subscribe to ``bookUpdated`` with the same selection (spread over the workers
by the kernel), then each write (a ``PUT`` of one book) is timed from its answer until every
subscriber has its ``next``. Prints, per write, the time to the first and to the last subscriber
and the server's CPU seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

import httpx
import websockets
from rich.console import Console

from bench.dataset import build_dataset
from bench.seed import seed
from bench.serve_env import serve_env
from bench.servers import ContentapiServer, process_tree

console = Console(width=140)
QUERY = "subscription { bookUpdated { data { id attributes { title pages } } } }"


async def _subscriber(url: str, token: str, ready: asyncio.Event, heard: list[float]) -> None:
    async with websockets.connect(url, subprotocols=["graphql-transport-ws"]) as socket:
        await socket.send(
            json.dumps({"type": "connection_init", "payload": {"Authorization": f"Bearer {token}"}})
        )
        await socket.recv()
        await socket.send(json.dumps({"id": "1", "type": "subscribe", "payload": {"query": QUERY}}))
        ready.set()
        while True:
            message = json.loads(await socket.recv())
            if message.get("type") == "next":
                heard.append(time.monotonic())


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--subscribers", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--writes", type=int, default=3)
    parser.add_argument("--dev-env", action="store_true", help="this environment's contentapi")
    args = parser.parse_args()
    os.environ["CONTENTAPI_GRAPHQL_SUBSCRIPTIONS"] = "true"
    bin_dir = Path(sys.executable).parent if args.dev_env else serve_env()
    server = ContentapiServer(workers=args.workers, bin_dir=bin_dir)
    tasks: list[asyncio.Task[None]] = []
    try:
        await server.start()
        await seed(server.base_url, server.token, build_dataset(50), server.name)
        url = server.base_url.replace("http://", "ws://") + "/graphql"
        heard: list[list[float]] = []
        for _ in range(args.subscribers):
            ready = asyncio.Event()
            times: list[float] = []
            heard.append(times)
            tasks.append(asyncio.create_task(_subscriber(url, server.token, ready, times)))
            await ready.wait()
        await asyncio.sleep(1.0)
        assert server.process is not None
        tree = process_tree(server.process.pid)
        headers = {"Authorization": f"Bearer {server.token}"}
        async with httpx.AsyncClient(base_url=server.base_url, headers=headers) as client:
            for write in range(args.writes):
                cpu = sum(sum(p.cpu_times()[:2]) for p in tree if p.is_running())
                answered = await client.put(
                    "/api/books/1", json={"data": {"title": f"Fan-out {write}"}}
                )
                answered.raise_for_status()
                committed = time.monotonic()
                while sum(1 for times in heard if len(times) > write) < args.subscribers:
                    if time.monotonic() - committed > 120:
                        break
                    await asyncio.sleep(0.01)
                arrivals = sorted(times[write] for times in heard if len(times) > write)
                spent = sum(sum(p.cpu_times()[:2]) for p in tree if p.is_running()) - cpu
                console.print(
                    f"write {write + 1}: {len(arrivals)} of {args.subscribers} subscribers heard "
                    f"it; first after {(arrivals[0] - committed) * 1000:.0f} ms, last after "
                    f"{(arrivals[-1] - committed) * 1000:.0f} ms; server CPU {spent:.2f} s"
                )
                await asyncio.sleep(1.0)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        server.stop()


if __name__ == "__main__":
    asyncio.run(main())
