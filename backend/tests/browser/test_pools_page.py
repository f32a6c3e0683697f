"""The Pools page and a queued run's page in the browser: the session's worker listed in pool
"local" (its pool's queue, its own per-worker queue labelled apart); a pool with no worker shows the
run waiting, and the run's page says its pool has none."""

import re

import httpx
from playwright.sync_api import Page, expect
from redis import Redis

from tests.faults.helpers import submit
from tests.pools.second_pool import pools_of_targets
from upgradelab.settings import get_settings


def test_the_pools_page_lists_workers_and_a_queued_run_says_its_pool_has_none(
    page: Page, client: httpx.Client
) -> None:
    with pools_of_targets({"mariadb-11.8": ["west"]}):
        run_id = submit(client, "mariadb-11.8", iterations=2)
        try:
            page.goto("/pools")
            local = page.locator('[data-pool="local"]').get_by_test_id("pool-worker")
            expect(local).to_have_count(1)
            # the pool's queue, and Celery's per-worker queue apart from it, labelled (replay shards)
            expect(local.get_by_test_id("worker-queues").locator(".mono").first).to_have_text("upgradelab")
            expect(local.get_by_test_id("worker-direct-queue")).to_have_text(
                re.compile(r"^own queue \S+@\S+\.dq2 \(replay shards\)$")
            )
            west = page.locator('[data-pool="west"]')
            expect(west.get_by_test_id("pool-no-worker")).to_have_text("No live worker: 1 waiting.")
            expect(west.get_by_role("link", name=f"run #{run_id}")).to_be_visible()
            page.goto(f"/runs/{run_id}")
            expect(page.get_by_test_id("queued-note")).to_contain_text("queued for pool west: no live worker")
        finally:
            client.post(f"/api/runs/{run_id}/cancel")
            Redis.from_url(get_settings().redis_url).delete("west")
