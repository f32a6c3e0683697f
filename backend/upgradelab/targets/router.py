"""/api/targets"""

from fastapi import APIRouter

from upgradelab.db import SessionDep
from upgradelab.targets import service
from upgradelab.targets.schemas import TargetRead

router = APIRouter(prefix="/api/targets", tags=["targets"])


@router.get("", response_model=list[TargetRead])
async def list_targets(session: SessionDep) -> list[TargetRead]:
    """Every target (name, flavor, version read from the server once it has started, provisioner kind)."""
    return [TargetRead.model_validate(target) for target in await service.list_targets(session)]
