"""The team's settings as a variant (captures/team_variant.py): a capture's differing settings become
a variant's startup options; the lines the lab never writes and those a check of the capture against
the variant's target refused are dropped with their reasons; a buffer pool larger than the lab's
memory check allows is scaled to the share it allows, with the numbers; an existing target takes
none. Pure: a configuration and a check's findings as stored, MemAvailable given."""

from upgradelab.captures.configuration import Configuration, HostFacts, Variable
from upgradelab.captures.schemas import OptionFindingRead
from upgradelab.captures.team_variant import CheckUsed, MemoryShare, team_variant
from upgradelab.execution.instances import check_memory
from upgradelab.experiments.schemas import VariantSpec
from upgradelab.targets.option_names import ServerNames

GIB = 1024**3
MIB = 1024**2


def _variable(name: str, value: str, default: str, host_dependent: bool = False) -> Variable:
    comparison = "default" if value == default else "differs"
    return Variable(
        name=name, value=value, default=default, comparison=comparison, host_dependent=host_dependent
    )


CONFIG = Configuration(
    version="10.11.19-MariaDB",
    version_comment="team",
    flavor="mariadb",
    defaults_from=None,
    variables=[
        _variable("max_connections", "77", "151"),
        _variable("innodb_change_buffer_max_size", "30", "25"),
        _variable("port", "3307", "3306"),
        _variable("innodb_buffer_pool_size", str(8 * GIB), str(128 * MIB)),
        _variable("innodb_buffer_pool_instances", "8", "1", host_dependent=True),
        _variable("autocommit", "ON", "ON"),
    ],
    host=HostFacts(hostname="db1", os=None, machine=None, buffer_pool_mib=8192, cpus=None, cpus_from="n/a"),
    differs=5,
)
# a check of this capture against mariadb-11.8 as stored (check_runner.py): one refusal in its words
CHECK = CheckUsed(
    7,
    "mariadbd 11.8.9",
    [OptionFindingRead.model_validate(one) for one in (
        {"name": "innodb_change_buffer_max_size", "line": "innodb-change-buffer-max-size=30",
         "outcome": "refused",
         "words": "[ERROR] mariadbd: unknown variable 'innodb-change-buffer-max-size=30'"},
        {"name": "max_connections", "line": "max-connections=77", "outcome": "accepted", "words": ""},
    )],
)  # fmt: skip
FOUR_GIB_FREE = MemoryShare(available_bytes=4 * GIB, instances=2, allowance_mb=400)


def test_the_teams_settings_become_options_without_what_the_check_refused_each_dropped_with_why() -> None:
    found = team_variant(1, "mariadb-11.8", CONFIG, FOUR_GIB_FREE, CHECK)
    assert found.checked_by == 7
    assert found.options == {"max-connections": "77", "innodb-buffer-pool-size": str(1648 * MIB)}
    dropped = {d.name: d for d in found.dropped}
    assert set(dropped) == {"innodb_change_buffer_max_size", "port"}
    refused = dropped["innodb_change_buffer_max_size"]
    assert refused.line == "innodb-change-buffer-max-size=30"
    assert refused.reason.startswith("refused by mariadbd 11.8.9: [ERROR]")
    assert dropped["port"].line is None and dropped["port"].reason.startswith("not tried: ")
    assert "network exposure" in dropped["port"].reason
    # a variant spec takes the options as they are, and two such instances pass the memory check
    lines = VariantSpec(target="mariadb-11.8", options=found.options).resolve().option_lines()
    assert lines == ["max-connections=77", f"innodb-buffer-pool-size={1648 * MIB}"]
    check_memory([lines, lines], 400, available_bytes=4 * GIB)


def test_a_buffer_pool_above_the_memory_checks_share_is_scaled_to_it_and_listed_with_the_numbers() -> None:
    [scaled] = team_variant(1, "mariadb-11.8", CONFIG, FOUR_GIB_FREE, CHECK).scaled
    # 4096 MiB / 2 instances - 400 MiB allowance = 1648 MiB
    assert (scaled.name, scaled.captured) == ("innodb_buffer_pool_size", str(8 * GIB))
    assert scaled.used == str(1648 * MIB)
    assert scaled.reason == (
        "8192 MiB -> 1648 MiB: the lab's memory check allows 4096 MiB available / 2 instances - 400 MiB each"
    )
    roomy = team_variant(1, "mariadb-11.8", CONFIG, MemoryShare(64 * GIB, 2, 400), CHECK)
    assert roomy.scaled == [] and roomy.options["innodb-buffer-pool-size"] == str(8 * GIB)
    tight = team_variant(1, "mariadb-11.8", CONFIG, MemoryShare(512 * MIB, 4, 400), CHECK)
    assert tight.options["innodb-buffer-pool-size"] == str(128 * MIB)  # never below the servers' default


def test_without_a_check_nothing_is_dropped_for_a_refusal_and_an_existing_target_takes_no_option() -> None:
    unchecked = team_variant(1, "mariadb-11.8", CONFIG, FOUR_GIB_FREE)
    assert unchecked.checked_by is None
    assert unchecked.options["innodb-change-buffer-max-size"] == "30"
    assert [d.name for d in unchecked.dropped] == ["port"]
    existing = team_variant(1, "staging", CONFIG, FOUR_GIB_FREE, takes_options=False)
    assert existing.options == {}
    assert {d.name for d in existing.dropped} == {"port", "max_connections", "innodb_change_buffer_max_size",
                                                  "innodb_buffer_pool_size"}  # fmt: skip
    assert all("no option file" in d.reason for d in existing.dropped if d.name != "port")


def test_a_line_the_labs_option_check_refuses_for_the_target_is_dropped_in_its_words() -> None:
    # MariaDB 11.8 starts with innodb-change-buffering and warns "was removed": the check says
    # "deprecated", but the name is no option of its binary, so a variant with it would be refused
    config = CONFIG.model_copy(
        update={"variables": [*CONFIG.variables, _variable("innodb_change_buffering", "all", "none")]}
    )
    names = ServerNames(
        "mariadbd 11.8.9", frozenset({"max-connections", "innodb-buffer-pool-size"}), frozenset()
    )
    found = team_variant(1, "mariadb-11.8", config, FOUR_GIB_FREE, CHECK, names=names)
    assert found.options == {"max-connections": "77", "innodb-buffer-pool-size": str(1648 * MIB)}
    dropped = {d.name: d for d in found.dropped}
    assert dropped["innodb_change_buffering"].line == "innodb-change-buffering=all"
    assert dropped["innodb_change_buffering"].reason == (
        "refused by the lab's option check: option 'innodb-change-buffering': not an option name of "
        "mariadbd 11.8.9; exact names only (the server would expand a prefix or an abbreviation to "
        "another option)"
    )
    assert dropped["innodb_change_buffer_max_size"].reason.startswith("refused by mariadbd 11.8.9")
    # the same check keeps every line a binary lists
    known = ServerNames("mariadbd 10.11.19", names.options | {"innodb-change-buffering"}, frozenset())
    assert (
        team_variant(1, "mariadb-10.11", config, FOUR_GIB_FREE, names=known).options[
            "innodb-change-buffering"
        ]
        == "all"
    )
