"""The layers of ``src/contentapi`` hold: the import contracts in ``pyproject.toml``
(``[tool.importlinter]``, import-linter) and no module importing one that imports it back.

Read from the code's own imports (type-checking imports left out): higher layers import lower
ones, never the reverse. A new arrow against the layers fails here with the chain that makes it,
instead of going unnoticed until the structure is a knot again (issue 25 untangled one).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import grimp
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = ROOT / "pyproject.toml"


def test_the_import_contracts_are_kept():
    assert lint_imports(config_filename=str(PYPROJECT), no_cache=True, no_logo=True) == 0


def test_at_most_two_imports_are_excused_from_the_layers():
    config = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]
    excused = [i for c in config["contracts"] for i in c.get("ignore_imports", [])]
    assert len(excused) <= 2, excused


def test_no_module_imports_one_that_imports_it_back():
    graph = grimp.build_graph("contentapi", exclude_type_checking_imports=True)
    both_ways = sorted(
        (module, imported)
        for module in graph.modules
        for imported in graph.find_modules_directly_imported_by(module)
        if module < imported and module in graph.find_modules_directly_imported_by(imported)
    )
    assert both_ways == []
