"""A job's variants opened on their instances: `VariantOpener`, the execution/instances.py
`InstanceStarter` that a replay (engine.py) and a fix search (its pair and its second instance) give
`started`, so execution/ calls an interface it names instead of a closure of theirs."""

from collections.abc import Callable
from dataclasses import dataclass, field

from upgradelab.execution.instances import Instance, InstanceStarter
from upgradelab.measurement.dataset_load import DumpDataset
from upgradelab.measurement.interrupt import Interrupt
from upgradelab.measurement.opening import OpenVariant, ReplayVariant, open_variant
from upgradelab.measurement.passes import StatementRunner, statement_runner
from upgradelab.workloads.base import DatasetProgress


def _no_report(variant: str, progress: DatasetProgress) -> None:
    return None


def _no_step(variant: str, phase: str) -> None:
    return None


@dataclass
class VariantOpener(InstanceStarter):
    """Opens `variants[i]` on the instance whose first variant is i (execution/instances.py `started`
    calls it once per instance, one thread each): open_variant with `dataset` (loaded or reused),
    `writes` (False: read-only transactions as the dataset's reader), every statement bounded by
    `timeout_s` (seconds), stopped by `interrupt` while it starts; then its StatementRunner.
    What it opened goes to `opened[i]` (OpenVariant) and `runners[i]`; `step(name, "starting the
    server")` is told first, `report(name, progress)` of the dump's load. True: the instance is up
    and is to be frozen; what open_variant raises (ProvisionError, LoadFailed, pymysql errors, a
    SettingRefused) goes to `Fleet.errors`."""

    variants: dict[int, ReplayVariant]
    dataset: DumpDataset
    timeout_s: float
    interrupt: Interrupt
    writes: bool = False
    report: Callable[[str, DatasetProgress], None] = _no_report
    step: Callable[[str, str], None] = _no_step
    opened: dict[int, OpenVariant] = field(default_factory=dict)
    runners: dict[int, StatementRunner] = field(default_factory=dict)

    def __call__(self, instance: Instance) -> bool:
        index = instance.variants[0]
        variant = self.variants[index]
        self.step(variant.name, "starting the server")
        self.opened[index] = open_variant(
            variant,
            self.dataset,
            lambda progress: self.report(variant.name, progress),
            writes=self.writes,
            timeout_s=self.timeout_s,
            cancelled=lambda: self.interrupt.is_set,
        )
        self.runners[index] = statement_runner(
            self.opened[index], self.timeout_s, not self.writes, self.interrupt
        )
        return True
