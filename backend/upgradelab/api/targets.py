"""/api/targets"""

from fastapi import APIRouter, status

from upgradelab.db import SessionDep
from upgradelab.request_model import RequestModel
from upgradelab.targets import existing_service, service
from upgradelab.targets.schemas import TargetCreate, TargetDetail, TargetRead

router = APIRouter(prefix="/api/targets", tags=["targets"])


class CapabilityCheck(RequestModel):
    """POST /api/targets/{name}/capabilities body: restart_test issues a real RESTART."""

    restart_test: bool = False


@router.get("", response_model=list[TargetRead])
async def list_targets(session: SessionDep) -> list[TargetRead]:
    """Every target (name, flavor, version read from the server once it has started, provisioner kind,
    disposable, and for existing servers their detected capabilities)."""
    return [TargetRead.model_validate(target) for target in await service.list_targets(session)]


@router.post("", response_model=TargetRead, status_code=status.HTTP_201_CREATED)
async def create_target(spec: TargetCreate, session: SessionDep) -> TargetRead:
    """Add a target (admin), e.g. {"name": "mysql-8.0", "flavor": "mysql", "provisioner": "docker",
    "settings": {"image": "mysql:8.0.40", "port": 33080}}; 422 names the offending field.

    provisioner "existing": settings {host, port, user, password, database, ssl_ca,
    ssl_verify_identity}; the server is connected to and its capabilities detected before the target
    is stored (its flavor and version are the server's own); "restart_test": true also tries RESTART."""
    return TargetRead.model_validate(await service.create(session, spec))


@router.get("/{name}", response_model=TargetDetail)
async def get_target(name: str, session: SessionDep) -> TargetDetail:
    """One target with, for an existing server, host, port, user, database and TLS settings (never
    the password) and its capabilities; 404 when there is none by that name."""
    return existing_service.detail(await service.get_or_raise(session, name))


@router.post("/{name}/capabilities", response_model=TargetDetail)
async def detect_capabilities(name: str, check: CapabilityCheck, session: SessionDep) -> TargetDetail:
    """Detect an existing server's capabilities again (admin) and store them; 422 naming settings.host
    when it cannot be reached, or `name` for a target the lab runs itself."""
    target = await service.get_or_raise(session, name)
    target = await existing_service.redetect(session, target, restart_test=check.restart_test)
    return existing_service.detail(target)
