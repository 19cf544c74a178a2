"""`make diff-corpus`: real Strapi v4 projects (``diff/corpus/<project>/``) answered by
contentapi and compared with the reference Strapi's recorded answers, on SQLite and PostgreSQL.

    make diff-corpus                                      # compare (no Strapi needed)
    make diff-corpus CORPUS_ARGS="--projects foodadvisor --backends sqlite"
    make diff-corpus CORPUS_ARGS="--record --reference-dir ~/.cache/strapi-corpus --port 1347"

Each project folder holds the project's models exactly as its repository has them (Strapi's
``src/`` layout), ``corpus.json`` (the requests its front end builds, each with the file and
line it comes from) and ``strapi-answers.json``: the reference Strapi's answers, recorded by
``--record`` (it installs the reference with ``bench/reference/setup.sh`` pointed at the
project's ``src/``, writes the data set of ``diff/corpus_data.py`` through the REST API, and
sends every request with a full-access token and, where the front end sends none, as the
public role too, granted ``find``/``findOne`` on every content type as the projects' setups
grant them). Comparing seeds contentapi with the same data
set through its REST API, sends the same requests, and normalizes both answers
(``diff/corpus_normalize.py``). Models contentapi cannot load are reported as such, with the
loader's message; every request is then counted as not run. A full run writes
``diff/results/corpus.json`` and ``docs/corpus-report.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import tempfile
import time
from collections import Counter, defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from bench.servers import recreate_database

from diff.compare import _class_of_path, _first_difference  # the same reading of a difference
from diff.corpus_data import build_plan
from diff.corpus_known import reason_for
from diff.corpus_models import Project, load_project
from diff.corpus_normalize import normalize
from diff.corpus_report import write_report
from diff.corpus_requests import expand, resolve
from diff.corpus_seed import Seeded, grant_public_reads, seed_project

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).resolve().parent / "corpus"
REFERENCE = ROOT / "bench" / "reference"
RESULTS = Path(__file__).resolve().parent / "results" / "corpus.json"
PG_ADMIN = os.environ.get("DIFF_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")
TOKEN = "corpus-admin-token"
PROJECTS = ("foodadvisor", "corporate", "next-blog")


def _corpus(name: str) -> dict[str, Any]:
    return json.loads((CORPUS / name / "corpus.json").read_text())


def _second_locale(corpus: dict[str, Any]) -> str | None:
    return corpus["locales"][0] if corpus["locales"] else None


# ----------------------------------------------------------------------------- recording


def _reference_env(reference_dir: Path, port: int, corpus: dict[str, Any], src: Path) -> dict:
    fields = " ".join(
        f"{uid.split('::', 1)[1]}:{kind}" for uid, kind in corpus["custom_fields"].items()
    )
    return {
        **os.environ,
        "REFERENCE_DIR": str(reference_dir),
        "PORT": str(port),
        "MODELS_DIR": str(src),
        "CUSTOM_FIELDS": fields,
        "LOCALES": " ".join(corpus["locales"]) or "fr",
    }


async def record(name: str, reference_dir: Path, port: int) -> None:
    """Strapi's answers to one project's requests, written to its ``strapi-answers.json``."""
    corpus = _corpus(name)
    src = CORPUS / name / "src"
    project = load_project(src)
    plan = build_plan(project, _second_locale(corpus))
    env = _reference_env(reference_dir, port, corpus, src)
    database = f"corpus_{name.replace('-', '_')}_{port}"  # one per reference server
    subprocess.run(["bash", str(REFERENCE / "stop.sh")], env=env, capture_output=True)
    subprocess.run(["bash", str(REFERENCE / "setup.sh")], cwd=ROOT, env=env, check=True)
    await recreate_database(database, PG_ADMIN)
    subprocess.run(["bash", str(REFERENCE / "start.sh"), database], cwd=ROOT, env=env, check=True)
    try:
        token = (reference_dir / "TOKEN").read_text().strip()
        requests = expand(corpus, plan, reference_dir / "node_modules")
        base = f"http://127.0.0.1:{port}"
        async with (
            httpx.AsyncClient(
                base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=60
            ) as client,
            httpx.AsyncClient(base_url=base, timeout=60) as public,
        ):
            seeded = await seed_project(client, project, plan)
            if "public" in corpus["auth"]:
                await grant_public_reads(client, project, seeded)
            answers = []
            for request in requests:
                for mode in corpus["auth"]:
                    caller = public if mode == "public" else client
                    response = await caller.get(resolve(request.url, seeded.ids))
                    answers.append(
                        {
                            "source": request.source,
                            "as": mode,
                            "url": request.url,
                            "status": response.status_code,
                            "text": response.text,
                        }
                    )
    finally:
        subprocess.run(["bash", str(REFERENCE / "stop.sh")], env=env, capture_output=True)
    package = reference_dir / "node_modules/@strapi/strapi/package.json"
    fixture = {
        "strapi": json.loads(package.read_text())["version"],
        "recorded": datetime.now(UTC).isoformat(timespec="seconds"),
        "ids": seeded.ids,
        "seed_failures": seeded.failures,
        "answers": answers,
    }
    path = CORPUS / name / "strapi-answers.json"
    path.write_text(json.dumps(fixture, indent=1, ensure_ascii=False) + "\n")
    print(f"{name}: {len(answers)} answers recorded, {len(seeded.failures)} seed failures")


# ----------------------------------------------------------------------------- comparing


def _load_failure(src: Path, project: Project) -> str | None:
    """Why contentapi cannot serve the project's models, or None when it loads all of them."""
    from contentapi.schema import load_registry

    try:
        registry = load_registry(src)
    except Exception as error:  # the loader's own report, whatever its class
        return f"{type(error).__name__}: {error}".replace(f"{ROOT}/", "")
    missing = sorted(set(project.types) - set(registry.content_types))
    return f"content types not loaded: {', '.join(missing)}" if missing else None


def _classify(ours: tuple[int, Any], theirs: tuple[int, Any]) -> str:
    (status_a, a), (status_b, b) = ours, theirs
    if status_a != status_b:
        message = (a.get("error") or {}).get("message") if isinstance(a, dict) else None
        return f"status {status_a} vs strapi {status_b}" + (f": {message}" if message else "")
    if status_a != 200:
        return f"error message ({status_a})"
    detail = _first_difference(a, b)
    return f"value {_class_of_path(detail)}"


async def compare_backend(name: str, backend: str, url: str) -> dict[str, Any]:
    """One project on one database: every recorded request sent to contentapi and judged."""
    from contentapi.app import create_app
    from contentapi.config import Settings

    corpus = _corpus(name)
    src = CORPUS / name / "src"
    project = load_project(src)
    fixture = json.loads((CORPUS / name / "strapi-answers.json").read_text())
    answers = fixture["answers"]
    report: dict[str, Any] = {"requests": len(answers), "classes": [], "seed_failures": []}
    failure = _load_failure(src, project)
    report["load_failure"] = failure
    if failure and not failure.startswith("content types not loaded"):
        report.update(identical=0, not_run=len(answers))
        return report
    plan = build_plan(project, _second_locale(corpus))
    theirs_ids = Seeded(ids=fixture["ids"])
    settings = Settings(
        database_url=url,
        content_types_dir=src,
        admin_token=TOKEN,
        locales=",".join(["en", *corpus["locales"]]),
        uploads_dir=Path(tempfile.mkdtemp()),
        auth_rate_limit_max=1_000_000,
    )
    try:
        app = create_app(settings)
    except Exception as error:  # the application refuses the models at start-up
        report.update(load_failure=f"{type(error).__name__}: {error}", identical=0)
        report["not_run"] = len(answers)
        return report
    classes: dict[str, list[dict[str, Any]]] = defaultdict(list)
    statuses: Counter[int] = Counter()
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url="http://corpus",
            headers={"Authorization": f"Bearer {TOKEN}"},
            timeout=60,
        ) as client,
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://corpus", timeout=60
        ) as public,
    ):
        ours_ids = await seed_project(client, project, plan)
        if "public" in corpus["auth"]:
            await grant_public_reads(client, project, ours_ids)
        report["seed_failures"] = ours_ids.failures
        for answer in answers:
            path = resolve(answer["url"], ours_ids.ids)
            caller = public if answer["as"] == "public" else client
            try:
                response = await caller.get(path)
                status, text = response.status_code, response.text
            except Exception as error:  # an exception out of the app is a 500 for a client
                status, text = 500, json.dumps({"transport": type(error).__name__})
            statuses[status] += 1
            a = normalize(project, ours_ids, path, status, text)
            b = normalize(
                project,
                theirs_ids,
                resolve(answer["url"], fixture["ids"]),
                answer["status"],
                answer["text"],
            )
            if status == answer["status"] and a == b:
                continue
            kind = _classify((status, a), (answer["status"], b))
            if answer["as"] == "public":
                kind = f"(public role) {kind}"
            classes[kind].append(
                {
                    "source": answer["source"],
                    "as": answer["as"],
                    "url": path,
                    "why": reason_for(name, kind, path),
                    "detail": _first_difference(a, b)[:300]
                    if status == answer["status"]
                    else json.dumps(a)[:300],
                }
            )
    report["statuses"] = {str(k): v for k, v in sorted(statuses.items())}
    report["classes"] = [
        {"class": kind, "count": len(items), "requests": items}
        for kind, items in sorted(classes.items(), key=lambda kv: -len(kv[1]))
    ]
    report["identical"] = len(answers) - sum(len(items) for items in classes.values())
    report["unexplained"] = sum(1 for items in classes.values() for i in items if not i["why"])
    return report


async def _drop_database(name: str) -> None:
    conn = await asyncpg.connect(PG_ADMIN)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


async def compare(projects: list[str], backends: list[str]) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for name in projects:
        results[name] = {}
        for backend in backends:
            if backend == "sqlite":
                url = f"sqlite+aiosqlite:///{tempfile.mkdtemp()}/corpus.db"
            else:  # a name of this run's own: several runs may share the server
                database = f"contentapi_corpus_{name.replace('-', '_')}_{os.getpid()}"
                url = (await recreate_database(database, PG_ADMIN)).replace(
                    "postgresql://", "postgresql+asyncpg://"
                )
            try:
                report = await compare_backend(name, backend, url)
            finally:
                if backend != "sqlite":
                    await _drop_database(database)
            results[name][backend] = report
            print(
                f"{name} on {backend}: {report['identical']} of {report['requests']} identical"
                + (
                    f" — models: {report['load_failure'][:200]}"
                    if report.get("load_failure")
                    else ""
                )
            )
    return results


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--projects", default=",".join(PROJECTS))
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--record", action="store_true", help="record Strapi's answers again")
    parser.add_argument(
        "--reference-dir",
        type=Path,
        default=Path(os.environ.get("REFERENCE_DIR", Path.home() / ".cache/strapi-corpus")),
    )
    parser.add_argument("--port", type=int, default=1347)
    args = parser.parse_args()
    projects = [p.strip() for p in args.projects.split(",") if p.strip()]
    started = time.monotonic()
    if args.record:
        for name in projects:
            await record(name, args.reference_dir, args.port)
        return
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    results = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "projects": await compare(projects, backends),
    }
    results["seconds"] = round(time.monotonic() - started)
    if set(projects) != set(PROJECTS) or set(backends) != {"sqlite", "postgres"}:
        print("a partial run: diff/results/corpus.json and docs/corpus-report.md left as they are")
        return
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    write_report(results, {name: _corpus(name) for name in projects}, CORPUS)


if __name__ == "__main__":
    asyncio.run(main())
