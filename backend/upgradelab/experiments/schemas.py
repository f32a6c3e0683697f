"""Experiment API shapes: ExperimentCreate in, ExperimentRead out."""

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from upgradelab.execution.schedule import ScheduleKind
from upgradelab.experiments.variants import ResolvedVariant, VariantError, resolve_variant
from upgradelab.request_model import RequestModel
from upgradelab.workloads import WORKLOADS, Policy


class VariantSpec(RequestModel):
    """One variant as a user writes it: a target name, presets joined by '+', extra startup options."""

    target: str = Field(min_length=1, max_length=64, description="Target name, e.g. mysql-9.7.")
    preset: str = Field("default", max_length=200, description="Preset names joined by '+'.")
    name: str | None = Field(None, max_length=200, description="Label; default '<target> <preset>'.")
    options: dict[str, str | None] = Field(
        default_factory=dict,
        description="Startup options, name -> value (None: a bare flag like skip-log-bin).",
    )
    set_global: dict[str, str] = Field(
        default_factory=dict,
        description="SET GLOBAL name = value after start, e.g. innodb_flush_log_at_trx_commit: '2'.",
    )
    set_session: dict[str, str] = Field(
        default_factory=dict, description="SET SESSION name = value on the workload connection."
    )
    instance: list[str] = Field(
        default_factory=list,
        max_length=8,
        description="Instance statements after start, e.g. 'ALTER INSTANCE DISABLE INNODB REDO_LOG'.",
    )

    def resolve(self) -> ResolvedVariant:
        """The ResolvedVariant (raises VariantError)."""
        return resolve_variant(
            self.target,
            self.preset,
            self.name,
            self.options,
            self.set_global,
            self.set_session,
            self.instance,
        )

    @model_validator(mode="after")
    def _resolvable(self) -> "VariantSpec":
        try:
            self.resolve()
        except VariantError as error:
            raise ValueError(str(error)) from error
        return self


class ResolvedVariantRead(ResolvedVariant):
    """A variant as the run executes it."""

    model_config = ConfigDict(from_attributes=True)  # read from the stored ResolvedVariant


class ExperimentCreate(RequestModel):
    """A workload x variants x iterations definition."""

    name: str | None = Field(None, max_length=200)
    workload: str = Field(description="Workload slug, e.g. insert-truncate.")
    iterations: int | None = Field(
        None, ge=1, le=100_000, description="Per variant; default: the workload's."
    )
    variants: list[VariantSpec] = Field(min_length=1, max_length=32)
    # Template parameters and cold/warm policy (issue 3): `parameters` is validated against the
    # template's pydantic schema in runs/experiments.py create (422 loc ["body", "parameters", <field>]).
    parameters: dict[str, Any] = Field(
        default_factory=dict, description="The template's parameters (GET /api/workloads: parameters_schema)."
    )
    policy: Policy | None = Field(
        None,
        description="warm | cold_first | cold_each_group | cold_every (restarts before iterations); "
        "default: the template's.",
    )

    schedule: ScheduleKind = Field(
        "interleaved",
        description="interleaved: rounds, each variant one block per group per round in a shuffled order; "
        "sequential: one variant after another.",
    )
    rounds: int | None = Field(
        None, ge=1, le=1000, description="Interleaved rounds; default 10 (a verdict needs at least 5)."
    )
    block: int | None = Field(
        None,
        ge=1,
        le=100_000,
        description="Iterations per block (per variant, group and round); "
        "default: iterations / rounds, at least 1.",
    )
    aa_control: bool = Field(
        False, description="Add a second instance of the first variant, named '<baseline> (A/A)'."
    )
    seed: int | None = Field(
        None, ge=0, le=2**31 - 1, description="Seed of the per-round shuffle; default: random (stored)."
    )
    max_rounds: int | None = Field(
        None,
        ge=1,
        le=1000,
        description="Auto-extension (interleaved): add rounds while a verdict is inconclusive, up to this "
        "many rounds in all (>= rounds); default: off.",
    )
    max_minutes: float | None = Field(
        None,
        gt=0,
        le=24 * 60,
        description="Auto-extension budget in minutes since the first block: no round is added after it "
        "(needs max_rounds); default: no time limit.",
    )

    @field_validator("workload")
    @classmethod
    def _known_workload(cls, value: str) -> str:
        if value not in WORKLOADS:
            raise ValueError(f"unknown workload {value!r}; known: {', '.join(WORKLOADS)}")
        return value

    @model_validator(mode="after")
    def _unique_names(self) -> "ExperimentCreate":
        names = [v.resolve().name for v in self.variants]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"variant names must be unique; repeated: {', '.join(duplicates)}")
        return self


class ExperimentRead(BaseModel):
    """A stored experiment."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    workload: str
    iterations: int
    parameters: dict[str, Any]
    policy: Policy
    variants: list[ResolvedVariantRead]
    schedule: ScheduleKind
    rounds: int
    block: int
    aa_control: bool
    seed: int | None
    max_rounds: int | None = None
    max_minutes: float | None = None
    created_at: datetime
