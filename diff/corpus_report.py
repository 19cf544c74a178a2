"""``docs/corpus-report.md`` from a ``make diff-corpus`` run: per project and database, how
many of the front end's requests contentapi answers as the reference Strapi did, and every
class of difference with its count, why it differs (``WHY``, matched on the class) and its
first examples (the front-end line each comes from)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

__all__ = ["WHY", "write_report"]

REPORT = Path(__file__).resolve().parent.parent / "docs" / "corpus-report.md"

#: class (regular expression) → why it differs and what makes it go away
WHY: list[tuple[str, str]] = [
    (
        r"^models not loaded",
        "contentapi's loader refuses the project's models (message in the project's section).",
    ),
]


def _why(kind: str) -> str:
    return next((text for pattern, text in WHY if re.search(pattern, kind)), "**unexplained**")


def _cell(text: str, limit: int = 220) -> str:
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def write_report(results: dict[str, Any], corpora: dict[str, dict[str, Any]], root: Path) -> None:
    lines = [
        "# Corpus: real Strapi v4 projects against the reference Strapi 4.25",
        "",
        "Written by `make diff-corpus` (`diff/corpus.py`; see `diff/corpus/README.md`). Each "
        "project's models are loaded as its repository has them; the same generated data set "
        "is written through the REST API of the reference Strapi (answers recorded once in "
        "`diff/corpus/<project>/strapi-answers.json`) and of contentapi; every request the "
        "project's front end builds is sent to contentapi and its answer compared with "
        "Strapi's, normalized as `make diff` normalizes (ids → keys of the data set, "
        "timestamps, component ids, file hashes and URLs).",
        "",
        f"Run of {results['date']} ({results.get('seconds', '?')} s).",
        "",
    ]
    for name, backends in results["projects"].items():
        corpus = corpora[name]
        fixture = json.loads((root / name / "strapi-answers.json").read_text())
        lines += [
            f"## {name}",
            "",
            f"[{corpus['repository']}]({corpus['repository']}) at `{corpus['commit']}`; "
            f"Strapi {fixture['strapi']} answers recorded {fixture['recorded']} "
            f"({len(fixture['seed_failures'])} writes of the data set refused by Strapi).",
            "",
        ]
        for backend, report in backends.items():
            head = (
                f"### {name} on {backend}: **{report['identical']} of {report['requests']}** "
                "answers identical"
            )
            lines += [head, ""]
            if report.get("load_failure"):
                lines += ["Models: " + _cell(report["load_failure"], 1200), ""]
            if report.get("not_run"):
                lines += [f"{report['not_run']} requests not run: the models did not load.", ""]
                continue
            if report.get("seed_failures"):
                lines += [
                    f"{len(report['seed_failures'])} writes of the data set refused by "
                    "contentapi, the first: " + _cell(report["seed_failures"][0], 400),
                    "",
                ]
            lines += [
                "contentapi's statuses: "
                + ", ".join(f"{k}: {v}" for k, v in report.get("statuses", {}).items()),
                "",
            ]
            if report["classes"]:
                lines += [
                    "| class | count | why | example (front-end source, request, difference) |",
                    "|---|---|---|---|",
                ]
                for item in report["classes"]:
                    example = item["examples"][0]
                    lines.append(
                        f"| {_cell(item['class'], 160)} | {item['count']} | {_why(item['class'])} "
                        f"| {_cell(example['source'], 120)}: `{_cell(example['url'], 200)}` — "
                        f"{_cell(example['detail'], 200)} |"
                    )
                lines.append("")
    REPORT.write_text("\n".join(lines) + "\n")
