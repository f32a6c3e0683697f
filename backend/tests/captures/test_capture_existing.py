"""A capture of a team's server through the real API, queue and worker: MariaDB 10.11 started beside
the lab with a configuration of its own (max_connections and innodb_change_buffering set, the
statement history kept), an account on mysql_native_password, an account and a statement carrying
hostile text, a small workload; then reached only as an existing target with a read-only account.
The capture marks the values set, lists the accounts without hashes and holds the digests with
their counts; `upgradelab capture --json` prints the same capture. Checked against a scratch MariaDB
11.8, the setting it no longer knows is refused and the one it ignores is warned about, in its words;
the column name it no longer parses, the character set new tables get and the defaults changed
under settings the team leaves unset are named too."""

import json
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from tests import ports
from tests.captures.team import (
    HOSTILE_COMMENT,
    HOSTILE_USER,
    LEGACY_PASSWORD,
    PWNED,
    READER,
    RESERVED_COLUMN,
    RESERVED_TABLE,
    TARGET,
    sql,
    variables_of,
    wait,
)
from tests.conftest import auth_headers
from upgradelab.cli import app
from upgradelab.db import sync_session
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import LocalProvisioner, provisioner_for


def test_values_the_team_set_are_marked_against_the_labs_binary_of_that_version(
    capture: dict[str, Any],
) -> None:
    config = capture["configuration"]
    assert capture["flavor"] == "mariadb" and capture["version"].startswith("10.11")
    assert config["defaults_from"]["target"] == "mariadb-10.11"
    assert config["defaults_from"]["match"] == "exact"
    variables = variables_of(capture)
    assert variables["max_connections"] == {
        "name": "max_connections", "value": "77", "default": "151", "comparison": "differs",
        "host_dependent": False, "origin": "CONFIG", "implied_by": [],
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
    [(legacy_hash,)] = sql(team_server, f"SELECT PASSWORD('{LEGACY_PASSWORD}')")
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
    # by id: a worker that ran this package's files apart captured the target twice (conftest.capture)
    [listed] = [row for row in capture["_listed"] if row["id"] == capture["id"]]
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
    assert sql(team_server, "SELECT COUNT(*) FROM app.orders") == [(3,)]


def test_the_cli_captures_a_target_as_json(api: str, capture: dict[str, Any]) -> None:
    done = CliRunner().invoke(app, ["capture", "--target", TARGET, "--json", "--api", api])
    assert done.exit_code == 0, done.output
    printed = json.loads(done.stdout.strip().splitlines()[-1])
    assert printed["target"] == TARGET and printed["status"] == "succeeded"
    assert variables_of(printed)["max_connections"]["comparison"] == "differs"
    # this capture follows the package's: the lab's statements of both (capability check, reads,
    # name probes, the dump client) are in the server's digests, and none in the workload
    workload = printed["workload"]
    assert workload["lab_digests"] >= 20 and workload["lab_executions"] >= workload["lab_digests"]
    with httpx.Client(base_url=api, timeout=30, headers=auth_headers()) as client:
        queries = client.get(f"/api/captures/{printed['id']}/queries.sql").text
    # (the fixture's TRUNCATE of the digests ran as the team's admin: it stays)
    lab_words = ["VERSION()", "GLOBAL VARIABLES", "ORDER BY COUNT_STAR", "statements_history", "setup_",
                 "information_schema", "mysql.user", "SET NAMES", "SQL_NO_CACHE", "SAVEPOINT", "show create",
                 "WHERE 1 = 0", "capability_check"]  # fmt: skip
    assert [word for word in lab_words if word.lower() in queries.lower()] == []
    assert "SELECT total FROM app.orders WHERE id = 2;" in queries  # the team's stay
    flags = ["capture", "--target", TARGET, "--schema-only", "--data-limit", "5"]
    refused = CliRunner().invoke(app, flags, env={"COLUMNS": "200"})
    assert refused.exit_code == 2 and "exclude each other" in refused.output


def test_the_settings_the_new_version_refuses_or_warns_about_are_named_in_its_own_words(
    api: str, capture: dict[str, Any]
) -> None:
    done = CliRunner().invoke(
        app, ["capture", "check", str(capture["id"]), "--target", "mariadb-11.8", "--json", "--api", api]
    )
    # a setting is refused (1: the server would not start); a name no longer parses (16: results change)
    assert done.exit_code == 1 | 16, done.output
    check = json.loads(done.stdout.strip().splitlines()[-1])
    assert check["status"] == "succeeded" and check["server"].startswith("mariadbd 11.8")
    findings = {f["name"]: f for f in check["findings"]}
    removed = findings["innodb_change_buffer_max_size"]
    assert removed["outcome"] == "refused" and removed["line"] == "innodb-change-buffer-max-size=30"
    assert "[ERROR]" in removed["words"]
    assert "unknown variable 'innodb-change-buffer-max-size=30'" in removed["words"]
    warned = findings["innodb_change_buffering"]  # taken, and it does nothing: the team's intent is lost
    assert warned["outcome"] == "no_effect"
    assert "[Warning] 'innodb-change-buffering' was removed" in warned["words"]
    assert findings["max_connections"]["outcome"] == "accepted"
    assert findings["port"]["outcome"] == "not_tried" and "network exposure" in findings["port"]["words"]
    outcomes = [f["outcome"] for f in check["findings"]]
    assert outcomes.count("refused") == 1 and outcomes == sorted(
        outcomes,
        key=["refused", "no_effect", "adjusted", "deprecated", "accepted", "not_tried", "implied"].index,
    )
    plugins = {f["plugin"]: f for f in check["account_findings"]}
    native = plugins["mysql_native_password"]
    assert native["outcome"] == "available" and "'legacy'@'%'" in native["accounts"]  # 11.8 still has it
    # the new server's parser: `vector` no longer stands as a column; `qualify` and `library` still parse
    [name] = check["identifier_findings"]
    assert (name["kind"], name["name"], name["table"]) == ("column", RESERVED_COLUMN, RESERVED_TABLE)
    assert (
        name["probe"] == f"SELECT {RESERVED_COLUMN} FROM DUAL WHERE 1 = 0" and "ERROR 1064" in name["words"]
    )
    assert check["sql_mode_findings"] == []  # 11.8 still has TIME_ROUND_FRACTIONAL
    charsets = {f["name"]: f for f in check["charset_findings"]}
    assert (charsets["character_set_server"]["old"], charsets["character_set_server"]["new"]) == (
        "latin1",
        "utf8mb4",
    )  # the two binaries' defaults (10.11.19 and 11.8.9, measured): new tables get utf8mb4
    assert "binaries' defaults: old latin1, new utf8mb4" in charsets["character_set_server"]["words"]
    changed = {f["name"]: f for f in check["default_findings"]}
    assert changed["innodb_snapshot_isolation"]["new_default"] in ("ON", "TRUE")
    assert changed["innodb_snapshot_isolation"]["affects"] == "results"
    assert "max_connections" not in changed  # the team sets it
    assert next(f["severity"] for f in check["ordered"]) == "does_not_start"
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
        found = wait(client, created.json()["id"])
        unknown = client.post("/api/captures", json={"target": "no-such-target"})
    assert found["status"] == "succeeded", found["error"]
    assert found["configuration"]["defaults_from"]["match"] == "exact"
    found_variables = variables_of(found)
    assert found_variables["port"]["value"] == str(
        ports.WORKER_TARGETS["mariadb-10.11"]
    )  # the worker's slot 0
    assert (
        found_variables["local_infile"]["comparison"] == "differs"
    )  # the lab's sandbox sets it (local-infile=0)
    assert found_variables["max_connections"]["comparison"] == "default"
    assert unknown.status_code == 422 and unknown.json()["detail"][0]["loc"] == ["body", "target"]
    with sync_session() as session:
        row = session.scalars(select(Target).where(Target.name == "mariadb-10.11")).one()
        assert provisioner_for(row).pid() is None  # stopped at the capture's end
