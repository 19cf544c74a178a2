"""``serve --reload``'s pure parts: which file events count, and the line a reload prints."""

from __future__ import annotations

from pathlib import Path

import pytest
from watchfiles import Change

from contentapi.cli_reload import ReloadFilter, describe_reload
from contentapi.db.sync import SyncReport
from contentapi.schema import Registry


@pytest.mark.parametrize(
    ("path", "counts"),
    [
        ("/p/models/article.json", True),
        ("/p/models/components/shared/seo.json", True),
        ("/p/models/.article.json.swp", False),  # vim
        ("/p/models/article.json~", False),  # emacs, gedit backups
        ("/p/models/.#article.json", False),  # emacs lock
        ("/p/models/article.json___jb_tmp___", False),  # JetBrains safe write
        ("/p/models/notes.md", False),
        ("/p/ext.py", True),
        ("/p/other.py", False),
        ("/p/pkg/hooks.py", True),
        ("/p/models/__pycache__/x.pyc", False),
    ],
)
def test_reload_filter_counts_models_and_extension_files_only(path: str, counts: bool) -> None:
    watched = ReloadFilter(Path("/p/models"), [Path("/p/ext.py"), Path("/p/pkg")])
    assert watched(Change.modified, path) is counts


def test_describe_reload_names_new_types_and_counts_what_the_sync_did() -> None:
    registry = Registry.build([], [])
    report = SyncReport(created_tables=["books"], added_columns=["a.b", "a.c"])
    line = describe_reload(registry, registry, report)
    assert line == "reloaded: 1 table created, 2 columns added"
    assert describe_reload(registry, registry, SyncReport()) == "reloaded: no table changed"
