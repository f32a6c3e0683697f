"""Presets compose into variants; flavors that cannot take a preset are named."""

import pytest

from upgradelab.experiments.variants import VariantError, resolve_variant, unsupported_reason


def test_combined_presets_merge_options_and_redo_switch() -> None:
    variant = resolve_variant("mysql-9.7", "redo-off+skip-log-bin")
    assert variant.name == "mysql-9.7 redo-off+skip-log-bin"
    assert variant.options == {"skip-log-bin": None}
    assert variant.redo_log == "disabled"
    assert variant.option_lines() == ["skip-log-bin"]


def test_explicit_options_override_presets_and_are_normalized() -> None:
    variant = resolve_variant(
        "mysql-9.7", "log-writer-threads-off", name="lwt", options={"innodb_log_writer_threads": "ON"}
    )
    assert variant.options == {"innodb-log-writer-threads": "ON"}
    assert variant.redo_log == "enabled"


def test_unknown_preset_is_named() -> None:
    with pytest.raises(VariantError, match="'redo-of'"):
        resolve_variant("mysql-9.7", "redo-of")


def test_injected_option_names_the_variant() -> None:
    with pytest.raises(VariantError, match=r"variant 'x'.*value"):
        resolve_variant("mysql-9.7", "default", name="x", options={"max_connections": "10\ninit-file=/e"})


@pytest.mark.parametrize(
    ("preset", "flavor", "version", "refused"),
    [
        ("redo-off", "mariadb", "10.11.19-MariaDB", True),
        ("log-writer-threads-off", "mariadb", "10.11.19-MariaDB", True),
        ("redo-off", "mysql", "8.0.20", True),
        ("redo-off", "mysql", "8.0.21", False),
        ("redo-off", "mysql", "9.7.4-2", False),
        ("skip-log-bin", "mariadb", "10.11.19-MariaDB", False),
    ],
)
def test_unsupported_reason_by_flavor_and_version(
    preset: str, flavor: str, version: str, refused: bool
) -> None:
    reason = unsupported_reason(resolve_variant("t", preset), flavor, version)
    assert (reason is not None) is refused
