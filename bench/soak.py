"""Hand-run soak test (``make soak``): a real ``contentapi serve`` under mixed load for long.

Clients send REST and GraphQL reads and writes (creates and updates of articles, lists with
``populate``, single entries) for ``--duration`` seconds (default an hour) against
``contentapi serve --workers 2`` on a fresh PostgreSQL database, while the server's process
tree (supervisor and workers) is sampled for RSS and open descriptors. It reports the answers
by status (any 5xx fails), the RSS and descriptor slopes (least squares over the samples, per
hour), and checks at the end that every acknowledged write is there: each created article
exists with the title of its last acknowledged update (each client updates only its own).

    make soak                                    # an hour
    make soak SOAK_ARGS="--duration 180"         # 3 minutes

``run_soak`` is also what ``tests/test_soak.py`` runs for a few seconds on both databases.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psutil

from bench.servers import process_tree

__all__ = ["SoakReport", "run_soak"]

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "content-types"
TOKEN = "soak-admin-token"
SAMPLE_EVERY = 1.0
#: drafts too: a GraphQL ``createArticle`` without ``publishedAt`` makes a draft
PREVIEW = "publicationState=preview"

_GRAPHQL_LIST = (
    '{ articles(pagination: {pageSize: 20}, sort: "id:desc") { data { id attributes'
    " { title author { data { id } } categories { data { id } } } } } }"
)
_GRAPHQL_CREATE = (
    "mutation($title: String!) { createArticle(data: {title: $title}) { data { id } } }"
)
_GRAPHQL_UPDATE = (
    "mutation($id: ID!, $title: String!) { updateArticle(id: $id, data: {title: $title})"
    " { data { id } } }"
)


@dataclass
class SoakReport:
    """What a soak run saw."""

    seconds: float = 0.0
    statuses: dict[int, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)  # transport errors
    #: (seconds since start, RSS bytes of the tree, open descriptors of the tree)
    samples: list[tuple[float, int, int]] = field(default_factory=list)
    written: int = 0
    missing: list[str] = field(default_factory=list)

    @property
    def server_errors(self) -> int:
        return sum(count for status, count in self.statuses.items() if status >= 500)

    @property
    def ok(self) -> bool:
        return not self.server_errors and not self.missing and not self.failures

    def slope(self, index: int) -> float:
        """Least-squares slope of sample column ``index`` (1: RSS, 2: fds), per hour, after
        the first fifth of the run (the warm-up: caches and pools filling)."""
        kept = self.samples[len(self.samples) // 5 :]
        points = [(sample[0], float(sample[index])) for sample in kept]
        if len(points) < 2:
            return 0.0
        mean_t = sum(t for t, _ in points) / len(points)
        mean_v = sum(v for _, v in points) / len(points)
        spread = sum((t - mean_t) ** 2 for t, _ in points)
        if not spread:
            return 0.0
        return sum((t - mean_t) * (v - mean_v) for t, v in points) / spread * 3600

    def lines(self) -> list[str]:
        first, last = self.samples[0], self.samples[-1]
        answers = sum(self.statuses.values())
        return [
            f"{answers} answers in {self.seconds:.0f} s ({answers / self.seconds:.0f}/s), "
            f"statuses {dict(sorted(self.statuses.items()))}, 5xx: {self.server_errors}, "
            f"transport errors: {len(self.failures)}",
            f"RSS of the process tree {first[1] / 2**20:.0f} → {last[1] / 2**20:.0f} MiB, "
            f"slope {self.slope(1) / 2**20:+.1f} MiB/h after the warm-up "
            f"({len(self.samples)} samples)",
            f"open descriptors {first[2]} → {last[2]}, slope {self.slope(2):+.1f}/h",
            f"acknowledged writes: {self.written}, missing at the end: {len(self.missing)}",
        ]


def _measure(pid: int) -> tuple[int, int]:
    rss = fds = 0
    for process in process_tree(pid):
        try:
            rss += process.memory_info().rss
            fds += process.num_fds()
        except psutil.Error:
            continue
    return rss, fds


async def run_soak(
    base_url: str, token: str, seconds: float, server_pid: int, clients: int = 6
) -> SoakReport:
    """``clients`` concurrent clients for ``seconds``, then the check of every write."""
    report = SoakReport()
    titles: dict[int, str] = {}  # article id → its last acknowledged title
    started = time.monotonic()
    deadline = started + seconds
    headers = {"Authorization": f"Bearer {token}"}

    def count(response: httpx.Response) -> None:
        report.statuses[response.status_code] = report.statuses.get(response.status_code, 0) + 1

    async def client(number: int) -> None:
        rng = random.Random(number)
        own: list[int] = []
        serial = 0
        async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=60) as http:
            while time.monotonic() < deadline:
                serial += 1
                title = f"soak {number}-{serial}"
                action = rng.random()
                try:
                    if action < 0.10 or not own:
                        response = await http.post("/api/articles", json={"data": {"title": title}})
                        count(response)
                        if response.status_code == 200:
                            own.append(int(response.json()["data"]["id"]))
                            titles[own[-1]] = title
                    elif action < 0.15:
                        variables = {"title": title}
                        response = await http.post(
                            "/graphql", json={"query": _GRAPHQL_CREATE, "variables": variables}
                        )
                        count(response)
                        data = response.json().get("data") if response.status_code == 200 else None
                        if data and data.get("createArticle"):
                            own.append(int(data["createArticle"]["data"]["id"]))
                            titles[own[-1]] = title
                    elif action < 0.25:
                        target = rng.choice(own)
                        response = await http.put(
                            f"/api/articles/{target}", json={"data": {"title": title}}
                        )
                        count(response)
                        if response.status_code == 200:
                            titles[target] = title
                    elif action < 0.30:
                        target = rng.choice(own)
                        variables = {"id": str(target), "title": title}
                        response = await http.post(
                            "/graphql", json={"query": _GRAPHQL_UPDATE, "variables": variables}
                        )
                        count(response)
                        data = response.json().get("data") if response.status_code == 200 else None
                        if data and data.get("updateArticle"):
                            titles[target] = title
                    elif action < 0.55:
                        count(await http.get("/api/articles?populate=*&sort=id:desc"))
                    elif action < 0.75:
                        count(
                            await http.get(f"/api/articles/{rng.choice(own)}?{PREVIEW}&populate=*")
                        )
                    else:
                        count(await http.post("/graphql", json={"query": _GRAPHQL_LIST}))
                except httpx.TransportError as error:
                    report.failures.append(f"{type(error).__name__}: {error}")

    async def sample() -> None:
        while True:
            rss, fds = _measure(server_pid)
            report.samples.append((time.monotonic() - started, rss, fds))
            await asyncio.sleep(SAMPLE_EVERY)

    sampling = asyncio.create_task(sample())
    await asyncio.gather(*(client(number) for number in range(clients)))
    sampling.cancel()
    rss, fds = _measure(server_pid)
    report.samples.append((time.monotonic() - started, rss, fds))
    report.seconds = time.monotonic() - started
    report.written = len(titles)
    async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=60) as http:
        for article, title in sorted(titles.items()):
            response = await http.get(f"/api/articles/{article}?{PREVIEW}")
            found = response.json()["data"] if response.status_code == 200 else None
            if not found or found["attributes"]["title"] != title:
                report.missing.append(
                    f"article {article}: want {title!r}, got {response.text[:120]}"
                )
    return report


def start_server(
    database_url: str, port: int, workers: int = 2, log: Path | None = None
) -> subprocess.Popen[bytes]:
    """``contentapi migrate`` then ``contentapi serve`` on ``database_url`` (the repo's models)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONTENTAPI_")}
    env.update(
        CONTENTAPI_DATABASE_URL=database_url,
        CONTENTAPI_CONTENT_TYPES_DIR=str(MODELS),
        CONTENTAPI_ADMIN_TOKEN=TOKEN,
        CONTENTAPI_UPLOADS_DIR=tempfile.mkdtemp(prefix="soak-uploads-"),
    )
    command = str(Path(sys.executable).parent / "contentapi")
    subprocess.run([command, "migrate"], env=env, check=True, capture_output=True)
    output = subprocess.DEVNULL if log is None else log.open("wb")
    return subprocess.Popen(
        [command, "serve", "--port", str(port), "--workers", str(workers)],
        env=env,
        stdout=output,
        stderr=subprocess.STDOUT,
    )


async def wait_ready(base_url: str, process: subprocess.Popen[bytes], seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    async with httpx.AsyncClient() as http:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"server exited with {process.returncode}")
            try:
                response = await http.get(f"{base_url}/api/articles", timeout=2)
                if response.status_code < 500:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.2)
    raise RuntimeError(f"{base_url} did not answer in {seconds} s")


async def _main(args: argparse.Namespace) -> int:
    from bench.servers import recreate_database

    url = await recreate_database("contentapi_soak", args.postgres)
    database_url = url.replace("postgresql://", "postgresql+asyncpg://")
    base_url = f"http://127.0.0.1:{args.port}"
    process = start_server(database_url, args.port, args.workers)
    try:
        await wait_ready(base_url, process)
        print(
            f"soak: {args.duration:.0f} s, {args.clients} clients, {args.workers} workers, "
            "PostgreSQL",
            flush=True,
        )
        report = await run_soak(base_url, TOKEN, args.duration, process.pid, args.clients)
    finally:
        process.terminate()
        process.wait(timeout=60)
    for line in report.lines():
        print(line)
    for problem in [*report.missing[:5], *report.failures[:5]]:
        print("  " + problem)
    print("soak: OK" if report.ok else "soak: FAILED")
    return 0 if report.ok else 1


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__)
    parser.add_argument("--duration", type=float, default=3600, help="seconds (default 3600)")
    parser.add_argument("--clients", type=int, default=6)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--port", type=int, default=1341)
    parser.add_argument(
        "--postgres",
        default=os.environ.get("BENCH_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres"),
        help="an administrator's URL of the PostgreSQL server (BENCH_POSTGRES)",
    )
    args = parser.parse_args()
    if args.duration <= 0 or args.clients < 1 or args.workers < 1:
        parser.error("--duration, --clients and --workers must be positive")
    sys.exit(asyncio.run(_main(args)))


if __name__ == "__main__":
    main()
