"""Time to open a 10,000 iterations x 8 variants run: the calls the run page makes (results downsampled to
the chart's width beside every point; the group medians beside every iteration; the stored verdict table)
and the run page in chromium (page.goto until the iteration chart's lines and a comparison row are drawn;
then until the probe charts below the fold are drawn too).

Seeds the run directly into a throw-away instance's database (one sample per iteration).

    .venv/bin/python bench/open_large_run.py [ITERATIONS] [VARIANTS]
"""

import random
import statistics
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
import instance

OPENS = 5  # page opens timed (the machine is shared: the median of a few)


def seed(iterations: int, variants: int) -> int:
    from sqlalchemy import insert

    from upgradelab.db import sync_session
    from upgradelab.execution.status import JobStatus
    from upgradelab.probes.hooks import register
    from upgradelab.results.store.models import Iteration, Sample
    from upgradelab.results.store.summary import store_summary_in
    from upgradelab.runs.models import Experiment, Run

    register()  # the probe columns are packed at run end as in the worker
    rng = random.Random(1)
    names = [f"mysql-9.7 v{k}" for k in range(variants)]
    with sync_session() as session:
        experiment = Experiment(
            name=f"large {iterations} x {variants}",
            workload="insert-truncate",
            iterations=iterations,
            variants=[
                {"name": n, "target": "mysql-9.7", "preset": "default", "options": {}, "redo_log": "enabled"}
                for n in names
            ],
        )
        session.add(experiment)
        session.commit()
        run = Run(experiment_id=experiment.id, status=JobStatus.succeeded, targets=",mysql-9.7,")
        session.add(run)
        session.commit()
        rows = [
            {
                "run_id": run.id,
                "variant_index": v,
                "variant": names[v],
                "iteration": i,
                "statement": "iteration",
                "elapsed_s": 0.01 * (1 + 0.1 * v) * rng.lognormvariate(0, 0.1),
            }
            for v in range(variants)
            for i in range(1, iterations + 1)
        ]
        session.execute(insert(Sample), rows)
        # the readers (series, verdicts) use one row per iteration: ten rounds, in order
        session.execute(
            insert(Iteration),
            [
                {
                    "run_id": run.id,
                    "variant_index": v,
                    "iteration": i,
                    "round": 1 + (i - 1) * 10 // iterations,
                    "block": 1 + (i - 1) * 10 // iterations,
                    "position": v,
                    "elapsed_s": row["elapsed_s"],
                }
                for row, (v, i) in zip(
                    rows, [(v, i) for v in range(variants) for i in range(1, iterations + 1)], strict=True
                )
            ],
        )
        session.commit()
        started = time.perf_counter()
        store_summary_in(session, run.id)
        print(f"verdict table (rounds) stored in {time.perf_counter() - started:.2f} s (once, at run end)")
        return run.id


def timed(client: "httpx.Client", label: str, path: str, params: dict[str, str | int | bool]) -> None:
    """One GET, its wall time and body size."""
    started = time.perf_counter()
    response = client.get(path, params=params)
    response.raise_for_status()
    elapsed = time.perf_counter() - started
    print(f"{label}: {elapsed * 1000:.0f} ms, {len(response.content) / 1e6:.2f} MB")


def main(iterations: int, variants: int) -> None:
    import httpx
    from playwright.sync_api import sync_playwright

    with instance.instance(worker=False) as api:
        run_id = seed(iterations, variants)
        client = httpx.Client(base_url=api, headers=instance.auth_headers(), timeout=300)
        width = 1040  # the iteration chart's plot width in the bench's 1280 px window (charts/downsample.ts)
        label = f"downsampled to the chart (width {width} px, 1 point per pixel)"
        timed(client, f"GET results, {label}", f"/api/runs/{run_id}/results", {"width": width})
        timed(client, "GET results, every point", f"/api/runs/{run_id}/results", {"max_points": 100_000})
        timed(
            client,
            "GET groups, medians only (what the run page asks)",
            f"/api/runs/{run_id}/groups",
            {"iterations": False},
        )
        timed(client, "GET groups, with every iteration", f"/api/runs/{run_id}/groups", {})
        timed(
            client,
            "GET compare (stored summary, no series)",
            "/api/compare",
            {"runs": str(run_id), "series": False},
        )
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            context = browser.new_context(base_url=api)
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
            page.goto("/runs")  # load the app's assets first: time the run page, not the bundle
            page.get_by_test_id("runs-table").wait_for()
            opened, probes = [], []
            for _ in range(OPENS):
                started = time.perf_counter()
                page.goto(f"/runs/{run_id}")
                page.locator("[data-testid=iteration-chart] path.series-path").first.wait_for(timeout=300_000)
                page.get_by_test_id("comparison-row").first.wait_for(timeout=300_000)
                opened.append(time.perf_counter() - started)
                # below the fold, drawn after the first paint (charts/afterPaint.ts): timed apart
                drawn = "[data-testid=server-client-chart] path.series-path[d^=M]"  # a line with points
                page.locator(drawn).first.wait_for(timeout=300_000)
                probes.append(time.perf_counter() - started)
            points = page.get_by_test_id("iteration-chart").get_attribute("data-points")
            browser.close()
        print(
            f"run page open ({iterations} x {variants}, chart drawn with {points} points + verdicts), "
            f"median of {OPENS}: {statistics.median(opened):.2f} s "
            f"({', '.join(f'{one:.2f}' for one in opened)})"
        )
        print(
            f"then the probe charts below the fold drawn, median of {OPENS}: "
            f"{statistics.median(probes):.2f} s "
            f"({', '.join(f'{one:.2f}' for one in probes)})"
        )


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    main(args[0] if args else 10_000, args[1] if len(args) > 1 else 8)
