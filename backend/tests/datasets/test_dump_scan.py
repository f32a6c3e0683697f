"""The dump scan reads a dump as each server's client reads it (no server: the loads are in
test_hostile_dumps.py): client commands outside strings and comments are refused with their line,
whatever the block boundaries; the same text inside strings and comments is not; version comments
are SQL; databases and DEFINER clauses are found; the client is launched as the `mysql` user."""

import os
from pathlib import Path

import pytest

from upgradelab.datasets.loader import client_launch
from upgradelab.datasets.scan import MARGIN, DumpReader, DumpRefused
from upgradelab.targets.provisioners.base import Endpoint

CLIENTS = ["mysql", "mariadb"]


def read(text: bytes | str, client: str = "mysql", block: int | None = None) -> DumpReader:
    """The reader after the whole text, fed in blocks of `block` bytes (one block by default)."""
    data = text.encode() if isinstance(text, str) else text
    reader = DumpReader("mariadb" if client == "mariadb" else "mysql")
    size = block or max(1, len(data))
    out = b"".join(reader.feed(data[at : at + size]) for at in range(0, len(data), size))
    reader.out = out + reader.finish()  # type: ignore[attr-defined]
    return reader


def refusal(text: bytes | str, client: str = "mysql", block: int | None = None) -> DumpRefused:
    with pytest.raises(DumpRefused) as refused:
        read(text, client, block)
    return refused.value


# (dump, line, what the message names): every client command of the two clients, short and named
REFUSED = [
    ("SELECT 1;\n\\! touch /tmp/m\n", 2, "`\\!` (system)"),
    ("SELECT 1;\nsystem touch /tmp/m\n", 2, "`system`"),
    ("SELECT 1;\nSYSTEM touch /tmp/m;\n", 2, "`system`"),
    ("SELECT 1; system touch /tmp/m;\n", 1, "`system`"),  # a statement's first word, mid-line
    ("SELECT 1;\n\\. /etc/passwd\n", 2, "`\\.` (source)"),
    ("SELECT 1;\nsource /etc/passwd\n", 2, "`source`"),
    ("-- a comment first\n  source /etc/passwd;\n", 2, "`source`"),
    ("/* a comment */ source /etc/passwd;\n", 1, "`source`"),
    ("tee /tmp/m\nSELECT 1;\n", 1, "`tee`"),
    ("SELECT 1 \\T /tmp/m\n;\n", 1, "`\\T` (tee)"),
    ("pager touch /tmp/m\n", 1, "`pager`"),
    ("SELECT 1;\n\\P touch /tmp/m\n", 2, "`\\P` (pager)"),
    ("connect other 10.0.0.1\n", 1, "`connect`"),
    ("SELECT 1;\n\\r other 10.0.0.1\n", 2, "`\\r` (connect)"),
    ("\\u other\n", 1, "`\\u` (use)"),
    ("edit\n", 1, "`edit`"),
    ("SELECT 1 \\e\n", 1, "`\\e` (edit)"),
    ("SELECT 1 \\g\n", 1, "`\\g` (go)"),
    ("\\C gbk\nSELECT 1;\n", 1, "`\\C` (charset)"),  # a multi-byte charset would change the reading
    ("prompt x\n", 1, "`prompt`"),
    ("? contents\n", 1, "`?`"),
    ("exit\n", 1, "`exit`"),
    ("/*!50001 SELECT 1 */;\n/*!50001 SELECT 2 \\! id > /tmp/m */;\n", 2, "`\\!` (system)"),
    ("SELECT '\\\\';\n\\! id\n", 2, "`\\!`"),  # an escaped backslash ends nothing
    ("SELECT 'it''s';\n\\! id\n", 2, "`\\!`"),  # a doubled quote closes and reopens
    ("SELECT `a\\`; \\! id\n", 1, "`\\!`"),  # no escapes in backticks
    ("SELECT 'a\nb\nc';\n\\! id\n", 4, "`\\!`"),  # a string over lines counts its lines
    ("/* a\n comment\n*/ SELECT 1;\n\\! id\n", 4, "`\\!`"),
    ("SELECT 1;\nDELIMITER //\nSELECT 2//\n\\! id\n", 4, "`\\!`"),
    ("DELIMITER //\nSELECT 2//system x//\n", 2, "`system`"),
]


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize(("dump", "line", "named"), REFUSED)
def test_client_command_is_refused_naming_its_line(client: str, dump: str, line: int, named: str) -> None:
    refused = refusal(dump, client)
    assert refused.line == line
    assert f"at line {line} of the dump" in str(refused) and named in str(refused), str(refused)


ALLOWED = [
    "SELECT '\\! touch /tmp/m';\n",
    'SELECT "system touch /tmp/m";\n',
    "SELECT `\\!`;\n",
    "SELECT 1; -- \\! touch /tmp/m\n",
    "SELECT 1; # \\! touch /tmp/m\n",
    "/* \\! touch /tmp/m\nsystem touch /tmp/m */ SELECT 1;\n",
    "SELECT 'a\n\\! touch /tmp/m\n';\n",  # a string over lines
    "CREATE TABLE t (\n  system INT,\n  source VARCHAR(8),\n  tee INT\n);\n",  # column names
    "INSERT INTO t VALUES (1,'x'),(NULL,\\N);\n",  # \N is SQL's NULL
    "DELIMITER ;;\nCREATE PROCEDURE p() BEGIN SELECT 'system'; END;;\nDELIMITER ;\n",
    # inside a DELIMITER block `;` ends no statement: `status` is a variable, not the client's command
    "DELIMITER ;;\nCREATE PROCEDURE p() BEGIN DECLARE status INT; SET status = 1;\n"
    "status: LOOP LEAVE status; END LOOP; END;;\n",
    "USE shop;\nSELECT 1;\n",
    "/*!40101 SET NAMES utf8mb4 */;\n/*!50003 SET sql_mode = '' */ ;;\n",
]


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("dump", ALLOWED)
def test_the_same_text_in_strings_and_comments_is_sql(client: str, dump: str) -> None:
    assert read(dump, client).out == dump.encode()  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("dump", "mysql", "mariadb"),
    [
        # MariaDB's client takes `--x` at a statement's start for a comment, MySQL's does not
        ("--x '\n\\! id\n", None, 2),
        # `/*M!` is SQL for MariaDB's client, a comment for MySQL's
        ("/*M! ' */ \\! id\n", 1, None),
        # MySQL's hints hold no strings; MariaDB reads `/*+` as a comment
        ("SELECT /*+ BKA(t) ' */ 1 \\! id;\n", 1, 1),
        ("/*M!999999\\- enable the sandbox mode */\nSELECT 1;\n", None, None),  # mariadb-dump's first line
    ],
)
def test_each_client_is_read_as_it_reads(dump: str, mysql: int | None, mariadb: int | None) -> None:
    for client, line in (("mysql", mysql), ("mariadb", mariadb)):
        if line is None:
            read(dump, client)
        else:
            assert refusal(dump, client).line == line, client


@pytest.mark.parametrize(
    ("dump", "reason"),
    [
        ("SELECT 1; DELIMITER //\n", "DELIMITER must start a line of its own"),
        ("DELIMITER abc\n", "DELIMITER 'abc'"),
        ("DELIMITER\n", "DELIMITER ''"),
        ("DELIMITER \\\\\n", "DELIMITER"),
        ("SELECT 'a\x00';\n", "a NUL byte"),
        ("USE mysql;\n", "database `mysql` is the server's own"),
        ("CREATE DATABASE IF NOT EXISTS `performance_schema`;\n", "`performance_schema`"),
        ("DROP SCHEMA sys;\n", "`sys`"),
        ("CREATE DATABASE `a b`;\n", "'a b'"),
    ],
)
def test_what_else_is_refused(dump: str, reason: str) -> None:
    for client in CLIENTS:
        assert reason in str(refusal(dump, client))


def test_databases_created_dropped_or_used_are_found_with_their_line() -> None:
    dump = (
        "/*M!999999\\- enable the sandbox mode */\n"
        "CREATE DATABASE /*!32312 IF NOT EXISTS*/ `shop` /*!40100 DEFAULT CHARACTER SET utf8mb4 */;\n"
        "USE `shop`;\n"
        "DROP SCHEMA IF EXISTS s;\nCREATE SCHEMA s;\nUSE s;\n"
        "create or replace database `we``ird`;\n"
        "/*!50003 ALTER DATABASE `crm` CHARACTER SET utf8mb4 */ ;\n"
        "ALTER DATABASE CHARACTER SET utf8mb4;\n"
        "SELECT 'USE other';\n"
        "CREATE TABLE elsewhere.t (a INT);\n"
    )
    for client in CLIENTS:
        with pytest.raises(DumpRefused, match="we`ird"):
            read(dump, client)
        found = read(dump.replace("we``ird", "weird"), client).databases
        # a statement's line is where it starts for its client: MariaDB's first one holds line 1
        assert found == {"shop": 2 if client == "mysql" else 1, "s": 4, "weird": 7, "crm": 8}


@pytest.mark.parametrize(
    ("clause", "lines"),
    [
        ("DEFINER=`root`@`localhost`", 0),
        ("DEFINER='root'@'localhost'", 0),
        ('DEFINER="root"@"%"', 0),
        ("DEFINER=root@localhost", 0),
        ("definer = `root` @ `127.0.0.1`", 0),
        ("DEFINER=`a role`", 0),
        ("DEFINER=CURRENT_USER()", 0),
        ("DEFINER=\n  `root`@`localhost`", 1),
    ],
)
def test_definer_clauses_in_sql_are_rewritten_keeping_lines(clause: str, lines: int) -> None:
    dump = (
        f"/*!50003 CREATE*/ /*!50017 {clause}*/ /*!50003 TRIGGER t BEFORE INSERT ON x FOR EACH ROW "
        "SET NEW.a = 'DEFINER=`root`@`localhost`' */;\n"
        f"CREATE {clause} SQL SECURITY DEFINER VIEW v AS SELECT 1;\n\\! id\n"
    )
    for client in CLIENTS:
        reader = DumpReader("mariadb" if client == "mariadb" else "mysql")
        with pytest.raises(DumpRefused) as refused:
            reader.feed(dump.encode())
            reader.finish()
        assert refused.value.line == 3 + 2 * lines and reader.definers == 2
        out = read(dump.replace("\\! id\n", ""), client).out  # type: ignore[attr-defined]
        newlines = "\n" * lines
        assert out.decode() == (
            f"/*!50003 CREATE*/ /*!50017 DEFINER=CURRENT_USER{newlines}*/ /*!50003 TRIGGER t BEFORE "
            "INSERT ON x FOR EACH ROW SET NEW.a = 'DEFINER=`root`@`localhost`' */;\n"
            f"CREATE DEFINER=CURRENT_USER{newlines} SQL SECURITY DEFINER VIEW v AS SELECT 1;\n"
        )


def _long_dump() -> tuple[str, int]:
    """~50 KB: strings over lines, comments, DEFINERs, DELIMITER blocks, then `\\!`; and its line."""
    parts = []
    for n in range(1000):
        kind = n % 5
        if kind == 0:
            parts.append(f"INSERT INTO t VALUES ({n},'it\\'s \\\\ {n};','a\\nb'),({n},\"x\",NULL);")
        elif kind == 1:
            parts.append(f"/* comment {n} \\! not a command */ SELECT '{n}")  # the string goes on
        elif kind == 2:
            parts.append(f"{n}' AS s; -- \\! not a command")
        elif kind == 3:
            parts.append(f"CREATE DEFINER=`root`@`localhost` FUNCTION f{n}() RETURNS INT RETURN {n};")
        else:
            parts.append(f"DELIMITER ;;\nCREATE PROCEDURE p{n}() BEGIN SELECT 1; END;;\nDELIMITER ;")
    text = "\n".join(parts) + "\n"
    return text + "\\! touch /tmp/m\n", text.count("\n") + 1


@pytest.mark.parametrize("client", CLIENTS)
def test_block_boundaries_change_nothing(client: str) -> None:
    dump, line = _long_dump()
    assert len(dump) > 8 * MARGIN
    clean = dump.rsplit("\\!", 1)[0]
    whole = read(clean, client)
    for block in [1, 2, 3, 7, 64, MARGIN - 1, MARGIN, MARGIN + 1, 5003, 3 * MARGIN + 17]:
        assert refusal(dump, client, block).line == line, block
        again = read(clean, client, block)
        assert again.out == whole.out and again.definers == whole.definers == 200, block  # type: ignore[attr-defined]
    assert b"`root`@`localhost`" not in whole.out  # type: ignore[attr-defined]


@pytest.mark.parametrize("client", CLIENTS)
def test_a_command_split_at_every_offset_is_still_found(client: str) -> None:
    for pad in range(MARGIN - 40, MARGIN + 40):
        dump = "SELECT '" + "x" * pad + "';\nsystem touch /tmp/m\n"
        assert refusal(dump, client, MARGIN + 20).line == 2, pad
        dump = "SELECT " + "1" * pad + "; \\! touch /tmp/m\n"
        assert refusal(dump, client, MARGIN + 20).line == 1, pad


def test_byte_order_mark_then_command_is_refused() -> None:
    assert refusal("\ufeffsystem touch /tmp/m\n").line == 1


def _passwd(root: Path, uid: int) -> Path:
    (root / "etc").mkdir(parents=True)
    (root / "etc/passwd").write_text(
        f"root:x:0:0::/root:/bin/sh\nmysql:x:{uid}:{uid + 1}::/nonexistent:/bin/false\n"
    )
    return root


def test_the_client_is_launched_as_mysql_with_commands_off_and_a_bare_environment(tmp_path: Path) -> None:
    root = _passwd(tmp_path / "chroot", 999)
    flags = ["--no-defaults", "--protocol=TCP", "--host=127.0.0.1", "--port=1", "--user=upgradelab"]
    chrooted = Endpoint(
        "127.0.0.1", 1, "upgradelab_load", "pw", client=("chroot", str(root), "/usr/bin/mysql", *flags)
    )
    launch = client_launch(chrooted, "mysql", "shop")
    assert launch.argv[:3] == ["chroot", "--userspec=999:1000", str(root)]
    assert "--user=upgradelab_load" in launch.argv and "--user=upgradelab" not in launch.argv
    assert {"--binary-mode", "--loose-commands=OFF", "--database=shop"} <= set(launch.argv)
    assert launch.env == {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/", "MYSQL_PWD": "pw"}

    host = Endpoint("127.0.0.1", 1, "upgradelab_load", "pw", client=("/usr/bin/mariadb", *flags))
    launch = client_launch(host, "mariadb", "shop")
    assert {"--binary-mode", "--loose-sandbox"} <= set(launch.argv)
    assert os.geteuid() != 0 or (launch.uid, launch.gid) == _host_mysql_ids()
    assert launch.uid != 0

    docker = Endpoint(
        "127.0.0.1", 1, "upgradelab_load", "pw",
        client=("docker", "exec", "-i", "-e", "MYSQL_PWD", "c1", "mariadb", *flags),
    )  # fmt: skip
    assert client_launch(docker, "mariadb", "shop").argv[:5] == ["docker", "exec", "--user", "mysql", "-i"]


def _host_mysql_ids() -> tuple[int, int]:
    for line in Path("/etc/passwd").read_text().splitlines():
        fields = line.split(":")
        if fields[0] == "mysql":
            return int(fields[2]), int(fields[3])
    raise AssertionError("no mysql user on this host")


# Each: a quote, a comment start, a delimiter, a DEFINER or a command the reader's one-call paths
# (blank lines, comments, whole statements, strings over lines) pass over or stop at.
SPLIT = [
    "SELECT 1;\n\n\n-- c\n# c\n/* c */\n\n\\! id\n",
    "SELECT 'a\nb;\n\\! id\n' ;\n\\! id\n",
    'SELECT "a\n-- b" ; /* x\n */ system id\n',
    "SELECT `a\n` ;\n/* a */ /* b\n*/ tee x\n",
    "INSERT INTO t VALUES (1,'a''b','c\\'d','e\\\\'),(2,\"f\",NULL);\nSELECT 1 \\T x\n",
    "SELECT a-b, a/b, a*b, 'x'/*c*/ FROM t -- c\n;\nCREATE DEFINER=`r`@`h` VIEW v AS SELECT 1;\n\\! id\n",
    "SELECT 1; /*!50001 SELECT 2 */;\n/*!50001 SELECT 3 \\! id */;\n",
    "DELIMITER //\nSELECT 1//\nSELECT 2; SELECT 3//\n  \n-- c\nsystem id//\n",
    "DELIMITER $$\nCREATE PROCEDURE p() BEGIN SELECT 'x$$'; END$$\nDELIMITER ;\nSELECT 1;\n\\! id\n",
    "DELIMITER #\nSELECT 1 # not a comment now\n#\nsource x#\n",
    "DELIMITER -\nSELECT 1-\n--x\n-source x-\n",
    "SELECT 1;\nUSE shop;\nCREATE DATABASE IF NOT EXISTS `crm`;\nDROP SCHEMA /* c */ old;\n\\! id\n",
    "SELECT 1;\n" + "\n" * 300 + "USE mysql;\n",
    "SELECT 1;\nSELECT 'a\\\nb';\nSELECT 2 \\! id\n",
]


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("dump", SPLIT)
def test_a_split_anywhere_reads_as_the_whole(client: str, dump: str) -> None:
    """Blocks of 1 byte (a pause at every offset) and others: the same refusal (line, reason) or the
    same output, databases, DEFINERs and lines as the dump read in one block. A filler after the
    dump makes feed() read it (the last MARGIN bytes wait for finish())."""
    dump += "-- a filler line, so what is above is read block by block\n" * (MARGIN // 40)

    def outcome(block: int | None) -> object:
        try:
            reader = read(dump, client, block)
        except DumpRefused as refused:
            return refused.line, refused.reason
        return reader.out, reader.databases, reader.definers, reader.line  # type: ignore[attr-defined]

    whole = outcome(None)
    assert isinstance(whole, tuple) and whole[0] is not None
    for block in [1, 2, 3, 5, 7, 13, 64, 257, 1000, MARGIN + 1]:
        assert outcome(block) == whole, block


def test_what_the_split_dumps_are_read_as() -> None:
    """The reading itself (the test above only compares block sizes): lines, refusals, databases."""
    assert refusal(SPLIT[0]).line == 8 and refusal(SPLIT[1]).line == 5 and refusal(SPLIT[2]).line == 3
    assert "`tee`" in refusal(SPLIT[3]).reason and refusal(SPLIT[5]).line == 4
    assert read(SPLIT[1].rsplit("\\!", 1)[0]).line == 5
    assert refusal(SPLIT[6]).line == 2 and refusal(SPLIT[7]).line == 6 and refusal(SPLIT[8]).line == 5
    assert "`source`" in refusal(SPLIT[9]).reason and "`source`" in refusal(SPLIT[10], "mariadb").reason
    assert read(SPLIT[11].rsplit("\\!", 1)[0]).databases == {"shop": 2, "crm": 3, "old": 4}
    assert refusal(SPLIT[12]).line == 302 and "`mysql`" in refusal(SPLIT[12]).reason
    assert refusal(SPLIT[13]).line == 4


def test_a_byte_order_mark_split_over_blocks_is_still_skipped() -> None:
    assert refusal("\ufeffsystem touch /tmp/m\n", block=1).line == 1
    assert read("\ufeffSELECT 1;\n", block=2).out == "\ufeffSELECT 1;\n".encode()  # type: ignore[attr-defined]


def _bounded(text: bytes, limit: int, block: int) -> DumpReader:
    reader = DumpReader("mysql", max_statement=limit, limit="the test's limit")
    for at in range(0, len(text), block):
        reader.feed(text[at : at + block])
    reader.finish()
    return reader


@pytest.mark.parametrize("block", [7, 1000, 1 << 20])
def test_a_statement_or_a_line_past_the_bound_is_refused_naming_it(block: int) -> None:
    limit = 10_000
    fits = b"SELECT 1;\n" + b"INSERT INTO t VALUES ('" + b"x" * (limit - 40) + b"');\n"
    blank_lines = b"\n" * (3 * limit)  # between statements: part of none
    assert _bounded(fits + blank_lines + fits, limit, block).line == 3 * limit + 5
    long_string = b"SELECT 1;\nINSERT INTO t VALUES ('" + b"x\n" * limit + b"');\n"
    with pytest.raises(DumpRefused) as refused:
        _bounded(long_string, limit, block)
    assert refused.value.line == 2
    assert "a statement longer than 10000 bytes (the test's limit)" in str(refused.value)
    long_comment = b"SELECT 1;\n-- " + b"x" * (2 * limit) + b"\nSELECT 2;\n"
    with pytest.raises(DumpRefused, match="a line longer than 10000 bytes") as refused:
        _bounded(long_comment, limit, block)
    assert refused.value.line == 2


@pytest.mark.parametrize("client", CLIENTS)
def test_a_definer_cut_by_a_block_end_is_still_rewritten(client: str) -> None:
    """A block ending inside `DEFINER` after a run of plain SQL that reaches the block's end."""
    head = "CREATE ALGORITHM=UNDEFINED" + " " * (MARGIN + 100)  # as mysqldump writes a view
    dump = head + "DEFINER=`root`@`localhost` VIEW v AS SELECT 1;\n"
    for cut in range(1, len("DEFINER=") + 1):
        reader = read(dump, client, block=len(head) + cut)
        assert reader.definers == 1 and b"DEFINER=CURRENT_USER VIEW" in reader.out, cut  # type: ignore[attr-defined]
