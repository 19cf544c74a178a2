"""Hand-run: what a webhook costs a write, and how soon its deliveries follow the commits.

    python -m bench.webhooks [--books 500] [--seconds 10] [--rounds 2] [--workers 2]

contentapi alone, as ``make bench`` runs it (PostgreSQL database ``contentapi_bench``, the
books data set, wrk with 16 connections): the PUT-with-connect/disconnect scenario is measured
in alternating rounds without a webhook and with one webhook (``entry.update``) pointing at a
receiver in this process that answers 200 at once (on uvloop; its CPU per request is printed
beside the server's and PostgreSQL's, as it shares the machine). Then, for the events of the
webhook rounds, the delivery latency — from the event's commit (its ``created_at``, recorded in
the write's transaction) to its arrival at the receiver — as p50 and p99, and how many were
delivered.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import asyncpg
import uvloop
from rich.console import Console

from bench.dataset import build_dataset
from bench.load import ensure_wrk, run_wrk
from bench.scenarios import scenarios
from bench.seed import seed
from bench.serve_env import serve_env
from bench.servers import ContentapiServer, Sampler, analyze_database

console = Console(width=140)


class Receiver:
    """An HTTP endpoint that answers 200 at once and notes when each event id arrived."""

    def __init__(self) -> None:
        self.arrivals: dict[int, datetime] = {}
        self.url = ""

    async def start(self) -> asyncio.Server:
        server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/hook"
        return server

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:  # keep-alive: one connection carries many deliveries
                head = await reader.readuntil(b"\r\n\r\n")
                headers = {}
                for line in head.decode("latin-1").split("\r\n")[1:]:
                    name, _, value = line.partition(":")
                    headers[name.strip().lower()] = value.strip()
                await reader.readexactly(int(headers.get("content-length", "0")))
                arrived = datetime.now(UTC).replace(tzinfo=None)
                self.arrivals.setdefault(int(headers["x-contentapi-event-id"]), arrived)
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()
        except asyncio.CancelledError:  # the run ends with connections still kept alive
            writer.close()


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--books", type=int, default=500)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--dev-env", action="store_true", help="this environment's contentapi")
    args = parser.parse_args()
    ensure_wrk()
    data = build_dataset(args.books)
    scenario = next(s for s in scenarios(data) if s.key == "put_connect")
    bin_dir = Path(sys.executable).parent if args.dev_env else serve_env()
    server = ContentapiServer(workers=args.workers, bin_dir=bin_dir)
    receiver = Receiver()
    listening = await receiver.start()
    rates: dict[str, list[float]] = {"none": [], "one webhook": []}
    try:
        await server.start()
        await seed(server.base_url, server.token, data, server.name)
        await analyze_database(server.database)
        dsn = server.database_url.replace("postgresql+asyncpg://", "postgresql://")
        connection = await asyncpg.connect(dsn)
        try:
            await asyncio.to_thread(run_wrk, server.base_url, server.token, scenario, 2, 16)
            first_event = int(await connection.fetchval("SELECT max(id) FROM contentapi_events"))
            for round_number in range(args.rounds):
                # ABBA: neither mode always runs on the database the other has just aged
                modes = list(rates) if round_number % 2 == 0 else list(rates)[::-1]
                for mode in modes:
                    await connection.execute("DELETE FROM strapi_webhooks")
                    # as autovacuum keeps a database (this machine's PostgreSQL runs without
                    # it): a round does not pay for the dead rows of the rounds before
                    await connection.execute("VACUUM ANALYZE")
                    if mode == "one webhook":
                        await connection.execute(
                            "INSERT INTO strapi_webhooks (name, url, headers, events, enabled) "
                            """VALUES ('bench', $1, '{}', '["entry.update"]', true)""",
                            receiver.url,
                        )
                    await asyncio.sleep(1.5)  # the dispatchers look again (1 s)
                    assert server.process is not None
                    receiver_cpu = time.process_time()
                    with Sampler(server.process.pid) as sampler:
                        result = await asyncio.to_thread(
                            run_wrk, server.base_url, server.token, scenario, args.seconds, 16
                        )
                    receiver_cpu = time.process_time() - receiver_cpu
                    rates[mode].append(result.requests_per_second)
                    requests = result.requests_per_second * args.seconds
                    console.print(
                        f"{mode:12s} {result.requests_per_second:8.1f} req/s, CPU per request: "
                        f"server {sampler.server_cpu / requests * 1e3:.2f} ms, PostgreSQL "
                        f"{sampler.postgres_cpu / requests * 1e3:.2f} ms, receiver "
                        f"{receiver_cpu / requests * 1e3:.2f} ms"
                    )
            await connection.execute("DELETE FROM strapi_webhooks")
            for _ in range(600):  # until every delivery is made (or a minute)
                waiting = await connection.fetchval(
                    "SELECT count(*) FROM contentapi_webhook_deliveries WHERE status = 'pending'"
                )
                if not waiting:
                    break
                await asyncio.sleep(0.1)
            rows = await connection.fetch(
                "SELECT e.id, e.created_at FROM contentapi_events e "
                "JOIN contentapi_webhook_deliveries d ON d.event_id = e.id WHERE e.id > $1",
                first_event,
            )
        finally:
            await connection.close()
    finally:
        server.stop()
        listening.close()
    latencies = sorted(
        (receiver.arrivals[row["id"]] - row["created_at"]).total_seconds() * 1000
        for row in rows
        if row["id"] in receiver.arrivals
    )
    none, hooked = statistics.mean(rates["none"]), statistics.mean(rates["one webhook"])
    console.print(
        f"PUT with connect/disconnect, {args.workers} workers, 16 connections, "
        f"{args.rounds} rounds of {args.seconds} s each: no webhook {none:.1f} req/s, one "
        f"webhook {hooked:.1f} req/s ({(hooked / none - 1) * 100:+.1f}%)"
    )
    if latencies:
        p50 = latencies[len(latencies) // 2]
        p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
        console.print(
            f"deliveries: {len(latencies)} of {len(rows)} events arrived; latency from commit "
            f"to arrival p50 {p50:.1f} ms, p99 {p99:.1f} ms"
        )


if __name__ == "__main__":
    uvloop.run(main())  # the receiver shares the cores: the cheapest event loop for it
