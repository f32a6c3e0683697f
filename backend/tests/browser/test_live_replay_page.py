"""Issue 32: a replay's page follows the replay over its event stream (GET /api/replays/{id}/events)
instead of polling GET /api/replays/{id} every 1.5 s. While the replay starts, loads and enters its
rounds, the page shows each phase with a handful of GETs (its first, then one per status, schedule or
report event), and none while the replay stays in a round; the cancel's end arrives the same way."""

import re

import httpx
from playwright.sync_api import Page, Request, expect

from tests.conftest import auth_headers

# 0 s when captured and in the warm-up pass (its first two runs on the connection), 100 s in rounds:
# the replay stays in round 1 until it is cancelled
SLEEPER = "SELECT SLEEP(IF((@runs := COALESCE(@runs, 0) + 1) > 2, 100, 0))"
# a page that polled every 1.5 s would ask at least 3 times in this long a quiet spell
QUIET_MS = 5000


def test_the_replay_page_updates_from_its_stream_without_polling(page: Page, api: str) -> None:
    headers = auth_headers()
    dump = b"CREATE TABLE t (id INT PRIMARY KEY);\nINSERT INTO t VALUES (1), (2);\n"
    assert httpx.put(f"{api}/api/datasets/live-replay", content=dump, headers=headers).status_code == 201
    try:
        queries = f"SELECT id FROM t;\n{SLEEPER};\n"
        body = {"dataset": "live-replay", "queries": queries, "variants": ["mariadb-10.11"], "rounds": 2,
                "passes": 1, "statement_timeout_s": 120}  # fmt: skip
        replay = httpx.post(f"{api}/api/replays", json=body, headers=headers).json()
        own = re.compile(rf"/api/replays/{replay['id']}$")
        gets: list[str] = []
        streams: list[str] = []

        def seen(request: Request) -> None:
            path = request.url.split("?")[0]
            if request.method == "GET" and own.search(path):
                gets.append(path)
            elif path.endswith(f"/api/replays/{replay['id']}/events"):
                streams.append(request.url)

        page.on("request", seen)
        page.goto(f"/replays/{replay['id']}")
        progress = page.get_by_test_id("replay-progress")
        expect(progress).to_contain_text("round 1 of 2", timeout=120_000)
        assert streams, "the page opened the replay's event stream"
        # its first GET, then at most one per status change and schedule event (one more when an
        # event lands while a refetch is in flight)
        assert 1 <= len(gets) <= 4, gets
        expect(page.get_by_test_id("replay-status")).to_have_text("running")

        before = len(gets)
        page.wait_for_timeout(QUIET_MS)  # the replay stays in round 1: nothing changes, nothing asked
        assert len(gets) == before, f"{len(gets) - before} GETs in {QUIET_MS} ms of a running replay"

        page.get_by_test_id("replay-cancel").click()
        expect(page.get_by_test_id("replay-status")).to_have_text("cancelled", timeout=30_000)
        expect(page.get_by_test_id("replay-partial")).to_contain_text("2 statements captured")
        assert len(streams) == 1, f"one connection, not reopened: {streams}"
    finally:
        httpx.delete(f"{api}/api/datasets/live-replay", headers=headers)
