"""The measurement library's public API (upgradelab/measurement/__init__.py) is what its docstring
says: every name it exports is defined, named in the package's docstring (the API listed by concept)
and documented where it is defined. The kinds reach the library through these names only
(backend/pyproject.toml's measurement-api contract)."""

import inspect
import re

import upgradelab.measurement as measurement


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
