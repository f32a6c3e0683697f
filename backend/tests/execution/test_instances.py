"""A job's instances (execution/instances.py): the pre-run memory check (buffer pools from the option
lines + an allowance), slots, and `started` on real servers: every instance started and frozen,
thawed for a block, and all stopped on every exit path, an exception in a block included."""

import time
from pathlib import Path

import pytest
from sqlalchemy import select

from tests import ports
from tests.runs.instances import state
from upgradelab.db import sync_session
from upgradelab.execution.instances import (
    Instance,
    MemoryRefused,
    Slots,
    buffer_pool_bytes,
    check_memory,
    mem_available_bytes,
    started,
)
from upgradelab.settings import get_settings
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import Endpoint, LocalProvisioner


def test_buffer_pool_is_read_from_the_last_option_line_with_its_suffix() -> None:
    assert buffer_pool_bytes([]) == 128 * 1024**2  # the servers' default
    assert buffer_pool_bytes(["innodb_buffer_pool_size=16M"]) == 16 * 1024**2
    assert buffer_pool_bytes(["innodb-buffer-pool-size=1G", "innodb_buffer_pool_size=2G"]) == 2 * 1024**3
    assert buffer_pool_bytes(["innodb_buffer_pool_size=1048576"]) == 1024**2


def test_memory_refusal_names_every_number() -> None:
    options = [["innodb_buffer_pool_size=8G"], ["innodb_buffer_pool_size=16M"], []]
    with pytest.raises(MemoryRefused) as refused:
        check_memory(options, allowance_mb=400, available_bytes=4 * 1024**3)
    message = str(refused.value)
    assert "needs 9536 MiB for 3 server instances" in message  # 8192 + 16 + 128 + 3 x 400
    assert "8192 + 16 + 128 MiB" in message and "400 MiB per instance" in message
    assert "MemAvailable is 4096 MiB" in message
    check_memory(options, allowance_mb=400, available_bytes=10 * 1024**3)  # fits: no refusal


def test_mem_available_is_the_kernels_memavailable() -> None:
    lines = Path("/proc/meminfo").read_text().splitlines()
    meminfo = {line.split(":")[0]: int(line.split()[1]) * 1024 for line in lines}
    # two readings a moment apart: within 256 MiB of each other
    assert abs(mem_available_bytes() - meminfo["MemAvailable"]) < 256 * 1024**2
    assert 0 < mem_available_bytes() <= meminfo["MemTotal"]


def test_two_instances_of_one_target_run_at_once_freeze_and_are_stopped_together(database: None) -> None:
    with sync_session() as session:
        target = session.scalars(select(Target).where(Target.name == "mariadb-10.11")).one()
    settings = {**target.settings.stored(), "port": ports.INSTANCES}
    first, second = (
        LocalProvisioner("mariadb-10.11-instances", "mariadb", settings, get_settings(), slot=slot)
        for slot in (0, 1)
    )
    try:
        first.ensure_initialized()
        endpoints = [first.start([]), second.start([])]
        assert endpoints[0].port == ports.INSTANCES and endpoints[1].port != ports.INSTANCES
        datadirs = {_datadir(endpoint) for endpoint in endpoints}
        assert len(datadirs) == 2 and all("/instances/" in d for d in datadirs)
        pid = second.pid()
        assert pid is not None
        second.freeze()
        assert state(pid) == "T"
        assert _datadir(endpoints[0])  # the other instance still answers
        second.thaw()
        assert state(pid) != "T"
        running = {first.pid(), pid}
        # a fresh provisioner (as the reaper has) finds both by their pid files
        stopped = LocalProvisioner("mariadb-10.11-instances", "mariadb", settings, get_settings()).stop_all()
        assert set(stopped) == running
        assert first.pid() is None and second.pid() is None
    finally:
        first.stop()
        second.stop()


def _datadir(endpoint: Endpoint) -> str:
    connection = endpoint.connect()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT @@datadir")
            row = cursor.fetchone()
    finally:
        connection.close()
    return str(row[0]) if row else ""


class _BlockBroke(Exception):
    pass


def _becomes_frozen(provisioner: LocalProvisioner, timeout_s: float) -> bool:
    """Whether the provisioner's server process is stopped (state T) within timeout_s."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        pid = provisioner.pid()
        if pid is not None and state(pid) == "T":
            return True
        time.sleep(0.05)
    return False


def test_started_freezes_all_thaws_one_per_block_and_stops_all_when_a_block_raises(database: None) -> None:
    with sync_session() as session:
        target = session.scalars(select(Target).where(Target.name == "mariadb-10.11")).one()
    settings = {**target.settings.stored(), "port": ports.INSTANCES}
    first, second, third = (
        LocalProvisioner("mariadb-10.11-instances", "mariadb", settings, get_settings(), slot=slot)
        for slot in (0, 1, 2)
    )
    first.ensure_initialized()
    instances = [Instance(first, [], [0]), Instance(second, [], [1]), Instance(third, [], [2])]

    frozen_while_starting: list[bool] = []

    def start(instance: Instance) -> bool:
        if instance.provisioner is third:
            raise RuntimeError("this one does not start")
        instance.provisioner.start([])
        if instance.provisioner is second:
            # the first one up is frozen at once, while this one is still starting (not once all are)
            frozen_while_starting.append(_becomes_frozen(first, timeout_s=20))
        return True

    pids: list[int] = []
    try:
        with pytest.raises(_BlockBroke), started(instances, start, "test") as fleet:
            assert fleet.errors[:2] == [None, None] and isinstance(fleet.errors[2], RuntimeError)
            pids = [p for p in (first.pid(), second.pid()) if p is not None]
            assert len(pids) == 2 and all(state(pid) == "T" for pid in pids)  # both frozen
            assert frozen_while_starting == [True]
            assert fleet.of(1) is instances[1]
            with fleet.block(fleet.of(0)):
                assert state(pids[0]) != "T" and state(pids[1]) == "T"  # only the block's instance works
            assert state(pids[0]) == "T"  # frozen again after its block
            with fleet.block(fleet.of(1)):
                raise _BlockBroke
        assert first.pid() is None and second.pid() is None  # every instance stopped
    finally:
        first.stop()
        second.stop()
        third.stop()


def test_slots_give_each_variant_its_own_slot_of_its_target(database: None) -> None:
    with sync_session() as session:
        target = session.scalars(select(Target).where(Target.name == "mariadb-10.11")).one()
        session.expunge(target)
    slots = Slots(get_settings())
    refused = slots.provisioner(target)  # asked, not kept: the slot is still free
    assert refused.slot == 0
    kept = [slots.keep(target, slots.provisioner(target), [], index) for index in range(2)]
    assert [i.provisioner.slot for i in kept] == [0, 1] and [i.variants for i in kept] == [[0], [1]]
    assert slots.instances == kept and not any(i.shared for i in kept)
