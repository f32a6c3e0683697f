"""No report, export or share payload carries a lab server's password or a password hash (issue 30).

Searched: every payload a viewer or a share link can read of one run (its page, context, results,
exports, variables diff, statements, groups, probes, comparison), one replay over a small dataset
whose statements look for accounts (mysql.user, grants, the current user), every other replay and
attribution of the session and a sample of its runs (in the full suite: the hostile ones of the
replay and attribution tests), and the public share payloads of each kind. Looked for: every admin
password in {state_dir}/server-credentials/ (the whole text of each file), MySQL native hashes
(`*` and 40 hex digits), caching_sha2 (`$A$0..$`) and sha256 (`$5$`) hashes.
"""

import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.conftest import STATE, auth_headers
from tests.datasets.conftest import delete_dataset
from tests.runs.helpers import submit, wait_final

VARIANTS = ["mariadb-10.11", "mysql-9.7"]  # native and caching_sha2 hashes
DUMP = (
    b"CREATE TABLE notes (id INT PRIMARY KEY, note VARCHAR(20));\nINSERT INTO notes VALUES (1,'a'),(2,'b');\n"
)
QUERIES = """SELECT COUNT(*) FROM notes;
SELECT note FROM notes WHERE id = 2;
SELECT CURRENT_USER(), USER();
SHOW GRANTS;
SELECT user, host, authentication_string FROM mysql.user;
"""
HASHES = re.compile(r"\*[0-9A-Fa-f]{40}|\$A\$0\d\d\$|\$5\$")
RUN_SAMPLE = 100  # the session's runs read besides this module's own (page and context)


def _secrets() -> dict[str, str]:
    """{file name: its text} of every admin password file of the session."""
    directory = STATE / "server-credentials"
    return {path.name: path.read_text().strip() for path in sorted(directory.glob("*")) if path.is_file()}


def _assert_clean(where: str, payload: str, secrets: dict[str, str]) -> None:
    for name, secret in secrets.items():
        assert secret not in payload, f"{where}: carries the admin password of {name}"
    found = HASHES.search(payload)
    assert found is None, (
        f"{where}: carries a password hash {payload[max(0, found.start() - 80) : found.end()]!r}"
    )


def _wait_replay(client: httpx.Client, replay_id: int, timeout_s: float = 600) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        replay: dict[str, Any] = client.get(f"/api/replays/{replay_id}").json()
        if replay["status"] in ("succeeded", "failed", "cancelled"):
            return replay
        time.sleep(0.5)
    raise TimeoutError(f"replay {replay_id} did not end")


@pytest.fixture(scope="module")
def reports(api: str) -> Iterator[tuple[httpx.Client, int, int]]:
    """(client, run id, replay id): a finished run and a finished replay on both flavors."""
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
        run_id = submit(client, [{"target": name} for name in VARIANTS], iterations=2, name="secrets")
        assert client.put("/api/datasets/secret-probe", content=DUMP).status_code == 201
        try:
            body = {"dataset": "secret-probe", "queries": QUERIES, "variants": VARIANTS, "rounds": 1}
            created = client.post("/api/replays", json=body)
            assert created.status_code == 201, created.text
            assert wait_final(client, run_id)["status"] == "succeeded"
            replay = _wait_replay(client, created.json()["id"])
            assert replay["status"] == "succeeded", replay["error"]
            yield client, run_id, replay["id"]
        finally:
            delete_dataset(client, "secret-probe")


def _run_paths(run_id: int) -> list[str]:
    return [
        f"/api/runs/{run_id}",
        f"/api/runs/{run_id}/context",
        f"/api/runs/{run_id}/results",
        f"/api/runs/{run_id}/export?format=csv",
        f"/api/runs/{run_id}/export?format=json",
        f"/api/runs/{run_id}/variables-diff",
        f"/api/runs/{run_id}/statements",
        f"/api/runs/{run_id}/groups",
        f"/api/runs/{run_id}/probes",
        f"/api/compare?runs={run_id}",
        f"/api/compare/export?runs={run_id}&format=json",
    ]


def _replay_paths(replay_id: int) -> list[str]:
    return [
        f"/api/replays/{replay_id}",
        f"/api/replays/{replay_id}/export?format=json",
        f"/api/replays/{replay_id}/export?format=csv",
    ]


def test_no_report_export_or_share_carries_a_password_or_a_hash(
    reports: tuple[httpx.Client, int, int], api: str
) -> None:
    client, run_id, replay_id = reports
    secrets = _secrets()
    assert set(VARIANTS) <= set(secrets), secrets.keys()  # the worker made them: what is searched for
    for path in [*_run_paths(run_id), *_replay_paths(replay_id), "/api/targets", "/api/datasets"]:
        answer = client.get(path)
        assert answer.status_code == 200, (path, answer.status_code)
        _assert_clean(path, answer.text, secrets)
    # the replay read something (else it proves little): its account met mysql.user and was refused
    report = client.get(f"/api/replays/{replay_id}").json()["report"]
    assert len(report["fingerprints"]) >= 4
    # every other replay and attribution of the session, and a sample of its runs
    for replay in client.get("/api/replays").json():
        for path in _replay_paths(replay["id"]) if replay.get("report") else [f"/api/replays/{replay['id']}"]:
            _assert_clean(path, client.get(path).text, secrets)
    attributions = client.get("/api/attributions").json()
    for attribution in attributions:
        for suffix in ("", "/export?format=json", "/export?format=csv"):
            path = f"/api/attributions/{attribution['id']}{suffix}"
            _assert_clean(path, client.get(path).text, secrets)
    for run in client.get("/api/runs", params={"limit": RUN_SAMPLE}).json()["items"]:
        for path in (f"/api/runs/{run['id']}", f"/api/runs/{run['id']}/context"):
            _assert_clean(path, client.get(path).text, secrets)
    # share links: the public payloads, read without signing in
    subjects: list[dict[str, Any]] = [
        {"kind": "run", "run_id": run_id},
        {"kind": "replay", "replay_id": replay_id},
        {"kind": "comparison", "comparison": {"runs": [run_id]}},
    ]
    for subject in subjects:
        link = client.post("/api/shares", json=subject)
        assert link.status_code == 201, link.text
        public = httpx.get(f"{api}/api/public/shares/{link.json()['token']}")
        assert public.status_code == 200
        _assert_clean(f"share {subject['kind']}", public.text, secrets)
    for attribution in attributions[:3]:
        token = client.post(f"/api/attributions/{attribution['id']}/share").json()["share_token"]
        for suffix in ("", "/export?format=csv"):
            path = f"{api}/api/public/attributions/{token}{suffix}"
            _assert_clean(path, httpx.get(path).text, secrets)


def test_the_search_finds_what_it_looks_for() -> None:
    """The check itself can fail: a payload holding a password or either hash is caught."""
    secrets = {"t": "Zk3-secret_value"}
    for leaked in ("... Zk3-secret_value ...", "*" + "A1" * 20, "$A$005$abc", "x $5$rounds"):
        with pytest.raises(AssertionError):
            _assert_clean("probe", leaked, secrets)
    _assert_clean("probe", '{"user": "upgradelab_read", "checksum": "a1b2c3"}', secrets)
