"""No account the lab makes for a dataset gets a privilege on the server's or the lab's own databases
(issue 30 finding 1), whatever form the name takes: the one rule (datasets/reserved.py) on every
name and case form, the scan refusing a dump that names one, and ensure_account refusing to grant
one before any statement reaches the server. No server here: the real-server checks are in
test_dataset_records.py and tests/replay/test_forged_marker_chain.py."""

import itertools
from typing import Any

import pytest

from tests.datasets.test_dump_scan import refusal as scan_refusal
from upgradelab.datasets.accounts import LOAD_PRIVILEGES, LOAD_USER, ensure_account
from upgradelab.datasets.reserved import LAB_PREFIXES, SYSTEM_DATABASES, ReservedDatabase, check, refusal

LAB_DATABASES = ["upgradelab_meta", "upgradelab_insert_truncate", "upgradelab", "lab_x", "lab_"]


def case_forms(name: str) -> set[str]:
    """Every upper/lower case spelling of `name` when it has at most 10 letters; else lower, upper,
    capitalised, alternating both ways and each single letter raised."""
    letters = [i for i, c in enumerate(name) if c.isalpha()]
    if len(letters) <= 10:
        forms = set()
        for raised in itertools.product((False, True), repeat=len(letters)):
            chars = list(name)
            for index, up in zip(letters, raised, strict=True):
                chars[index] = chars[index].upper() if up else chars[index]
            forms.add("".join(chars))
        return forms
    alternating = "".join(c.upper() if i % 2 else c for i, c in enumerate(name))
    forms = {name, name.upper(), name.capitalize(), alternating, alternating.swapcase()}
    return forms | {name[:i] + name[i].upper() + name[i + 1 :] for i in letters}


def odd_forms(name: str) -> list[str]:
    """Spellings a server might read as `name` (or that only a lax check would take for another)."""
    return [
        f"{name} ",  # a CHAR column in the grant tables drops trailing spaces
        f" {name}",
        f"{name}\t",
        f"{name}\n",
        f"`{name}`",
        f"{name}\x00",
        f"{name}.x",
        f"#mysql50#{name}",
        name.replace("s", "\u017f", 1),  # LATIN SMALL LETTER LONG S: casefolds to `s`
        name.replace("s", "\u0455", 1),  # CYRILLIC SMALL LETTER DZE, a look-alike
        "".join(chr(ord(c) + 0xFEE0) if c.isalpha() else c for c in name),  # full-width letters
        name[:-1] + "%",  # a LIKE wildcard (`_` is escaped where grants name it: the last test)
    ]


@pytest.mark.parametrize("name", sorted(SYSTEM_DATABASES))
def test_the_servers_own_databases_are_refused_in_every_case_form(name: str) -> None:
    forms = case_forms(name)
    assert len(forms) >= 8
    for form in forms:
        reason = refusal(form)
        assert reason is not None and f"`{form}` is the server's own" in reason, form
        with pytest.raises(ReservedDatabase, match="the server's own"):
            check(form)


@pytest.mark.parametrize("name", LAB_DATABASES)
def test_the_labs_own_databases_are_refused_in_every_case_form(name: str) -> None:
    assert name.lower().startswith(LAB_PREFIXES)
    for form in case_forms(name):
        reason = refusal(form)
        assert reason is not None and "the lab's own" in reason, form


def test_the_labs_database_on_an_existing_server_is_refused_in_every_case_form() -> None:
    assert refusal("shop_lab") is None
    for form in case_forms("shop_lab"):
        assert "the lab's own" in str(refusal(form, lab_database="shop_lab")), form
    assert refusal("shop", lab_database="shop_lab") is None


@pytest.mark.parametrize("name", [*sorted(SYSTEM_DATABASES), "upgradelab_meta"])
def test_odd_forms_of_a_reserved_name_are_refused(name: str) -> None:
    for form in odd_forms(name):
        if form == name:  # no `s` to replace
            continue
        assert refusal(form) is not None, repr(form)


@pytest.mark.parametrize(
    "name",
    ["shop", "shop_1", "x-y", "sample_own", "sbtest", "test", "mysql_tests", "sys2", "my_sql", "labs",
     "lab", "$cash", "UPPER_case", "a" * 64, "0"],
)  # fmt: skip
def test_a_datasets_own_names_are_allowed(name: str) -> None:
    assert refusal(name) is None and check(name) == name


@pytest.mark.parametrize("name", ["", "a" * 65, "a b", "a.b", "a/b", "a\\b", "caf\u00e9", "a'b", 'a"b'])
def test_names_outside_the_alphabet_are_refused(name: str) -> None:
    assert "names here are ASCII letters, digits, _, $ and -" in str(refusal(name))


@pytest.mark.parametrize(
    ("dump", "line", "named"),
    [
        ("SELECT 1;\nCREATE DATABASE upgradelab_meta;\n", 2, "`upgradelab_meta` is the lab's own"),
        ("CREATE DATABASE IF NOT EXISTS `UpgradeLab_Meta`;\n", 1, "`UpgradeLab_Meta` is the lab's own"),
        ("USE upgradelab_meta;\n", 1, "`upgradelab_meta` is the lab's own"),
        ("/*!40000 USE `lab_runs` */;\n", 1, "`lab_runs` is the lab's own"),
        ("USE `MySQL`;\n", 1, "`MySQL` is the server's own"),
        ("USE `mysql `;\n", 1, "'mysql '"),
    ],
)
def test_the_scan_refuses_a_dump_naming_a_reserved_database_with_its_line(
    dump: str, line: int, named: str
) -> None:
    for client in ("mysql", "mariadb"):
        refused = scan_refusal(dump, client)
        assert refused.line == line and named in str(refused), str(refused)


class _Cursor:
    def __init__(self, log: list[str], database: str | None) -> None:
        self.log, self.database = log, database

    def __enter__(self) -> "_Cursor":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def execute(self, sql: str, args: Any = None) -> None:
        self.log.append(sql)

    def fetchone(self) -> tuple[str | None]:
        return (self.database,)


class _Admin:
    """An admin connection that records statements; SELECT DATABASE() answers `database`."""

    def __init__(self, database: str | None = None) -> None:
        self.log: list[str] = []
        self.database = database

    def cursor(self) -> _Cursor:
        return _Cursor(self.log, self.database)


@pytest.mark.parametrize("reserved", ["mysql", "MYSQL", "sys", "upgradelab_meta", "lab_x", "mysql "])
def test_ensure_account_refuses_a_reserved_database_before_any_statement(reserved: str) -> None:
    admin = _Admin()
    with pytest.raises(ReservedDatabase):
        ensure_account(admin, LOAD_USER, LOAD_PRIVILEGES, ["shop", reserved])  # type: ignore[arg-type]
    assert admin.log == ["SELECT DATABASE()"]  # no CREATE USER, REVOKE or GRANT


def test_ensure_account_refuses_the_admins_own_database_on_an_existing_server() -> None:
    admin = _Admin(database="lab_home")
    with pytest.raises(ReservedDatabase, match="`lab_home` is the lab's own"):
        ensure_account(admin, LOAD_USER, LOAD_PRIVILEGES, ["lab_home"])  # type: ignore[arg-type]
    other = _Admin(database="shop_lab")  # a name outside the lab's prefixes, as an existing target may set
    with pytest.raises(ReservedDatabase, match="`Shop_Lab` is the lab's own"):
        ensure_account(other, LOAD_USER, LOAD_PRIVILEGES, ["shop", "Shop_Lab"])  # type: ignore[arg-type]
    assert other.log == ["SELECT DATABASE()"]


def test_ensure_account_grants_a_datasets_own_databases_escaped() -> None:
    admin = _Admin()
    ensure_account(admin, LOAD_USER, "SELECT", ["shop_1", "x-y"])  # type: ignore[arg-type]
    grants = [sql for sql in admin.log if sql.startswith("GRANT")]
    assert grants == [
        f"GRANT SELECT ON `{name}`.* TO '{LOAD_USER}'@'{host}'"
        for host in ("127.0.0.1", "%")
        for name in ("shop\\_1", "x-y")
    ]
