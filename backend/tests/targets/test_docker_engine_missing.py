"""`make up` installs no Docker engine (issue 31): where none answers, adding a docker target is refused
(422 at `provisioner`) and a docker target's first use fails, both naming the command that installs
and starts one. No engine is needed: DOCKER_HOST points at a socket that does not exist."""

from pathlib import Path
from typing import Any, cast

import pytest
from fastapi import HTTPException

from upgradelab.settings import get_settings
from upgradelab.targets.provisioners.base import ProvisionError
from upgradelab.targets.provisioners.docker_engine import engine_client
from upgradelab.targets.validation import check_binary

COMMAND = "bash infra/docker/install.sh"


@pytest.fixture
def no_engine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-docker.sock")


@pytest.mark.usefixtures("no_engine")
def test_first_use_without_an_engine_names_the_install_command() -> None:
    with pytest.raises(ProvisionError) as refused:
        engine_client()
    assert "the Docker engine does not answer" in str(refused.value)
    assert COMMAND in str(refused.value) and "infra/docker/dockerd.sh" in str(refused.value)


@pytest.mark.usefixtures("no_engine")
def test_adding_a_docker_target_without_an_engine_is_refused_at_provisioner() -> None:
    settings = {"image": "upgradelab/mariadb:10.11", "port": 33118}
    with pytest.raises(HTTPException) as refused:
        check_binary("docker", settings, get_settings())
    assert refused.value.status_code == 422
    [error] = cast(list[dict[str, Any]], refused.value.detail)  # errors.field_error's shape
    assert error["loc"] == ["body", "provisioner"] and COMMAND in error["msg"]


@pytest.mark.usefixtures("no_engine")
def test_other_kinds_never_ask_the_engine() -> None:
    # an existing server's target is checked by connecting to it, never through Docker
    check_binary("existing", {"host": "127.0.0.1", "port": 3306}, get_settings())
