"""What an attribution costs (issue 21): ddmin against a one-at-a-time search over the same candidates.

The constructed case of bench/power_checks.py (constructed-gap) on a throw-away Upgrade Lab instance
(bench/instance.py; one Celery worker with concurrency 1, so the attribution's inline step runs are
shown not to wait for themselves): mysql-9.7 default against mysql-9.7 with innodb_file_per_table=OFF
and skip-log-bin plus five changes that do not matter to article 001's INSERT/TRUNCATE loop.

    ddmin          POST /api/attributions, waited for: its runs (those beside the found set among
                   them), wall clock, the set it names and the settings it names beside the set
    one at a time  one run per candidate: baseline, variant, the variant with the baseline's value for
                   that candidate alone (what a person does by hand); each share measured as the
                   attribution measures it (attribution/steps.py measure); named: every candidate
                   whose share interval lies above 0

Both use the same rounds and block per run. Run by hand (root, the lab installed), from the
repository root:
    .venv/bin/python bench/attribution_cost.py [--rounds 6] [--block 10] [--json]
Ports: BENCH_PORT_OFFSET (default 250, see bench/instance.py).
"""

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "backend"))
import instance

# the power check's constructed case itself, so the bench measures what the check decides
from power_checks import IRRELEVANT, MATTER

FINAL = {"succeeded", "failed", "cancelled"}


def wait(client: Any, path: str, timeout_s: float = 7200) -> dict[str, Any]:
    """Poll `path` until its status is final; its JSON."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found: dict[str, Any] = client.get(path).json()
        if found["status"] in FINAL:
            return found
        time.sleep(2)
    raise TimeoutError(path)


def run(
    client: Any, variants: list[dict[str, Any]], rounds: int, block: int, max_rounds: int | None = None
) -> int:
    """An interleaved insert-truncate run of `variants`, waited for; its id."""
    body = {"workload": "insert-truncate", "variants": variants, "rounds": rounds, "block": block}
    if max_rounds:
        body["max_rounds"] = max_rounds
    experiment = client.post("/api/experiments", json=body)
    experiment.raise_for_status()
    queued = client.post(f"/api/experiments/{experiment.json()['id']}/runs")
    queued.raise_for_status()
    done = wait(client, f"/api/runs/{queued.json()['id']}")
    if done["status"] != "succeeded":
        raise SystemExit(f"run {done['id']} {done['status']}: {done['error']}")
    return int(done["id"])


def one_at_a_time(
    client: Any, origin: int, attribution: dict[str, Any], rounds: int, block: int
) -> dict[str, Any]:
    """One run per candidate (baseline, variant, variant with that candidate reverted); the shares."""
    from upgradelab.attribution.candidates import Candidate, reverted
    from upgradelab.attribution.steps import measure

    experiment = client.get(
        f"/api/experiments/{client.get(f'/api/runs/{origin}').json()['experiment_id']}"
    ).json()
    specs = {v["name"]: v for v in experiment["variants"]}
    baseline, variant = specs[attribution["baseline"]], specs[attribution["variant"]]
    started, shares = time.monotonic(), {}
    for raw in attribution["candidates"]:
        candidate = Candidate(**raw)
        test = reverted(variant, [candidate], f"baseline's {candidate.name}")
        variants = [baseline, variant, test]
        for one in variants:  # a stored variant carries its resolved fields; the API takes the spec's
            one.pop("redo_log", None)
        run_id = run(client, variants, rounds, block)
        _, [measured] = measure(run_id, attribution["group"], attribution["metric"])
        if isinstance(measured, str):
            raise SystemExit(f"run {run_id}: {candidate.name} could not be tested: {measured}")
        shares[candidate.name] = {"share": measured.share, "low": measured.low, "high": measured.high}
    named = sorted(name for name, share in shares.items() if share["low"] > 0)
    return {
        "runs": len(shares),
        "minutes": (time.monotonic() - started) / 60,
        "named": named,
        "shares": shares,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--block", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    import httpx

    with (
        instance.instance(worker=True) as api,
        httpx.Client(base_url=api, headers=instance.auth_headers(), timeout=120) as client,
    ):
        variants: list[dict[str, Any]] = [
            {"target": "mysql-9.7", "name": "default"},
            {"target": "mysql-9.7", "name": "tuned", "options": {**MATTER, **IRRELEVANT}},
        ]
        origin = run(client, variants, args.rounds, args.block, max_rounds=12)
        started = time.monotonic()
        created = client.post(
            "/api/attributions",
            json={
                "run_id": origin,
                "variant": "tuned",
                "rounds": args.rounds,
                "block": args.block,
                "budget_runs": 12,
            },
        )
        created.raise_for_status()
        found = wait(client, f"/api/attributions/{created.json()['id']}")
        ddmin_minutes = (time.monotonic() - started) / 60
        result = found["result"] or {}
        members = {m["name"]: m for m in result.get("members", [])}
        also = {a["name"]: a for a in result.get("also", [])}
        ddmin: dict[str, Any] = {
            "runs": result.get("runs"),
            "beside_runs": sum(1 for step in found["steps"] if step.get("phase") == "beside"),
            "minutes": ddmin_minutes,
            "named": sorted(result.get("set", [])) + sorted(also),
            "shares": {
                **{
                    n: {"share": m["contribution"], "low": m["low"], "high": m["high"]}
                    for n, m in members.items()
                },
                **{f"{n} (beside, {a.get('decided_by')})": a["alone"] for n, a in also.items()},
            },
            "beside": result.get("beside", []),
            "outcome": result.get("outcome"),
        }
        single = one_at_a_time(client, origin, found, args.rounds, args.block)
    report = {
        "rounds": args.rounds,
        "block": args.block,
        "candidates": len(found["candidates"]),
        "ddmin": ddmin,
        "one_at_a_time": single,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{report['candidates']} candidates, {args.rounds} rounds x {args.block} iterations per run")
    parts: list[tuple[str, dict[str, Any]]] = [("ddmin", ddmin), ("one at a time", single)]
    for name, part in parts:
        print(
            f"{name:>14}: {part['runs']} runs, {part['minutes']:.1f} min, "
            f"named {', '.join(part['named']) or 'nothing'}"
        )
        for candidate, share in part["shares"].items():
            if share["share"] is not None:
                print(f"{'':>16}{candidate}: {share['share']:.0%} [{share['low']:.0%}, {share['high']:.0%}]")


if __name__ == "__main__":
    main()
