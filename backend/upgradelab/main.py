"""The FastAPI app: API routers under /api, and the built UI (frontend/dist) at every other path."""

import importlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import Depends, FastAPI, HTTPException
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import DataError

from upgradelab.api import access_log
from upgradelab.api.assessments import public_router as public_assessments_router
from upgradelab.api.assessments import router as assessments_router
from upgradelab.api.attributions import public_router as public_attributions_router
from upgradelab.api.attributions import router as attributions_router
from upgradelab.api.body_limits import BodyLimits
from upgradelab.api.capture_variants import router as capture_variants_router
from upgradelab.api.captures import public_router as public_captures_router
from upgradelab.api.captures import router as captures_router
from upgradelab.api.captures import worker_router as capture_dumps_router
from upgradelab.api.concurrent_replays import public_router as public_concurrent_router
from upgradelab.api.concurrent_replays import router as concurrent_replays_router
from upgradelab.api.datasets import router as datasets_router
from upgradelab.api.datasets import worker_router as dataset_dumps_router
from upgradelab.api.experiments import router as experiments_router
from upgradelab.api.fixsearch import public_router as public_fixsearch_router
from upgradelab.api.fixsearch import router as fixsearch_router
from upgradelab.api.pools import router as pools_router
from upgradelab.api.probes import router as probes_router
from upgradelab.api.replay import router as replay_router
from upgradelab.api.results import router as results_router
from upgradelab.api.runs import router as runs_router
from upgradelab.api.sharing import public_router as public_shares_router
from upgradelab.api.sharing import router as shares_router
from upgradelab.api.streaming import events_router
from upgradelab.api.targets import router as targets_router
from upgradelab.api.users import auth_router, users_router
from upgradelab.api.workloads import router as workloads_router
from upgradelab.errors import id_out_of_range, validation_error
from upgradelab.execution.reaper import start_reaper_thread
from upgradelab.job_kinds import JOB_KINDS, register_with_reaper
from upgradelab.probes.hooks import register as register_probe_hooks
from upgradelab.secret_files import protect_state_dir
from upgradelab.settings import get_settings
from upgradelab.users.auth import authorize


def create_app() -> FastAPI:
    """Build the app; the UI is served when frontend/dist exists (`npm run build`)."""
    # Operation ids are the route functions' names (list_runs, get_run): the generated TypeScript
    # client (scripts/client.sh) names its functions after them (listRuns, getRun).
    app = FastAPI(
        title="Upgrade Lab", version="0.1.0", generate_unique_id_function=_operation_id, lifespan=_reaper
    )
    # a run's summary computed on first read stores its probe columns too (probes/hooks.py)
    register_probe_hooks()
    # 422s never echo the request's values (passwords, huge inputs): errors.validation_error.
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(OverflowError, id_out_of_range)
    app.add_exception_handler(DataError, id_out_of_range)  # PostgreSQL's "integer out of range"
    # Signed-in routers: GET needs viewer, other methods operator, targets/users admin (users/auth.py).
    for router in (
        targets_router,
        workloads_router,
        experiments_router,
        runs_router,
        results_router,
        probes_router,
        datasets_router,
        replay_router,
        pools_router,
        attributions_router,
        captures_router,
        capture_variants_router,
        fixsearch_router,
        concurrent_replays_router,
        assessments_router,
    ):
        app.include_router(router, dependencies=[Depends(authorize)])
    # These carry their own dependencies (auth, users, shares, SSE) or none (public share links).
    for router in (
        auth_router,
        users_router,
        shares_router,
        events_router(),
        public_shares_router,
        dataset_dumps_router,
        capture_dumps_router,
        public_attributions_router,
        public_fixsearch_router,
        public_captures_router,
        public_concurrent_router,
        public_assessments_router,
    ):
        app.include_router(router)

    # a kind registered at run time names its own routes' module (execution/kinds.py api_module)
    for kind in JOB_KINDS:
        if kind.api_module:
            module = importlib.import_module(kind.api_module)
            app.include_router(module.router, dependencies=[Depends(authorize)])
            if hasattr(module, "public_router"):
                app.include_router(module.public_router)

    @app.get("/api/health", tags=["health"])
    async def health() -> dict[str, str]:
        """Liveness: {"status": "ok"}."""
        return {"status": "ok"}

    # outermost (but for Starlette's error handler): a body is bounded and its sender signed in
    # before any of the app reads it
    app.add_middleware(BodyLimits)

    dist = get_settings().frontend_dist
    if (dist / "index.html").exists():
        _serve_ui(app, dist)
    return app


@asynccontextmanager
async def _reaper(_: FastAPI) -> AsyncIterator[None]:
    """The API's start: share tokens kept out of its access log (api/access_log.py), its state directory
    made its owner's alone (secret_files.protect_state_dir), and leases reaped as a worker does
    (execution/reaper.py), `api_reaper_grace_s` after they expired: a job whose only worker died ends
    "worker lost" with no worker left."""
    access_log.install()  # no share token in the access log
    protect_state_dir(get_settings())
    register_with_reaper()
    settings = get_settings()
    stop = start_reaper_thread(settings, grace_s=settings.api_reaper_grace_s)
    try:
        yield
    finally:
        stop.set()


def _operation_id(route: APIRoute) -> str:
    return route.name


def _serve_ui(app: FastAPI, dist: Path) -> None:
    app.mount("/assets", StaticFiles(directory=dist / "assets"), name="assets")
    index = dist / "index.html"
    root = dist.resolve()
    # built once, never changes; the build's own bookkeeping (.vite/manifest.json) is not served
    files = {
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)
    }

    @app.get("/{path:path}", include_in_schema=False)
    async def spa(path: str) -> FileResponse:
        if path.startswith("api/"):
            raise HTTPException(404, f"no API route /{path}")
        if path in files:
            return FileResponse(root / path)
        return FileResponse(index)


app = create_app()
