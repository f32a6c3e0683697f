"""A check from an uploaded option file (issue 35, Deliver 2: "a capture or an uploaded my.cnf x a
target version"): read as the server reads it (its groups, quotes, comments, the last line of an
option winning), refused whole when hostile, each offending line named, its server's own paths and
logs listed not tried (the lab sets those itself); a plain one checked against
MariaDB 11.8's binary through the API, the worker and `upgradelab capture check --my-cnf`, the option
it refuses named in its own words."""

import json
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from tests.conftest import auth_headers
from upgradelab.captures.my_cnf import MyCnfError, configuration, parse
from upgradelab.captures.option_check import team_lines
from upgradelab.cli import app

PLAIN = """# the team's server
[client]
port = 3306
init-command = "whatever the client runs"

[mysqld]
datadir = /var/lib/mysql
socket = "/run/mysqld/mysqld.sock"
log-error = /var/log/mysql/error.log
pid-file = /run/mysqld/mysqld.pid
max_connections = 50
innodb_change_buffer_max_size = 30   # MariaDB 11.8 removed it
sql_mode = "STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION"
skip-name-resolve

[mariadb-10.11]
max_connections = 77
"""
HOSTILE = """[mysqld]
!include /etc/shadow
max_connections = 77
init-file = /tmp/pwn.sql
sql_mode = "STRICT_TRANS_TABLES\\ninit-file=/tmp/pwn.sql"
character-set-server = utf8mb4\x0binit-file=/tmp/pwn.sql
pid-file = /run/mysqld.pid$(touch /tmp/pwn)
datadir = /var/lib/mysql
"""


def test_an_option_file_is_read_as_the_server_reads_its_groups() -> None:
    options = parse(PLAIN)
    # [client] skipped; the last max_connections (a versioned server group) wins; quotes and comments off
    assert [(o.line, o.name, o.value) for o in options] == [
        (7, "datadir", "/var/lib/mysql"),
        (8, "socket", "/run/mysqld/mysqld.sock"),
        (9, "log-error", "/var/log/mysql/error.log"),
        (10, "pid-file", "/run/mysqld/mysqld.pid"),
        (12, "innodb-change-buffer-max-size", "30"),
        (13, "sql-mode", "STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION"),
        (14, "skip-name-resolve", None),
        (17, "max-connections", "77"),
    ]
    lines, skipped = team_lines(configuration(options, "my.cnf"))
    # the server's own paths and log: the lab sets them itself, never writes the team's
    assert [(f.name, f.outcome, f.line) for f in skipped] == [
        (name, "not_tried", None) for name in ("datadir", "socket", "log_error", "pid_file")
    ]
    assert skipped[0].words.startswith("the lab sets datadir itself (managed by the provisioner")
    assert skipped[2].words.startswith("the lab sets log-error itself (log file location")
    assert [one.line for one in lines] == [
        "innodb-change-buffer-max-size=30",
        "sql-mode=STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION",
        "skip-name-resolve",  # a bare flag stays bare
        "max-connections=77",
    ]


def test_a_hostile_option_file_is_refused_naming_each_line() -> None:
    with pytest.raises(MyCnfError) as refused:
        parse(HOSTILE)
    said = refused.value.lines
    # a path the lab sets itself is no reason to refuse (line 8), a hostile value on one is (line 7)
    assert [one.split(":")[0] for one in said] == ["line 2", "line 4", "line 5", "line 6", "line 7"]
    assert "'!include' is refused" in said[0]
    assert "option 'init-file' is refused" in said[1]
    assert "backslash" in said[2] and "control character" in said[3]
    assert "value '/run/mysqld.pid$(touch /tmp/pwn)' of option 'pid-file' is not allowed" in said[4]
    with pytest.raises(MyCnfError, match="line 1: an option outside any"):
        parse("max_connections = 77\n")
    with pytest.raises(MyCnfError, match=r"line 2: .*not allowed"):
        parse("[server]\nmax_connections = --init-file=/tmp/x\n")  # a value read as an option


def test_the_api_and_the_cli_refuse_a_hostile_file_naming_its_lines(api: str, tmp_path: Path) -> None:
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
        refused = client.post("/api/captures/my-cnf", json={"name": "evil.cnf", "text": HOSTILE})
    assert refused.status_code == 422
    [detail] = refused.json()["detail"]
    assert detail["loc"] == ["body", "text"] and "line 2: '!include' is refused" in detail["msg"]
    hostile = tmp_path / "evil.cnf"
    hostile.write_text(HOSTILE)
    done = CliRunner().invoke(
        app, ["capture", "check", "--my-cnf", str(hostile), "--target", "mariadb-11.8", "--api", api]
    )
    assert done.exit_code == 2 and "line 4: option 'init-file' is refused" in done.output


def test_a_plain_file_is_checked_and_the_option_the_new_binary_refuses_named_in_its_words(
    api: str, tmp_path: Path
) -> None:
    plain = tmp_path / "my.cnf"
    plain.write_text(PLAIN)
    done = CliRunner().invoke(
        app, ["capture", "check", "--my-cnf", str(plain), "--target", "mariadb-11.8", "--json", "--api", api]
    )
    assert done.exit_code & 1, done.output  # a setting refused: the server would not start
    check = json.loads(done.stdout.strip().splitlines()[-1])
    assert check["status"] == "succeeded" and check["server"].startswith("mariadbd 11.8")
    findings = {f["name"]: f for f in check["findings"]}
    removed = findings["innodb_change_buffer_max_size"]
    assert removed["outcome"] == "refused" and removed["line"] == "innodb-change-buffer-max-size=30"
    assert "unknown variable 'innodb-change-buffer-max-size=30'" in removed["words"]
    assert {findings[n]["outcome"] for n in ("max_connections", "sql_mode", "skip_name_resolve")} == {
        "accepted"
    }
    for name in ("datadir", "socket", "log_error", "pid_file"):  # listed, never written to the new server
        assert findings[name]["outcome"] == "not_tried" and findings[name]["line"] is None
        assert findings[name]["words"].startswith(f"the lab sets {name.replace('_', '-')} itself (")
    assert check["account_findings"] == [] and check["identifier_findings"] == []
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
        capture = client.get(f"/api/captures/{check['capture_id']}").json()
    assert (capture["target"], capture["status"], capture["configuration"]["version_comment"]) == (
        "my.cnf",
        "succeeded",
        "option file my.cnf",
    )
