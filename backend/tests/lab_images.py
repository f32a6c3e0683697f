"""The Docker engine and the lab's locally built images, for tests that drive real containers.

infra/docker/dockerd.sh starts dockerd when it is not answering (CI machines have no systemd);
infra/docker/images.sh builds upgradelab/mysql:9.7 and upgradelab/mariadb:10.11 unless present.
"""

import os
import subprocess
from functools import cache
from pathlib import Path

import docker

from upgradelab.settings import REPO_ROOT
from upgradelab.targets.provisioners.docker_engine import MANAGED_LABEL, TARGET_LABEL

MYSQL_IMAGE = "upgradelab/mysql:9.7"
MARIADB_IMAGE = "upgradelab/mariadb:10.11"
LAB_DIR = Path(os.environ.get("UPGRADELAB_LAB_DIR", "/var/lib/upgradelab"))
MYSQL_CHROOT = LAB_DIR / "chroots" / "mysql-9.7"
TARBALL_BASEDIR = "/opt/upgradelab-tarball-9.7"  # inside MYSQL_CHROOT


@cache
def lab_images() -> None:
    """Start dockerd if needed and build the lab images if missing (idempotent, seconds when present)."""
    for script in ("dockerd.sh", "images.sh"):
        subprocess.run(["bash", str(REPO_ROOT / "infra" / "docker" / script)], check=True)


def labelled_containers(target: str) -> list[str]:
    """Names of the containers (running or not) labelled as created for this target."""
    client = docker.from_env()
    found = client.containers.list(
        all=True, filters={"label": [f"{MANAGED_LABEL}=1", f"{TARGET_LABEL}={target}"]}, ignore_removed=True
    )
    return [str(container.name) for container in found]


def tarball_basedir() -> str:
    """A tarball-shaped basedir (bin/mysqld, share/mysql/, lib/plugin/) made from Debian's MySQL 9.7 files.

    share/mysql/, not an official tarball's share/: Debian builds mysqld to look for its error
    messages under {basedir}/share/mysql.

    It lives inside the lab's sid chroot, hard-linked from the packaged files: Debian's sid binaries
    need sid's glibc, so a tarball target over it sets `root` to the chroot. Returns the basedir as
    seen from inside the chroot.
    """
    base = MYSQL_CHROOT / TARBALL_BASEDIR.lstrip("/")
    if not (base / "bin" / "mysqld").exists():
        partial = base.with_name(base.name + ".partial")
        subprocess.run(["rm", "-rf", str(partial)], check=True)
        for sub in ("bin", "lib", "share"):
            (partial / sub).mkdir(parents=True)
        subprocess.run(
            ["cp", "-al", str(MYSQL_CHROOT / "usr/sbin/mysqld"), str(partial / "bin/mysqld")], check=True
        )
        subprocess.run(
            ["cp", "-al", str(MYSQL_CHROOT / "usr/share/mysql"), str(partial / "share")], check=True
        )
        subprocess.run(
            ["cp", "-al", str(MYSQL_CHROOT / "usr/lib/mysql/plugin"), str(partial / "lib/plugin")], check=True
        )
        partial.rename(base)
    return TARBALL_BASEDIR
