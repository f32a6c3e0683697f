"""Every table, imported in one place for Alembic's autogenerate and metadata.create_all."""

from upgradelab.assessment.models import Assessment
from upgradelab.attribution.models import Attribution
from upgradelab.captures.models import Capture, CaptureCheck
from upgradelab.datasets.models import Dataset
from upgradelab.db import Base
from upgradelab.execution.status import JobStatus
from upgradelab.experiments.models import Experiment, Run
from upgradelab.fixsearch.models import FixSearch
from upgradelab.probes.models import ProbeSample, ProbeUnavailableRecord
from upgradelab.replay.models import ReplayRun
from upgradelab.results.store.models import IterationSeries, Sample
from upgradelab.results.store.summary_models import VariantSummary
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
