"""Experiment API shapes: ExperimentCreate in, ExperimentRead out."""

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from upgradelab.experiments.variants import VariantError, resolve_variant
from upgradelab.workloads import WORKLOADS, Policy


class VariantSpec(BaseModel):
    """One variant as a user writes it: a target name, presets joined by '+', extra startup options."""

    target: str = Field(min_length=1, max_length=64, description="Target name, e.g. mysql-9.7.")
    preset: str = Field("default", max_length=200, description="Preset names joined by '+'.")
    name: str | None = Field(None, max_length=200, description="Label; default '<target> <preset>'.")
    options: dict[str, str | None] = Field(
        default_factory=dict,
        description="Startup options, name -> value (None: a bare flag like skip-log-bin).",
    )

    @model_validator(mode="after")
    def _resolvable(self) -> "VariantSpec":
        try:
            resolve_variant(self.target, self.preset, self.name, self.options)
        except VariantError as error:
            raise ValueError(str(error)) from error
        return self


class ResolvedVariantRead(BaseModel):
    """A variant as the run executes it."""

    name: str
    target: str
    preset: str
    options: dict[str, str | None]
    redo_log: str


class ExperimentCreate(BaseModel):
    """A workload x variants x iterations definition."""

    name: str | None = Field(None, max_length=200)
    workload: str = Field(description="Workload slug, e.g. insert-truncate.")
    iterations: int | None = Field(
        None, ge=1, le=100_000, description="Per variant; default: the workload's."
    )
    variants: list[VariantSpec] = Field(min_length=1, max_length=32)
    # Template parameters and cold/warm policy (issue 3): `parameters` is validated against the
    # template's pydantic schema in experiments/service.create (422 loc ["body", "parameters", <field>]).
    parameters: dict[str, Any] = Field(
        default_factory=dict, description="The template's parameters (GET /api/workloads: parameters_schema)."
    )
    policy: Policy | None = Field(
        None,
        description="warm | cold_first | cold_each_group | cold_every (restarts before iterations); "
        "default: the template's.",
    )

    @field_validator("workload")
    @classmethod
    def _known_workload(cls, value: str) -> str:
        if value not in WORKLOADS:
            raise ValueError(f"unknown workload {value!r}; known: {', '.join(WORKLOADS)}")
        return value

    @model_validator(mode="after")
    def _unique_names(self) -> "ExperimentCreate":
        names = [resolve_variant(v.target, v.preset, v.name, v.options).name for v in self.variants]
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
    policy: str
    variants: list[ResolvedVariantRead]
    created_at: datetime
