"""A capture of a team's server through the real API, queue and worker: MariaDB 10.11 started beside
the lab with a configuration of its own (max_connections and innodb_change_buffering set, the
statement history kept), an account on mysql_native_password, an account and a statement carrying
hostile text, a small workload; then reached only as an existing target with a read-only account.
The capture marks the values set, lists the accounts without hashes and holds the digests with
their counts; `upgradelab capture --json` prints the same capture. Checked against a scratch MariaDB
11.8, the setting it no longer knows is refused and the one it ignores is warned about, in its words."""

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from tests import ports
from tests.conftest import auth_headers, lab_provisioner
from upgradelab.cli import app
from upgradelab.db import sync_session
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import LocalProvisioner, provisioner_for

TARGET = f"team-mariadb-t{ports.SESSION}"
READER, READER_PASSWORD = "capturer", "read only #1"
LEGACY_PASSWORD = "legacy pass"
# an account and a statement a hostile team (or a compromised server) could hold: data, never run
PWNED = Path(f"/tmp/ul-pwned-{ports.SESSION}")
HOSTILE_USER = f"x'; DROP TABLE app.orders; -- $(touch {PWNED})"
QUOTED_HOSTILE_USER = HOSTILE_USER.replace("'", "''")
HOSTILE_COMMENT = f"/* `touch {PWNED}`; DROP DATABASE app */"
TEAM_OPTIONS = [
    "performance_schema=ON",
    # the statement history (MariaDB keeps no sample text per digest): current, then history_long
    "performance-schema-consumer-events-statements-current=ON",
    "performance-schema-consumer-events-statements-history-long=ON",
    "max_connections=77",
    "innodb_change_buffering=all",  # MariaDB 11.8 starts with it and warns "was removed"
    "innodb_change_buffer_max_size=30",  # MariaDB 11.8 does not start: "unknown variable"
]


def _sql(provisioner: LocalProvisioner, *statements: str) -> list[tuple[Any, ...]]:
    connection = provisioner.endpoint.connect()
    rows: list[tuple[Any, ...]] = []
    try:
        with connection.cursor() as cursor:
            for sql in statements:
                cursor.execute(sql)
                rows = list(cursor.fetchall())
    finally:
        connection.close()
    return rows


@pytest.fixture(scope="module")
def team_server(database: None) -> Iterator[LocalProvisioner]:
    """The team's MariaDB 10.11 with its settings, accounts, schema and a workload run against it."""
    provisioner = lab_provisioner("mariadb-10.11", ports.CAPTURE_SOURCE, suffix="team")
    provisioner.start(TEAM_OPTIONS)
    try:
        _sql(
            provisioner,
            "CREATE DATABASE app",
            "CREATE DATABASE labdb",
            "CREATE TABLE app.orders (id INT PRIMARY KEY, total DECIMAL(10,2))",
            "INSERT INTO app.orders VALUES (1, 10.5), (2, 20), (3, 7.25)",
            "CREATE USER 'legacy'@'%' IDENTIFIED VIA mysql_native_password "
            f"USING PASSWORD('{LEGACY_PASSWORD}')",
            f"CREATE USER '{QUOTED_HOSTILE_USER}'@'localhost'",
            f"CREATE USER '{READER}'@'127.0.0.1' IDENTIFIED BY '{READER_PASSWORD}'",
            f"GRANT SELECT ON performance_schema.* TO '{READER}'@'127.0.0.1'",
            f"GRANT SELECT ON mysql.user TO '{READER}'@'127.0.0.1'",
            f"GRANT SELECT ON labdb.* TO '{READER}'@'127.0.0.1'",
            "TRUNCATE performance_schema.events_statements_summary_by_digest",
        )
        workload = [("SELECT total FROM app.orders WHERE id = 2", 5), ("SELECT COUNT(*) FROM app.orders", 3)]
        for sql, times in workload:
            _sql(provisioner, *([sql] * times))
        _sql(provisioner, f"SELECT 7 AS hostile {HOSTILE_COMMENT}")
        yield provisioner
    finally:
        provisioner.stop()


@pytest.fixture(scope="module")
def capture(api: str, team_server: LocalProvisioner) -> dict[str, Any]:
    """The team's server added as an existing target (the read-only account), then captured."""
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
        settings = {
            "host": "127.0.0.1",
            "port": ports.CAPTURE_SOURCE,
            "user": READER,
            "password": READER_PASSWORD,
            "database": "labdb",
        }
        body = {"name": TARGET, "flavor": "mariadb", "provisioner": "existing", "settings": settings}
        added = client.post("/api/targets", json=body)
        assert added.status_code == 201, added.text
        created = client.post("/api/captures", json={"target": TARGET})
        assert created.status_code == 201, created.text
        capture_id = created.json()["id"]
        found = _wait(client, capture_id)
        found["_text"] = client.get(f"/api/captures/{capture_id}").text
        found["_queries"] = client.get(f"/api/captures/{capture_id}/queries.sql").text
        found["_listed"] = client.get("/api/captures", params={"target": TARGET}).json()
    assert found["status"] == "succeeded", found["error"]
    return found


def _wait(client: httpx.Client, capture_id: int) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while True:
        read = client.get(f"/api/captures/{capture_id}")
        assert read.status_code == 200, read.text
        found: dict[str, Any] = read.json()
        if found["status"] in ("succeeded", "failed", "cancelled") or time.monotonic() > deadline:
            return found
        time.sleep(0.3)


def _variables(capture: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {v["name"]: v for v in capture["configuration"]["variables"]}


def test_values_the_team_set_are_marked_against_the_labs_binary_of_that_version(
    capture: dict[str, Any],
) -> None:
    config = capture["configuration"]
    assert capture["flavor"] == "mariadb" and capture["version"].startswith("10.11")
    assert config["defaults_from"]["target"] == "mariadb-10.11"
    assert config["defaults_from"]["match"] == "exact"
    variables = _variables(capture)
    assert variables["max_connections"] == {
        "name": "max_connections", "value": "77", "default": "151", "comparison": "differs",
        "host_dependent": False,
    }  # fmt: skip
    assert variables["innodb_change_buffering"]["comparison"] == "differs"
    assert variables["innodb_change_buffering"]["default"] == "none"
    # left unset: the binary's default, whatever spelling the table and the server use (TRUE / ON)
    assert variables["character_set_server"]["comparison"] == "default"
    assert variables["innodb_adaptive_hash_index"]["comparison"] == "default"
    assert variables["hostname"]["comparison"] == "unknown"  # not in the binary's table: no default
    assert config["differs"] == sum(1 for v in variables.values() if v["comparison"] == "differs")
    assert config["host"]["cpus"] is not None and "thread_pool_size" in config["host"]["cpus_from"]
    assert config["host"]["buffer_pool_mib"] == 128.0


def test_accounts_are_listed_with_their_plugin_and_never_a_hash(
    capture: dict[str, Any], team_server: LocalProvisioner
) -> None:
    accounts = {(a["user"], a["host"]): a["plugin"] for a in capture["accounts"]}
    assert accounts[("legacy", "%")] == "mysql_native_password"
    assert (READER, "127.0.0.1") in accounts
    assert accounts[(HOSTILE_USER, "localhost")] is not None  # the name as the server holds it: data
    [(legacy_hash,)] = _sql(team_server, f"SELECT PASSWORD('{LEGACY_PASSWORD}')")
    assert legacy_hash.startswith("*") and legacy_hash not in capture["_text"]
    assert "authentication_string" not in capture["_text"] and capture["accounts_error"] is None


def test_the_workload_holds_each_digest_with_its_count_and_a_replayable_text(capture: dict[str, Any]) -> None:
    workload = capture["workload"]
    assert workload["error"] is None and workload["samples"] is False and workload["quantiles"] is False
    by_text = {d["text"]: d for d in workload["digests"]}
    point = by_text["SELECT total FROM app.orders WHERE id = 2"]
    count = by_text["SELECT COUNT(*) FROM app.orders"]
    assert (point["executions"], count["executions"]) == (5, 3)
    # MariaDB has no QUERY_SAMPLE_TEXT: the statement is the history's, said so
    assert point["text_source"] == "history" and "?" in point["digest_text"]
    assert point["weight"] == pytest.approx(5 / workload["executions"])
    assert point["total_s"] > 0 and point["p95_s"] is None
    queries = capture["_queries"]
    assert queries.index("WHERE id = 2;") < queries.index("COUNT(*) FROM app.orders;")  # most executed first
    assert "executions 5 weight" in queries
    [listed] = capture["_listed"]
    assert (
        listed["digests"] == len(workload["digests"])
        and listed["differs"] == capture["configuration"]["differs"]
    )


def test_hostile_names_and_texts_are_kept_as_data_never_executed(
    capture: dict[str, Any], team_server: LocalProvisioner
) -> None:
    texts = [d["text"] for d in capture["workload"]["digests"]]
    assert any(HOSTILE_COMMENT in text for text in texts)
    assert not PWNED.exists()
    assert _sql(team_server, "SELECT COUNT(*) FROM app.orders") == [(3,)]


def test_the_cli_captures_a_target_as_json(api: str, capture: dict[str, Any]) -> None:
    done = CliRunner().invoke(app, ["capture", "--target", TARGET, "--json", "--api", api])
    assert done.exit_code == 0, done.output
    printed = json.loads(done.stdout.strip().splitlines()[-1])
    assert printed["target"] == TARGET and printed["status"] == "succeeded"
    assert _variables(printed)["max_connections"]["comparison"] == "differs"
    flags = ["capture", "--target", TARGET, "--schema-only", "--data-limit", "5"]
    refused = CliRunner().invoke(app, flags, env={"COLUMNS": "200"})
    assert refused.exit_code == 2 and "exclude each other" in refused.output


def test_the_settings_the_new_version_refuses_or_warns_about_are_named_in_its_own_words(
    api: str, capture: dict[str, Any]
) -> None:
    done = CliRunner().invoke(
        app, ["capture", "check", str(capture["id"]), "--target", "mariadb-11.8", "--json", "--api", api]
    )
    assert done.exit_code == 1, done.output  # a setting is refused: the server would not start
    check = json.loads(done.stdout.strip().splitlines()[-1])
    assert check["status"] == "succeeded" and check["server"].startswith("mariadbd 11.8")
    findings = {f["name"]: f for f in check["findings"]}
    removed = findings["innodb_change_buffer_max_size"]
    assert removed["outcome"] == "refused" and removed["line"] == "innodb-change-buffer-max-size=30"
    assert "[ERROR]" in removed["words"]
    assert "unknown variable 'innodb-change-buffer-max-size=30'" in removed["words"]
    warned = findings["innodb_change_buffering"]
    assert warned["outcome"] == "deprecated"
    assert "[Warning] 'innodb-change-buffering' was removed" in warned["words"]
    assert findings["max_connections"]["outcome"] == "accepted"
    assert findings["port"]["outcome"] == "not_tried" and "network exposure" in findings["port"]["words"]
    outcomes = [f["outcome"] for f in check["findings"]]
    assert outcomes.count("refused") == 1 and outcomes == sorted(
        outcomes, key=["refused", "deprecated", "accepted", "not_tried"].index
    )
    plugins = {f["plugin"]: f for f in check["account_findings"]}
    native = plugins["mysql_native_password"]
    assert native["outcome"] == "available" and "'legacy'@'%'" in native["accounts"]  # 11.8 still has it
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
        existing = client.post(f"/api/captures/{capture['id']}/checks", json={"target": TARGET})
    assert existing.status_code == 422 and "scratch instance" in existing.json()["detail"][0]["msg"]
    with sync_session() as session:
        row = session.scalars(select(Target).where(Target.name == "mariadb-11.8")).one()
        assert provisioner_for(row).pid() is None  # the scratch instance is gone


def test_a_lab_target_is_started_for_its_capture_and_stopped_after(api: str) -> None:
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
        created = client.post("/api/captures", json={"target": "mariadb-10.11"})
        assert created.status_code == 201, created.text
        found = _wait(client, created.json()["id"])
        unknown = client.post("/api/captures", json={"target": "no-such-target"})
    assert found["status"] == "succeeded", found["error"]
    assert found["configuration"]["defaults_from"]["match"] == "exact"
    variables = _variables(found)
    assert variables["port"]["value"] == str(ports.WORKER_TARGETS["mariadb-10.11"])  # the worker's slot 0
    assert variables["local_infile"]["comparison"] == "differs"  # the lab's sandbox sets it (local-infile=0)
    assert variables["max_connections"]["comparison"] == "default"
    assert unknown.status_code == 422 and unknown.json()["detail"][0]["loc"] == ["body", "target"]
    with sync_session() as session:
        row = session.scalars(select(Target).where(Target.name == "mariadb-10.11")).one()
        assert provisioner_for(row).pid() is None  # stopped at the capture's end
