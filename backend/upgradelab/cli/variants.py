"""Variants on the command line: `--variant TARGET[:PRESET]` (the run CLI's syntax) and a variant
file of full variant specs (JSON or YAML), for `upgradelab replay`.

A variant file holds a list (or an object whose `variants` is the list); each entry is the API's
variant spec (experiments/schemas.py VariantSpec: target, preset, name, options, set_global,
set_session, instance) or a TARGET[:PRESET] string, e.g. in YAML:

    - mariadb-10.11
    - target: mariadb-11.8
      name: 11.8 with our my.cnf
      options: {innodb_buffer_pool_size: 256M, skip-log-bin: null}
      set_global: {innodb_flush_log_at_trx_commit: 2}
      set_session: {optimizer_switch: "index_merge=off"}

Scalars a YAML or JSON reader types are sent as the server spells them: a number as its digits,
true/false (YAML 1.1 also reads ON/OFF and yes/no so) as ON/OFF; null stays null (a bare option
such as skip-log-bin). The API checks the rest and names what it refuses.
"""

import json
from pathlib import Path
from typing import Any

import typer
import yaml  # type: ignore[import-untyped]  # no stubs in the environment (types-PyYAML)

SETTING_MAPS = ("options", "set_global", "set_session")


def variants_from_file(path: Path) -> list[str | dict[str, Any]]:
    """The variants `path` lists (module docstring), read as YAML for .yaml/.yml, as JSON otherwise.

    Raises typer.BadParameter naming the file, and the entry when one is neither a string nor an
    object, or when the file is not a non-empty list of them."""
    hint = "--variants-file"
    try:
        text = path.read_text()
        loaded = yaml.safe_load(text) if path.suffix.lower() in (".yaml", ".yml") else json.loads(text)
    except (OSError, ValueError, yaml.YAMLError) as error:
        raise typer.BadParameter(f"{path}: {error}", param_hint=hint) from error
    entries = loaded.get("variants") if isinstance(loaded, dict) else loaded
    if not isinstance(entries, list) or not entries:
        raise typer.BadParameter(
            f"{path}: expected a non-empty list of variants (or an object with `variants`)", param_hint=hint
        )
    out: list[str | dict[str, Any]] = []
    for index, entry in enumerate(entries):
        if isinstance(entry, str):
            out.append(entry)
        elif isinstance(entry, dict):
            out.append({key: _spelled(key, value) for key, value in entry.items()})
        else:
            raise typer.BadParameter(
                f"{path}: variant {index} is {type(entry).__name__}; expected TARGET[:PRESET] or an object",
                param_hint=hint,
            )
    return out


def _spelled(key: str, value: Any) -> Any:
    """A settings map's scalar values as the server spells them (module docstring)."""
    if key not in SETTING_MAPS or not isinstance(value, dict):
        return value
    return {name: _scalar(one) for name, one in value.items()}


def _scalar(value: Any) -> Any:
    if isinstance(value, bool):
        return "ON" if value else "OFF"
    if isinstance(value, int | float):
        return str(value)
    return value
