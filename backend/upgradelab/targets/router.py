"""/api/targets"""

from fastapi import APIRouter, status

from upgradelab.db import SessionDep
from upgradelab.targets import service
from upgradelab.targets.schemas import TargetCreate, TargetRead

router = APIRouter(prefix="/api/targets", tags=["targets"])


@router.get("", response_model=list[TargetRead])
async def list_targets(session: SessionDep) -> list[TargetRead]:
    """Every target (name, flavor, version read from the server once it has started, provisioner kind)."""
    return [TargetRead.model_validate(target) for target in await service.list_targets(session)]


@router.post("", response_model=TargetRead, status_code=status.HTTP_201_CREATED)
async def create_target(spec: TargetCreate, session: SessionDep) -> TargetRead:
    """Add a target, e.g. {"name": "mysql-8.0", "flavor": "mysql", "provisioner": "docker",
    "settings": {"image": "mysql:8.0.40", "port": 33080}}; 422 names the offending field.
    (To be made admin-only once the API has users.)"""
    return TargetRead.model_validate(await service.create(session, spec))
