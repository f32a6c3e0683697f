"""A replay's stored JSON read typed (db.ModelJSON, issue 48): rows as the code before wrote them (plain
JSON dicts: variants before their settings, statements before class IDs, a schedule holding only the
extension's budget, a report from before rounds) read back as their models, and the fix search reads
the replay's rows by attribute (its other fingerprints, its write count, its A/A note)."""

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.orm.attributes import flag_modified

from tests.replay.test_report_schema import BEFORE_ROUNDS
from tests.stored_json import write_again, write_raw
from tests.streaming.sse import events
from upgradelab.datasets.models import Dataset
from upgradelab.db import sync_session
from upgradelab.execution.schedule import RunSchedule
from upgradelab.fixsearch import runner
from upgradelab.fixsearch.models import FixSearch
from upgradelab.fixsearch.schemas import FixCandidateStored, FixSearchResult, FixTrialRead
from upgradelab.job_kinds import register_with_reaper
from upgradelab.measurement import MeasuredWorkload, ReplayVariantSpec, SourceStatement, measured_workload
from upgradelab.replay.models import ReplayRun
from upgradelab.replay.report import ReplayReport
from upgradelab.replay.schemas import ReplayProgress, ReplaySchedule
from upgradelab.results.stats import verdicts

# As replay/service.create wrote them: variants before SET GLOBAL/SESSION and instance statements,
# and the A/A control of a later one; statements (dataclasses.asdict) before class IDs and after.
OLD_VARIANTS: list[dict[str, Any]] = [
    {"name": "old", "target": "t-old", "preset": "default", "options": []},
    {"name": "new", "target": "t-new", "preset": "default", "options": ["innodb_buffer_pool_size=64M"]},
    {"name": "old (A/A)", "target": "t-old", "preset": "default", "options": [], "set_global": {},
     "set_session": {}, "instance": [], "aa_control": True},
]  # fmt: skip
OLD_STATEMENTS: list[dict[str, Any]] = [
    {"sql": "SELECT 1", "database": None, "fingerprint": "select ?", "fingerprint_id": "f1",
     "kind": "select", "position": 0},
    {"sql": "SELECT 2", "database": "shop", "fingerprint": "select ?", "fingerprint_id": "f1",
     "kind": "select", "position": 1},
    {"sql": "UPDATE t SET a = 1", "database": "shop", "fingerprint": "update t set a = ?",
     "fingerprint_id": "f2", "kind": "UPDATE", "position": 2, "class_id": "ABCDEF0123456789"},
]  # fmt: skip
OLD_SKIPPED: list[dict[str, Any]] = [
    {"sql": "DELETE FROM t", "database": None, "fingerprint": "delete from t", "fingerprint_id": "f3",
     "kind": "delete", "position": 3},
]  # fmt: skip
OLD_PROGRESS = {"variant": "new", "index": 2, "of": 3, "phase": "loading the dataset", "rows": 10,
                "rows_total": 100, "bytes": 10, "elapsed_s": 1.5, "estimate_s": 15.0}  # fmt: skip
_AA = verdicts.read(verdicts.Interval(1.01, 0.97, 1.05, 20, "paired rounds"))
FLOOR = _AA.model_dump(mode="json") if _AA is not None else {}
OLD_REPORT: dict[str, Any] = {
    **BEFORE_ROUNDS,
    "aa_control": "old (A/A)",
    "fingerprints": [{**BEFORE_ROUNDS["fingerprints"][0], "fingerprint_id": "f1", "floor": FLOOR}],
}
# as fixsearch/search.py Outcome.as_dict wrote it before the timing CPU and the unused variables were kept
OLD_RESULT: dict[str, Any] = {
    "outcome": "restored", "remedy": "no semijoin", "global_remedy": None, "tried": 2, "not_tried": [],
    "rounds": 10, "minutes": 1.5, "more_rounds": 0, "more_minutes": 0.0, "said": None,
}  # fmt: skip
SCHEDULE = {"kind": "interleaved", "seed": 7, "rounds": 2, "block": 1, "order": [[0, 1, 2], [2, 0, 1]]}


@pytest.fixture
def old_rows(database: None) -> Iterator[tuple[int, int]]:
    """(replay id, fix search id): a replay and a fix search of it with JSON as stored before."""
    with sync_session() as session:
        dataset = Dataset(name="old-rows", path="/nonexistent", sha256="0", size_bytes=0, compression="none")
        session.add(dataset)
        session.flush()
        replay = ReplayRun(name="old-rows", dataset_id=dataset.id, source_format="sql", variants=[],
                           repeats=2, sample=5, statements=[], skipped_writes=[],
                           status="succeeded")  # fmt: skip
        session.add(replay)
        session.flush()
        search = FixSearch(replay_id=replay.id, fingerprint_id="f1", variant="new", baseline="old",
                           dataset_id=dataset.id)  # fmt: skip
        session.add(search)
        session.commit()
        ids = (replay.id, search.id, dataset.id)
    write_raw("replay_run", ids[0], variants=OLD_VARIANTS, statements=OLD_STATEMENTS,
               skipped_writes=OLD_SKIPPED, schedule={"max_rounds": 60}, progress=OLD_PROGRESS,
               report=OLD_REPORT)  # fmt: skip
    write_raw("fix_search", ids[1], variants=OLD_VARIANTS[:2], statements=OLD_STATEMENTS[:2],
               progress={"phase": "done", "tried": 2, "rounds_done": 10, "minutes": 1.5, "message": "done"},
               result=OLD_RESULT, sources=["plan", "differs"])  # fmt: skip
    yield ids[0], ids[1]
    with sync_session() as session:
        session.delete(session.get_one(FixSearch, ids[1]))
        session.delete(session.get_one(ReplayRun, ids[0]))
        session.delete(session.get_one(Dataset, ids[2]))
        session.commit()


def test_a_replay_stored_before_reads_back_as_its_models(old_rows: tuple[int, int]) -> None:
    with sync_session() as session:
        replay = session.get_one(ReplayRun, old_rows[0])
        assert all(isinstance(v, ReplayVariantSpec) for v in replay.variants)
        old, new, control = replay.variants
        assert (old.set_global, old.instance, old.aa_control) == ({}, [], False)  # before settings: none
        assert new.options == ["innodb_buffer_pool_size=64M"] and control.aa_control
        assert replay.statements[0] == SourceStatement("SELECT 1", None, "select ?", "f1", "select", 0)
        assert replay.statements[2].class_id == "ABCDEF0123456789" and replay.statements[0].class_id is None
        assert [s.kind for s in replay.skipped_writes] == ["delete"]
        assert replay.schedule == ReplaySchedule(max_rounds=60) and replay.schedule.planned() is None
        assert replay.progress == ReplayProgress.model_validate(OLD_PROGRESS)
        assert isinstance(replay.report, ReplayReport) and replay.report.aa_control == "old (A/A)"
        assert replay.report.fingerprints[0].floor is not None


def test_a_started_schedule_reads_its_rounds_and_a_schedule_before_the_extension_has_no_budget(
    old_rows: tuple[int, int],
) -> None:
    write_raw("replay_run", old_rows[0], schedule={**SCHEDULE, "max_rounds": 60})
    with sync_session() as session:
        schedule = session.get_one(ReplayRun, old_rows[0]).schedule
        assert schedule is not None and schedule.max_rounds == 60
        assert schedule.planned() == RunSchedule.model_validate(SCHEDULE)
    write_raw("replay_run", old_rows[0], schedule=SCHEDULE)  # stored before the extension
    with sync_session() as session:
        schedule = session.get_one(ReplayRun, old_rows[0]).schedule
        assert schedule is not None and schedule.max_rounds is None and schedule.planned() is not None


def test_a_replay_written_back_keeps_what_its_json_meant(old_rows: tuple[int, int]) -> None:
    with sync_session() as session:
        replay = session.get_one(ReplayRun, old_rows[0])
        flag_modified(replay, "statements")  # written again as the models
        flag_modified(replay, "variants")
        session.commit()
    with sync_session() as session:
        raw = session.execute(
            text("SELECT statements, variants FROM replay_run WHERE id = :id"), {"id": old_rows[0]}
        ).one()
    statements, variants = json.loads(raw[0]), json.loads(raw[1])
    assert [{**s, "class_id": s.get("class_id")} for s in OLD_STATEMENTS] == statements
    assert [
        {"set_global": {}, "set_session": {}, "instance": [], "aa_control": False, **v} for v in OLD_VARIANTS
    ] == (variants)


def test_fix_search_reads_the_replays_rows_by_attribute(old_rows: tuple[int, int]) -> None:
    search_id = old_rows[1]
    register_with_reaper()  # as the worker does at its start: the replay's workload found by its name
    [(fingerprint_id, fingerprint, statements)] = runner.other_fingerprints(search_id)
    assert (fingerprint_id, fingerprint) == ("f2", "update t set a = ?")
    assert statements == [SourceStatement(**OLD_STATEMENTS[2])]
    assert runner.write_count(search_id) == 1  # the skipped DELETE; the UPDATE was not replayed
    note = runner.second_note(search_id)
    assert "the replay's A/A control, old (A/A), measured 1.010 [0.970, 1.050]" in note
    with sync_session() as session:
        search = session.get_one(FixSearch, search_id)
        assert [v.name for v in search.variants] == ["old", "new"]
        assert [s.position for s in search.statements] == [0, 1]


def test_a_replays_typed_progress_streams_as_its_json(
    old_rows: tuple[int, int], client: httpx.Client
) -> None:
    with client.stream("GET", f"/api/replays/{old_rows[0]}/events", timeout=30) as response:
        [snapshot] = list(events(response))  # succeeded: the snapshot alone
    assert snapshot.json() == {"status": "succeeded", "progress": OLD_PROGRESS}
    read = client.get(f"/api/replays/{old_rows[0]}").json()
    assert read["max_rounds"] == 60 and read["schedule"] is None and read["statements"] == 3
    assert [v["name"] for v in read["variants"]] == ["old", "new", "old (A/A)"]
    assert read["report"]["aa_control"] == "old (A/A)" and read["skipped_writes"][0]["sql"] == "DELETE FROM t"
    exported = client.get(f"/api/replays/{old_rows[0]}/export?format=json")
    assert exported.status_code == 200 and exported.json()["fingerprints"][0]["floor"]["ratio"] == 1.01


def test_a_fix_searchs_own_json_stored_before_reads_typed_and_briefs_the_replay(
    old_rows: tuple[int, int], client: httpx.Client
) -> None:
    with sync_session() as session:
        search = session.get_one(FixSearch, old_rows[1])
        assert search.result == FixSearchResult.model_validate(OLD_RESULT) and search.result.unused == []
        assert search.progress is not None and search.progress.rounds_done == 10
        assert search.sources == ["plan", "differs"]
    [brief] = client.get(f"/api/replays/{old_rows[0]}").json()["report"]["fingerprints"][0]["fix_searches"]
    assert (brief["id"], brief["outcome"], brief["remedy"]) == (old_rows[1], "restored", "no semijoin")
    read = client.get(f"/api/fixsearches/{old_rows[1]}").json()
    assert read["result"]["outcome"] == "restored" and read["progress"]["phase"] == "done"


def test_the_replays_measured_workload_is_read_by_its_kinds_name(old_rows: tuple[int, int]) -> None:
    register_with_reaper()
    with sync_session() as session:
        workload = measured_workload(session, "replay", old_rows[0])
        gone = measured_workload(session, "replay", old_rows[0] + 1000)
        with pytest.raises(LookupError, match="'chore'"):
            measured_workload(session, "chore", old_rows[0])  # no kind of that name
        with pytest.raises(LookupError, match="'fixsearch'"):
            measured_workload(session, "fixsearch", old_rows[1])  # a kind that provides none
    assert isinstance(workload, MeasuredWorkload) and gone is None
    assert (workload.kind, workload.job_id, workload.status) == ("replay", old_rows[0], "succeeded")
    assert [v.name for v in workload.variants] == ["old", "new", "old (A/A)"]
    assert workload.statements == [SourceStatement(**s) for s in OLD_STATEMENTS]
    assert [s.sql for s in workload.of_fingerprint("f1")] == ["SELECT 1", "SELECT 2"]
    assert workload.write_count() == 1 and not workload.allow_writes
    assert workload.aa_control == "old (A/A)" and workload.floors["f1"].ratio == pytest.approx(1.01)


# as fixsearch/candidates.py Candidate.as_dict and search.py Trial.as_dict wrote them in the first fix
# searches (issue 34: no indexes, join order, subquery hint; a trial without clock, plans or wrapper)
OLD_CANDIDATES: list[dict[str, Any]] = [
    {"name": "no semijoin", "source": "plan", "note": "the baseline's plan", "apply": "SET STATEMENT x=1 FOR",
     "settings": {"optimizer_switch": "semijoin=off"}, "scope": "statement", "baseline": "on",
     "variant": "off", "extra": {}},
]  # fmt: skip
OLD_TRIED: list[dict[str, Any]] = [
    {"name": "no semijoin", "status": "restores", "reason": "as fast", "ratio_to_baseline": FLOOR,
     "ratio_to_variant": None, "variant_to_baseline": None, "results_equal": True, "rounds": 5,
     "statements": ["SELECT 1"]},
]  # fmt: skip


def test_a_fix_searchs_candidates_and_trials_stored_before_read_as_their_models(
    old_rows: tuple[int, int], client: httpx.Client
) -> None:
    write_raw("fix_search", old_rows[1], candidates=OLD_CANDIDATES, tried=OLD_TRIED)
    with sync_session() as session:
        search = session.get_one(FixSearch, old_rows[1])
        [candidate], [trial] = search.candidates, search.tried
        assert isinstance(candidate, FixCandidateStored) and isinstance(trial, FixTrialRead)
        assert (candidate.indexes, candidate.join_order, candidate.subquery_hint) == ({}, [], "")
        assert trial.ratio_to_baseline is not None and trial.ratio_to_baseline.ratio == pytest.approx(1.01)
        assert (trial.clock, trial.plan_before, trial.scope) == (None, None, "statement")
    stored = write_again(FixSearch, old_rows[1], "candidates", "tried")  # written again as the models
    candidates, tried = stored["candidates"], stored["tried"]
    assert candidates == [{**OLD_CANDIDATES[0], "indexes": {}, "join_order": [], "subquery_hint": ""}]
    assert {k: v for k, v in tried[0].items() if k in OLD_TRIED[0]} == OLD_TRIED[0]
    read = client.get(f"/api/fixsearches/{old_rows[1]}").json()
    assert read["candidates"] == [{**OLD_CANDIDATES[0], "indexes": {}}]  # the API's shape, as before
    assert read["tried"][0]["status"] == "restores" and read["tried"][0]["rounds"] == 5
