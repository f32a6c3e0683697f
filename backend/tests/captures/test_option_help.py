"""What the lab's binaries say of their own options (captures/option_help.py), read from their real
`--verbose --help`: the kind of value each takes, an enum's members in order, and the words by which a
binary calls an option unused; a displayed value mapped to the form another binary's option takes.
Then the rules built on them, without a server: accounts that log in as no one, an empty plugin, the
flag lists and the equal spellings of two versions' values."""

from collections.abc import Iterator

import pytest

from tests.conftest import lab_provisioner
from upgradelab.captures.account_check import default_plugin, plugin_findings
from upgradelab.captures.defaults import flag_changes, same_value
from upgradelab.captures.option_help import OptionHelp, as_taken, no_effect, parse_options


@pytest.fixture(scope="module")
def helps(database: None) -> Iterator[dict[str, dict[str, OptionHelp]]]:
    """{target: its binary's options} of the lab's three binaries (their help, no server started)."""
    yield {
        name: parse_options(lab_provisioner(name).option_help())
        for name in ("mariadb-10.11", "mariadb-11.8", "mysql-9.7")
    }


def test_11_8s_help_marks_the_options_it_ignores_and_only_those(
    helps: dict[str, dict[str, OptionHelp]],
) -> None:
    new = helps["mariadb-11.8"]
    ignored = {name for name, option in new.items() if no_effect(option.description)}
    assert {
        "alter_algorithm",
        "innodb_prefix_index_cluster_optimization",
        "optimizer_adjust_secondary_key_costs",
    } <= ignored
    assert no_effect(new["alter_algorithm"].description) == "Unused."
    # deprecated but working, or "no effect" only under a condition: not ignored
    for working in ("innodb_flush_method", "innodb_file_per_table", "big_tables"):
        assert working not in ignored
    assert not {name for name, option in helps["mysql-9.7"].items() if no_effect(option.description)}
    assert "alter_algorithm" not in {n for n, o in helps["mariadb-10.11"].items() if no_effect(o.description)}


def test_old_alter_tables_copy_is_on_for_mysqls_flag_and_stays_an_enum_member_on_mariadb(
    helps: dict[str, dict[str, OptionHelp]],
) -> None:
    old = helps["mariadb-10.11"]["old_alter_table"]
    assert old.kind == "enum" and old.members == ("DEFAULT", "COPY", "INPLACE", "NOCOPY", "INSTANT")
    mysql = helps["mysql-9.7"]["old_alter_table"]
    assert mysql.kind == "flag"
    assert as_taken("COPY", old, mysql) == "ON" and as_taken("DEFAULT", old, mysql) == "OFF"
    assert as_taken("INPLACE", old, mysql) == "INPLACE"  # no flag means it: left as shown, the server says
    assert as_taken("COPY", old, helps["mariadb-10.11"]["alter_algorithm"]) == "COPY"
    assert as_taken("ON", mysql, old) == "1"  # a flag's ON on an enum without ON: its position 1
    assert as_taken("ON", None, old) == "ON"  # without the old binary's help: as shown
    assert (
        helps["mariadb-11.8"]["sql_mode"].kind == "set"
        and "or" not in helps["mariadb-11.8"]["sql_mode"].members
    )


def test_roles_locked_and_anonymous_accounts_never_lock_out_and_an_empty_plugin_is_the_old_default() -> None:
    accounts: list[dict[str, object]] = [
        {"user": "app", "host": "%", "plugin": "", "role": False, "locked": False},
        {"user": "PUBLIC", "host": "", "plugin": "", "role": True, "locked": False},
        {"user": "r_app", "host": "%", "plugin": "caching_sha2_password", "role": False, "locked": True},
        {"user": "", "host": "localhost", "plugin": "mysql_native_password"},
    ]
    mysql_57 = default_plugin("mysql", "5.7.44", {})
    found = plugin_findings(
        accounts, {"caching_sha2_password"}, {}, "mysqld 9.7.4", mysql_57, "caching_sha2_password"
    )
    assert [(f.outcome, f.plugin, f.accounts) for f in found] == [
        ("missing", "mysql_native_password", ["'app'@'%'"]),
        ("anonymous", "", ["''@'localhost'"]),
        ("no_login", "", ["'PUBLIC'@''", "'r_app'@'%'"]),
    ]
    assert (
        "1 with an empty plugin: the old server's default, MySQL 5.7.44's built-in default" in found[0].words
    )
    assert found[0].action.startswith(
        "before the move: ALTER USER 'app'@'%' IDENTIFIED WITH caching_sha2_password"
    )
    # MySQL 8.4's policy names its default; '*' is the built-in one
    assert (
        default_plugin("mysql", "8.4.3", {"authentication_policy": "mysql_native_password,,"})[0]
        == "mysql_native_password"
    )
    assert default_plugin("mysql", "8.4.3", {"authentication_policy": "*,,"})[0] == "caching_sha2_password"
    assert default_plugin("mariadb", "10.11.19-MariaDB", {})[0] == "mysql_native_password"


def test_flag_lists_change_flag_by_flag_and_equal_spellings_are_equal() -> None:
    changed, only_old, only_new = flag_changes(
        "optimizer_switch", "mrr=off,index_merge=on,subquery_cache=on", "index_merge=on,mrr=on,skip_scan=on"
    )
    assert (changed, only_old, only_new) == ([("mrr", "off", "on")], ["subquery_cache"], ["skip_scan"])
    assert flag_changes(
        "sql_mode", "STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION", "NO_ENGINE_SUBSTITUTION,ONLY_FULL_GROUP_BY"
    )[0] == [
        ("STRICT_TRANS_TABLES", "on", "off"),
        ("ONLY_FULL_GROUP_BY", "off", "on"),
    ]
    assert flag_changes("session_track_system_variables", "a,b", "B,A") == ([], [], [])
    assert same_value("x", "ON", "1") and same_value("x", "FALSE", "off") and not same_value("x", "ON", "2")
    assert same_value("max_seeks_for_key", "4294967295", "18446744073709551615")
    assert not same_value("x", "4294967295", "4294967296")
