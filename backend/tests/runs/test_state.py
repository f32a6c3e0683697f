"""The one writer of a run's state (runs/executor/state.py) on the real metadata database: what one step
changes (run fields, variant rows, a target's version, the variants' end) lands in one write, the
cancel flag is read in the same session, and a run already final is left as it is."""

from sqlalchemy import select, update

from upgradelab.db import sync_session, utcnow
from upgradelab.execution.schedule import RunSchedule
from upgradelab.execution.status import JobStatus
from upgradelab.runs.executor import state
from upgradelab.runs.executor.state import Change
from upgradelab.runs.models import Experiment, Run, RunVariant, VariantStatus
from upgradelab.targets.models import Target

# A whole stored schedule (execution/schedule.py RunSchedule): the run stays in the session's database,
# where a partial one (`{"kind": "sequential"}`) made every later GET /api/runs of the session fail
# its response model (500; ci: test_auth's viewer listing runs after this file).
SCHEDULE = {"kind": "sequential", "seed": 1, "rounds": 1, "block": 1, "order": [[0, 1]]}


def _new_run() -> int:
    with sync_session() as session:
        experiment = Experiment(name="state", workload="insert-truncate", variants=[], iterations=1)
        session.add(experiment)
        session.flush()
        run = Run(experiment_id=experiment.id, targets=",", status=JobStatus.provisioning)
        session.add(run)
        session.commit()
        return run.id


def _variants(run_id: int) -> dict[int, RunVariant]:
    with sync_session() as session:
        rows = session.scalars(select(RunVariant).where(RunVariant.run_id == run_id))
        return {row.variant_index: row for row in rows}


def test_one_step_writes_run_variants_and_version_together_and_reads_the_cancel_flag(database: None) -> None:
    run_id = _new_run()
    with sync_session() as session:
        target = session.scalars(select(Target)).first()
        assert target is not None
        name, old_version = target.name, target.version
    try:
        seen = state.write(
            run_id,
            Change()
            .run(schedule=SCHEDULE, current_variant=1)
            .add_variants([("a", name, False), ("b", name, True)])
            .variant(1, status=VariantStatus.running, started_at=utcnow())
            .version(name, "9.9.9-test"),
        )
        assert not seen.final and not seen.cancel_requested
        with sync_session() as session:
            run = session.get(Run, run_id)
            assert (
                run is not None
                and run.current_variant == 1
                and run.schedule == RunSchedule.model_validate(SCHEDULE)
            )
            assert session.scalars(select(Target.version).where(Target.name == name)).one() == "9.9.9-test"
            run.cancel_requested = True
            session.commit()
        variants = _variants(run_id)
        assert variants[0].status == VariantStatus.pending and variants[1].status == VariantStatus.running
        assert variants[1].is_aa_control and state.cancel_requested(run_id)
        seen = state.write(run_id, Change().finish_variants(False, "the run was cancelled"))
        assert seen.cancel_requested
        ended = _variants(run_id)
        assert {row.status for row in ended.values()} == {VariantStatus.failed}
        assert ended[0].error == "the run was cancelled" and ended[1].finished_at is not None
        with sync_session() as session:
            session.execute(update(Run).where(Run.id == run_id).values(status=JobStatus.failed))
            session.commit()
        seen = state.write(run_id, Change().run(current_variant=0).variant(0, error="late"))
        assert seen.final
        with sync_session() as session:
            run = session.get(Run, run_id)
            assert run is not None and run.current_variant == 1  # a final run is left as it is
        assert _variants(run_id)[0].error == "the run was cancelled"
    finally:
        with sync_session() as session:
            session.execute(update(Target).where(Target.name == name).values(version=old_version))
            session.commit()
