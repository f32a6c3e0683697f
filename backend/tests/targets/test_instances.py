"""The pre-run memory check of a run's instances (buffer pools from the option lines + an allowance)."""

from pathlib import Path

import pytest
from sqlalchemy import select

from tests import ports
from tests.runs.instances import state
from upgradelab.db import sync_session
from upgradelab.settings import get_settings
from upgradelab.targets.instances import MemoryRefused, buffer_pool_bytes, check_memory, mem_available_bytes
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
    settings = {**target.settings, "port": ports.INSTANCES}
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
