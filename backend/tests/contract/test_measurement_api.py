"""The measurement library's public API (upgradelab/measurement/__init__.py) is what its docstring
says: every name it exports is defined, named in the package's docstring (the API listed by concept)
and documented where it is defined. The kinds reach the library through these names only
(backend/pyproject.toml's measurement-api contract)."""

import ast
import inspect
import re
import tomllib
from pathlib import Path

import upgradelab.measurement as measurement

BACKEND = Path(__file__).resolve().parents[2]


def test_every_exported_name_is_defined_and_listed_in_the_package_docstring() -> None:
    doc = measurement.__doc__ or ""
    assert measurement.__all__, "the package exports nothing"
    for name in measurement.__all__:
        assert hasattr(measurement, name), f"{name} is in __all__ but not defined"
        assert re.search(rf"\b{re.escape(name)}\b", doc), f"{name} is exported but not in the docstring"


def test_every_exported_function_and_class_has_a_docstring_of_its_own() -> None:
    for name in measurement.__all__:
        value = getattr(measurement, name)
        if not (inspect.isfunction(value) or inspect.isclass(value)):
            continue
        own = value.__dict__.get("__doc__") if inspect.isclass(value) else value.__doc__
        # a dataclass without a docstring gets its signature as one: that is none
        assert own and own.strip() and not own.startswith(f"{value.__name__}("), f"{name} has no docstring"


def test_no_kind_is_excused_from_the_kinds_contract_and_fix_search_imports_nothing_of_replay() -> None:
    """A fix search reads its replay's measured workload through the library (measured_workload), so
    the `kinds` contract (no kind imports another's package) has no ignore_imports left (issue 48,
    item 3), and no fix search module names the replay's package."""
    config = tomllib.loads((BACKEND / "pyproject.toml").read_text())
    contracts = {c["id"]: c for c in config["tool"]["importlinter"]["contracts"]}
    assert contracts["kinds"].get("ignore_imports", []) == []
    assert contracts["layers"].get("ignore_imports", []) == []
    for module in sorted((BACKEND / "upgradelab" / "fixsearch").glob("*.py")):
        tree = ast.parse(module.read_text())
        for node in ast.walk(tree):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            names += [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            assert not [n for n in names if n.startswith("upgradelab.replay")], (
                f"{module.name} imports replay"
            )
