"""The corpus harness's own parts (``diff/corpus_*.py``), without any server: the recorded
Strapi answers are the answers to exactly the requests ``corpus.json`` transcribes, the data
set is deterministic and within each model's limits, and normalization maps each server's
ids to the data set's keys."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from diff.corpus import CORPUS, PROJECTS
from diff.corpus_data import build_plan
from diff.corpus_models import USER, load_project
from diff.corpus_normalize import normalize
from diff.corpus_requests import resolve, transcribed
from diff.corpus_seed import Seeded

from contentapi.query.qs import parse_query


def _project(name: str) -> tuple[Any, Any, dict[str, Any], dict[str, Any]]:
    corpus = json.loads((CORPUS / name / "corpus.json").read_text())
    fixture = json.loads((CORPUS / name / "strapi-answers.json").read_text())
    project = load_project(CORPUS / name / "src")
    plan = build_plan(project, corpus["locales"][0] if corpus["locales"] else None)
    return project, plan, corpus, fixture


def _strings(value: Any) -> Any:
    """A ``qs`` call's object as ``qs`` parses it back: every scalar a string."""
    if isinstance(value, dict):
        return {k: _strings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_strings(v) for v in value]
    return str(value)


@pytest.mark.parametrize("name", PROJECTS)
def test_the_recorded_answers_are_those_of_the_transcribed_requests(name: str):
    _, plan, corpus, fixture = _project(name)
    pending = []
    for source, url, query in transcribed(corpus, plan):
        if (source, url, json.dumps(query)) not in [(s, u, json.dumps(q)) for s, u, q in pending]:
            pending.append((source, url, query))
    answers = fixture["answers"]
    modes = corpus["auth"]  # each request as each caller the front end is
    assert len(answers) == len(pending) * len(modes)
    asked = [(request, mode) for request in pending for mode in modes]
    for answer, ((source, url, query), mode) in zip(answers, asked, strict=True):
        assert answer["source"] == source
        assert answer["as"] == mode
        if query is None:
            assert answer["url"] == url
        else:
            path, _, text = answer["url"].partition("?")
            assert path == url
            assert parse_query(text) == _strings(query)


@pytest.mark.parametrize("name", PROJECTS)
def test_every_source_names_a_file_and_line(name: str):
    _, _, corpus, _ = _project(name)
    for spec in corpus["requests"]:
        assert re.match(r"^[\w./\[\]-]+\.(js|ts|tsx):\d", spec["source"]), spec["source"]


def test_the_data_set_is_deterministic_and_within_the_models_limits():
    project, plan, _, _ = _project("foodadvisor")
    again = build_plan(load_project(CORPUS / "foodadvisor" / "src"), "fr-FR")
    assert [(e.key, e.data, e.relations) for e in plan.entries] == [
        (e.key, e.data, e.relations) for e in again.entries
    ]
    notes = [e.data["note"] for e in plan.entries if e.uid == "api::review.review"]
    assert notes and all(1 <= n <= 5 for n in notes)  # "min": 1, "max": 5
    seo = [e.data["seo"] for e in plan.entries if e.uid == "api::article.article"]
    assert all(50 <= len(s["metaDescription"]) <= 160 for s in seo)  # minLength, maxLength
    assert all(len(s["metaTitle"]) <= 60 for s in seo)
    drafts = [e.key for e in plan.entries if e.data.get("publishedAt", "") is None]
    assert "api::article.article#3" in drafts
    localized = [e.key for e in plan.entries if e.locale == "fr-FR"]
    assert "api::article.article#0@fr-FR" in localized
    assert len(plan.keys[USER]) == 3
    # a dynamic zone gets one item of each component it allows
    page = next(e for e in plan.entries if e.key == "api::page.page#0")
    zone = project.types["api::page.page"].attributes["blocks"]["components"]
    assert [item["__component"] for item in page.data["blocks"]] == zone


def test_generated_strings_match_the_models_regex():
    _, plan, _, _ = _project("corporate")
    slugs = [e.data["slug"] for e in plan.entries if e.uid == "api::page.page" and e.data["slug"]]
    assert slugs and all(re.search(r"^$|^[a-zA-Z/-]+$", s) for s in slugs)


def test_ids_become_keys_and_what_servers_make_up_becomes_markers():
    project = load_project(CORPUS / "foodadvisor" / "src")
    seeded = Seeded(
        ids={
            "api::article.article": {"api::article.article#0": 7},
            "api::category.category": {"api::category.category#1": 3},
            "files": {"image-0.png": 11},
        }
    )
    text = json.dumps(
        {
            "data": [
                {
                    "id": 7,
                    "attributes": {
                        "title": "x",
                        "updatedAt": "2026-01-01T00:00:00.000Z",
                        "category": {"data": {"id": 3, "attributes": {"name": "c"}}},
                        "image": {
                            "data": {
                                "id": 11,
                                "attributes": {
                                    "mime": "image/png",
                                    "size": 0.07,
                                    "url": "/u/a.png",
                                },
                            }
                        },
                        "blocks": [{"id": 99, "__component": "blocks.faq", "title": "t"}],
                    },
                }
            ],
            "meta": {},
        }
    )
    entry = normalize(project, seeded, "/api/articles", 200, text)["data"][0]
    assert entry["id"] == "api::article.article#0"
    assert entry["attributes"]["updatedAt"] == "<ts>"
    assert entry["attributes"]["category"]["data"]["id"] == "api::category.category#1"
    image = entry["attributes"]["image"]["data"]
    assert image["id"] == "image-0.png"
    assert image["attributes"] == {"mime": "image/png", "size": "<image size>", "url": "<url>"}
    assert entry["attributes"]["blocks"] == [{"__component": "blocks.faq", "title": "t"}]


def test_an_id_marker_becomes_each_servers_own_id():
    ids = {"api::page.page": {"api::page.page#0@fr-FR": 12}}
    assert resolve("/api/pages/{id:api::page.page#0@fr-FR}", ids) == "/api/pages/12"
    assert unquote(resolve("/api/pages/{id:api::page.page#9}", ids)) == "/api/pages/0"


def test_the_project_models_are_kept_in_strapis_layout():
    for name in PROJECTS:
        src = CORPUS / name / "src"
        assert list(src.glob("api/*/content-types/*/schema.json"))
        assert (CORPUS / name / "LICENSE").read_text().startswith("MIT License")
    user = Path("extensions/users-permissions/content-types/user/schema.json")
    assert (CORPUS / "foodadvisor" / "src" / user).is_file()


def test_the_report_keeps_its_hand_written_analysis(tmp_path: Path, monkeypatch):
    from diff import corpus_report

    report = tmp_path / "corpus-report.md"
    monkeypatch.setattr(corpus_report, "REPORT", report)
    corpus = json.loads((CORPUS / "next-blog" / "corpus.json").read_text())
    results = {
        "date": "2026-01-01T00:00:00+00:00",
        "projects": {
            "next-blog": {
                "sqlite": {
                    "requests": 2,
                    "identical": 1,
                    "unexplained": 1,
                    "load_failure": None,
                    "statuses": {"200": 2},
                    "classes": [
                        {
                            "class": "value data",
                            "count": 1,
                            "requests": [
                                {"source": "a.js:1", "url": "/api/x", "detail": "d", "why": None}
                            ],
                        }
                    ],
                }
            }
        },
    }
    report.write_text("# Corpus\n\nWhy things differ.\n")  # written before the marker existed
    corpus_report.write_report(results, {"next-blog": corpus}, CORPUS)
    first = report.read_text()
    assert first.startswith("# Corpus\n\nWhy things differ.\n\n" + corpus_report.MARKER)
    assert "| value data | **unexplained** | 1 | a.js:1: `/api/x` — d |" in first
    assert "**1 of 2** answers identical, **1 unexplained**" in first
    corpus_report.write_report(results, {"next-blog": corpus}, CORPUS)
    assert report.read_text() == first  # the analysis kept, the measured part rewritten
