"""The built UI at every non-API path: its files, index.html for the app's routes, not the build's
own bookkeeping (dist/.vite/manifest.json, which scripts read and the browser never needs)."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from upgradelab.main import create_app
from upgradelab.settings import get_settings


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "index-abc.js").write_text("console.log(1)")
    (tmp_path / "index.html").write_text("<html>the app</html>")
    (tmp_path / "robots.txt").write_text("User-agent: *")
    (tmp_path / ".vite").mkdir()
    (tmp_path / ".vite" / "manifest.json").write_text('{"index.html": {}}')
    monkeypatch.setenv("UPGRADELAB_FRONTEND_DIST", str(tmp_path))
    get_settings.cache_clear()
    try:
        yield TestClient(create_app())
    finally:
        get_settings.cache_clear()


def test_files_routes_and_no_build_bookkeeping(client: TestClient) -> None:
    assert client.get("/assets/index-abc.js").text == "console.log(1)"
    assert client.get("/robots.txt").text == "User-agent: *"
    assert client.get("/runs/12").text == "<html>the app</html>"  # an app route: the SPA's index
    manifest = client.get("/.vite/manifest.json")
    assert manifest.status_code == 200 and manifest.text == "<html>the app</html>"
    assert client.get("/api/nothing").status_code == 404
