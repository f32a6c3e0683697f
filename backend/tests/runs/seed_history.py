"""Seed a separate metadata database with many runs, for the history tests and bench/runs_list.py."""

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import create_engine, insert

from upgradelab.migrations import upgrade_head
from upgradelab.runs.models import Experiment, Run

WORKLOADS = ["insert-truncate", "sysbench-oltp", "count-star"]
TARGETS = ["mysql-9.7", "mariadb-10.11", "mysql-8.0"]
STATUSES = ["succeeded", "failed", "cancelled", "succeeded"]
START = datetime(2026, 1, 1, tzinfo=UTC)


def seed(path: Path, runs: int, seed_value: int = 7) -> str:
    """Migrate a SQLite file at `path` and insert `runs` runs (one experiment each); its sync URL.

    Run k (1-based) is created at START + k hours; every 100th run has notes "needle k".
    """
    url = f"sqlite+pysqlite:///{path}"
    upgrade_head(url)
    rng = random.Random(seed_value)
    engine = create_engine(url)
    experiments, rows = [], []
    for k in range(1, runs + 1):
        workload, target = rng.choice(WORKLOADS), rng.choice(TARGETS)
        experiments.append(
            {"id": k, "name": f"experiment {k} on {target}", "workload": workload, "iterations": 10,
             "parameters": {}, "variants": [{"name": f"{target} default", "target": target,
                                             "preset": "default", "options": {}, "redo_log": "enabled"}],
             "created_at": (START + timedelta(hours=k)).replace(tzinfo=None)}
        )  # fmt: skip
        rows.append(
            {"id": k, "experiment_id": k, "status": STATUSES[k % len(STATUSES)], "cancel_requested": False,
             "created_at": (START + timedelta(hours=k)).replace(tzinfo=None), "targets": f",{target},",
             "name": None, "notes": f"needle {k}" if k % 100 == 0 else None}
        )  # fmt: skip
    with engine.begin() as connection:
        connection.execute(insert(Experiment), experiments)
        connection.execute(insert(Run), rows)
    engine.dispose()
    return url
