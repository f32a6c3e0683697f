"""The README's 5-minute tour, photographed from a real session (scripts/screenshots.py runs this file;
its name keeps it out of the gate): the lab's own servers of this test session (MySQL 9.7, MariaDB
10.11 and 11.8) run a real run, a real replay of a shop's queries and a real capture checked against
MariaDB 11.8, and headless Debian chromium (tests/browser/conftest.py) photographs each page's first
screen (1,280 x 800) into docs/images/tour-*.png. Nothing is drawn or edited by hand."""

import os
import time
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page, ViewportSize, expect

from tests.conftest import auth_headers
from tests.datasets.conftest import shop_dump

__all__ = ["shop_dump"]
IMAGES = Path(os.environ.get("UPGRADELAB_SCREENSHOTS_DIR", Path(__file__).parents[3] / "docs" / "images"))
FIRST_SCREEN: ViewportSize = {"width": 1280, "height": 800}
DATASET = "tour-shop"
QUERIES = """SELECT c.region, SUM(o.amount) FROM customers c JOIN orders o ON o.customer_id = c.id
  WHERE c.created > '2024-01-01' GROUP BY c.region ORDER BY c.region;
SELECT COUNT(*) FROM orders WHERE amount > 900;
SELECT id, amount FROM orders WHERE customer_id = 42 ORDER BY id;
"""
FINAL = {"succeeded", "failed", "cancelled"}


def _until_final(client: httpx.Client, path: str, timeout_s: float = 600) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        found: dict[str, Any] = client.get(path).json()
        if found["status"] in FINAL:
            assert found["status"] == "succeeded", found
            return found
        assert time.monotonic() < deadline, f"{path} still {found['status']} after {timeout_s} s"
        time.sleep(1)


def _shot(page: Page, path: str, name: str, ready: str) -> None:
    page.goto(path)
    expect(page.get_by_test_id(ready).first).to_be_visible(timeout=60_000)
    page.wait_for_timeout(1500)  # charts draw once their container is measured
    page.screenshot(path=str(IMAGES / f"tour-{name}.png"))


def test_tour(page: Page, api: str, shop_dump: Path) -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size(FIRST_SCREEN)
    with httpx.Client(base_url=api, timeout=120, headers=auth_headers()) as client:
        # 1. a run: article 001's loop on MySQL 9.7 and MariaDB 10.11, interleaved, with an A/A control
        body = {
            "name": "tour: insert-truncate, MySQL 9.7 against MariaDB 10.11",
            "workload": "insert-truncate",
            "iterations": 30,
            "rounds": 6,
            "block": 5,
            "aa_control": True,
            "variants": [{"target": "mysql-9.7"}, {"target": "mariadb-10.11"}],
        }
        experiment = client.post("/api/experiments", json=body)
        assert experiment.status_code == 201, experiment.text
        run = client.post(f"/api/experiments/{experiment.json()['id']}/runs").json()
        _until_final(client, f"/api/runs/{run['id']}")
        # 2. a replay of the shop's queries on MariaDB 10.11 and 11.8
        client.delete(f"/api/datasets/{DATASET}")
        uploaded = client.put(f"/api/datasets/{DATASET}", content=shop_dump.read_bytes())
        assert uploaded.status_code == 201, uploaded.text
        replay_body = {"dataset": DATASET, "queries": QUERIES, "variants": ["mariadb-10.11", "mariadb-11.8"]}
        replay = client.post("/api/replays", json=replay_body | {"rounds": 5, "passes": 1})
        assert replay.status_code == 201, replay.text
        _until_final(client, f"/api/replays/{replay.json()['id']}")
        # 3. a capture of MariaDB 10.11 (the lab's own here), checked against MariaDB 11.8
        capture = client.post("/api/captures", json={"target": "mariadb-10.11", "schema_only": True})
        assert capture.status_code == 201, capture.text
        capture_id = capture.json()["id"]
        _until_final(client, f"/api/captures/{capture_id}")
        check = client.post(f"/api/captures/{capture_id}/checks", json={"target": "mariadb-11.8"})
        assert check.status_code == 201, check.text
        _until_final(client, f"/api/captures/{capture_id}/checks/{check.json()['id']}")
    _shot(page, "/new", "1-new-run", "workload-select")
    _shot(page, f"/runs/{run['id']}", "2-run", "run-verdicts")
    _shot(page, f"/replays/{replay.json()['id']}", "3-replay", "fingerprints")
    _shot(page, f"/captures/{capture_id}", "4-capture-check", "check-headline")
    _shot(page, "/targets", "5-targets", "targets-page")
    assert sorted(p.name for p in IMAGES.glob("tour-*.png")) == [
        "tour-1-new-run.png",
        "tour-2-run.png",
        "tour-3-replay.png",
        "tour-4-capture-check.png",
        "tour-5-targets.png",
    ]
