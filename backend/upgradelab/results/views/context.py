"""The variables diff between a run's variants: which SHOW GLOBAL VARIABLES values differ.

The context itself (host, schedule, per-variant version and variables) is captured by the runner and
served by runs/ (GET /api/runs/{id}/context, runs.service.context); this compares the variables of its
variants (api/results.py hands them in).
"""

import posixpath
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel


class VariableDiff(BaseModel):
    """A global variable whose value differs between variants: values in the order of the variants
    given (None: that variant's instance did not report it, or its variables were not captured)."""

    name: str
    values: list[str | None]


def _comparable(variables: Mapping[str, Any]) -> dict[str, str]:
    """Values with the instance's own place taken out: every variant has its own instance directory
    (the parent of datadir: .../instances/<slot>) and port, so datadir, socket, log files, tmpdir,
    port ... always differ and would bury the configuration differences the diff is for."""
    values = {name: str(value) for name, value in variables.items()}
    datadir = values.get("datadir", "").rstrip("/")
    root = posixpath.dirname(datadir) if datadir.count("/") > 2 else ""
    port = values.get("port")
    for name, value in values.items():
        if root and root in value:
            values[name] = value.replace(root, "{instance}")
        elif port and value == port and name.endswith("port"):
            values[name] = "{port}"
    return values


def variables_diff(variants: Sequence[Mapping[str, Any] | None]) -> list[VariableDiff]:
    """Variables whose values are not the same in every variant that reported variables, by name.
    variants: per variant (run_variant order) its captured SHOW GLOBAL VARIABLES (name -> value), or
    None when they were not captured.

    Instance paths and ports are compared with the instance's own directory and port taken out
    (_comparable); the values shown are the real ones. Variants without captured variables (failed
    before start, older runs) are left out of the test (their value is None) so a missing capture
    does not list every variable as different.
    """
    captured = [_comparable(v) for v in variants if v is not None]
    if len(captured) < 2:
        return []
    out = []
    for name in sorted({name for one in captured for name in one}):
        if len({one.get(name) for one in captured}) > 1:
            values = [None if v is None else v.get(name) for v in variants]
            out.append(VariableDiff(name=name, values=[None if x is None else str(x) for x in values]))
    return out
