"""The lab's own statements among a server's digests (captures/own_statements.py): the digest texts
below are MariaDB 10.11's, read after two captures of the team's server (tests/captures), and MySQL
9.7's after the lab's reads and mysqldump ran twice on it; the lab's are left out of the workload and
counted, the team's stay, a name holding spaces or backticks too."""

from typing import Any

from upgradelab.captures import digests, own_statements

LAB = [
    "SELECT `VERSION` ( ) , @@`version_comment` ",
    "SELECT `VERSION` ( ) , @@`version_comment` , CURRENT_USER ( ) ",
    "SHOW GLOBAL VARIABLES ",
    "SHOW GLOBAL VARIABLES WHERE `Variable_name` IN (...) ",
    "SET NAMES `utf8mb4` ",
    "SELECT SYSTEM_USER , HOST , PLUGIN FROM `mysql` . `user` ORDER BY SYSTEM_USER , HOST ",
    "SELECT * FROM `performance_schema` . `events_statements_summary_by_digest` "
    "ORDER BY `COUNT_STAR` DESC LIMIT ? ",
    "SELECT `TABLE_SCHEMA` , TABLE_NAME FROM `information_schema` . `TABLES` "
    "WHERE `TABLE_SCHEMA` NOT IN (...) ORDER BY ?, ... ",
    "CREATE TABLE `labdb` . `upgradelab_capability_check` ( ID INTEGER PRIMARY KEY ) ",
    "SELECT ? FROM `qualify` WHERE ? = ? ",
    "SELECT `library` ( ) FROM DUAL WHERE ? = ? ",
    "SHOW CREATE TABLE `odd name``; DROP TABLE app.orders; --` ",
    "SELECT SQL_NO_CACHE `a` FROM `odd name``; DROP TABLE app.orders; --` ",
    "START TRANSACTION WITH CONSISTENT SNAPSHOT ",
    "ROLLBACK TO SAVEPOINT `sp` ",
    # issue 45: the workload's account read, the statements asked of the parser (measured on 10.11)
    "SELECT CURRENT_USER ( ) ",
    "PREPARE `upgradelab_parse` FROM ? ",
    "DEALLOCATE PREPARE `upgradelab_parse` ",
    "SET SESSION `max_statement_time` = ? ",
]
MYSQL_LAB = [
    "SELECT SYSTEM_USER , HOST , PLUGIN FROM `mysql` . `user` ORDER BY SYSTEM_USER , HOST",
    "ALTER INSTANCE ENABLE `INNODB` `REDO_LOG`",
    "SELECT `TABLE_SCHEMA` , TABLE_NAME FROM `information_schema` . `TABLES` "
    "WHERE `TABLE_SCHEMA` NOT IN (...) ORDER BY 1 , 2",
    "SHOW FIELDS FROM `orders`",
    "SHOW TABLE STATUS LIKE ?",
    "FLUSH LOCAL TABLES WITH READ LOCK",
    "SET SESSION `NET_READ_TIMEOUT` = ? , SESSION `NET_WRITE_TIMEOUT` = ?",
    "SELECT @@GLOBAL . `GTID_EXECUTED`",
    "SELECT `policy_name` FROM `performance_schema` . `column_masking_policy`",
    "SELECT `LIBRARY_NAME` FROM `INFORMATION_SCHEMA` . `LIBRARIES` WHERE `LIBRARY_SCHEMA` = ? "
    "ORDER BY `LIBRARY_NAME`",
    "SET @@SESSION . `terminology_use_previous` = NONE",
    "USE `app`",
]
TEAM = [
    "SELECT `total` FROM `app` . `orders` WHERE ID = ? ",
    "SELECT COUNT ( * ) FROM `app` . `orders` ",
    "SELECT ? AS `hostile` ",
    "SELECT `VERSION` ( ) , @@`version_comment` , `total` FROM `app` . `orders` ",  # a lab shape's prefix
    "SHOW GLOBAL VARIABLES LIKE ? ; DROP TABLE `app` . `orders` ",  # more than the shape: the team's
    # MySQL 9.7's, measured beside the lab's: the test's own statements
    "INSERT INTO `app` . `orders` VALUES (...)",
    "CREATE TABLE `app` . `orders` ( `id` INTEGER PRIMARY KEY , `total` INTEGER )",
    "SELECT ?",
    "PREPARE `stmt1` FROM ? ",  # the team's own prepared statements keep their names
]


def test_the_labs_statements_are_recognized_and_the_teams_are_not() -> None:
    assert [text for text in LAB + MYSQL_LAB if not own_statements.is_own(text)] == []
    assert [text for text in TEAM if own_statements.is_own(text)] == []
    assert not own_statements.is_own(None)  # the summary's row past its size: never the lab's


def _row(text: str, count: int) -> dict[str, Any]:
    return {"DIGEST": f"d{count}", "DIGEST_TEXT": text, "COUNT_STAR": count, "SCHEMA_NAME": "app"}


def test_the_labs_digests_are_left_out_of_the_workload_and_counted() -> None:
    rows = [_row(LAB[2], 9), _row(TEAM[0], 5), _row(LAB[0], 4), _row(TEAM[1], 3)]
    team, lab = own_statements.split(rows)
    workload = digests.build(team, {"d5": "SELECT total FROM app.orders WHERE id = 2"}, 1000, lab)
    assert [d.executions for d in workload.digests] == [5, 3]
    assert workload.executions == 8 and workload.digests[0].weight == 5 / 8  # the team's only
    assert (workload.lab_digests, workload.lab_executions) == (2, 13)
    assert workload.lab_texts == [LAB[2], LAB[0]]
    assert "SHOW GLOBAL" not in digests.query_set(workload)
