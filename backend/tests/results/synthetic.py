"""Synthetic runs written straight into the metadata database: experiment, run, run_variant and one
`iteration` row per iteration, with a known shift per variant and noise per round (no server runs)."""

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy.orm import Session

from upgradelab.execution.status import JobStatus
from upgradelab.experiments.variants import ResolvedVariant
from upgradelab.results.store.models import Iteration
from upgradelab.runs.models import Experiment, Run, RunVariant, VariantStatus


def resolved(
    name: str, options: dict[str, str | None] | None = None, target: str = "mysql-9.7"
) -> ResolvedVariant:
    """A resolved variant (one of experiment.variants) of `target` with these startup options, as
    stored; no check of the options (they may name what no server takes)."""
    return ResolvedVariant(
        name=name, target=target, preset="default", options=options or {}, redo_log="enabled"
    )


@dataclass(frozen=True)
class SyntheticVariant:
    """A variant whose values are the baseline's times `shift` (seconds: slower above 1)."""

    name: str
    shift: float = 1.0
    is_aa_control: bool = False
    variables: dict[str, str] = field(default_factory=dict)


def insert_run(
    session: Session,
    variants: list[SyntheticVariant],
    rounds: int,
    block: int = 3,
    workload: str = "insert-truncate",
    groups: tuple[str, ...] = ("",),
    round_noise: float = 0.10,
    own_noise: float = 0.02,
    seed: int = 0,
) -> int:
    """A succeeded interleaved run; returns its id. Seconds ~ 0.1 s x shift x round factor; for
    charset-oltp every iteration also has metrics tps (~600 / shift) and p95_ms (~2 x shift)."""
    rng = np.random.default_rng(seed)
    experiment = Experiment(
        name="synthetic",
        workload=workload,
        parameters={},
        variants=[resolved(v.name) for v in variants],
        iterations=rounds * block,
        schedule="interleaved",
        rounds=rounds,
        block=block,
        aa_control=any(v.is_aa_control for v in variants),
        seed=seed,
    )
    session.add(experiment)
    session.flush()
    order = [[int(i) for i in rng.permutation(len(variants))] for _ in range(rounds)]
    run = Run(
        experiment_id=experiment.id,
        status=JobStatus.succeeded,
        schedule={"kind": "interleaved", "seed": seed, "rounds": rounds, "block": block, "order": order},
        context={
            "host": {"cpu_model": "synthetic", "cores": 2},
            "upgradelab_version": {"package": "test", "git_commit": None},
        },
    )
    session.add(run)
    session.flush()
    for index, variant in enumerate(variants):
        session.add(
            RunVariant(
                run_id=run.id,
                variant_index=index,
                name=variant.name,
                target="mysql-9.7",
                status=VariantStatus.succeeded,
                is_aa_control=variant.is_aa_control,
                provisioner="local",
                image_or_binary="/usr/sbin/mysqld",
                version="9.7.0",
                version_comment="(Debian)",
                variables={"innodb_buffer_pool_size": "134217728", **variant.variables},
            )
        )
    counters = [0] * len(variants)
    number = 0
    for r, shuffled in enumerate(order, start=1):
        shared = rng.lognormal(0, round_noise)
        for group in groups:
            for position, index in enumerate(shuffled):
                number += 1
                level = 0.1 * variants[index].shift * shared * rng.lognormal(0, own_noise)
                for seconds in level * rng.lognormal(0, 0.02, block):
                    counters[index] += 1
                    metrics: dict[str, Any] | None = None
                    if workload == "charset-oltp":
                        metrics = {"tps": 60.0 / seconds, "p95_ms": 20 * seconds}
                    session.add(
                        Iteration(
                            run_id=run.id,
                            variant_index=index,
                            iteration=counters[index],
                            group=group,
                            round=r,
                            block=number,
                            position=position,
                            elapsed_s=10.0 if workload == "charset-oltp" else float(seconds),
                            metrics=metrics,
                        )
                    )
    session.commit()
    return run.id
