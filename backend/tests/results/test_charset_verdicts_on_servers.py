"""charset-oltp on the real MariaDB 10.11, interleaved: verdicts per thread count on sysbench's tps
and p95 (not on the fixed durations), and the variables diff names the charset, not the instance's
own paths and port."""

import httpx

from tests.runs.helpers import wait_final
from upgradelab.results.stats.verdicts import VERDICTS

CHARSETS = [("latin1", "latin1_swedish_ci"), ("utf8mb4", "utf8mb4_general_ci")]


def test_charset_oltp_verdicts_are_per_thread_count_on_tps_and_p95(client: httpx.Client) -> None:
    body = {
        "workload": "charset-oltp",
        "parameters": {
            "script": "oltp_point_select", "tables": 1, "table_size": 500, "threads": [1, 2], "duration_s": 1,
        },
        "variants": [
            {"target": "mariadb-10.11", "name": charset,
             "options": {"character-set-server": charset, "collation-server": collation}}
            for charset, collation in CHARSETS
        ],
        "iterations": 5,
        "rounds": 5,
        "block": 1,
        "seed": 3,
    }  # fmt: skip
    created = client.post("/api/experiments", json=body)
    assert created.status_code == 201, created.text
    run_id = client.post(f"/api/experiments/{created.json()['id']}/runs").json()["id"]
    run = wait_final(client, run_id, timeout_s=900)
    assert run["status"] == "succeeded", run["error"]

    rows = client.get("/api/compare", params={"runs": str(run_id), "series": "false"}).json()["rows"]
    assert sorted((r["variant"], r["group"], r["metric"]) for r in rows) == sorted(
        (name, f"threads={t}", metric) for name, _ in CHARSETS for t in (1, 2) for metric in ("tps", "p95_ms")
    )
    for row in rows:
        assert row["iterations"] == 5 and row["rounds"] == 5
        assert row["median"] > 0 and row["median_s"] < 10  # sysbench's --time=1 run, seconds
    utf8 = [r for r in rows if r["variant"] == "utf8mb4"]
    for row in utf8:
        assert row["ratio"]["method"] == "paired rounds" and row["ratio"]["verdict"] in VERDICTS
        assert row["unit"] == ("tps" if row["metric"] == "tps" else "ms")
        assert row["higher_is_better"] == (row["metric"] == "tps")

    diff = {d["name"] for d in client.get(f"/api/runs/{run_id}/variables-diff").json()}
    assert {"character_set_server", "collation_server"} <= diff
    assert not diff & {"datadir", "port", "socket", "pid_file", "log_error", "tmpdir"}
