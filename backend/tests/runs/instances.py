"""The test session's server processes as /proc shows them, for the instance and freezing tests."""

from pathlib import Path

from tests.conftest import SERVER_DIR


def instance_pids(target: str) -> dict[int, int]:
    """slot -> pid of every running server of `target` in this session's server directory, found by
    the `--defaults-file=.../<target>/instances/<slot>/my.cnf` on its command line."""
    marker = f"{SERVER_DIR}/{target}/instances/"
    found: dict[int, int] = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            args = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        for arg in args:
            text = arg.decode(errors="replace")
            if text.startswith("--defaults-file=") and marker in text and text.endswith("/my.cnf"):
                found[int(text.split(marker, 1)[1].split("/", 1)[0])] = int(proc.name)
    return found


def state(pid: int) -> str | None:
    """The process state letter (R, S, D, T ...) from /proc/<pid>/status, None when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("State:"):
                return line.split()[1]
    except OSError:
        return None
    return None
