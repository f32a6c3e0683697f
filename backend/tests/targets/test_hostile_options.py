"""Hostile startup options and SET names: each refused with the option and the reason named, before
anything reaches an option file, by category and against the target binary's own option list."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import lab_provisioner
from upgradelab.experiments.server_settings import SettingError, validate_variable
from upgradelab.targets import option_categories as category
from upgradelab.targets.option_categories import option_refusal, variable_refusal
from upgradelab.targets.option_names import ServerNames, cache_path, check_lines, server_names
from upgradelab.targets.options import OptionError, validate_option
from upgradelab.targets.provisioners import LocalProvisioner, ProvisionError

# (option name, value or None for a bare flag, the category's reason)
BY_CATEGORY = [
    ("innodb-tmpdir", "/tmp", category.PATH),
    ("innodb-temp-tablespaces-dir", "/tmp", category.PATH),
    ("innodb-doublewrite-dir", "/tmp", category.PATH),
    ("innodb_data_file_path", "/tmp/ibdata1:12M", category.PATH),
    ("aria-log-dir-path", "/tmp", category.PATH),
    ("character-sets-dir", "/tmp", category.PATH),
    ("ssl-key", "/etc/shadow", category.PATH),
    ("caching-sha2-password-private-key-path", "/etc/shadow", category.PATH),
    ("plugin-load", "ha_evil.so", category.PLUGIN),
    ("plugin_load_add", "ha_evil.so", category.PLUGIN),
    ("early-plugin-load", "keyring_file.so", category.PLUGIN),
    ("plugin-dir", "/tmp", category.PLUGIN),
    ("keyring-file-data", "/tmp/keyring", category.PLUGIN),
    ("wsrep-provider", "/tmp/evil.so", category.PLUGIN),
    ("skip-grant-tables", None, category.GRANTS),
    ("loose-skip-grant-tables", None, category.GRANTS),
    ("admin-address", "0.0.0.0", category.NETWORK),
    ("bind-address", "0.0.0.0", category.NETWORK),
    ("port", "3306", category.NETWORK),
    ("admin-port", "33062", category.NETWORK),
    ("mysqlx-bind-address", "0.0.0.0", category.NETWORK),
    ("init-file", "/tmp/x.sql", category.INIT_SQL),
    ("loose-init-file", "/tmp/x.sql", category.INIT_SQL),
    ("init-connect", "DROP DATABASE mysql", category.INIT_SQL),
    ("init_slave", "DROP DATABASE mysql", category.INIT_SQL),
    ("log-error", "/tmp/e.log", category.LOGS),
    ("general-log-file", "/tmp/g.log", category.LOGS),
    ("slow-query-log-file", "/tmp/s.log", category.LOGS),
    ("log-slow-query-file", "/tmp/s.log", category.LOGS),
    ("log-basename", "evil", category.LOGS),
    ("log-bin", "/tmp/binlog", category.LOGS),
    ("relay-log", "/tmp/relay", category.LOGS),
    ("datadir", "/tmp/d", category.MANAGED),
    ("secure-file-priv", "", category.MANAGED),
    ("secure-file-pri", "", category.MANAGED),  # a prefix, caught by the secure-* rule already
    ("tmpdir", "/tmp", category.MANAGED),
    ("socket", "/tmp/evil.sock", category.MANAGED),
    ("user", "root", category.MANAGED),
    ("debug", "d:o,/tmp/trace", category.DEBUG),
    ("local-infile", "ON", category.FILE_ACCESS),
    ("skip-local-infile", None, category.FILE_ACCESS),
    ("symbolic-links", "1", category.SYMLINKS),
    ("loose-symbolic-links", "ON", category.SYMLINKS),
    ("skip-symbolic-links", None, category.SYMLINKS),
    ("feedback", "ON", category.PHONE_HOME),
    ("feedback-url", "http://127.0.0.1/", category.PHONE_HOME),
    ("feedback-http-proxy", "127.0.0.1:8080", category.PHONE_HOME),
    ("feedback-user-info", "lab", category.PHONE_HOME),
    ("feedback-send-timeout", "60", category.PHONE_HOME),
    ("log-error-services", "log_filter_internal,log_sink_syseventlog", category.PLUGIN),
    ("allow-suspicious-udfs", None, category.PLUGIN),
    ("mandatory-roles", "upgradelab@localhost", category.PRIVILEGES),
    ("redirect-url", "mysql://127.0.0.1:1", category.NETWORK),
    ("federated", "ON", category.NETWORK),
    ("enable-federated", None, category.NETWORK),
    ("ndbcluster", None, category.NETWORK),
    ("ndb-nodeid", "1", category.NETWORK),
    ("gdb", None, category.DEBUG),
]
# Words no accepted option name of a lab binary may hold: code loading, phone-home, other hosts,
# files outside, privileges for everyone (tests the binaries' own lists, new versions included).
NEVER_ACCEPTED = (
    "feedback", "symbolic", "symlink", "local-infile", "federated", "ndbcluster", "plugin-load",
    "plugin-dir", "keyring", "udf", "telemetry", "redirect", "component", "wsrep", "init-file",
    "init-connect", "grant-tables", "mandatory-roles", "log-error-services",
)  # fmt: skip
# Names MariaDB and MySQL expand as unique prefixes of refused options, and other inexact names.
NOT_EXACT = [
    "init-fil=/tmp/x.sql",
    "datadi=/tmp/d",
    "log-erro=/tmp/e.log",
    "loose-init-fil=/tmp/x.sql",
    "innodb-buffer-pool-siz=64M",
    "maximum-max-connections=10",
    "skip-innodb-buffer-pool-size",
    "x" * 10_000 + "=1",
]
FINE = [
    "skip-log-bin",
    "log-bin",
    "innodb_buffer_pool_size=64M",
    "loose-innodb-parallel-read-threads=4",
    "loose-no-such-option-anywhere=1",
    "performance-schema-consumer-events-waits-current=ON",
    "skip-name-resolve",
]


@pytest.fixture(scope="module", params=["mysql-9.7", "mariadb-10.11", "mariadb-11.8"])
def fresh(request: pytest.FixtureRequest, database: None) -> Iterator[LocalProvisioner]:
    """A lab target's provisioner in a server directory nothing has written yet."""
    yield lab_provisioner(request.param, suffix="h3-hostile")


@pytest.fixture(scope="module")
def names(fresh: LocalProvisioner) -> ServerNames:
    return server_names(fresh)


def _line(name: str, value: str | None) -> str:
    return name if value is None else f"{name}={value}"


@pytest.mark.parametrize(("name", "value", "reason"), BY_CATEGORY)
def test_each_category_is_refused_naming_the_option_and_the_reason(
    name: str, value: str | None, reason: str
) -> None:
    with pytest.raises(OptionError) as refused:
        validate_option(name, value)
    assert repr(name) in str(refused.value) and reason in str(refused.value)


@pytest.mark.parametrize(("name", "value", "reason"), BY_CATEGORY)
def test_preflight_refuses_each_category_before_writing_an_option_file(
    fresh: LocalProvisioner, names: ServerNames, name: str, value: str | None, reason: str
) -> None:
    with pytest.raises(ProvisionError) as refused:
        fresh.check_options(["innodb-buffer-pool-size=64M", _line(name, value)])
    assert repr(name) in str(refused.value) and reason in str(refused.value)
    assert not Path(fresh._host()).exists(), "nothing may be written for a refused option"


@pytest.mark.parametrize("line", NOT_EXACT, ids=lambda line: line[:30])
def test_names_the_binary_does_not_list_in_full_are_refused(
    fresh: LocalProvisioner, names: ServerNames, line: str
) -> None:
    with pytest.raises(ProvisionError) as refused:
        fresh.check_options([line])
    message = str(refused.value)
    assert "not an option name of" in message and names.server in message
    assert len(message) < 400, "a long name is cut in the message"
    assert not Path(fresh._host()).exists()


@pytest.mark.parametrize("line", FINE)
def test_exact_names_and_loose_names_the_server_ignores_pass(names: ServerNames, line: str) -> None:
    check_lines(names, [line])


def test_the_names_come_from_the_binary_and_are_cached_per_binary(
    fresh: LocalProvisioner, names: ServerNames
) -> None:
    assert "innodb-buffer-pool-size" in names.options and "skip-grant-tables" in names.options
    assert "log-bin" in names.flags and "innodb-buffer-pool-size" not in names.flags
    assert names.server.split()[0] in {"mysqld", "mariadbd"}
    cached = cache_path(fresh.target_name)
    stale = cached.read_text().replace(fresh.binary_identity(), "another binary")
    cached.write_text(stale.replace('"innodb-buffer-pool-size", ', ""))
    assert server_names(fresh) == names, "a changed binary identity reads the list again"
    assert fresh.binary_identity() in cached.read_text()


def test_an_admin_listed_exception_is_allowed(names: ServerNames) -> None:
    with pytest.raises(OptionError, match=category.PATH):
        check_lines(names, ["innodb-tmpdir=/tmp"])
    check_lines(names, ["innodb-tmpdir=/tmp"], allowed=["innodb_tmpdir"])


@pytest.mark.parametrize(
    ("variable", "reason"),
    [
        ("log_slow_query_file", category.LOGS),
        ("slow_query_log_file", category.LOGS),
        ("general_log_file", category.LOGS),
        ("debug", category.DEBUG),
        ("debug_dbug", category.DEBUG),
        ("sql_log_bin", category.BINLOG_BYPASS),
        ("local_infile", category.FILE_ACCESS),
        ("init_connect", category.INIT_SQL),
        ("secure_auth", category.MANAGED),
        ("plugin_maturity", category.PLUGIN),
        ("innodb_tmpdir", category.PATH),
        ("keyring_file_data", category.PLUGIN),
        ("log_error_services", category.PLUGIN),
        ("feedback_url", category.PHONE_HOME),
        ("mandatory_roles", category.PRIVILEGES),
        ("have_symlink", category.SYMLINKS),
        ("redirect_url", category.NETWORK),
    ],
)
@pytest.mark.parametrize("scope", ["SET GLOBAL", "SET SESSION"])
def test_set_names_are_refused_by_category(scope: str, variable: str, reason: str) -> None:
    with pytest.raises(SettingError) as refused:
        validate_variable(scope, variable, "1")
    assert f"{scope} {variable!r}" in str(refused.value) and reason in str(refused.value)


def test_startup_option_and_set_global_rules_agree_on_every_name_the_binary_lists(names: ServerNames) -> None:
    """`log-error-services` was refused as SET GLOBAL but taken as a startup option: one rule for both."""
    differ = {
        name: (option_refusal(name, "x"), variable_refusal(name))
        for name in names.options
        if name != "log-bin"  # a flag at start-up, never SET (tested above)
        and (option_refusal(name, "x") is None) != (variable_refusal(name) is None)
    }
    assert differ == {}


def test_no_option_that_loads_code_phones_home_or_writes_outside_is_accepted(names: ServerNames) -> None:
    accepted = sorted(
        name
        for name in names.options
        if any(word in name for word in NEVER_ACCEPTED) and option_refusal(name, "x") is None
    )
    assert accepted == [], f"{names.server} lists options no category refuses"
    assert {"symbolic-links", "local-infile"} <= names.options, "the names the sandbox turns off exist"
