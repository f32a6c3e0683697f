"""A staging MariaDB 10.11 configured by hand (tests/captures/staging.py: no test of the team server
planted these) captured through the API and checked against the lab's MariaDB 11.8 and MySQL 9.7:
only logins can be locked out; the team's values are tried as the new option takes them and never a
value the team did not set; settings the new version ignores are a finding of their own; defaults are
what the started servers show, flag lists flag by flag; the team's host figures are said where used."""

import json
from collections.abc import Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

from tests import ports
from tests.captures.staging import (
    EMPTY_PLUGIN,
    MYSQL_STAGING,
    capture_staging,
    check,
    start_mysql_staging,
    start_staging,
)
from tests.captures.team import sql
from upgradelab.cli import app


@pytest.fixture(scope="module")
def staged(api: str) -> Iterator[dict[str, Any]]:
    """The staging capture and its checks: {"capture", "11.8", "9.7", "10.11", "server"} (9.7 for a team
    host of 16 CPUs and 64 GiB, where the capture shows the lab host's 2 CPUs; 10.11 its own version)."""
    server = start_staging()
    try:
        capture = capture_staging(api)
        yield {
            "capture": capture,
            "11.8": check(api, capture["id"], "mariadb-11.8"),
            "9.7": check(api, capture["id"], "mysql-9.7", {"cpus": 16, "memory_mib": 64 * 1024}),
            "10.11": check(api, capture["id"], "mariadb-10.11"),
            "server": server,
        }
    finally:
        server.stop()


@pytest.fixture(scope="module")
def mysql_staged(api: str) -> Iterator[dict[str, Any]]:
    """The staging MySQL 9.7's capture and its check against the lab's own 9.7: {"capture", "9.7"}."""
    server = start_mysql_staging()
    try:
        capture = capture_staging(api, MYSQL_STAGING, ports.CHECK_STAGING_MYSQL, "mysql")
        yield {"capture": capture, "9.7": check(api, capture["id"], "mysql-9.7")}
    finally:
        server.stop()


def _ordered(found: dict[str, Any], severity: str | None = None) -> list[dict[str, Any]]:
    return [f for f in found["ordered"] if severity is None or f["severity"] == severity]


def _options(found: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["name"]: f for f in found["findings"]}


@pytest.mark.parametrize("new", ["11.8", "9.7"])
def test_only_logins_can_be_locked_out_and_anonymous_accounts_are_a_note(
    staged: dict[str, Any], new: str
) -> None:
    found = staged[new]
    locked_out = " ".join(f["subject"] for f in _ordered(found, "locks_out"))
    for no_login in ("'PUBLIC'@''", "'app_reader'@''", "'mariadb.sys'@'localhost'", "''@'%'"):
        assert no_login not in locked_out, locked_out
    assert "plugin ''" not in json.dumps(found["account_findings"])  # an empty plugin is its default
    accounts = {f["outcome"]: f for f in found["account_findings"]}
    assert {"'PUBLIC'@''", "'app_reader'@''", "'mariadb.sys'@'localhost'"} <= set(
        accounts["no_login"]["accounts"]
    )
    [note] = [f for f in _ordered(found, "note") if f["kind"] == "account"]
    assert note["outcome"] == "anonymous" and note["subject"] == "''@'%', ''@'localhost'"
    assert note["action"] == "DROP USER ''@'%', ''@'localhost' unless a client logs in without a user name"


def test_an_empty_plugin_is_the_old_servers_default_and_locks_out_only_where_that_is_missing(
    staged: dict[str, Any],
) -> None:
    captured = {(a["user"], a["host"]): a for a in staged["capture"]["accounts"]}
    assert captured[(EMPTY_PLUGIN, "%")]["plugin"] == ""  # as the server holds it
    assert captured[("app_reader", "")]["role"] and captured[("mariadb.sys", "localhost")]["locked"]
    on_118 = {f["plugin"]: f for f in staged["11.8"]["account_findings"]}
    native = on_118["mysql_native_password"]  # MariaDB's default: 11.8 has it
    assert native["outcome"] == "available" and f"'{EMPTY_PLUGIN}'@'%'" in native["accounts"]
    on_97 = {f["plugin"]: f for f in staged["9.7"]["account_findings"]}
    gone = on_97["mysql_native_password"]  # 9.x has none: locked out, with the plugin that replaces it
    assert gone["outcome"] == "missing" and f"'{EMPTY_PLUGIN}'@'%'" in gone["accounts"]
    assert "1 with an empty plugin: the old server's default, MariaDB's default" in gone["words"]
    assert "IDENTIFIED WITH caching_sha2_password BY '<new password>'" in gone["action"]
    ed25519 = on_118["ed25519"]
    assert ed25519["outcome"] == "not_loaded" and "INSTALL SONAME 'auth_ed25519'" in ed25519["action"]


def test_the_teams_value_is_tried_as_the_new_option_takes_it_and_an_implied_one_never(
    staged: dict[str, Any],
) -> None:
    variables = {v["name"]: v for v in staged["capture"]["configuration"]["variables"]}
    assert (
        variables["old_alter_table"]["origin"] == "CONFIG" and variables["old_alter_table"]["value"] == "COPY"
    )
    implied = variables["alter_algorithm"]  # COPY only because old_alter_table=1 says so
    assert implied["comparison"] == "implied" and implied["implied_by"] == ["old_alter_table"]
    on_97 = _options(staged["9.7"])
    old_alter = on_97["old_alter_table"]  # MySQL's is a flag: COPY (position 1) is ON, and taken
    assert (old_alter["line"], old_alter["shown"], old_alter["outcome"]) == (
        "old-alter-table=ON",
        "COPY",
        "accepted",
    )
    for new in ("9.7", "11.8"):
        assert _options(staged[new])["alter_algorithm"]["outcome"] == "implied"
        assert not [f for f in _ordered(staged[new]) if f["subject"].startswith("alter-algorithm")]
    refused = _options(staged["11.8"])["old_alter_table"]  # gone from 11.8, and what it set is unused
    assert refused["outcome"] == "refused"
    assert (
        "it set alter_algorithm=COPY, which mariadbd 11.8" in refused["action"]
        and "Unused." in refused["action"]
    )


def test_a_variant_drops_only_the_refused_value_of_sql_mode(staged: dict[str, Any]) -> None:
    variant = staged["9.7"]["_variant"]
    assert variant["options"]["sql-mode"] == "STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION"
    assert variant["options"]["old-alter-table"] == "ON"
    [trimmed] = variant["trimmed"]
    assert trimmed["name"] == "sql_mode" and trimmed["reason"].startswith(
        "NO_AUTO_CREATE_USER refused by mysqld 9.7"
    )
    assert "sql_mode" not in {d["name"] for d in variant["dropped"]}
    [action] = [
        f["action"] for f in _ordered(staged["9.7"], "does_not_start") if f["subject"].startswith("sql-mode=")
    ]
    assert (
        action
        == "set sql_mode=STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION in [mysqld] (without NO_AUTO_CREATE_USER)"
    )


def test_settings_the_new_version_ignores_change_behaviour_and_are_never_default_changes(
    api: str, staged: dict[str, Any]
) -> None:
    behaviour = {f["subject"]: f for f in _ordered(staged["11.8"], "changes_behaviour")}
    assert set(behaviour) == {"innodb-defragment=ON", "innodb-change-buffering=all"}  # "It does nothing now"
    assert behaviour["innodb-defragment=ON"]["action"].startswith("remove `innodb_defragment` from [mysqld]")
    defaults = {f["name"] for f in staged["11.8"]["default_findings"]}
    assert not defaults & {"innodb_prefix_index_cluster_optimization", "optimizer_adjust_secondary_key_costs"}
    # a set value 11.8's option (a number now) refuses, of an option its help calls unused anyway
    costs = _options(staged["11.8"])["optimizer_adjust_secondary_key_costs"]
    assert costs["outcome"] == "refused" and costs["action"].endswith("(and its help calls it 'Unused.')")
    # the team sets alter_algorithm itself (SET GLOBAL): 11.8 takes it, and its help says it is unused
    sql(staged["server"], "SET GLOBAL alter_algorithm = 'INPLACE'")
    capture = capture_staging(api)
    again = check(api, capture["id"], "mariadb-11.8")
    unused = _options(again)["alter_algorithm"]
    assert unused["outcome"] == "no_effect" and "help: 'Unused.'" in unused["words"]
    [finding] = [f for f in _ordered(again, "changes_behaviour") if f["subject"] == "alter-algorithm=INPLACE"]
    assert finding["action"] == (
        "remove `alter_algorithm` from [mysqld]: your alter_algorithm=INPLACE has no effect on "
        + again["server"]
    )


def test_defaults_are_what_the_started_servers_show_each_changed_flag_a_line(staged: dict[str, Any]) -> None:
    on_97 = staged["9.7"]
    changed = {f["name"]: f for f in on_97["default_findings"]}
    assert "innodb_flush_method" not in changed  # 9.7's help says fsync, its server runs O_DIRECT as 10.11
    for same in (
        "max_seeks_for_key",
        "max_write_lock_count",
        "optimizer_trace",
        "default_tmp_storage_engine",
    ):
        assert same not in changed  # the same meaning, spelt otherwise
    for path in ("ssl_ca", "log_bin_index", "relay_log", "innodb_buffer_pool_chunk_size"):
        assert path not in changed  # the host's file names; a setting 10.11 ignored
    assert {c["new_from"] for c in changed.values()} == {"started"}
    switch = [f for f in _ordered(on_97) if f["subject"].startswith("optimizer_switch")]
    assert {f["subject"] for f in switch} >= {"optimizer_switch: mrr", "optimizer_switch: mrr_cost_based"}
    assert all(f["outcome"] in ("on -> off", "off -> on") for f in switch)
    assert switch[0]["action"].startswith("to keep the old behaviour: optimizer_switch='")
    assert all(len(f["evidence"]) < 400 for f in _ordered(on_97))  # no two 1,000-character strings
    on_118 = {f["subject"]: f for f in _ordered(staged["11.8"]) if f["kind"] == "default"}
    assert on_118["session_track_system_variables: REDIRECT_URL"]["outcome"] == "off -> on"


def test_the_teams_cpus_given_are_said_to_replace_the_captures_and_where_each_figure_was_used(
    staged: dict[str, Any],
) -> None:
    hosts = staged["9.7"]["hosts"]
    assert hosts["team"]["cpus"] == 16
    assert "in place of the capture's 2" in hosts["team"]["cpus_from"]
    assert "innodb_read_io_threads" in hosts["cpus_used_by"] and hosts["memory_used_by"] == []
    assert staged["11.8"]["hosts"]["team"]["cpus_from"].startswith("the capture: thread_pool_size")
    caches = {f["subject"]: f for f in _ordered(staged["9.7"]) if f["subject"].startswith("table_")}
    assert caches["table_open_cache"]["outcome"] == "changed"  # 10.11 gives the lab's host 2000 too
    assert (
        "the old version gives the lab's host 2000 as the team's host"
        in caches["table_open_cache"]["evidence"]
    )


def test_a_check_against_its_own_version_changes_nothing(
    staged: dict[str, Any], mysql_staged: dict[str, Any]
) -> None:
    for found in (staged["10.11"], mysql_staged["9.7"]):
        # what stays: the anonymous accounts (a note) and a plugin the lab's fresh server has not loaded
        severe = [f for f in _ordered(found) if f["severity"] != "note" and f["outcome"] != "not_loaded"]
        assert severe == [], severe
        assert found["default_findings"] == [] and found["charset_findings"] == []
    # set in the option file, shown with origin COMPILE-TIME / COMPILED: still the team's, tried as such
    for found, name in (
        (staged["10.11"], "character_set_server"),
        (mysql_staged["9.7"], "transaction_isolation"),
    ):
        assert _options(found)[name]["outcome"] == "accepted"


def test_mysqls_roles_and_locked_accounts_log_in_as_no_one(mysql_staged: dict[str, Any]) -> None:
    accounts = {(a["user"], a["host"]): a for a in mysql_staged["capture"]["accounts"]}
    assert accounts[("app_reader", "%")]["locked"] and accounts[("retired", "%")]["locked"]
    [no_login] = [f for f in mysql_staged["9.7"]["account_findings"] if f["outcome"] == "no_login"]
    assert {"'app_reader'@'%'", "'retired'@'%'", "'mysql.sys'@'localhost'"} <= set(no_login["accounts"])
    session = {v["name"]: v for v in mysql_staged["capture"]["configuration"]["variables"]}[
        "foreign_key_checks"
    ]
    assert session["origin"] == "DYNAMIC"  # a session variable MySQL shows as set at run time: not the team's
    assert "foreign_key_checks" not in _options(mysql_staged["9.7"])


def test_the_clis_check_prints_a_queued_line_on_stderr(api: str, staged: dict[str, Any]) -> None:
    capture_id = staged["capture"]["id"]
    done = CliRunner().invoke(
        app, ["capture", "check", str(capture_id), "--target", "mariadb-11.8", "--json", "--api", api]
    )
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert f"check {found['id']} queued: {api}/captures/{capture_id}#check-{found['id']}" in done.stderr
    assert found["status"] == "succeeded" and done.exit_code & 1  # old_alter_table refused: bit 1
