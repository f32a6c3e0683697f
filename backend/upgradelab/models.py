"""Every table, imported in one place for Alembic's autogenerate and metadata.create_all."""

from upgradelab.db import Base
from upgradelab.experiments.models import Experiment
from upgradelab.probes.models import ProbeSample, ProbeUnavailableRecord
from upgradelab.results.models import Sample
from upgradelab.runs.models import Run, RunStatus
from upgradelab.targets.models import Target

__all__ = [
    "Base",
    "Experiment",
    "ProbeSample",
    "ProbeUnavailableRecord",
    "Run",
    "RunStatus",
    "Sample",
    "Target",
]
