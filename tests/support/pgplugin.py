"""The pytest side of ``pgsession.py``: the run's PostgreSQL is chosen in ``pytest_configure``,
before any test module is imported and, under pytest-xdist, in the controller before it starts
the workers — they inherit the choice as ``CONTENTAPI_TEST_POSTGRES_URL`` and choose nothing
themselves, so a run has at most one server of its own. ``tests/conftest.py`` loads it; the
test of the xdist sharing loads it alone (``-p tests.support.pgplugin``), without the suite.
"""

from __future__ import annotations

import os

import pytest

from tests.support import pgsession

_CHOSEN = pytest.StashKey[pgsession.SuitePostgres]()


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Choose once; first among the hooks, so ``tests/conftest.py``'s reads the choice."""
    if "postgres" not in pgsession.BACKENDS or hasattr(config, "workerinput") or config.option.help:
        return
    try:
        chosen = pgsession.resolve(
            os.environ.get(pgsession.URL_VARIABLE),
            os.environ.get(pgsession.DEFAULT_URL_VARIABLE, pgsession.DEFAULT_URL),
        )
    except pgsession.SuitePostgresError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.add_cleanup(chosen.close)
    config.stash[_CHOSEN] = chosen
    os.environ[pgsession.URL_VARIABLE] = chosen.url


def pytest_sessionstart(session: pytest.Session) -> None:
    """Say which PostgreSQL the run uses, even under ``-q``."""
    chosen = session.config.stash.get(_CHOSEN, None)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if chosen is not None and reporter is not None:
        reporter.write_line(chosen.describe())
