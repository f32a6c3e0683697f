"""The pre-run memory check of a run's instances (buffer pools from the option lines + an allowance)."""

from pathlib import Path

import pytest

from upgradelab.targets.instances import MemoryRefused, buffer_pool_bytes, check_memory, mem_available_bytes


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


def test_mem_available_comes_from_proc_meminfo(tmp_path: Path) -> None:
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       24000000 kB\nMemAvailable:   1000 kB\n")
    assert mem_available_bytes(meminfo) == 1000 * 1024
    assert mem_available_bytes() > 0
