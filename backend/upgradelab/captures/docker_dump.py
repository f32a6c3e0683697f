"""A capture's dump client from a docker target's image: `mysqldump` / `mariadb-dump` run in a
throw-away container of the lab target's image (the official `mysql:5.7`, `mysql:8.0`, ... or the
lab's own), the same client options as a local one (captures/dump.py), the captured server reached
on the host's network.

The container (`docker run`, the CLI: its stdout is the dump, streamed into the dump file as the
local client's is):
- `--network=host`: the captured server answers on 127.0.0.1 (or the host the target names), never
  on a bridge address;
- `--user=mysql` (the images' non-root account, uid 999 in the official ones), `--read-only`, no
  capabilities, no new privileges, the image's entrypoint script skipped (`--entrypoint` is the
  client itself), no volume: a tmpfs over the image's VOLUME /var/lib/mysql so that none is made;
- `--log-driver=none`: the engine keeps no copy of the dump in a container log;
- `--rm`, and the labels `upgradelab.managed=1`, `upgradelab.target=<lab target>`,
  `upgradelab.role=dump`, `upgradelab.dump=<random>`: on a cancel, the timeout or an error the
  worker removes it by that last label (killing the CLI does not stop the container), and
  `upgradelab targets cleanup` removes what a killed worker left;
- the password never on a command line nor in the container's environment (`docker inspect`
  shows that): an option file (`[client]` `password="..."`) written to the client's standard
  input, read by `--defaults-file=/dev/stdin` in place of `--no-defaults` (so no other option file
  is read, as with `--no-defaults`).
"""

import contextlib
import os
import time
import uuid

from upgradelab.captures.dump import DumpClient, DumpFailed
from upgradelab.targets.provisioners.docker import DockerProvisioner
from upgradelab.targets.provisioners.docker_engine import (
    MANAGED_LABEL,
    ROLE_LABEL,
    TARGET_LABEL,
    engine_client,
)

DUMP_LABEL = "upgradelab.dump"
REMOVE_WAIT_S = 10.0  # seconds remove() waits for the engine to list no container of the dump
# what the docker CLI needs of the worker's environment to reach the same engine as the provisioner
_ENGINE_ENV = ("DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CERT_PATH", "DOCKER_TLS_VERIFY", "DOCKER_CONFIG")
# the option file's escapes (mysys my_default: \\ \" \n \t \r \b inside a double-quoted value)
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b"}


def option_file(password: str) -> bytes:
    """The `[client]` option file holding `password`, quoted and escaped so that every character
    (a `#`, a quote, a backslash, a newline) reaches the client as it is. DumpFailed for a NUL."""
    if "\0" in password:
        raise DumpFailed("the capture account's password holds a NUL byte: no option file can pass it")
    quoted = "".join(_ESCAPES.get(char, char) for char in password)
    return f'[client]\npassword="{quoted}"\n'.encode()


def docker_client(lab: DockerProvisioner, flavor: str) -> DumpClient:
    """The dump client of `flavor` in a container of `lab`'s image (module docstring). Raises what
    the provisioner raises when the image is neither here nor pullable (ProvisionError)."""
    name = "mariadb-dump" if flavor == "mariadb" else "mysqldump"
    mark = uuid.uuid4().hex
    labels = {MANAGED_LABEL: "1", TARGET_LABEL: lab.target_name, ROLE_LABEL: "dump", DUMP_LABEL: mark}
    argv = [
        "docker", "run", "--rm", "-i", "--pull=never",
        *(f"--label={key}={value}" for key, value in labels.items()),
        "--network=host", "--user=mysql", "--read-only", "--cap-drop=ALL",
        "--security-opt=no-new-privileges", "--log-driver=none", "--tmpfs=/var/lib/mysql:ro",
        f"--entrypoint={name}", lab.image_id(),
    ]  # fmt: skip
    env = {key: os.environ[key] for key in _ENGINE_ENV if key in os.environ}

    def remove() -> None:
        from docker.errors import APIError, NotFound  # at first use, not at import (issue 31)

        client = engine_client()
        # ignore_removed: the `--rm` container may remove itself between the list and its inspect (ci23).
        # A container whose `--rm` removal is under way refuses another (409, suppressed) and is still
        # listed for a moment: wait until the engine lists none (REMOVE_WAIT_S), so "no container left"
        # holds when this returns (a gate run listed one right after).
        deadline = time.monotonic() + REMOVE_WAIT_S
        while found := client.containers.list(
            all=True, filters={"label": f"{DUMP_LABEL}={mark}"}, ignore_removed=True
        ):
            for container in found:
                with contextlib.suppress(APIError, NotFound):
                    container.remove(force=True, v=True)
            if time.monotonic() > deadline:
                return
            time.sleep(0.2)

    return DumpClient(
        argv=argv,
        name=f"{name} of image {lab.cfg.image}",
        defaults="--defaults-file=/dev/stdin",
        stdin=option_file,
        env=env,
        remove=remove,
    )
