"""The worker credential: the bearer token a worker shows the API to read a dataset's dump
(GET /api/datasets/{name}/dump). UPGRADELAB_WORKER_TOKEN when set; otherwise a random token kept in
{state_dir}/worker.token, which an API and a worker sharing one state directory (one host) both read.
"""

import hmac
from pathlib import Path

from upgradelab.secret_files import read_or_make
from upgradelab.settings import Settings, get_settings


def worker_token(settings: Settings | None = None) -> str:
    """The token; created (0600) in the state directory on first use when no setting gives one."""
    settings = settings or get_settings()
    if settings.worker_token:
        return settings.worker_token
    return read_or_make(Path(settings.state_dir) / "worker.token")


def is_worker_token(presented: str | None) -> bool:
    """Whether `presented` is the worker credential (constant-time comparison)."""
    return bool(presented) and hmac.compare_digest(str(presented), worker_token())
