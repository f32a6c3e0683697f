"""Issue 21, the attribution's page in a browser.

1. "Explain this gap" on the run page's comparison row (a decided gap between two variants of MySQL
   9.7, rows inserted) starts an attribution and lands on its page: status, progress, candidates and
   a cancel that ends it (its first step run executes on the real server meanwhile, or not yet).
2. A finished attribution, built without servers: its step runs are synthetic runs (rows inserted with
   known shifts), measured by attribution/steps.py `measure`, searched by attribution/search.py and
   reported by attribution/report.py, then stored in its row as the runner would: each step is a
   linked run with its verdict, the contributions with intervals, the unexplained remainder, the
   option lines, CSV/JSON exports that answer and the share link that answers without signing in.
3. That share link in a signed-out browser: the read-only page shows the status, the bars with their
   intervals, the remainder, the option lines and the steps, with no cancel or share and no link to a
   signed-in page; a made-up token says the link does not work.
"""

import csv
import io
import math
import re
import time
from typing import Any

import httpx
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import select

from tests.results.synthetic import SyntheticVariant, insert_run, resolved
from upgradelab.attribution import candidates, report, search, steps
from upgradelab.attribution.models import Attribution
from upgradelab.db import sync_session, utcnow
from upgradelab.execution.status import JobStatus
from upgradelab.experiments.variants import ResolvedVariant
from upgradelab.results.store.summary import store_summary_in
from upgradelab.runs.models import Run, RunVariant

FINAL = ("succeeded", "failed", "cancelled")


def _synthetic_run(variants: list[ResolvedVariant], shifts: list[float], seed: int) -> int:
    """A succeeded synthetic run of these variants (their times the baseline's x shift), its verdicts
    stored, the experiment holding the resolved variants (what an attribution reads)."""
    with sync_session() as session:
        run_id = insert_run(
            session,
            [SyntheticVariant(v.name, shift=s) for v, s in zip(variants, shifts, strict=True)],
            rounds=7,
            block=2,
            seed=seed,
            own_noise=0.01,
        )
        run = session.get(Run, run_id)
        assert run is not None
        run.experiment.variants = variants
        session.commit()
        store_summary_in(session, run_id)
    return run_id


def _share(page: Page) -> str:
    """Press Share on the open attribution page: the UI address it shows (/share/attributions/<token>),
    a link whose text is the whole URL."""
    page.get_by_test_id("attribution-share-button").click()
    link = page.get_by_test_id("attribution-share")
    expect(link).to_have_attribute("href", re.compile(r"^/share/attributions/[A-Za-z0-9_-]{32}$"))
    path = link.get_attribute("href") or ""
    expect(link).to_have_text(page.evaluate("location.origin") + path)
    return path


def _pct(x: float) -> str:
    """The page's percentage (JavaScript Math.round: halves up)."""
    return f"{math.floor(x * 100 + 0.5)} %"


def test_explain_this_gap_starts_an_attribution_with_status_progress_and_cancel(
    page: Page, client: httpx.Client
) -> None:
    base = resolved("default", {})
    tuned = resolved("tuned", {"max-connections": "300"})
    run_id = _synthetic_run([base, tuned], [1.0, 1.4], seed=4)
    with sync_session() as session:  # the recorded contexts differ where the options do
        for row in session.scalars(select(RunVariant).where(RunVariant.run_id == run_id)):
            row.variables = {
                **(row.variables or {}),
                "max_connections": "300" if row.name == "tuned" else "151",
            }
        session.commit()
    page.goto(f"/runs/{run_id}")
    rows = page.get_by_test_id("run-verdicts").get_by_test_id("comparison-row")
    expect(rows.nth(1).get_by_test_id("verdict")).to_have_text("regression")
    expect(rows.nth(0).get_by_test_id("explain-gap")).to_have_count(0)  # the baseline has no gap
    rows.nth(1).get_by_test_id("explain-gap").click()

    expect(page).to_have_url(re.compile(r"/attributions/\d+$"))
    attribution_id = int(page.url.rsplit("/", 1)[1])
    stored = client.get(f"/api/attributions/{attribution_id}").json()
    assert (stored["run_id"], stored["variant"], stored["baseline"]) == (run_id, "tuned", "default")
    assert [c["name"] for c in stored["candidates"]] == ["max-connections"]
    expect(page.get_by_role("heading", level=1)).to_contain_text("tuned against default")
    expect(page.get_by_test_id("attribution-candidates")).to_contain_text("max-connections")
    status = page.get_by_test_id("attribution-status")
    expect(status).to_have_text(re.compile(r"^(queued|running)$"))
    expect(page.get_by_test_id("attribution-progress")).to_contain_text(f"of {stored['budget_runs']} runs")

    page.get_by_test_id("attribution-cancel").click()
    expect(status).to_have_text("cancelled", timeout=90_000)
    expect(page.get_by_test_id("attribution-cancel")).to_have_count(0)
    assert client.get(f"/api/attributions/{attribution_id}").json()["status"] == "cancelled"
    deadline = time.monotonic() + 120  # its step run (if one started) ends too, its servers stopped
    while time.monotonic() < deadline:
        ids = [s["run_id"] for s in client.get(f"/api/attributions/{attribution_id}").json()["steps"]]
        states = [client.get(f"/api/runs/{i}").json()["status"] for i in ids]
        if all(s in FINAL for s in states):
            break
        time.sleep(1)
    assert all(s in FINAL for s in states), states


# The finished attribution's world: each candidate multiplies the variant's time by its factor; REST is
# a slowdown no candidate carries (the remainder the page must show).
FACTORS = {"skip-log-bin": 1.25, "innodb-file-per-table": 1.2, "max-connections": 1.0}
REST = 1.06


def _finished_attribution() -> tuple[int, dict[str, Any], list[dict[str, Any]]]:
    """(attribution id, result, steps) of a succeeded attribution whose steps are synthetic runs."""
    base = resolved("default", {"innodb-file-per-table": "ON"})
    tuned = resolved(
        "tuned", {"skip-log-bin": None, "innodb-file-per-table": "OFF", "max-connections": "300"}
    )
    slow = math.prod(FACTORS.values()) * REST
    origin = _synthetic_run([base, tuned], [1.0, slow], seed=11)
    diff = {
        "log_bin": ("ON", "OFF"),
        "innodb_file_per_table": ("ON", "OFF"),
        "max_connections": ("151", "300"),
    }
    found, untestable = candidates.build(base, tuned, diff, True, lambda option, value: None)
    by_name = {c.name: c for c in found}
    assert set(by_name) == set(FACTORS)
    done: list[dict[str, Any]] = []

    def oracle(subsets: list[search.Subset]) -> dict[search.Subset, search.Outcome]:
        """One step run per batch, as attribution/runner.py does it, with synthetic rows."""
        tests = [
            candidates.reverted(tuned, [by_name[n] for n in subset], f"step {len(done) + 1}.{i}")
            for i, subset in enumerate(subsets, 1)
        ]
        shifts = [slow / math.prod(FACTORS[n] for n in subset) for subset in subsets]
        run_id = _synthetic_run([base, tuned, *tests], [1.0, slow, *shifts], seed=20 + len(done))
        gap, measured = steps.measure(run_id, "", "seconds")
        step: dict[str, Any] = {
            "step": len(done) + 1,
            "run_id": run_id,
            "subsets": [list(s) for s in subsets],
        }
        step.update(gap=gap.model_dump(mode="json"), tests=[], tests_done=True)
        out = {}
        for subset, one in zip(subsets, measured, strict=True):
            assert isinstance(one, steps.Measured)
            closes = one.share >= 0.8
            out[subset] = search.Outcome(one.share, one.low, one.high, closes)
            step["tests"].append(
                {"subset": list(subset), "share": one.share, "low": one.low, "high": one.high,
                 "closes": closes, "verdict": one.verdict and one.verdict.model_dump(mode="json")}
            )  # fmt: skip
        done.append(step)
        return out

    searched = search.search([c.name for c in found], oracle, batch=2)
    result = report.build(searched, {c.name: c.as_dict() for c in found}, 0.8, len(done), 1.5)
    result["refused"] = []
    with sync_session() as session:
        origin_gap, _ = steps.measure(origin, "", "seconds")
        row = Attribution(
            run_id=origin,
            variant="tuned",
            baseline="default",
            status=JobStatus.succeeded,
            group="",
            metric="seconds",
            gap=origin_gap,
            rounds=7,
            block=2,
            candidates=[c.as_dict() for c in found],
            untestable=[u.__dict__ for u in untestable],
            steps=done,
            progress={"phase": "done", "runs_done": len(done), "minutes": 1.5, "message": result["outcome"]},
            result=result,
            started_at=utcnow(),
            finished_at=utcnow(),
        )
        session.add(row)
        session.commit()
        return row.id, result, done


def test_finished_attribution_shows_steps_contributions_remainder_lines_exports_and_share(
    page: Page, api: str
) -> None:
    attribution_id, result, done = _finished_attribution()
    # the world above: the two factors that matter close the gap together, neither alone, and REST stays
    assert result["outcome"] == "explained" and set(result["set"]) == {
        "skip-log-bin",
        "innodb-file-per-table",
    }
    assert 0 < result["unexplained"] < 0.3

    page.goto(f"/attributions/{attribution_id}")
    expect(page.get_by_test_id("attribution-status")).to_have_text("succeeded")
    expect(page.get_by_test_id("attribution-cancel")).to_have_count(0)
    expect(page.get_by_test_id("attribution-outcome")).to_have_attribute("data-outcome", "explained")

    # each step: a linked run, each tested subset with its share and its verdict against the variant
    tests = [(step, test) for step in done for test in step["tests"]]
    rows = page.get_by_test_id("attribution-step")
    expect(rows).to_have_count(len(tests))
    links = page.get_by_test_id("step-run")
    expect(links).to_have_count(len(done))
    for index, step in enumerate(done):
        expect(links.nth(index)).to_have_attribute("href", f"/runs/{step['run_id']}")
    # the gap each step run measured (the variant as it is against the baseline), on its first row
    first_rows = [sum(len(s["tests"]) for s in done[:index]) for index in range(len(done))]
    for index, step in zip(first_rows, done, strict=True):
        gap = step["gap"]
        expect(rows.nth(index).get_by_test_id("step-gap")).to_have_text(
            f"{gap['ratio']:.2f}x [{gap['low']:.2f}, {gap['high']:.2f}]"
        )
    for index, (step, test) in enumerate(tests):
        row = rows.nth(index)
        expect(row).to_have_attribute("data-run-id", str(step["run_id"]))
        expect(row.get_by_test_id("step-share")).to_have_text(
            f"{_pct(test['share'])} [{_pct(test['low'])}, {_pct(test['high'])}]"
        )
        expect(row.get_by_test_id("step-closes")).to_have_text("yes" if test["closes"] else "no")
        verdict = test["verdict"]
        expect(row.get_by_test_id("step-verdict")).to_have_text(
            f"{verdict['ratio']:.2f}x [{verdict['low']:.2f}, {verdict['high']:.2f}] {verdict['verdict']}"
        )

    # the contributions with their intervals, in the set's order, and the remainder
    _expect_contributions(page, result)
    expect(page.get_by_test_id("also")).to_have_count(len(result["also"]))
    expect(page.get_by_test_id("unexplained")).to_contain_text(_pct(result["unexplained"]))
    expect(page.get_by_test_id("attribution-lines")).to_have_text("\n".join(result["lines"]))
    assert set(result["lines"]) == {"# drop skip-log-bin", "innodb-file-per-table=ON"}

    # the exports answer (signed in, as the page's links are followed)
    exported = page.request.get(page.get_by_test_id("attribution-csv").get_attribute("href") or "")
    assert exported.status == 200
    table = list(csv.DictReader(io.StringIO(exported.text())))
    members = {r["name"]: float(r["share"]) for r in table if r["kind"] == "member"}
    assert members == {m["name"]: m["contribution"] for m in result["members"]}
    assert [float(r["share"]) for r in table if r["kind"] == "unexplained"] == [result["unexplained"]]
    assert [r["name"] for r in table if r["kind"] == "step"] == [f"run {s['run_id']}" for s, _ in tests]
    whole = page.request.get(page.get_by_test_id("attribution-json").get_attribute("href") or "")
    assert whole.status == 200
    assert whole.json()["id"] == attribution_id and whole.json()["result"]["set"] == result["set"]

    # the share link answers without signing in; the attribution itself does not
    path = _share(page)
    with httpx.Client(base_url=api, timeout=30) as anonymous:
        answer = anonymous.get(f"/api/public/attributions/{path.rsplit('/', 1)[1]}")
        assert answer.status_code == 200
        assert answer.json()["id"] == attribution_id and answer.json()["result"] == result
        assert anonymous.get(f"/api/attributions/{attribution_id}").status_code == 401

    # a step's link opens its run: the baseline, the variant and the subsets it tested
    links.first.click()
    expect(page).to_have_url(re.compile(rf"/runs/{done[0]['run_id']}$"))
    expect(page.get_by_test_id("run-verdicts").get_by_test_id("comparison-row")).to_have_count(
        2 + len(done[0]["subsets"])
    )


def test_a_shared_attribution_opens_read_only_in_a_signed_out_browser(
    browser: Browser, page: Page, api: str
) -> None:
    attribution_id, result, done = _finished_attribution()
    page.goto(f"/attributions/{attribution_id}")
    expect(page.get_by_test_id("attribution-status")).to_have_text("succeeded")
    path = _share(page)

    stranger = browser.new_context(base_url=api)  # no cookie: not signed in
    try:
        shared = stranger.new_page()
        assert shared.request.get(f"/api/attributions/{attribution_id}").status == 401
        shared.goto(path)
        expect(shared.get_by_test_id("share-page")).to_contain_text("Shared read-only view")
        expect(shared.get_by_test_id("login-page")).to_have_count(0)
        expect(shared.get_by_role("heading", level=1)).to_have_text("Explain the gap: tuned against default")
        expect(shared.get_by_test_id("attribution-status")).to_have_text("succeeded")
        expect(shared.get_by_test_id("attribution-outcome")).to_have_attribute("data-outcome", "explained")
        _expect_contributions(shared, result)
        expect(shared.get_by_test_id("unexplained")).to_contain_text(_pct(result["unexplained"]))
        expect(shared.get_by_test_id("attribution-lines")).to_have_text("\n".join(result["lines"]))
        expect(shared.get_by_test_id("attribution-step")).to_have_count(
            sum(len(step["tests"]) for step in done)
        )

        # read-only: no cancel or share, runs named but not linked (their pages need a sign-in)
        runs = shared.get_by_test_id("step-run")
        expect(runs).to_have_text([f"run {step['run_id']}" for step in done])
        expect(shared.locator("a[href^='/runs/'], a[href^='/attributions/']")).to_have_count(0)
        expect(shared.locator("[data-testid=step-run][href]")).to_have_count(0)
        expect(shared.get_by_test_id("attribution-cancel")).to_have_count(0)
        expect(shared.get_by_test_id("attribution-share-button")).to_have_count(0)
        # its exports are the public ones, which answer signed out, the same as the signed-in ones
        whole = shared.request.get(shared.get_by_test_id("attribution-json").get_attribute("href") or "")
        assert whole.status == 200 and whole.json()["result"] == result
        table = shared.request.get(shared.get_by_test_id("attribution-csv").get_attribute("href") or "")
        assert table.status == 200 and "attachment" in table.headers["content-disposition"]
        members = {
            r["name"]: float(r["share"])
            for r in csv.DictReader(io.StringIO(table.text()))
            if r["kind"] == "member"
        }
        assert members == {m["name"]: m["contribution"] for m in result["members"]}

        shared.goto("/share/attributions/made-up-token")
        expect(shared.get_by_test_id("share-error")).to_contain_text("This link does not work")
        expect(shared.get_by_test_id("share-error")).to_contain_text("not found")
        expect(shared.get_by_test_id("attribution-status")).to_have_count(0)
    finally:
        stranger.close()


def _expect_contributions(page: Page, result: dict[str, Any]) -> None:
    """Each member's bar, in the set's order, with its share of the gap and interval as the page words it."""
    bars = page.get_by_test_id("contribution")
    expect(bars).to_have_count(len(result["members"]))
    for index, member in enumerate(result["members"]):
        expect(bars.nth(index)).to_have_attribute("data-name", member["name"])
        expect(bars.nth(index).get_by_test_id("contribution-text")).to_have_text(
            f"{_pct(member['contribution'])} of the gap [{_pct(member['low'])}, {_pct(member['high'])}]"
        )
