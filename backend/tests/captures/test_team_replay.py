"""The captured workload replayed with the team's settings (issue 35, Deliver 4's last part): the
capture's queries.sql on its own dataset, on MariaDB 10.11 (baseline) and 11.8, each variant
starting with the capture's settings as GET /api/captures/{id}/variant gives them for its target,
through the API and the worker, as the capture page's "Replay on both" does. Mechanics only: the
replay starts both servers with the team's options (what 11.8 refused dropped), loads the dump,
runs every captured statement on both and reports each digest; no timing decision is asserted."""

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.captures.team import wait
from tests.conftest import auth_headers

OLD, NEW = "mariadb-10.11", "mariadb-11.8"


@pytest.fixture(scope="module")
def http(api: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
        yield client


def _checked(http: httpx.Client, capture_id: int, target: str) -> dict[str, Any]:
    """A succeeded check of the capture against `target` (another module's, else a new one)."""
    done = [c for c in http.get(f"/api/captures/{capture_id}/checks").json() if c["target"] == target]
    if not any(c["status"] == "succeeded" for c in done):
        created = http.post(f"/api/captures/{capture_id}/checks", json={"target": target})
        assert created.status_code == 201, created.text
        found = wait(http, capture_id, f"/checks/{created.json()['id']}")
        assert found["status"] == "succeeded", found["error"]
        return found
    return next(c for c in done if c["status"] == "succeeded")


@pytest.fixture(scope="module")
def variants(http: httpx.Client, capture: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The team's settings on the old and the new version's target, the new one checked first."""
    _checked(http, capture["id"], NEW)
    found = {}
    for target in (OLD, NEW):
        read = http.get(f"/api/captures/{capture['id']}/variant", params={"target": target})
        assert read.status_code == 200, read.text
        found[target] = read.json()
    return found


@pytest.fixture(scope="module")
def replay(
    http: httpx.Client, capture: dict[str, Any], variants: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    body = {
        "name": f"capture {capture['id']}: team settings, {OLD} vs {NEW}",
        "dataset": capture["dump"]["dataset"],
        "queries": capture["_queries"],
        "variants": [
            {"target": t, "name": f"{t} (team settings)", "options": variants[t]["options"]}
            for t in (OLD, NEW)
        ],
        "rounds": 1,
        "max_rounds": 1,
        "passes": 1,
    }
    started = http.post("/api/replays", json=body)
    assert started.status_code == 201, started.text
    found: dict[str, Any] = started.json()
    deadline = time.monotonic() + 300
    while found["status"] not in ("succeeded", "failed", "cancelled") and time.monotonic() < deadline:
        time.sleep(0.5)
        found = http.get(f"/api/replays/{found['id']}").json()
    assert found["status"] == "succeeded", found["error"]
    return found


def test_each_target_takes_the_teams_settings_without_what_it_refused(
    variants: dict[str, dict[str, Any]],
) -> None:
    old, new = variants[OLD], variants[NEW]
    assert old["options"]["max-connections"] == new["options"]["max-connections"] == "77"
    # 11.8 refused it (its check's words): dropped there, kept on 10.11 which takes it
    assert "innodb-change-buffer-max-size" not in new["options"]
    dropped = {d["name"]: d for d in new["dropped"]}
    assert dropped["innodb_change_buffer_max_size"]["reason"].startswith("refused by mariadbd 11.8")
    assert new["checked_by"] is not None
    assert old["options"].get("innodb-change-buffer-max-size") == "30"
    # 11.8 starts with it (a warning) but its binary no longer lists it: a variant would be refused
    assert (
        "innodb-change-buffering" not in new["options"] and old["options"]["innodb-change-buffering"] == "all"
    )
    assert "not an option name of mariadbd 11.8" in dropped["innodb_change_buffering"]["reason"]


def test_the_captured_digests_replay_on_both_versions_with_the_teams_settings_and_report(
    capture: dict[str, Any], replay: dict[str, Any], variants: dict[str, dict[str, Any]]
) -> None:
    names = [f"{OLD} (team settings)", f"{NEW} (team settings)"]
    assert [v["name"] for v in replay["variants"]] == names
    for variant, target in zip(replay["variants"], (OLD, NEW), strict=True):
        expected = [k if v is None else f"{k}={v}" for k, v in variants[target]["options"].items()]
        assert set(expected) <= set(variant["options"]), (target, variant["options"])
    report = replay["report"]
    assert [v["settings"]["options"] for v in report["variants"]] == [
        v["options"] for v in replay["variants"]
    ]
    by_sql = {s["sql"]: (f, s) for f in report["fingerprints"] for s in f["statements"]}
    replayable = [d for d in capture["workload"]["digests"] if d["text_source"] != "digest_text"]
    assert 2 <= len(report["fingerprints"]) <= replay["statements"] <= len(replayable)
    # the team's workload ran on both servers with its rows and a time each (no decision on it)
    for statement in ("SELECT total FROM app.orders WHERE id = 2", "SELECT COUNT(*) FROM app.orders"):
        assert statement in by_sql, sorted(by_sql)
        fingerprint, ran = by_sql[statement]
        assert all(
            ran["outcomes"][n]["kind"] == "ran" and ran["outcomes"][n]["row_count"] == 1 for n in names
        )
        assert ran["diffs"][0]["result"] is False and ran["diffs"][0]["breaks"] is False
        assert all(fingerprint["median_s"][n] is not None for n in names), fingerprint["median_s"]
