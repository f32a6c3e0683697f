"""The captured schema loaded and the captured statements parsed on the new version, on real servers
(issue 45, Deliver 5 and 6): a staging MariaDB 10.11 built here with a SEQUENCE, a system-versioned
table, a procedure whose body names the column `qualify` unquoted, a view, a trigger and an event,
and a workload that names `qualify` unquoted, calls MD5() and reads a table FOR SYSTEM_TIME; it is
added as an existing target (a read-only account), captured, and checked against MySQL 9.7 and
MariaDB 11.8. On 9.7 each object it refuses is named with its statement and the server's words and
what to do (the quotes proven on the server), each captured statement its parser refuses too, and
nothing else; on 11.8 everything loads and parses. A stock MariaDB (performance_schema off) is
captured with an empty workload that says how to turn it on; with performance_schema on and the
statement history off (its consumers' defaults) its digests are digest texts, replayed as the
capture binds them (captures/digest_values.py), and the workload still says which consumer to
enable to keep the statements as sent, on the page's API, in --json and in the CLI's text."""

import csv
import io
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import delete
from typer.testing import CliRunner

from tests import ports
from tests.captures.team import sql, wait
from tests.conftest import auth_headers, lab_provisioner
from upgradelab.captures.sql_text import calls_joined
from upgradelab.cli import app
from upgradelab.db import sync_session
from upgradelab.targets.models import Target

PLANTED = f"staging-planted-t{ports.SESSION}"
STOCK = f"staging-stock-t{ports.SESSION}"
READER, PASSWORD = "stager", "read only #45"
OPTIONS = [
    "performance_schema=ON",
    "performance-schema-consumer-events-statements-current=ON",
    "performance-schema-consumer-events-statements-history-long=ON",
]
SCHEMA = [
    "CREATE DATABASE shop",
    "CREATE TABLE shop.orders (id INT PRIMARY KEY, total DECIMAL(10,2), note VARCHAR(40))",
    "INSERT INTO shop.orders VALUES (1, 10.5, 'a'), (2, 20, 'b'), (3, 7.25, 'c')",
    "CREATE TABLE shop.scores (id INT PRIMARY KEY, qualify INT)",
    "INSERT INTO shop.scores VALUES (1, 5), (2, 7)",
    "CREATE SEQUENCE shop.order_seq START WITH 100",
    "CREATE TABLE shop.price_history (id INT PRIMARY KEY, price INT) WITH SYSTEM VERSIONING",
    "INSERT INTO shop.price_history VALUES (1, 10)",
    "UPDATE shop.price_history SET price = 11 WHERE id = 1",
    "CREATE VIEW shop.big_orders AS SELECT id, total FROM shop.orders WHERE total > 10",
    # the body names `qualify` unquoted twice: MySQL 9.7 reserves it (8.4+)
    "CREATE PROCEDURE shop.best_score()\nBEGIN\n  SELECT MAX(qualify) FROM shop.scores;\n"
    "  SELECT id FROM shop.scores WHERE qualify > 1;\nEND",
    "CREATE TRIGGER shop.orders_note BEFORE INSERT ON shop.orders FOR EACH ROW SET NEW.note = 'new'",
    # loads on 9.7 (its body parses), whose call of MD5() then fails at every run
    "CREATE FUNCTION shop.digest_of(s VARCHAR(40)) RETURNS CHAR(32) DETERMINISTIC RETURN MD5(s)",
    "CREATE EVENT shop.tidy ON SCHEDULE EVERY 1 DAY DO DELETE FROM shop.orders WHERE id > 1000",
]
# the team's statements, each run a few times: (statement, times)
WORKLOAD = [
    ("SELECT qualify FROM shop.scores WHERE id = 1", 4),  # 9.7: no longer parses, quote it
    ("SELECT MD5(note) FROM shop.orders WHERE id = 2", 3),  # 9.7: no MD5() (measured: ERROR 1305)
    ("SELECT price FROM shop.price_history FOR SYSTEM_TIME ALL WHERE id = 1", 2),  # 9.7: no versioning
    ("SELECT id, total FROM shop.orders WHERE id IN (1, 2)", 5),  # parses everywhere
    ("SELECT COUNT(*) FROM shop.big_orders", 2),  # parses everywhere, through the view
]
GRANTS = [
    f"CREATE USER '{READER}'@'127.0.0.1' IDENTIFIED BY '{PASSWORD}'",
    f"GRANT SELECT ON performance_schema.* TO '{READER}'@'127.0.0.1'",
    f"GRANT SELECT ON mysql.user TO '{READER}'@'127.0.0.1'",
    f"GRANT SELECT ON mysql.proc TO '{READER}'@'127.0.0.1'",
    f"GRANT SELECT ON labdb.* TO '{READER}'@'127.0.0.1'",
]


def _add_and_capture(api: str, name: str, port: int) -> dict[str, Any]:
    """Server at `port` added as existing target `name` (the read-only account), then captured."""
    settings = {"host": "127.0.0.1", "port": port, "user": READER, "password": PASSWORD, "database": "labdb"}
    with sync_session() as session:
        session.execute(delete(Target).where(Target.name == name))
        session.commit()
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
        body = {"name": name, "flavor": "mariadb", "provisioner": "existing", "settings": settings}
        added = client.post("/api/targets", json=body)
        assert added.status_code == 201, added.text
        created = client.post("/api/captures", json={"target": name})
        assert created.status_code == 201, created.text
        found = wait(client, created.json()["id"])
    assert found["status"] == "succeeded", found["error"]
    return found


@pytest.fixture(scope="module")
def planted(api: str) -> Iterator[dict[str, Any]]:
    """The planted staging MariaDB 10.11 (module docstring), captured."""
    server = lab_provisioner("mariadb-10.11", ports.PLANTED_SOURCE, suffix="planted")
    server.start(OPTIONS)
    try:
        sql(server, "CREATE DATABASE labdb", *SCHEMA, *GRANTS)
        sql(server, f"GRANT SELECT, SHOW VIEW, TRIGGER, EVENT ON shop.* TO '{READER}'@'127.0.0.1'")
        sql(server, "TRUNCATE performance_schema.events_statements_summary_by_digest")
        for statement, times in WORKLOAD:
            sql(server, *([statement] * times))
        yield _add_and_capture(api, PLANTED, ports.PLANTED_SOURCE)
    finally:
        server.stop()


def _check(api: str, capture_id: int, target: str) -> dict[str, Any]:
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
        created = client.post(f"/api/captures/{capture_id}/checks", json={"target": target})
        assert created.status_code == 201, created.text
        found = wait(client, capture_id, f"/checks/{created.json()['id']}")
        found["_csv"] = client.get(f"/api/captures/{capture_id}/checks/{found['id']}/findings.csv")
    assert found["status"] == "succeeded", found["error"]
    return found


@pytest.fixture(scope="module")
def on_mysql(api: str, planted: dict[str, Any]) -> dict[str, Any]:
    return _check(api, planted["id"], "mysql-9.7")


@pytest.fixture(scope="module")
def on_mariadb(api: str, planted: dict[str, Any]) -> dict[str, Any]:
    return _check(api, planted["id"], "mariadb-11.8")


def test_the_capture_asks_its_own_server_to_prepare_each_statement(planted: dict[str, Any]) -> None:
    digests = {d["text"]: d for d in planted["workload"]["digests"]}
    for statement, times in WORKLOAD:
        digest = digests[statement]
        assert (digest["executions"], digest["errors"], digest["old_parse"]) == (times, 0, "prepared"), digest
    assert planted["dump"]["schema_bytes"] <= planted["dump"]["bytes"]
    assert planted["workload"]["problems"] == [] and not planted["workload"]["empty"]


def test_mysql_9_7_refuses_the_sequence_the_versioned_table_and_the_procedure_each_with_what_to_do(
    on_mysql: dict[str, Any],
) -> None:
    loads = {(f["kind"], f["name"]): f for f in on_mysql["load_findings"]}
    assert set(loads) == {
        ("sequence", "shop.order_seq"),
        ("table", "shop.price_history"),
        ("procedure", "shop.best_score"),
        ("function", "shop.digest_of"),  # loads, calls MD5()
        ("statement", None),  # the sql_mode the routines, trigger and event were created under
    }
    sequence = loads[("sequence", "shop.order_seq")]
    assert sequence["outcome"] == "no_longer_loads" and "near 'SEQUENCE" in sequence["words"]
    assert sequence["statement"].startswith("CREATE SEQUENCE") and "has no sequences" in sequence["action"]
    assert any("DROP SEQUENCE" in line for line in sequence["also"])  # one finding per object
    versioned = loads[("table", "shop.price_history")]
    assert "WITH SYSTEM VERSIONING" in versioned["statement"] and versioned["quoted"] == []
    assert "system-versioned" in versioned["action"]
    body = loads[("procedure", "shop.best_score")]
    assert body["outcome"] == "no_longer_parses" and "near 'qualify" in body["words"]
    # quoted where it stands as a name (not in MAX(...)'s call, not in strings), then taken: proven
    assert body["quoted"] == [{"word": "qualify", "lines": [3, 4]}] and body["loads_quoted"]
    assert body["action"].startswith("quote `qualify` in these 2 places (lines 3, 4")
    calls = loads[("function", "shop.digest_of")]
    assert (
        calls["outcome"] == "no_longer_parses"
        and "ERROR 1305: FUNCTION shop.MD5 does not exist" in calls["words"]
    )
    assert "MD5() at line 3" in calls["words"] and "SHA2" in calls["action"]  # the dump writes it so
    mode = loads[("statement", None)]
    assert "NO_AUTO_CREATE_USER" in mode["words"] and mode["times"] == 4
    made = {"created without it: trigger shop.orders_note", "created without it: event shop.tidy"}
    assert made | {"created without it: function shop.digest_of"} <= set(mode["also"])
    load = on_mysql["schema_load"]["load"]
    assert load["error"] is None and load["not_loaded_count"] == 0 and load["refused"] >= 5


def test_mysql_9_7_names_each_captured_statement_its_parser_refuses_and_no_other(
    on_mysql: dict[str, Any],
) -> None:
    parsed = {f["sample"]: f for f in on_mysql["parse_findings"]}
    assert set(parsed) == {WORKLOAD[0][0], WORKLOAD[1][0], WORKLOAD[2][0]}
    qualify = parsed[WORKLOAD[0][0]]
    assert qualify["parses_quoted"] and qualify["quoted"] == [{"word": "qualify", "lines": [1]}]
    assert qualify["executions"] == 4 and qualify["digest"] and qualify["asked"] == "prepare"
    md5 = parsed[WORKLOAD[1][0]]
    assert "ERROR 1305" in md5["words"] and "SHA2" in md5["action"]
    assert "FOR SYSTEM_TIME" in parsed[WORKLOAD[2][0]]["action"]
    statements = on_mysql["schema_load"]["statements"]
    assert statements["asked"] == statements["digests"] and statements["not_asked"] == []
    assert statements["parses"] == statements["asked"] - 3
    # the column that no longer parses names where the team's SQL writes it unquoted
    [column] = [f for f in on_mysql["identifier_findings"] if f["name"] == "qualify"]
    assert column["places"][0] == "procedure shop.best_score lines 3, 4"
    assert len(column["places"]) == 2 and column["places"][1].endswith("line 1")


def test_mariadb_11_8_loads_the_schema_and_parses_every_statement(on_mariadb: dict[str, Any]) -> None:
    assert on_mariadb["load_findings"] == [] and on_mariadb["parse_findings"] == []
    trial = on_mariadb["schema_load"]
    assert trial["load"]["refused"] == 0 and trial["load"]["loaded"] == trial["load"]["statements"]
    assert trial["statements"]["parses"] == trial["statements"]["asked"] == trial["statements"]["digests"]
    assert not [f for f in on_mariadb["ordered"] if f["severity"] == "does_not_load"]


def test_every_finding_says_what_to_do_and_the_csv_names_the_capture_and_both_versions(
    planted: dict[str, Any], on_mysql: dict[str, Any]
) -> None:
    refused = [f for f in on_mysql["ordered"] if f["severity"] == "does_not_load"]
    assert len(refused) == 8 and all(f["action"] for f in refused)
    response = on_mysql["_csv"]
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert [r["subject"] for r in rows] == [f["subject"] for f in on_mysql["ordered"]]
    assert {(r["capture"], r["captured_target"], r["check_target"]) for r in rows} == {
        (str(planted["id"]), PLANTED, "mysql-9.7")
    }
    assert rows[0]["captured_version"].startswith("10.11") and rows[0]["check_server"].startswith(
        "mysqld 9.7"
    )
    assert [r["action"] for r in rows] == [f["action"] for f in on_mysql["ordered"]]
    disposition = response.headers["content-disposition"]
    assert f"capture-{planted['id']}-{PLANTED}-check-{on_mysql['id']}-mysql-9.7.csv" in disposition


# a stock server's digest texts print `COUNT ( * )`, `SUM ( id )`: without IGNORE_SPACE, as printed,
# the first does not parse and the second calls a stored function shop.SUM (ERROR 1630, measured on
# 10.11, 11.8 and 9.7: "FUNCTION shop.SUM does not exist"); the INSERT's row prints `VALUES (...)`,
# which as `VALUES (?)` has one value for two columns (ERROR 1136 on 11.8 and 9.7)
STOCK_WORKLOAD = [
    "SELECT COUNT(*) FROM shop.t",
    "SELECT SUM(id) FROM shop.t",
    "INSERT INTO shop.t (id, n) VALUES (1, 2)",
]


@pytest.fixture(scope="module")
def stock(api: str) -> Iterator[dict[str, dict[str, Any]]]:
    """A stock MariaDB 10.11 (performance_schema off, its default) captured, then started again with
    performance_schema on and the statement history off (MariaDB's consumers' defaults) and captured:
    {"off": capture, "no_history": capture}."""
    server = lab_provisioner("mariadb-10.11", ports.STOCK_SOURCE, suffix="stock")
    found: dict[str, dict[str, Any]] = {}
    try:
        server.start([])
        sql(
            server,
            "CREATE DATABASE labdb",
            "CREATE DATABASE shop",
            "CREATE TABLE shop.t (id INT, n INT)",
            *GRANTS,
        )
        sql(server, f"GRANT SELECT, SHOW VIEW, TRIGGER, EVENT ON shop.* TO '{READER}'@'127.0.0.1'")
        sql(server, *["SELECT COUNT(*) FROM shop.t"] * 3)
        found["off"] = _add_and_capture(api, STOCK, ports.STOCK_SOURCE)
        server.stop()
        server.start(["performance_schema=ON"], keep_data=True)
        sql(server, *STOCK_WORKLOAD * 3)
        found["no_history"] = _add_and_capture(api, STOCK, ports.STOCK_SOURCE)
        yield found
    finally:
        server.stop()


def test_a_workload_empty_or_of_digest_texts_says_why_and_how_to_fix_it_and_the_capture_succeeds(
    api: str, stock: dict[str, dict[str, Any]]
) -> None:
    off = stock["off"]["workload"]
    assert off["empty"] and off["digests"] == [] and off["replayable"] == 0
    [problem] = off["problems"]
    assert problem["code"] == "performance_schema_off" and "performance_schema=ON" in problem["fix"]
    history = stock["no_history"]["workload"]
    # its digest texts are replayed (this one has no placeholder: it runs as the server printed it)
    assert not history["empty"] and history["replayable"] >= 1
    [digest] = [one for one in history["digests"] if "COUNT" in one["digest_text"]]
    assert digest["text_source"] == "digest_text"
    assert digest["bound_text"] == calls_joined(digest["digest_text"]) and "COUNT(" in digest["bound_text"]
    # its own server's parser is asked the text the client sent (calls joined): both reads prepared
    ours = [one for one in history["digests"] if "shop" in one["digest_text"] and "SELECT" in one["text"]]
    assert [(one["executions"], one["errors"], one["old_parse"]) for one in ours] == [(3, 0, "prepared")] * 2
    [problem] = history["problems"]
    assert problem["code"] == "consumer_off" and "only their digest text" in problem["words"]
    assert "'events_statements_current', 'events_statements_history_long'" in problem["fix"]
    assert "performance-schema-consumer-events-statements-history-long=ON" in problem["fix"]
    # the CLI's text says it too (and its --json holds it: the capture's workload)
    done = CliRunner().invoke(app, ["capture", "--target", STOCK, "--api", api], env={"COLUMNS": "200"})
    assert done.exit_code == 0, done.output
    assert "EMPTY" not in done.stdout and f"fix: {problem['fix']}" in done.stdout
    printed = CliRunner().invoke(app, ["capture", "--target", STOCK, "--json", "--api", api])
    assert (
        json.loads(printed.stdout.strip().splitlines()[-1])["workload"]["problems"][0]["code"]
        == "consumer_off"
    )


def test_a_check_of_a_workload_of_digest_texts_carries_its_fix_as_a_note(
    api: str, stock: dict[str, dict[str, Any]]
) -> None:
    check = _check(api, stock["no_history"]["id"], "mariadb-11.8")
    [note] = [f for f in check["ordered"] if f["kind"] == "workload"]
    assert (note["severity"], note["outcome"]) == ("note", "partly not replayable")
    assert note["action"] == stock["no_history"]["workload"]["problems"][0]["fix"]
    # its digest texts are still asked of both parsers (PREPARE takes `?`): none refused here
    statements = check["schema_load"]["statements"]
    asked = statements["asked"] + sum(one["count"] for one in statements["not_asked"])
    assert statements["asked"] >= 1 and statements["refused"] == 0 and asked == statements["digests"]
    _parsed_as_sent(check)


def test_a_digest_texts_calls_are_asked_of_mysql_as_the_client_sent_them(
    api: str, stock: dict[str, dict[str, Any]]
) -> None:
    _parsed_as_sent(_check(api, stock["no_history"]["id"], "mysql-9.7"))


def _parsed_as_sent(check: dict[str, Any]) -> None:
    """The stock workload's digest texts (STOCK_WORKLOAD) asked of the new version and taken:
    asked as printed, `SUM ( id )` was a false "no longer parses" (ERROR 1630: "has no function SUM()"),
    `COUNT ( * )` was never asked (its own server did not parse it) and the INSERT's `VALUES (?)` was
    refused for its count (ERROR 1136)."""
    statements = check["schema_load"]["statements"]
    assert check["parse_findings"] == [] and statements["refused"] == 0, check["parse_findings"]
    assert not [one for one in statements["not_asked"] if "did not parse" in one["reason"]], statements
    assert statements["parses"] >= len(STOCK_WORKLOAD)


MYSQL_STAGING = f"staging-mysql-t{ports.SESSION}"


@pytest.fixture(scope="module")
def mysql_planted(api: str) -> Iterator[dict[str, Any]]:
    """A MySQL 9.7 staging server (GTIDs as the lab runs them) with a functional index, a procedure
    using VALUES ROW() and a statement using ->>, captured by a read-only account."""
    server = lab_provisioner("mysql-9.7", ports.MYSQL_SOURCE, suffix="planted")
    server.start([])
    account = f"'{READER}'@'127.0.0.1'"
    try:
        sql(
            server,
            "CREATE DATABASE labdb",
            "CREATE DATABASE shop",
            "CREATE TABLE shop.docs (id INT PRIMARY KEY, doc JSON, n INT, KEY fx ((n + 1)))",
            "INSERT INTO shop.docs VALUES (1, '{\"a\": 1}', 1)",
            "CREATE PROCEDURE shop.pairs() SELECT * FROM (VALUES ROW(1, 2), ROW(3, 4)) AS t",
            f"CREATE USER {account} IDENTIFIED BY '{PASSWORD}'",
            f"GRANT SELECT ON performance_schema.* TO {account}",
            f"GRANT SELECT ON mysql.user TO {account}",
            f"GRANT SELECT ON labdb.* TO {account}",
            f"GRANT SELECT, SHOW VIEW, TRIGGER, EVENT ON shop.* TO {account}",
            f"GRANT SHOW_ROUTINE ON *.* TO {account}",  # what mysqldump --routines reads bodies with
            "TRUNCATE performance_schema.events_statements_summary_by_digest",
        )
        sql(server, *["SELECT doc->>'$.a' FROM shop.docs WHERE id = 1"] * 3)
        settings = {"host": "127.0.0.1", "port": ports.MYSQL_SOURCE, "user": READER, "password": PASSWORD,
                    "database": "labdb"}  # fmt: skip
        with sync_session() as session:
            session.execute(delete(Target).where(Target.name == MYSQL_STAGING))
            session.commit()
        with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
            body = {"name": MYSQL_STAGING, "flavor": "mysql", "provisioner": "existing", "settings": settings}
            assert client.post("/api/targets", json=body).status_code == 201
            created = client.post("/api/captures", json={"target": MYSQL_STAGING})
            assert created.status_code == 201, created.text
            found = wait(client, created.json()["id"])
        assert found["status"] == "succeeded", found["error"]
        yield found
    finally:
        server.stop()


def test_a_mysql_servers_schema_is_dumped_by_a_read_only_account_and_tried_on_mariadb(
    api: str, mysql_planted: dict[str, Any]
) -> None:
    dump = mysql_planted["dump"]
    assert dump["error"] is None and dump["client"] == "mysqldump" and dump["databases"] == ["shop"]
    check = _check(api, mysql_planted["id"], "mariadb-11.8")
    loads = {(f["kind"], f["name"]): f for f in check["load_findings"]}
    assert set(loads) == {("table", "shop.docs"), ("procedure", "shop.pairs")}
    assert loads[("procedure", "shop.pairs")]["outcome"] == "no_longer_parses"
    assert "near 'ROW(" in loads[("procedure", "shop.pairs")]["words"]
    [arrow] = check["parse_findings"]
    assert (
        arrow["sample"] == "SELECT doc->>'$.a' FROM shop.docs WHERE id = 1" and "ERROR 1064" in arrow["words"]
    )
