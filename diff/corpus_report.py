"""``docs/corpus-report.md`` from a ``make diff-corpus`` run.

The file has two parts: above ``MARKER`` the analysis written by hand (which classes differ
and why; kept as it is), below it what the run measured — per project and database, how many
of the front end's requests contentapi answers as the reference Strapi did, and every class of
difference, split by its reason (``diff/corpus_known.py``), with its count and first example
(the front-end line it comes from).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["MARKER", "write_report"]

REPORT = Path(__file__).resolve().parent.parent / "docs" / "corpus-report.md"
MARKER = "<!-- Everything below is written by `make diff-corpus`. -->"
_HEAD = """# Corpus: real Strapi v4 projects against the reference Strapi 4.25

(The analysis of the classes below goes here.)

"""


def _cell(text: str, limit: int = 220) -> str:
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _project(name: str, backends: dict[str, Any], corpus: dict[str, Any], root: Path) -> list[str]:
    fixture = json.loads((root / name / "strapi-answers.json").read_text())
    lines = [
        f"### {name}",
        "",
        f"[{corpus['repository']}]({corpus['repository']}) at `{corpus['commit']}`; answers of "
        f"Strapi {fixture['strapi']} recorded {fixture['recorded']} "
        f"({len(fixture['seed_failures'])} writes of the data set refused by Strapi).",
        "",
    ]
    for backend, report in backends.items():
        unexplained = report.get("unexplained", report["requests"] - report["identical"])
        lines += [
            f"#### {name} on {backend}: **{report['identical']} of {report['requests']}** "
            f"answers identical, **{unexplained} unexplained**",
            "",
        ]
        if report.get("load_failure"):
            lines += ["Models: " + _cell(report["load_failure"], 1200), ""]
        if report.get("not_run"):
            lines += [f"{report['not_run']} requests not run: the models did not load.", ""]
            continue
        for failure in report.get("seed_failures", []):
            lines.append("- write of the data set refused by contentapi: " + _cell(failure, 300))
        lines += [
            "",
            "contentapi's statuses: "
            + ", ".join(f"{k}: {v}" for k, v in report.get("statuses", {}).items()),
            "",
        ]
        if report["classes"]:
            lines += [
                "| class | why | count | first example: front-end source, request, difference |",
                "|---|---|---|---|",
            ]
            for item in report["classes"]:
                by_reason: dict[str, list[dict[str, Any]]] = {}
                for request in item["requests"]:
                    by_reason.setdefault(request.get("why") or "", []).append(request)
                for why, requests in by_reason.items():
                    example = requests[0]
                    lines.append(
                        f"| {_cell(item['class'], 120)} | {_cell(why) or '**unexplained**'} "
                        f"| {len(requests)} | {_cell(example['source'], 100)}: "
                        f"`{_cell(example['url'], 160)}` — {_cell(example['detail'], 160)} |"
                    )
            lines.append("")
    return lines


def write_report(results: dict[str, Any], corpora: dict[str, dict[str, Any]], root: Path) -> None:
    existing = REPORT.read_text() if REPORT.is_file() else ""
    # the analysis: what is above the marker, or a whole file written before it had one
    head = existing.split(MARKER)[0] if MARKER in existing else (existing or _HEAD)
    head = head if head.endswith("\n\n") else head.rstrip("\n") + "\n\n"
    lines = [
        MARKER,
        "",
        f"## Run of {results['date']} ({results.get('seconds', '?')} s)",
        "",
    ]
    for name, backends in results["projects"].items():
        lines += _project(name, backends, corpora[name], root)
    REPORT.write_text(head + "\n".join(lines) + "\n")
