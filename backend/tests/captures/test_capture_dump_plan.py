"""What a capture's dump runs and holds, without a server: the dump client beside the lab binary's
client, as the `mysql` user of where it runs; the databases it leaves out; the tables whose rows fit
the data limit, whole, smallest first."""

import os
from pathlib import Path
from typing import Any

import pytest

from upgradelab.captures.dump import DumpFailed, data_tables, databases_to_dump, dump_command


class _Rows:
    """A connection whose every query answers `rows` (and records its parameters)."""

    def __init__(self, rows: list[tuple[Any, ...]]) -> None:
        self.rows = rows
        self.args: list[Any] = []

    def cursor(self) -> "_Rows":
        return self

    def __enter__(self) -> "_Rows":
        return self

    def __exit__(self, *_: object) -> None:
        return None

    def execute(self, sql: str, args: Any = None) -> None:
        self.args.append(args)

    def fetchall(self) -> list[tuple[Any, ...]]:
        return self.rows


@pytest.mark.skipif(os.geteuid() != 0, reason="the user switch is made only by a root worker")
def test_the_dump_client_runs_beside_the_lab_client_as_the_mysql_user(tmp_path: Path) -> None:
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/passwd").write_text(
        "root:x:0:0::/root:/bin/sh\nmysql:x:101:102::/nonexistent:/bin/false\n"
    )
    chrooted = ("chroot", str(tmp_path), "/usr/bin/mysql", "--no-defaults")
    assert dump_command(chrooted, "mysql") == [
        "chroot",
        "--userspec=101:102",
        str(tmp_path),
        "/usr/bin/mysqldump",
    ]
    host = dump_command(("/usr/bin/mariadb", "--no-defaults"), "mariadb")
    assert host[0] == "setpriv" and "--clear-groups" in host and host[-1] == "/usr/bin/mariadb-dump"
    (tmp_path / "etc/passwd").write_text("root:x:0:0::/root:/bin/sh\n")
    with pytest.raises(DumpFailed, match="must not run as root"):
        dump_command(chrooted, "mysql")
    with pytest.raises(DumpFailed, match="no dump client"):
        dump_command(("docker", "exec", "-i", "c", "mysql"), "mysql")


def test_the_servers_the_labs_and_option_like_databases_are_left_out_with_the_reason() -> None:
    names = [("app",), ("mysql",), ("labdb",), ("-evil",), ("upgradelab_meta",), ("shop 1",), ("sys",)]
    kept, left = databases_to_dump(_Rows(names), "labdb")  # type: ignore[arg-type]
    assert kept == ["app"]
    reasons = {one.name: one.reason for one in left}
    assert set(reasons) == {"labdb", "-evil", "upgradelab_meta", "shop 1"}  # the server's own: not listed
    assert "option" in reasons["-evil"] and "lab's own" in reasons["labdb"]


def test_whole_tables_fit_the_data_limit_smallest_first_the_rest_listed() -> None:
    mib = 1024 * 1024
    rows = [("app", "a", 0), ("app", "b", mib // 2), ("app", "c", mib // 2), ("app", "big", 3 * mib)]
    connection = _Rows(rows)
    fit, left = data_tables(connection, ["app", "crm"], 1)  # type: ignore[arg-type]
    assert fit == 3 and [one.name for one in left] == ["app.big"] and "past the 1 MiB limit" in left[0].reason
    assert connection.args == [["app", "crm"]]  # the databases bound, never spliced
