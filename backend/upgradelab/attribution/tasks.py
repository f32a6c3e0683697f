"""The Celery task of attributions (the worker includes this module; its step runs store their probe
rows like any run: worker_start.py registers the probe hooks)."""

from redis import Redis

from upgradelab.attribution.runner import execute_attribution
from upgradelab.settings import get_settings
from upgradelab.worker import EXECUTE_ATTRIBUTION, celery_app


@celery_app.task(name=EXECUTE_ATTRIBUTION, soft_time_limit=12 * 3600)
def execute(attribution_id: int) -> str | None:
    """Execute attribution `attribution_id` (its steps inline, attribution/steps.py)."""
    settings = get_settings()
    redis = Redis.from_url(settings.redis_url, socket_timeout=5, socket_connect_timeout=5)
    try:
        return execute_attribution(attribution_id, redis, settings)
    finally:
        redis.close()
