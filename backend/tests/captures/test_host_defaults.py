"""Host-dependent defaults resolved by their documented formulas for the team's server and for the
lab's host, without a server: the formulas per flavor and version, where the team's host comes from,
the changed-default findings they decide (both flavors, a 64-CPU / 256 GiB team server against a
2-CPU / 24 GiB lab host), their words in the severity order and the CSV."""

import csv
import io
import os

import psutil
import pytest

from upgradelab.captures import configuration
from upgradelab.captures.configuration import HostFacts
from upgradelab.captures.default_check import default_findings
from upgradelab.captures.defaults import BinaryDefaults
from upgradelab.captures.findings import csv_text, ordered
from upgradelab.captures.host_defaults import GIB, CheckHosts, Host, lab_host, resolve, team_host

TEAM = Host(cpus=64, memory_mib=256 * 1024)
LAB = Host(cpus=2, memory_mib=24105)  # the lab host's figures when the formulas were verified
HOSTS = CheckHosts(team=TEAM, lab=LAB)
POOL = {"innodb_buffer_pool_size": str(32 * GIB)}


def _value(
    flavor: str, version: str, name: str, host: Host, settings: dict[str, str] | None = None
) -> str | None:
    return resolve(flavor, version, name, host, POOL if settings is None else settings).value


@pytest.mark.parametrize(
    ("name", "team", "lab"),
    [
        ("innodb_read_io_threads", "32", "4"),  # CPUs / 2, min 4
        ("innodb_parallel_read_threads", "8", "4"),  # CPUs / 8, min 4
        ("innodb_purge_threads", "4", "1"),  # 1 up to 16 CPUs, else 4
        ("innodb_log_writer_threads", "ON", "OFF"),  # ON from 32 CPUs
        ("temptable_max_ram", str(4 * GIB), str(GIB)),  # 3 % of RAM within 1-4 GiB
        ("innodb_buffer_pool_instances", "16", "1"),  # min(32 GiB / 128 MiB / 2, CPUs / 4)
        ("innodb_page_cleaners", "16", "1"),  # = the pool instances
    ],
)
def test_mysql_8_4_on_defaults_follow_the_hosts_cpus_and_memory(name: str, team: str, lab: str) -> None:
    for version in ("8.4.3", "9.7.4-2"):
        assert (_value("mysql", version, name, TEAM), _value("mysql", version, name, LAB)) == (team, lab)


def test_the_formulas_words_name_the_rule_and_the_hosts_figures() -> None:
    read_io = resolve("mysql", "8.4.3", "innodb_read_io_threads", Host(cpus=16, memory_mib=None), {})
    assert read_io.words == "logical CPUs / 2, min 4: 16 CPUs -> 8"
    temptable = resolve("mysql", "8.4.3", "temptable_max_ram", Host(cpus=None, memory_mib=64 * 1024), {})
    assert (
        temptable.value == str(int(64 * GIB * 3 // 100))
        and "3 % of RAM, 1-4 GiB: 65536 MiB" in temptable.words
    )
    small_pool = resolve("mysql", "8.4.3", "innodb_buffer_pool_instances", TEAM, {})  # 128 MiB: 1
    assert small_pool.value == "1" and "buffer pool <= 1 GiB" in small_pool.words


def test_mysql_8_0_defaults_are_the_documented_fixed_ones_but_the_pool_instances() -> None:
    assert _value("mysql", "8.0.36", "innodb_read_io_threads", TEAM) == "4"
    assert _value("mysql", "8.0.36", "innodb_log_writer_threads", Host(cpus=2, memory_mib=None)) == "ON"
    assert _value("mysql", "8.0.36", "innodb_buffer_pool_instances", LAB) == "8"  # a pool >= 1 GiB
    assert _value("mysql", "8.0.36", "innodb_page_cleaners", LAB, {}) == "1"  # 4, at most 1 instance
    assert _value("mysql", "8.0.36", "temptable_max_ram", TEAM) == str(GIB)


def test_mariadbs_thread_pool_size_is_the_cpu_count() -> None:
    assert _value("mariadb", "11.8.9-MariaDB", "thread_pool_size", TEAM) == "64"
    assert _value("mariadb", "10.11.19-MariaDB-0+deb12u1", "thread_pool_size", LAB) == "2"


def test_without_a_formula_or_a_figure_it_says_it_is_not_resolved_and_why() -> None:
    no_formula = resolve("mysql", "9.7.4", "table_open_cache_instances", TEAM, {})
    assert no_formula.value is None and no_formula.words.startswith("depends on the host: not resolved")
    assert "no formula for mysql 9.7.4" in no_formula.words
    assert resolve("mariadb", "11.8.9", "innodb_purge_threads", TEAM, {}).value is None  # MariaDB: help's
    assert resolve("mysql", "5.7.44", "innodb_read_io_threads", TEAM, {}).value is None  # before 8.0
    no_cpus = resolve("mysql", "8.4.3", "innodb_purge_threads", Host(cpus=None, memory_mib=1024), {})
    assert no_cpus.value is None and "the host's CPU count is not known" in no_cpus.words
    no_memory = resolve("mysql", "8.4.3", "temptable_max_ram", Host(cpus=8, memory_mib=None), {})
    assert no_memory.value is None and "the host's memory is not known" in no_memory.words


def test_the_teams_host_is_what_the_user_gives_else_what_the_capture_shows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    facts = HostFacts(hostname="db1", os=None, machine=None, buffer_pool_mib=32768.0, cpus=48,
                      cpus_from="thread_pool_size")  # fmt: skip
    seen = team_host(facts, None, None)
    assert (seen.cpus, seen.memory_mib) == (48, None)  # the buffer pool is not the RAM
    assert "thread_pool_size" in seen.cpus_from and "give team_host.memory_mib" in seen.memory_from
    given = team_host(facts, 64, 262144)
    assert (given.cpus, given.memory_mib) == (64, 262144) and "given" in given.cpus_from
    mysql = facts.model_copy(update={"cpus": None, "cpus_from": "not visible through SQL on MySQL"})
    hidden = team_host(mysql, None, None)
    assert hidden.cpus is None and "give team_host.cpus" in hidden.cpus_from
    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    assert (lab_host().cpus, lab_host().memory_mib) == (3, psutil.virtual_memory().total // 2**20)


MYSQL_80 = BinaryDefaults("mysqld 8.0.36", "8.0.36", {})  # the lab has no 8.0 binary: defaults unknown
MYSQL_97 = BinaryDefaults(
    "mysqld 9.7.4-2",
    "9.7.4-2",
    {  # its help on the lab's 2-CPU host
        "innodb_buffer_pool_instances": "0",
        "innodb_page_cleaners": "1",
        "innodb_read_io_threads": "4",
        "innodb_parallel_read_threads": "4",
        "innodb_purge_threads": "4",
        "innodb_log_writer_threads": "OFF",
        "temptable_max_ram": "1073741824",
        "table_open_cache_instances": "16",
        "max_connections": "151",
    },
)


def _mysql_80(**values: str) -> configuration.Configuration:
    captured = {  # a MySQL 8.0 server's defaults with a 32 GiB pool
        "innodb_buffer_pool_size": str(32 * GIB),
        "innodb_buffer_pool_instances": "8",
        "innodb_page_cleaners": "4",
        "innodb_read_io_threads": "4",
        "innodb_parallel_read_threads": "4",
        "innodb_purge_threads": "4",
        "innodb_log_writer_threads": "ON",
        "temptable_max_ram": "1073741824",
        "table_open_cache_instances": "16",
        "max_connections": "151",
        **values,
    }
    return configuration.build("mysql", "8.0.36", "", captured, MYSQL_80, None)


def test_each_changed_default_is_resolved_for_the_teams_host_and_the_labs_both_shown() -> None:
    found = {
        f.name: f for f in default_findings(_mysql_80(), MYSQL_97, {"innodb_read_io_threads": "4"}, HOSTS)
    }
    assert set(found) == {
        "innodb_buffer_pool_instances",  # 8 -> 16
        "innodb_page_cleaners",  # 4 -> 16
        "innodb_read_io_threads",  # 4 -> 32
        "innodb_parallel_read_threads",  # 4 -> 8
        "temptable_max_ram",  # 1 GiB -> 4 GiB
    }  # purge threads 4 and log writers ON: the same for a 64-CPU host (the lab's would take 1 and OFF)
    read_io = found["innodb_read_io_threads"]
    assert read_io.team_host_default is not None and read_io.lab_host_default is not None
    assert (read_io.old_default, read_io.team_host_default.value, read_io.lab_host_default.value) == (
        "4",
        "32",
        "4",
    )
    assert read_io.team_host_default.words == "logical CPUs / 2, min 4: 64 CPUs -> 32"
    assert read_io.lab_host_value == "4" and read_io.new_default == "4"  # the lab host's figures kept
    assert found["temptable_max_ram"].team_host_default.value == str(4 * GIB)  # type: ignore[union-attr]


def test_a_host_dependent_setting_the_team_sets_is_no_changed_default() -> None:
    # 12 read threads is no 8.0 default on any host: the team set it
    found = default_findings(_mysql_80(innodb_read_io_threads="12"), MYSQL_97, {}, HOSTS)
    assert "innodb_read_io_threads" not in {f.name for f in found}


def test_unknown_cpus_leave_it_host_dependent_and_not_resolved() -> None:
    hosts = CheckHosts(team=Host(cpus=None, memory_mib=None, cpus_from="not known"), lab=LAB)
    found = {f.name: f for f in default_findings(_mysql_80(), MYSQL_97, {}, hosts)}
    purge = found["innodb_purge_threads"]  # 4 on 8.0; 9.7's depends on CPUs not given
    assert purge.team_host_default is not None and purge.team_host_default.value is None
    assert "the host's CPU count is not known" in purge.team_host_default.words
    assert purge.lab_host_default is not None and purge.lab_host_default.value == "1"
    [finding] = [f for f in ordered(None, None, None, None, None, [purge.model_dump(mode="json")])]
    assert finding.outcome == "host_dependent"
    assert (
        "the team's host: depends on the host: not resolved (the host's CPU count is not known)"
        in finding.evidence
    )
    assert "the lab's host: 1 if logical CPUs <= 16, else 4: 2 CPUs -> 1" in finding.evidence


MARIADB_1011 = BinaryDefaults(
    "mariadbd 10.11.19", "10.11.19-MariaDB", {"thread_pool_size": "2", "back_log": "80"}
)
MARIADB_118 = BinaryDefaults("mariadbd 11.8.9", "11.8.9-MariaDB", {"thread_pool_size": "2", "back_log": "90"})


def test_mariadbs_thread_pool_follows_the_teams_cpus_on_both_versions_and_is_no_finding() -> None:
    captured = {"thread_pool_size": "64", "back_log": "80"}  # its 64 CPUs; back_log at 10.11's default
    config = configuration.build("mariadb", "10.11.19-MariaDB", "", captured, MARIADB_1011, None)
    assert config.host.cpus == 64
    hosts = CheckHosts(team=team_host(config.host, None, None), lab=LAB)
    found = {f.name: f for f in default_findings(config, MARIADB_118, {"thread_pool_size": "2"}, hosts)}
    assert "thread_pool_size" not in found  # 64 on 10.11 and on 11.8: the same for its hardware
    back_log = found["back_log"]  # no formula: the help's figure on the lab's host
    assert back_log.new_default == "90" and back_log.team_host_default is not None
    assert (
        back_log.team_host_default.value is None
        and "no formula for mariadb" in back_log.team_host_default.words
    )
    # 10.11 gives the lab's host 80, what the team runs with: the lab's host stands for the team's
    assert back_log.resolved_on_lab
    [row] = ordered(None, None, None, None, None, [back_log.model_dump(mode="json")])
    assert row.outcome == "changed" and row.evidence == (
        "the team's server runs with 80 (left unset); the new binary's help gives 90 on the lab's host; no "
        "formula, but the old version gives the lab's host 80 as the team's host: the lab's host stands for "
        "the team's"
    )


def test_the_severity_order_and_the_csv_carry_both_hosts_values() -> None:
    found = default_findings(_mysql_80(), MYSQL_97, {"innodb_read_io_threads": "4"}, HOSTS)
    rows = ordered(None, None, None, None, None, [f.model_dump(mode="json") for f in found])
    read_io = next(r for r in rows if r.subject == "innodb_read_io_threads")
    assert read_io.outcome == "changed" and read_io.severity == "changes_performance"
    assert "the team runs with 4; new default for its host 32" in read_io.evidence
    assert "the team's host: logical CPUs / 2, min 4: 64 CPUs -> 32" in read_io.evidence
    assert "the lab's host: logical CPUs / 2, min 4: 2 CPUs -> 4 (its server took 4)" in read_io.evidence
    [exported] = [
        r for r in csv.DictReader(io.StringIO(csv_text(rows))) if r["subject"] == "innodb_read_io_threads"
    ]
    assert exported["evidence"] == read_io.evidence
