"""``contentapi serve --reload``: the development loop. A changed model or extension module is
checked, the database brought up to date, and the workers replaced — no stop and start by hand.

Consumes file events (``watchfiles``) under the models folder (components included) and the
extension modules' files; produces, per burst of events, either the problems ``contentapi check``
prints (the running workers keep the models they have) or one line of what changed
("reloaded: content type api::book.book added, 2 columns added").

The check and the sync run in this process, before any worker is touched: a broken model never
takes the server down, and the new workers find the tables ready. The supervisor
(``supervisor.py``) keeps the socket and replaces the workers.
"""

from __future__ import annotations

import importlib.util
import logging
import sys
import threading
from collections.abc import Iterable
from pathlib import Path

from watchfiles import Change, DefaultFilter, watch

from contentapi.cli_common import check_extensions, counted, err, load_checked_models, synced
from contentapi.config import Settings
from contentapi.db.sync import SyncReport
from contentapi.listening import bind
from contentapi.schema import Registry
from contentapi.supervisor import Supervisor

__all__ = ["ReloadFilter", "describe_reload", "serve_reloading", "watched_paths"]

#: milliseconds watchfiles waits for more events before yielding a burst (an editor's save is
#: several writes: temp file, rename, metadata), and the most it groups
STEP_MS, DEBOUNCE_MS = 300, 1600


class ReloadFilter(DefaultFilter):
    """Model files (``.json``) under the models folder and the extension modules' own files;
    watchfiles' default filter already leaves out editor temp and backup files (``.swp``,
    ``~``, ``.#…``, JetBrains' ``___jb_``)."""

    def __init__(self, models: Path, extensions: Iterable[Path]) -> None:
        super().__init__()
        self.models = models.resolve()
        self.extensions = [path.resolve() for path in extensions]

    def __call__(self, change: Change, path: str) -> bool:
        if not super().__call__(change, path):
            return False
        changed = Path(path)
        if changed.suffix == ".json" and changed.is_relative_to(self.models):
            return True
        return changed.suffix == ".py" and any(
            changed == ext or changed.is_relative_to(ext) for ext in self.extensions
        )


def extension_files(settings: Settings) -> list[Path]:
    """The files of ``CONTENTAPI_EXTENSIONS``'s modules (a package: its folder), found as
    ``load_extensions`` imports them (the working folder first on ``sys.path``)."""
    from contentapi.extensions import extension_modules

    if str(Path.cwd()) not in sys.path:  # as ``load_extensions`` finds them
        sys.path.insert(0, str(Path.cwd()))
    found = []
    for name in extension_modules(settings):
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            continue
        origin = Path(spec.origin)
        found.append(origin.parent if origin.name == "__init__.py" else origin)
    return found


def watched_paths(settings: Settings) -> list[Path]:
    """The models folder and the folders holding the extension modules (a folder, not the
    file: an editor that saves by renaming replaces the file a watch would hold)."""
    paths = {settings.content_types_dir.resolve()}
    paths |= {(p if p.is_dir() else p.parent).resolve() for p in extension_files(settings)}
    return sorted(paths)


def describe_reload(before: Registry, after: Registry, report: SyncReport) -> str:
    """One line: the content types and components added or removed, the tables, columns and
    indexes the sync created (its ``SyncReport``, as ``migrate`` counts them)."""
    parts = []
    for kind, old, new in (
        ("content type", before.content_types, after.content_types),
        ("component", before.components, after.components),
    ):
        parts += [f"{kind} {uid} added" for uid in sorted(set(new) - set(old))]
        parts += [f"{kind} {uid} removed" for uid in sorted(set(old) - set(new))]
    for items, singular, plural, done in (
        (report.created_tables, "table", None, "created"),
        (report.added_columns, "column", None, "added"),
        (report.created_indexes, "index", "indexes", "added"),
    ):
        if items:
            parts.append(f"{counted(len(items), singular, plural)} {done}")
    return "reloaded: " + (", ".join(parts) or "no table changed")


def _forget_extension_modules(settings: Settings) -> None:
    """Drop the extension modules from ``sys.modules``: the check must import the new code."""
    from contentapi.extensions import extension_modules

    for name in extension_modules(settings):
        for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[loaded]


class Reloader:
    """Checks a burst of changes and, when the models are valid, restarts the workers."""

    def __init__(self, settings: Settings, registry: Registry, supervisor: Supervisor) -> None:
        self.settings = settings
        self.registry = registry
        self.supervisor = supervisor

    def on_changes(self, paths: Iterable[str]) -> None:
        names = ", ".join(sorted({Path(p).name for p in paths}))
        err.print(f"changed: {names}; checking", highlight=False, soft_wrap=True)
        _forget_extension_modules(self.settings)
        registry = load_checked_models(self.settings, quiet=True)
        if registry is None or check_extensions(self.settings):
            err.print("not reloaded: the server keeps the previous models", highlight=False)
            return
        try:
            report = synced(self.settings)
        except Exception as error:  # a database refusal: keep serving, say why
            err.print(f"not reloaded: {error}", highlight=False, soft_wrap=True)
            return
        line = describe_reload(self.registry, registry, report)
        self.registry = registry
        self.supervisor.request_restart()
        err.print(line, highlight=False, soft_wrap=True)


def serve_reloading(settings: Settings, registry: Registry, host: str, port: int) -> int:
    """One worker behind a supervisor, replaced on each valid change; the supervisor's exit."""
    # No hang detection: a developer stopped at a breakpoint blocks the worker's loop.
    supervisor = Supervisor(bind(host, port), 1, worker_timeout=0)
    reloader = Reloader(settings, registry, supervisor)
    stop = threading.Event()
    paths = watched_paths(settings)

    def watch_loop() -> None:
        for changes in watch(
            *paths,
            watch_filter=ReloadFilter(settings.content_types_dir, extension_files(settings)),
            step=STEP_MS,
            debounce=DEBOUNCE_MS,
            stop_event=stop,
        ):
            try:
                reloader.on_changes(path for _, path in changes)
            except Exception:  # one failed reload must not end the watching
                err.print_exception()
                err.print("not reloaded: the server keeps the previous models", highlight=False)

    # its "1 change detected" per burst says less than the line each burst prints here
    logging.getLogger("watchfiles").setLevel(logging.WARNING)
    watcher = threading.Thread(target=watch_loop, name="reload-watcher", daemon=True)
    watcher.start()
    err.print(f"watching {', '.join(map(str, paths))} for changes", highlight=False)
    try:
        return supervisor.run()
    finally:
        stop.set()
