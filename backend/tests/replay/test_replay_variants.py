"""A replay's variants are the experiment's variant spec (target, preset, name, startup options,
SET GLOBAL, SET SESSION, instance statements) with the runs' validation and allow-lists, the string
TARGET[:PRESET] still accepted; what a variant sets is in force on its own instance and session
while the replay runs (read back through the replayed statements' results), and the replay and its
report say what each variant set."""

import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import delete

from tests import ports
from tests.conftest import BIN, auth_headers
from tests.datasets.conftest import delete_dataset
from upgradelab.db import sync_session
from upgradelab.targets.models import Target

DATASET = "tiny-variants"
DUMP = b"CREATE TABLE t (id INT PRIMARY KEY);\nINSERT INTO t VALUES (1), (2);\n"
# One row when the setting is in force, none otherwise: the result is the read-back.
IN_FORCE = {
    "option": "SELECT 1 FROM DUAL WHERE @@GLOBAL.max_connections = 77",
    "set_global": "SELECT 1 FROM DUAL WHERE @@GLOBAL.max_connect_errors = 4242",
    "set_session": "SELECT 1 FROM DUAL WHERE @@SESSION.div_precision_increment = 7",
}
TUNED = {
    "target": "mariadb-10.11",
    "name": "10.11 tuned",
    "options": {"max_connections": "77"},
    "set_global": {"max_connect_errors": "4242"},
    "set_session": {"div_precision_increment": "7"},
}


@pytest.fixture(scope="module")
def http(api: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=api, timeout=120, headers=auth_headers()) as client:
        yield client


@pytest.fixture(scope="module")
def dataset(http: httpx.Client) -> Iterator[str]:
    created = http.put(f"/api/datasets/{DATASET}", content=DUMP)
    assert created.status_code == 201, created.text
    yield DATASET
    delete_dataset(http, DATASET)


def _body(variants: list[Any], queries: str = "SELECT 1;") -> dict[str, Any]:
    return {"dataset": DATASET, "queries": queries, "variants": variants, "rounds": 1, "passes": 1}


def _refused(http: httpx.Client, variants: list[Any], **more: Any) -> list[dict[str, Any]]:
    answer = http.post("/api/replays", json={**_body(variants), **more})
    assert answer.status_code == 422, answer.text
    detail: list[dict[str, Any]] = answer.json()["detail"]
    return detail


def _wait(http: httpx.Client, replay_id: int, timeout_s: float = 300) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        replay: dict[str, Any] = http.get(f"/api/replays/{replay_id}").json()
        if replay["status"] in ("succeeded", "failed", "cancelled"):
            return replay
        time.sleep(0.5)
    raise TimeoutError(f"replay {replay_id} did not end")


def test_a_startup_option_outside_the_allow_list_is_refused_naming_it(
    http: httpx.Client, dataset: str
) -> None:
    by_category = _refused(
        http, ["mariadb-10.11", {"target": "mariadb-10.11", "options": {"init-file": "/x"}}]
    )
    assert by_category[0]["loc"] == ["body", "variants", 1, "options", "init-file"], by_category
    assert "init-file" in by_category[0]["msg"]
    # a name the server's binary does not list in full (the server would expand a prefix); named as
    # a run names it, in the option file's spelling
    unknown = _refused(http, [{"target": "mariadb-10.11", "options": {"max_connection": "77"}}])
    assert unknown[0]["loc"] == ["body", "variants", 0, "options", "max-connection"], unknown


def test_a_value_that_would_inject_a_line_or_an_option_is_refused_naming_the_setting(
    http: httpx.Client, dataset: str
) -> None:
    injected = {"target": "mariadb-10.11", "options": {"max_connections": "77\ninit-file=/tmp/x.sql"}}
    detail = _refused(http, [injected])
    assert detail[0]["loc"][:3] == ["body", "variants", 0] and "max_connections" in detail[0]["msg"], detail
    as_global = {"target": "mariadb-10.11", "set_global": {"max_connect_errors": "1; SET GLOBAL x=1\n"}}
    detail = _refused(http, [as_global])
    assert detail[0]["loc"][:3] == ["body", "variants", 0] and "max_connect_errors" in detail[0]["msg"], (
        detail
    )
    # the short form cannot carry an option either: its preset is looked up, not passed on
    detail = _refused(http, ["mariadb-10.11:default\ninit-file=/tmp/x.sql"])
    assert detail[0]["loc"][:3] == ["body", "variants", 0] and "unknown preset" in detail[0]["msg"], detail


def test_set_session_on_a_refused_variable_or_one_the_replay_sets_is_refused_naming_it(
    http: httpx.Client, dataset: str
) -> None:
    detail = _refused(http, [{"target": "mariadb-10.11", "set_session": {"sql_log_bin": "0"}}])
    assert detail[0]["loc"][:3] == ["body", "variants", 0] and "SET SESSION 'sql_log_bin'" in detail[0]["msg"]
    bound = _refused(http, [{"target": "mariadb-10.11", "set_session": {"max_statement_time": "0"}}])
    assert bound[0]["loc"] == ["body", "variants", 0, "set_session", "max_statement_time"], bound
    assert "statement_timeout_s" in bound[0]["msg"]
    unnamed_twice = _refused(
        http,
        [{"target": "mariadb-10.11"}, {"target": "mariadb-10.11", "set_session": {"sort_buffer_size": "1"}}],
    )
    assert (
        unnamed_twice[0]["loc"] == ["body", "variants"]
        and "repeated names: mariadb-10.11" in unnamed_twice[0]["msg"]
    )


def test_a_variants_options_and_settings_are_in_force_during_the_replay_and_reported(
    http: httpx.Client, dataset: str
) -> None:
    queries = "".join(f"{sql};\n" for sql in IN_FORCE.values())
    created = http.post("/api/replays", json=_body(["mariadb-10.11", TUNED], queries) | {"max_rounds": 1})
    assert created.status_code == 201, created.text
    replay = _wait(http, created.json()["id"])
    assert replay["status"] == "succeeded", replay["error"]
    stored = {v["name"]: v for v in replay["variants"]}
    assert stored["mariadb-10.11"]["options"] == [] and stored["mariadb-10.11"]["set_session"] == {}
    assert stored["10.11 tuned"]["options"] == ["max-connections=77"]
    assert stored["10.11 tuned"]["set_global"] == {"max_connect_errors": "4242"}
    assert stored["10.11 tuned"]["set_session"] == {"div_precision_increment": "7"}
    settings = {v["name"]: v["settings"] for v in replay["report"]["variants"]}
    assert settings["10.11 tuned"] == {
        "options": ["max-connections=77"],
        "set_global": {"max_connect_errors": "4242"},
        "set_session": {"div_precision_increment": "7"},
        "instance": [],
    }
    rows = {
        statement["sql"]: {name: outcome["row_count"] for name, outcome in statement["outcomes"].items()}
        for fingerprint in replay["report"]["fingerprints"]
        for statement in fingerprint["statements"]
    }
    for what, sql in IN_FORCE.items():  # in force on the tuned variant's instance and session only
        assert rows[sql] == {"mariadb-10.11": 0, "10.11 tuned": 1}, (what, rows[sql])


def test_a_setting_the_server_does_not_have_fails_the_cli_replay_naming_it(
    http: httpx.Client, dataset: str, api: str, tmp_path: Path
) -> None:
    """Through `upgradelab replay --variants-file`: the server's refusal ends the replay failed
    (exit 8) with the setting named, and the replay's error says the same."""
    queries, variants = tmp_path / "queries.sql", tmp_path / "variants.yaml"
    queries.write_text("SELECT 1;\n")
    variants.write_text("- target: mariadb-10.11\n  set_session: {no_such_variable: 1}\n")
    command = [str(BIN / "upgradelab"), "replay", "--api", api, "--dataset", DATASET]
    done = subprocess.run(
        [*command, "--queries", str(queries), "--variants-file", str(variants), "--rounds", "1"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 8, done.stderr
    assert (
        "failed: variant 'mariadb-10.11': the server refuses SET SESSION no_such_variable = 1" in done.stderr
    )
    replay_id = int(re.findall(r"^replay (\d+) queued", done.stderr, re.MULTILINE)[0])
    replay = http.get(f"/api/replays/{replay_id}").json()
    assert replay["status"] == "failed" and replay["report"] is None
    assert "SHOW SESSION VARIABLES has no variable 'no_such_variable'" in replay["error"], replay["error"]


def test_an_existing_server_takes_set_session_only(http: httpx.Client, dataset: str) -> None:
    """A server the lab does not start takes no option file, and SET GLOBAL or an instance statement
    would change it for every session with nothing put back, and a sharded replay would time its
    hosts' statements on it at once: refused at creation, naming the field.
    (The target row is written directly: nothing is asked of its server before a replay runs.)"""
    name = f"existing-rvariants-t{ports.SESSION}"
    settings = {"host": "127.0.0.1", "port": ports.EXISTING["mariadb-10.11"], "user": "lab"}
    settings |= {"purpose": "workloads", "database": "labdb"}  # one the lab may replay on
    with sync_session() as session:
        session.add(Target(name=name, provisioner="existing", flavor="mariadb", settings=settings))
        session.commit()
    try:
        option = _refused(http, [{"target": name, "options": {"max_connections": "77"}}])
        assert option[0]["loc"] == ["body", "variants", 0, "options", "max-connections"], option
        assert "existing server" in option[0]["msg"]
        global_ = _refused(http, [{"target": name, "set_global": {"max_connect_errors": "4242"}}])
        assert global_[0]["loc"] == ["body", "variants", 0, "set_global", "max_connect_errors"], global_
        instance = _refused(http, [{"target": name, "instance": ["ALTER INSTANCE RELOAD TLS"]}])
        assert instance[0]["loc"] == ["body", "variants", 0, "instance"], instance
        # nor is it spread over a pool's hosts: they would all time their statements on it at once
        for shards in (2, "auto"):
            sharded = _refused(http, [name], shards=shards)
            assert sharded[0]["loc"] == ["body", "shards"] and name in sharded[0]["msg"], sharded
    finally:
        with sync_session() as session:
            session.execute(delete(Target).where(Target.name == name))
            session.commit()
