"""Every table, imported in one place for Alembic's autogenerate and metadata.create_all."""

from upgradelab.assessment.models import Assessment
from upgradelab.attribution.models import Attribution
from upgradelab.captures.models import Capture, CaptureCheck
from upgradelab.concurrent_replay.models import ConcurrentReplay
from upgradelab.datasets.models import Dataset
from upgradelab.db import Base
from upgradelab.execution.status import JobStatus
from upgradelab.fixsearch.models import FixSearch
from upgradelab.probes.models import ProbeSample, ProbeUnavailableRecord
from upgradelab.replay.models import ReplayRun
from upgradelab.results.store.models import IterationSeries, Sample
from upgradelab.results.store.summary_models import VariantSummary
from upgradelab.runs.models import Experiment, Run
from upgradelab.sharing.models import JobShare
from upgradelab.targets.models import Target
from upgradelab.users.models import ApiToken, User

__all__ = [
    "ApiToken",
    "Assessment",
    "Attribution",
    "Base",
    "Capture",
    "CaptureCheck",
    "ConcurrentReplay",
    "Dataset",
    "Experiment",
    "FixSearch",
    "IterationSeries",
    "JobShare",
    "JobStatus",
    "ProbeSample",
    "ProbeUnavailableRecord",
    "ReplayRun",
    "Run",
    "Sample",
    "Target",
    "User",
    "VariantSummary",
]
