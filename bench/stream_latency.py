"""Worker-to-browser latency of live iteration events (p50/p95), measured in Debian's chromium.

Each iteration event carries the worker's time.time() at XADD (published_at); a Playwright-side
recorder (backend/tests/browser/stream_recorder.py, no hook in the app) records Date.now() -
published_at when the event arrives. Same machine, same clock. Runs MariaDB 10.11 insert-truncate
for ITERATIONS iterations on a throw-away instance.

    .venv/bin/python bench/stream_latency.py [ITERATIONS]
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "backend"))
import instance

from tests.browser.stream_recorder import record_streams, stream_log


def main(iterations: int) -> None:
    import httpx
    from playwright.sync_api import sync_playwright

    with (
        instance.instance(worker=True) as api,
        httpx.Client(base_url=api, headers=instance.auth_headers()) as client,
    ):
        body = {
            "workload": "insert-truncate",
            "iterations": iterations,
            "variants": [{"target": "mariadb-10.11"}],
        }
        experiment = client.post("/api/experiments", json=body).json()
        run_id = client.post(f"/api/experiments/{experiment['id']}/runs").json()["id"]
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            context = record_streams(browser.new_context(base_url=api))
            context.add_cookies(
                [
                    {
                        "name": "upgradelab_session",
                        "value": instance.auth_headers()["Authorization"][7:],
                        "url": api,
                    }
                ]
            )
            page = context.new_page()
            page.goto(f"/runs/{run_id}")
            page.get_by_test_id("run-status").filter(has_text="succeeded").wait_for(timeout=900_000)
            latencies: list[float] = stream_log(page)["latenciesMs"]
            browser.close()
    if not latencies:
        print("no live events received (the run finished before the page opened?)")
        return
    print(f"live iteration events: {len(latencies)} of {iterations}")
    print(
        f"worker-to-browser latency: p50 {instance.percentile(latencies, 0.5):.1f} ms, "
        f"p95 {instance.percentile(latencies, 0.95):.1f} ms, max {max(latencies):.1f} ms"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
