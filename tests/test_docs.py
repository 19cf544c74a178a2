"""The README and docs/ as a reader meets them: every file they cite is in the repository, no
heading is printed twice, shell examples call ``python3`` (plain ``python`` is missing on many
systems), and the local configuration file, which may hold secrets, is kept out of git."""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = [README, *sorted((ROOT / "docs").glob("*.md"))]

#: a path in backticks (``src/contentapi/x.py``) or a Markdown link's target
_CITED_PATH = re.compile(r"`([\w.-]+(?:/[\w.-]+)+\.\w+)`|\]\(([\w./-]+\.\w+)\)")
_FENCE = re.compile(r"^```(\w*)")


def _cited_paths(text: str) -> list[str]:
    return [match.group(1) or match.group(2) for match in _CITED_PATH.finditer(text)]


def _prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks, blank lines dropped."""
    lines, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and line.strip():
            lines.append(line.strip())
    return lines


def _shell_lines(text: str) -> list[str]:
    lines, language = [], None
    for line in text.splitlines():
        fence = _FENCE.match(line)
        if fence:
            language = None if language is not None else fence.group(1)
        elif language in ("sh", "bash", "shell"):
            lines.append(line)
    return lines


@pytest.mark.parametrize("doc", DOCS, ids=lambda path: path.name)
def test_cited_markdown_files_are_in_the_repository(doc: Path):
    missing = [
        cited
        for cited in _cited_paths(doc.read_text(encoding="utf-8"))
        if cited.endswith(".md") and not ((ROOT / cited).exists() or (doc.parent / cited).exists())
    ]
    assert missing == []


def test_graphql_doc_cites_only_files_in_the_repository():
    bases = (ROOT, ROOT / "docs", ROOT / "src", ROOT / "src" / "contentapi")
    text = (ROOT / "docs" / "graphql.md").read_text(encoding="utf-8")
    missing = [path for path in _cited_paths(text) if not any((b / path).exists() for b in bases)]
    assert missing == []


@pytest.mark.parametrize("doc", DOCS, ids=lambda path: path.name)
def test_no_heading_is_repeated_by_the_line_after_it(doc: Path):
    """A lead-in line ("Files and localizations:") or a Markdown heading is not followed by
    the same words again."""
    lines = _prose_lines(doc.read_text(encoding="utf-8"))
    repeated = []
    for line, following in pairwise(lines):
        heading = line.lstrip("#").strip().rstrip(":").strip()
        is_heading = line.startswith("#") or (line.endswith(":") and len(heading.split()) <= 6)
        if is_heading and heading and following.lstrip("#").strip().startswith(heading):
            repeated.append(line)
    assert repeated == []


def test_readme_shell_examples_call_python3():
    plain = [
        line
        for line in _shell_lines(README.read_text(encoding="utf-8"))
        if re.search(r"(?<![\w/.-])python(?![\w.-])", line)
    ]
    assert plain == []


def test_the_local_configuration_file_is_ignored_by_git():
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert "contentapi.toml" in ignored
