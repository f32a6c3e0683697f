"""/api/workloads: the templates a form can pick, with the variant presets."""

from fastapi import APIRouter
from pydantic import BaseModel

from upgradelab.experiments.variants import PRESETS
from upgradelab.workloads import WORKLOADS


class PresetRead(BaseModel):
    """A named configuration; `flavors` are the server flavors that support it."""

    name: str
    description: str
    flavors: list[str]


class WorkloadRead(BaseModel):
    """A workload template."""

    slug: str
    title: str
    article: str
    description: str
    default_iterations: int
    presets: list[PresetRead]


router = APIRouter(prefix="/api/workloads", tags=["workloads"])


@router.get("", response_model=list[WorkloadRead])
async def list_workloads() -> list[WorkloadRead]:
    """Every workload template with the presets a variant can use."""
    presets = [
        PresetRead(name=p.name, description=p.description, flavors=list(p.flavors)) for p in PRESETS.values()
    ]
    return [
        WorkloadRead(
            slug=w.info.slug,
            title=w.info.title,
            article=w.info.article,
            description=w.info.description,
            default_iterations=w.info.default_iterations,
            presets=presets,
        )
        for w in WORKLOADS.values()
    ]
