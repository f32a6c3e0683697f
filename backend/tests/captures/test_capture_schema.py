"""The team's schema through a capture and a check, on real servers (the package's team server and
capture, tests/captures/conftest.py): the schema and rows dumped by MariaDB 10.11's own dump client
and stored as a dataset through the upload's path, the databases it must not hold left out, loaded
on MariaDB 11.8 by the dataset loader; the
schema's names as 10.11's parser takes them; checked against MySQL 9.7, the names it no longer
parses, the sql_mode value it refuses, the account it locks out and the setting it will not start
with are each named, in one severity order, also as CSV."""

import csv
import io
import os
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.captures.team import (
    BIG_TABLE,
    ODD_TABLE,
    PWNED,
    RESERVED_COLUMN,
    RESERVED_ROUTINE,
    RESERVED_TABLE,
    TARGET,
    sql,
    wait,
)
from tests.conftest import auth_headers, lab_provisioner
from upgradelab.captures.findings import SEVERITIES
from upgradelab.datasets.loader import load_dump
from upgradelab.datasets.models import Dataset
from upgradelab.datasets.scan import scan_dump
from upgradelab.db import sync_session
from upgradelab.targets.provisioners import LocalProvisioner


def _dump_text(dataset_id: int) -> str:
    with sync_session() as session:
        dataset = session.get(Dataset, dataset_id)
        assert dataset is not None
        return open(dataset.path, encoding="utf-8").read()


def test_the_schema_and_rows_are_a_dataset_dumped_by_the_servers_own_client(
    api: str, capture: dict[str, Any]
) -> None:
    dump = capture["dump"]
    assert dump["error"] is None and dump["client"] == "mariadb-dump"
    assert dump["databases"] == ["app"] and dump["data_limit_mb"] == 100  # neither flag: 100 MiB
    left = {one["name"]: one["reason"] for one in dump["left_out"]}
    assert "would read it as an option" in left["-evil"] and "lab's own" in left["labdb"]
    assert dump["tables_with_data"] == 4 and dump["data_left_out"] == []
    with httpx.Client(base_url=api, timeout=30, headers=auth_headers()) as client:
        stored = client.get(f"/api/datasets/capture-{capture['id']}")
        unsigned = httpx.put(f"{api}/api/captures/{capture['id']}/dataset", content=b"SELECT 1;")
    assert stored.status_code == 200 and stored.json()["id"] == capture["dataset_id"]
    assert (
        stored.json()["size_bytes"] == dump["bytes"]
        and stored.json()["database"] == f"capture_{capture['id']}"
    )
    assert unsigned.status_code == 401  # only the worker stores a capture's dump
    text = _dump_text(capture["dataset_id"])
    assert f"CREATE TABLE `{RESERVED_TABLE}`" in text and f"FUNCTION `{RESERVED_ROUTINE}`" in text
    assert "INSERT INTO `orders` VALUES" in text and "`-evil`" not in text and "labdb" not in text
    assert f"CREATE TABLE `{ODD_TABLE.replace('`', '``')}`" in text  # the client's quoting
    # what the loader reads first: the dump passes its scan for either client
    assert set(scan_dump([text.encode()], "mariadb").databases) == {"app"}
    assert set(scan_dump([text.encode()], "mysql").databases) == {"app"}


def test_the_dataset_loads_on_the_new_version_through_the_loader(capture: dict[str, Any]) -> None:
    with sync_session() as session:
        dataset = session.get(Dataset, capture["dataset_id"])
        assert dataset is not None
        path = Path(dataset.path)
    new = lab_provisioner("mariadb-11.8")
    try:
        new.start([])
        default = f"capture_{capture['id']}"  # the dataset's own database, made first as a replay does
        sql(new, f"CREATE DATABASE {default}")
        result = load_dump(new.endpoint, new.flavor, path, default)  # the scan, the client's commands off
        assert result.rows_seen >= 3 + 1 + 10_000
        assert sql(new, f"SELECT COUNT(*) FROM app.{BIG_TABLE}") == [(10_000,)]
        assert sql(new, f"SELECT app.{RESERVED_ROUTINE}()") == [(1,)]
    finally:
        new.stop()


def _captured(api: str, body: dict[str, Any]) -> dict[str, Any]:
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
        created = client.post("/api/captures", json={"target": TARGET, **body})
        assert created.status_code == 201, created.text
        found = wait(client, created.json()["id"])
    assert found["status"] == "succeeded", found["error"]
    return found


def test_a_schema_only_capture_dumps_no_rows(api: str, capture: dict[str, Any]) -> None:
    found = _captured(api, {"schema_only": True})
    assert found["dump"]["data_limit_mb"] is None and found["dump"]["tables_with_data"] == 0
    text = _dump_text(found["dataset_id"])
    assert f"CREATE TABLE `{RESERVED_TABLE}`" in text and "INSERT INTO" not in text


def test_a_table_whose_rows_pass_the_data_limit_is_dumped_without_them_and_listed(
    api: str, capture: dict[str, Any]
) -> None:
    found = _captured(api, {"data_limit_mb": 1})
    [left] = found["dump"]["data_left_out"]
    assert left["name"] == f"app.{BIG_TABLE}" and "past the 1 MiB limit" in left["reason"]
    text = _dump_text(found["dataset_id"])
    assert f"CREATE TABLE `{BIG_TABLE}`" in text and f"INSERT INTO `{BIG_TABLE}`" not in text
    assert "INSERT INTO `orders`" in text  # the tables that fit keep their rows


def test_the_schemas_names_are_kept_with_how_the_captured_server_parses_them(
    capture: dict[str, Any], team_server: LocalProvisioner
) -> None:
    names = {(n["kind"], n["name"]): n for n in capture["identifiers"]}
    for kind, name in (("table", RESERVED_TABLE), ("column", RESERVED_COLUMN), ("routine", RESERVED_ROUTINE)):
        assert names[(kind, name)]["old"] == "parses" and names[(kind, name)]["schema_name"] == "app"
    assert names[("column", RESERVED_COLUMN)]["table"] == RESERVED_TABLE
    assert names[("table", ODD_TABLE)]["old"] == "quoted"  # never sent
    assert not PWNED.exists() and sql(team_server, "SELECT COUNT(*) FROM app.orders") == [(3,)]


TEAM_HOST = {"cpus": 64, "memory_mib": 256 * 1024}


@pytest.fixture(scope="module")
def mysql_check(api: str, capture: dict[str, Any]) -> dict[str, Any]:
    """The capture checked against the lab's MySQL 9.7 (another flavor: every MariaDB-only setting
    is refused in its words) for a team server of 64 CPUs and 256 GiB (TEAM_HOST)."""
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
        body = {"target": "mysql-9.7", "team_host": TEAM_HOST}
        created = client.post(f"/api/captures/{capture['id']}/checks", json=body)
        assert created.status_code == 201, created.text
        check_id = created.json()["id"]
        found = wait(client, capture["id"], f"/checks/{check_id}")
        found["_csv"] = client.get(f"/api/captures/{capture['id']}/checks/{check_id}/findings.csv").text
    assert found["status"] == "succeeded", found["error"]
    return found


def test_mysql_9_7_names_each_planted_item_in_its_own_words(mysql_check: dict[str, Any]) -> None:
    failing = {(f["kind"], f["name"]): f for f in mysql_check["identifier_findings"]}
    assert set(failing) == {("table", RESERVED_TABLE), ("routine", RESERVED_ROUTINE)}  # vector parses here
    table = failing[("table", RESERVED_TABLE)]
    assert table["probe"] == f"SELECT 1 FROM {RESERVED_TABLE} WHERE 1 = 0" and "ERROR 1064" in table["words"]
    modes = {f["mode"]: f for f in mysql_check["sql_mode_findings"]}
    assert set(modes) == {"TIME_ROUND_FRACTIONAL"} and modes["TIME_ROUND_FRACTIONAL"]["team_sets"]
    assert "ERROR 1231" in modes["TIME_ROUND_FRACTIONAL"]["words"]
    plugins = {f["plugin"]: f for f in mysql_check["account_findings"]}
    assert plugins["mysql_native_password"]["outcome"] == "missing"  # gone in 9.x: locked out
    sql_mode = next(f for f in mysql_check["findings"] if f["name"] == "sql_mode")
    assert sql_mode["outcome"] == "refused" and "TIME_ROUND_FRACTIONAL" in sql_mode["words"]


def test_every_finding_is_in_one_severity_order_and_in_the_csv(mysql_check: dict[str, Any]) -> None:
    ordered = mysql_check["ordered"]
    severities = [f["severity"] for f in ordered]
    assert severities == sorted(severities, key=SEVERITIES.index)
    assert {"does_not_start", "locks_out", "changes_results"} <= set(severities)
    kinds = {(f["kind"], f["severity"]) for f in ordered}
    assert {("option", "does_not_start"), ("account", "locks_out"), ("identifier", "changes_results"),
            ("sql_mode", "changes_results"), ("charset", "changes_results")} <= kinds  # fmt: skip
    rows = list(csv.DictReader(io.StringIO(mysql_check["_csv"])))
    assert [(r["severity"], r["kind"], r["subject"]) for r in rows] == [
        (f["severity"], f["kind"], f["subject"]) for f in ordered
    ]


def test_host_dependent_defaults_are_resolved_for_the_teams_host_and_the_labs(
    mysql_check: dict[str, Any],
) -> None:
    assert mysql_check["team_host"] == TEAM_HOST
    team, lab = mysql_check["hosts"]["team"], mysql_check["hosts"]["lab"]
    assert (team["cpus"], team["memory_mib"]) == (64, 256 * 1024) and "given" in team["cpus_from"]
    assert lab["cpus"] == os.cpu_count()
    changed = {f["name"]: f for f in mysql_check["default_findings"]}
    # MariaDB's fixed 4 read threads left unset; 9.7's are CPUs / 2: 32 on the team's 64 CPUs
    read_io = changed["innodb_read_io_threads"]
    assert read_io["old_default"] == "4" and read_io["team_host_default"]["value"] == "32"
    assert read_io["team_host_default"]["words"] == "logical CPUs / 2, min 4: 64 CPUs -> 32"
    # the formula for the lab's host is what the lab's 9.7 server took with the team's settings
    assert read_io["lab_host_default"]["value"] == read_io["lab_host_value"]
    assert "innodb_purge_threads" not in changed  # 4 on 10.11 and on 9.7 for 64 CPUs: same for its hardware
    row = next(f for f in mysql_check["ordered"] if f["subject"] == "innodb_read_io_threads")
    assert "the team's host: logical CPUs / 2" in row["evidence"] and "the lab's host:" in row["evidence"]
    assert "the team's host: logical CPUs / 2" in mysql_check["_csv"]
