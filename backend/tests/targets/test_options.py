"""Option names and values are validated before they reach an option file or a command line."""

import pytest

from upgradelab.targets.options import OptionError, render_option, validate_option


@pytest.mark.parametrize(
    ("name", "value", "line"),
    [
        ("innodb_log_writer_threads", "OFF", "innodb-log-writer-threads=OFF"),
        ("skip-log-bin", None, "skip-log-bin"),
        ("innodb_buffer_pool_size", "64M", "innodb-buffer-pool-size=64M"),
        ("loose_innodb_parallel_read_threads", "4", "loose-innodb-parallel-read-threads=4"),
        (
            "sql_mode",
            "STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION",
            "sql-mode=STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION",
        ),
    ],
)
def test_valid_options_render_as_one_option_file_line(name: str, value: str | None, line: str) -> None:
    assert render_option(name, value) == line


@pytest.mark.parametrize(
    ("name", "value", "fragment"),
    [
        ("innodb_buffer_pool_size", "64M\ninit-file=/tmp/evil.sql", "value"),
        ("innodb_buffer_pool_size\n[client]", "1", "name"),
        ("max_connections", "--init-file=/x", "value"),
        ("general_log", "ON # comment", "value"),
        ("sql_mode", "'ANSI'", "value"),
        ("--init-file", "/tmp/x", "name"),
        ("datadir", "/tmp", "managed"),
        ("loose-init_file", "/tmp/x.sql", "init SQL"),
    ],
)
def test_injection_and_managed_options_are_refused_naming_the_option(
    name: str, value: str, fragment: str
) -> None:
    with pytest.raises(OptionError) as refused:
        validate_option(name, value)
    assert fragment in str(refused.value)
    assert repr(name) in str(refused.value) or repr(value) in str(refused.value)


@pytest.mark.parametrize("name", ["port", "socket", "user", "bind_address", "plugin-dir", "secure_file_priv"])
def test_provisioner_owned_options_cannot_be_overridden(name: str) -> None:
    with pytest.raises(OptionError, match=r"is refused: (managed by the provisioner|network|plugin)"):
        validate_option(name, "1")
