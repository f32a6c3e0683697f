"""A server that exits before it opens its error log (here: no option file) fails its start with what
it printed, not a bare "exited during start-up (exit code 1)" (a gate run once ended a run that way,
with nothing to read)."""

import pytest

from tests.conftest import lab_provisioner
from upgradelab.targets.provisioners import ProvisionError


def test_a_server_that_exits_before_its_error_log_fails_with_its_output(database: None) -> None:
    provisioner = lab_provisioner("mariadb-10.11", suffix="stdio")
    provisioner._prepare_dir()
    provisioner._host("error.log").unlink(missing_ok=True)
    provisioner._launch("/nonexistent/upgradelab-test.cnf")
    with pytest.raises(ProvisionError) as failed:
        provisioner._wait_ready()
    message = str(failed.value)
    assert "exited during start-up" in message
    assert "server output (stdio.log)" in message
    assert "upgradelab-test.cnf" in message  # the server's own words naming the missing file
