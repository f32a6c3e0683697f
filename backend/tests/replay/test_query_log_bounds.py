"""Query logs are bounded (issue 30, finding 7): a log past the statement limit is refused naming the
limit, before anything past it is fingerprinted; a 12,000-item `IN (...)` (sqlparse refuses more
than 10,000 tokens) is read and fingerprinted `in(?+)`; through the API the 200,000-statement log is a
422 naming `queries` and the limit while another request answers, and no input is a 5xx."""

import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.conftest import auth_headers
from upgradelab.measurement import sources
from upgradelab.measurement.fingerprint import fingerprint
from upgradelab.measurement.pt_fingerprint import pt_fingerprint
from upgradelab.measurement.sources import SourceError, parse_source
from upgradelab.settings import get_settings

BIG_IN = "SELECT name FROM people WHERE id IN (" + ", ".join(str(i) for i in range(12_000)) + ")"
BIG_IN_STRINGS = "SELECT 1 FROM t WHERE k IN (" + ",".join(f"'k{i}'" for i in range(12_000)) + ") /* c */"


def _log(count: int) -> str:
    return "DO 1;\n" * count


def test_a_log_past_the_limit_is_refused_naming_it_before_the_rest_is_fingerprinted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[str] = []

    def counted(sql: str) -> str:
        seen.append(sql)
        return pt_fingerprint(sql)

    monkeypatch.setattr(sources, "pt_fingerprint", counted)
    with pytest.raises(SourceError, match=r"more than 1,000 statements.*UPGRADELAB_REPLAY_MAX_STATEMENTS"):
        parse_source(_log(200_000), max_statements=1_000)
    assert len(seen) == 1_000  # the statement past the limit ended the reading
    assert len(parse_source(_log(1_000), max_statements=1_000, allow_writes=True).statements) == 10  # sampled


@pytest.mark.parametrize("fmt", ["sql", "slow", "general"])
def test_the_limit_holds_in_every_format(fmt: str) -> None:
    text = {
        "sql": "".join(f"SELECT {i};\n" for i in range(11)),
        "slow": "".join(f"# Query_time: 0.1\nSELECT {i};\n" for i in range(11)),
        "general": "".join(f"2026-11-22T12:00:00.0Z\t 1 Query\tSELECT {i}\n" for i in range(11)),
    }[fmt]
    with pytest.raises(SourceError, match="more than 10 statements"):
        parse_source(text, fmt=fmt, max_statements=10)  # type: ignore[arg-type]
    assert parse_source(text, fmt=fmt, max_statements=11).total == 11  # type: ignore[arg-type]


def test_the_default_limit_is_the_setting() -> None:
    limit = get_settings().replay_max_statements
    assert limit == 100_000
    with pytest.raises(SourceError, match="more than 100,000 statements"):
        parse_source(_log(limit + 1))


@pytest.mark.parametrize("sql", [BIG_IN, BIG_IN_STRINGS], ids=["numbers", "strings with a comment"])
def test_a_12000_item_in_list_is_read_and_fingerprinted(sql: str) -> None:
    parsed = parse_source(f"# Query_time: 2.5  Lock_time: 0\nuse crm;\n{sql};\n")
    assert parsed.format == "slow" and [s.sql for s in parsed.statements] == [sql]
    assert parsed.statements[0].fingerprint.endswith("in(?+)") or "in(?+)" in parsed.statements[0].fingerprint
    assert parsed.statements[0].database == "crm"


def test_long_literal_runs_fingerprint_as_short_ones() -> None:
    short = "SELECT 1 FROM t WHERE k IN ('a', 'b') AND v = 3 /* x */"
    long = "SELECT 1 FROM t WHERE k IN (" + ", ".join(f"'v{i}'" for i in range(500)) + ") AND v = 9 /* y */"
    assert fingerprint(short) == fingerprint(long) == "select ? from t where k in(?+) and v = ?"
    rows = ", ".join(f"({i}, 'n{i}', NULL)" for i in range(500))
    assert fingerprint(f"INSERT INTO t VALUES {rows}") == "insert into t values(?+)"


def test_quotes_and_comments_are_read_as_the_server_reads_them() -> None:
    # a quote inside a comment or a quoted name, a comment opener inside a string
    sql = "SELECT `Or'ders`.id, 'a -- b', \"c /* d\" FROM t -- don't\nWHERE x = 1 # it's\n"
    assert fingerprint(sql) == "select or ' ders.id, ?, ? from t where x = ?"
    assert parse_source("SELECT 'x;y' /* ; */; SELECT 2;").total == 2


def test_a_routine_body_stays_one_statement() -> None:
    text = "CREATE FUNCTION f() RETURNS INT BEGIN DECLARE x INT; SET x = 1; RETURN x; END;\nSELECT f();"
    parsed = parse_source(text, allow_writes=True)
    assert [s.kind for s in parsed.statements] == ["create", "select"]


# ---- through the API --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def http(api: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as one:
        yield one


def _body(queries: str) -> dict[str, Any]:
    return {"dataset": "no-such-dataset", "queries": queries, "variants": ["mariadb-10.11"]}


def test_the_api_refuses_a_200k_log_naming_the_limit_while_it_answers_others(http: httpx.Client) -> None:
    answered: list[float] = []
    posted: dict[str, Any] = {}

    def post() -> None:
        started = time.monotonic()
        posted["response"] = http.post("/api/replays", json=_body(_log(200_000)))
        posted["seconds"] = time.monotonic() - started

    poster = threading.Thread(target=post)
    poster.start()
    while poster.is_alive():  # the event loop answers meanwhile
        started = time.monotonic()
        assert http.get("/api/health", timeout=5).status_code == 200
        answered.append(time.monotonic() - started)
        time.sleep(0.05)
    poster.join()
    response = posted["response"]
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == ["body", "queries"]
    assert "more than 100,000 statements" in response.json()["detail"][0]["msg"]
    print(f"200k log refused in {posted['seconds']:.1f} s; health answered {len(answered)} times meanwhile")


@pytest.mark.parametrize("queries", [BIG_IN, BIG_IN_STRINGS, "SELECT '", "/*", "`", "\x00;"])
def test_no_source_is_a_5xx(http: httpx.Client, queries: str) -> None:
    # the source is read first: past it, the unknown dataset is a 404 (the source was accepted)
    response = http.post("/api/replays", json=_body(queries))
    assert response.status_code in (404, 422), response.text
    if queries in (BIG_IN, BIG_IN_STRINGS):
        assert response.status_code == 404 and "no-such-dataset" in response.text
