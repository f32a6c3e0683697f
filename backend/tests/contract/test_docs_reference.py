"""The guide's generated reference (scripts/docs_reference.py, checked by scripts/test.sh): every CLI
command and option, every API route and every setting is on its page, and nothing of the checkout's own
path (the pages are the same on every machine)."""

import importlib.util
import json
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[3]


def _reference() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_reference", REPO / "scripts" / "docs_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_reference_pages_list_every_command_route_and_setting() -> None:
    reference = _reference()
    cli, api, settings = reference.cli_page(), reference.api_page(), reference.settings_page()
    for command in ("run", "targets add", "capture", "fix", "explain", "replay"):
        assert f"\n## upgradelab {command}\n" in cli
    assert "`--purpose`" in cli and "`--database`" in cli  # an option of `targets add`
    routes = json.loads((REPO / "frontend" / "openapi.json").read_text())["paths"]
    for route, item in routes.items():
        for method in ("get", "post", "put", "patch", "delete"):
            if method in item:
                assert f"### `{method.upper()} {route}`" in api
    assert "| `UPGRADELAB_EXISTING_HOSTS` |" in settings and "| `UPGRADELAB_STATE_DIR` |" in settings
    assert str(REPO) not in cli + api + settings
    assert reference.main(["--check"]) == 0  # the committed pages are what it writes
