"""An option list the server binary accepted is not asked again by another process of the same lab (the
worker's other pool process, the API, the next worker): the acceptance is a file under
`{state_dir}/option-checks/`. A refusal is asked again every time, and a changed binary is another key."""

from pathlib import Path

import pytest

from tests.conftest import lab_provisioner
from upgradelab.targets.provisioners import ProvisionError, local_options
from upgradelab.targets.provisioners.local import LocalProvisioner


@pytest.fixture
def counted(database: None, monkeypatch: pytest.MonkeyPatch) -> tuple[LocalProvisioner, list[list[str]]]:
    """mariadb-10.11's provisioner whose server checks are counted (the real binary answers them), as a
    new process would start: nothing remembered in memory."""
    provisioner = lab_provisioner("mariadb-10.11")
    asked: list[list[str]] = []
    real = provisioner.server_refusal

    def server_refusal(options: list[str]) -> str | None:
        asked.append(list(options))
        return real(options)

    monkeypatch.setattr(provisioner, "server_refusal", server_refusal)
    monkeypatch.setattr(local_options, "_ACCEPTED", set())
    return provisioner, asked


def _markers(provisioner: LocalProvisioner) -> set[Path]:
    return set((provisioner.app.state_dir / "option-checks").glob("*"))


def test_an_accepted_list_is_asked_once_across_processes(
    counted: tuple[LocalProvisioner, list[list[str]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    provisioner, asked = counted
    options = ["max-connections=77", "skip-log-bin"]
    before = _markers(provisioner)
    provisioner.check_options(options)
    assert asked == [options]
    assert len(_markers(provisioner) - before) == 1
    monkeypatch.setattr(local_options, "_ACCEPTED", set())  # another process: only the file is left
    provisioner.check_options(options)
    assert asked == [options]
    provisioner.check_options([*options, "max-connections=78"])  # another list is asked
    assert len(asked) == 2


def test_a_refusal_is_asked_again_and_leaves_no_marker(
    counted: tuple[LocalProvisioner, list[list[str]]],
) -> None:
    provisioner, asked = counted
    before = _markers(provisioner)
    for _ in range(2):
        with pytest.raises(ProvisionError, match="binlog"):
            provisioner.check_options(["binlog-format=NOPE"])
    assert len(asked) == 2
    assert _markers(provisioner) == before


def test_another_binary_identity_is_another_key(
    counted: tuple[LocalProvisioner, list[list[str]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    provisioner, asked = counted
    options = ["max-connections=79"]
    provisioner.check_options(options)
    monkeypatch.setattr(local_options, "_ACCEPTED", set())
    monkeypatch.setattr(provisioner, "binary_identity", lambda: "another package version")
    provisioner.check_options(options)
    assert len(asked) == 2
