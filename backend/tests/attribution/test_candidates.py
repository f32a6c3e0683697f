"""Candidates from two variants and their recorded variables (pure)."""

from upgradelab.attribution.candidates import build, reverted
from upgradelab.experiments.variants import ResolvedVariant

BASE = ResolvedVariant(name="default", target="mysql-9.7", preset="default", options={}, redo_log="enabled")
VARIANT = ResolvedVariant(
    name="tuned",
    target="mysql-9.7",
    preset="default",
    options={"skip-log-bin": None, "innodb-file-per-table": "OFF", "max-connections": "300"},
    redo_log="disabled",
)
DIFF = {
    "log_bin": ("ON", "OFF"),
    "log_bin_basename": ("/x/binlog", ""),
    "innodb_file_per_table": ("ON", "OFF"),
    "max_connections": ("151", "300"),
    "open_files_limit": ("5000", "8000"),
    "table_definition_cache": ("2000", "2100"),
    "innodb_io_capacity": ("200", "10000"),
}


def _accepts(option: str, value: str | None) -> str | None:
    return None if option != "innodb-flush-method" else "refused for the test"


def test_one_binary_tests_the_configuration_and_lists_the_derived_values() -> None:
    found, untestable = build(BASE, VARIANT, DIFF, same_binary=True, accepts=_accepts)
    names = [c.name for c in found]
    assert names[0] == "skip-log-bin"  # covers log_bin, a known changed default: first
    assert set(names) == {"skip-log-bin", "innodb-file-per-table", "max-connections", "redo log"}
    assert {u.name for u in untestable} == {
        "open_files_limit",
        "table_definition_cache",
        "innodb_io_capacity",
    }
    by_name = {c.name: c for c in found}
    assert by_name["skip-log-bin"].variables == ["log_bin", "log_bin_basename"]


def test_two_binaries_test_each_differing_variable_the_server_takes() -> None:
    other = BASE.model_copy(update={"target": "mysql-8.0"})
    diff = {**DIFF, "innodb_flush_method": ("fsync", "O_DIRECT"), "server_uuid": ("a", "b")}
    found, untestable = build(other, VARIANT, diff, same_binary=False, accepts=_accepts)
    by_name = {c.name: c for c in found}
    assert by_name["innodb_io_capacity"].revert == {
        "add_options": {"innodb-io-capacity": "200"},
        "remove_options": [],
    }
    assert by_name["innodb_io_capacity"].known is not None
    # refused as a startup option: tried as SET GLOBAL (the server's pre-flight has the last word)
    assert by_name["innodb_flush_method"].revert == {"set_global": {"innodb_flush_method": "fsync"}}
    reasons = {u.name: u.reason for u in untestable}
    assert "identity" in reasons["server_uuid"]


def test_reverting_gives_the_variant_the_baselines_values() -> None:
    found, _ = build(BASE, VARIANT, DIFF, same_binary=True, accepts=_accepts)
    chosen = [c for c in found if c.name in ("skip-log-bin", "redo log")]
    again = reverted(VARIANT, chosen, "test")
    assert again.options == {"innodb-file-per-table": "OFF", "max-connections": "300"}
    assert again.redo_log == "enabled" and again.name == "test"
