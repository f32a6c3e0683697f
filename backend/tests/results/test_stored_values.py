"""The results store's JSON values read typed (db.ModelJSON, issue 48): a summary's round medians as
the code before stored them (round numbers as text keys) read back keyed by round number, in round
order, and are stored again with text keys; an iteration's and a sample's metrics are numbers by name,
and a value that is not a number is refused naming it; a run's schedule as its runner stored it
(Schedule.as_json) reads back as a RunSchedule."""

import json

import pytest
from pydantic import ValidationError
from sqlalchemy.dialects import sqlite

from upgradelab.db import ModelJSON
from upgradelab.execution.schedule import RunSchedule, plan
from upgradelab.results.store.models import Iteration, Sample
from upgradelab.results.store.summary_models import VariantSummary
from upgradelab.runs.models import Run

DIALECT = sqlite.dialect()
# as results/store/summary.py to_stored wrote them before: {str(round): median}
OLD_ROUNDS = '{"1": 0.5, "10": 0.7, "2": 0.6}'


def test_round_medians_stored_with_text_keys_read_back_by_round_number() -> None:
    column = VariantSummary.__table__.c.round_values.type
    assert isinstance(column, ModelJSON)
    read = column.process_result_value(json.loads(OLD_ROUNDS), DIALECT)
    assert read == {1: 0.5, 2: 0.6, 10: 0.7}
    assert sorted(read) == [1, 2, 10]  # numbers, not text ("10" sorted before "2")
    assert column.process_bind_param(read, DIALECT) == {"1": 0.5, "2": 0.6, "10": 0.7}


@pytest.mark.parametrize("table", [Iteration, Sample], ids=["iteration", "sample"])
def test_metrics_are_numbers_by_name_and_a_word_is_refused_naming_it(table: type[Iteration | Sample]) -> None:
    column = table.__table__.c.metrics.type
    assert isinstance(column, ModelJSON)
    assert column.process_result_value({"tps": 120, "p95_ms": 3.5}, DIALECT) == {"tps": 120.0, "p95_ms": 3.5}
    with pytest.raises(ValidationError, match="tps"):
        column.process_bind_param({"tps": "fast"}, DIALECT)


def test_a_runs_schedule_as_its_runner_stored_it_reads_back_as_the_schedule() -> None:
    column = Run.__table__.c.schedule.type
    assert isinstance(column, ModelJSON)
    stored = json.loads(json.dumps(plan("interleaved", 3, 2, 7, 2).as_json()))  # runs/executor/runner.py
    schedule = column.process_result_value(stored, DIALECT)
    assert isinstance(schedule, RunSchedule) and (schedule.rounds, schedule.seed, schedule.block) == (3, 7, 2)
    assert len(schedule.order) == 3 and column.process_bind_param(schedule, DIALECT) == stored
