"""SQLAlchemy's asyncio engine, imported without its ORM: the one place contentapi takes
``AsyncConnection``, ``AsyncEngine`` and ``create_async_engine`` from.

contentapi uses SQLAlchemy Core only. The package ``sqlalchemy.ext.asyncio`` also imports its
``AsyncSession``, and with it the whole ORM: about 8 MB of RSS in every worker (measured: a
built app, 90.1 MB with the package, 82.0 MB with its engine module alone), which peak RSS of
``serve --workers N`` counts N times (docs/benchmarks.md).

So, when nothing has imported the package yet, it is registered here as a module whose body
has not run, and only its ``engine`` submodule is loaded (submodules are found through the
package's path). The first time anyone asks the package for a name it does not hold yet — an
extension's ``from sqlalchemy.ext.asyncio import AsyncSession``, say — the package's own
``__init__`` runs in place and everything it defines is there, as if it had been imported
normally. Only when that import would happen is the ORM loaded.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from typing import Any

__all__ = ["AsyncConnection", "AsyncEngine", "create_async_engine"]

_PACKAGE = "sqlalchemy.ext.asyncio"


class _DeferredPackage(types.ModuleType):
    """``sqlalchemy.ext.asyncio`` before its ``__init__`` has run: that runs on the first
    lookup of a name the module does not have."""

    #: ``True`` once the engine module is loaded: until then a name missing here is one of
    #: the submodules the engine imports (``from . import exc``), for the import system to load
    _deferring = False
    _completed = False

    def __getattr__(self, name: str) -> Any:
        cls = type(self)
        if name.startswith("__") or not cls._deferring or cls._completed:
            raise AttributeError(f"module {_PACKAGE!r} has no attribute {name!r}")
        cls._completed = True
        spec = self.__spec__
        assert spec is not None and spec.loader is not None
        spec.loader.exec_module(self)
        return object.__getattribute__(self, name)


def _defer_the_package() -> None:
    """Register the package unexecuted, unless it is imported already."""
    if _PACKAGE in sys.modules:
        return
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or spec.submodule_search_locations is None:  # pragma: no cover
        return
    package = _DeferredPackage(_PACKAGE)
    package.__spec__ = spec
    package.__file__ = spec.origin
    package.__path__ = list(spec.submodule_search_locations)
    package.__package__ = _PACKAGE
    package.__loader__ = spec.loader
    sys.modules[_PACKAGE] = package
    import sqlalchemy.ext

    sqlalchemy.ext.asyncio = package  # as the import system binds a submodule


_defer_the_package()

from sqlalchemy.ext.asyncio.engine import (  # noqa: E402
    AsyncConnection,
    AsyncEngine,
    create_async_engine,
)

_DeferredPackage._deferring = True
