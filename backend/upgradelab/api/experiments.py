"""/api/experiments"""

from fastapi import APIRouter, status

from upgradelab.db import SessionDep
from upgradelab.experiments.schemas import ExperimentCreate, ExperimentRead
from upgradelab.runs import experiments as service
from upgradelab.runs import service as runs
from upgradelab.runs.schemas import RunRead
from upgradelab.users.auth import CurrentUser, stamp_owner

router = APIRouter(prefix="/api/experiments", tags=["experiments"])


@router.post("", response_model=ExperimentRead, status_code=status.HTTP_201_CREATED)
async def create_experiment(spec: ExperimentCreate, session: SessionDep) -> ExperimentRead:
    """Store a workload x variants x iterations definition; 422 names the offending field."""
    return ExperimentRead.model_validate(await service.create(session, spec))


@router.get("/{experiment_id}", response_model=ExperimentRead)
async def get_experiment(experiment_id: int, session: SessionDep) -> ExperimentRead:
    """One experiment; 404 for an unknown id."""
    return ExperimentRead.model_validate(await service.get_or_raise(session, experiment_id))


@router.post("/{experiment_id}/runs", response_model=RunRead, status_code=status.HTTP_201_CREATED)
async def start_run(experiment_id: int, session: SessionDep, user: CurrentUser) -> RunRead:
    """Queue a run of the experiment (status queued); the Celery worker takes it from Redis. The run
    is the caller's: only they or an admin may cancel it."""
    run = await runs.create(session, await service.get_or_raise(session, experiment_id))
    await stamp_owner(session, run, user)
    [read] = await runs.to_read(session, [run])
    return read
