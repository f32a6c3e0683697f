"""Datasets taken from a path on the lab's machine: only regular files inside the directories an
admin lists in UPGRADELAB_DATASET_DIRS (settings.dataset_dirs), opened without following links out
of them.

The API answers every refusal with one status and one message (`REFUSED`): a missing file, a file
outside the listed directories, a link leading out, a directory, a device, a FIFO, a file the API
cannot read. Otherwise the answer would tell a caller whether a path exists on the machine.

How a path is checked (open_allowed):
1. no `..` component (refused before anything touches the file system);
2. os.path.realpath(strict=True): every link resolved, a missing component an error; the result must
   lie strictly inside one listed directory (itself resolved the same way);
3. opened O_NOFOLLOW | O_NONBLOCK (a FIFO does not block the open; a link swapped in as the last
   component after step 2 fails), then fstat: a regular file only;
4. the path the kernel opened (/proc/self/fd/N) checked again against the listed directories, so a
   directory swapped for a link between steps 2 and 3 is caught too.
"""

import os
import stat
from pathlib import Path
from typing import BinaryIO

REFUSED = "path: not a readable file in UPGRADELAB_DATASET_DIRS"
DISABLED = (
    "path: taking a dataset from a path is off; an admin turns it on by listing the allowed "
    "directories in UPGRADELAB_DATASET_DIRS (comma-separated, absolute)"
)


class PathRefused(Exception):
    """Why a path was refused (logged only; the API says REFUSED whatever the reason)."""


def _inside(path: str, roots: list[str]) -> bool:
    return any(path.startswith(root.rstrip("/") + "/") for root in roots)


def _roots(directories: list[Path]) -> list[str]:
    """The listed directories as real paths (a missing one is skipped: nothing can be inside it)."""
    roots = []
    for directory in directories:
        try:
            real = os.path.realpath(directory, strict=True)
        except OSError:
            continue
        if os.path.isdir(real):
            roots.append(real)
    return roots


def open_allowed(text: str, directories: list[Path]) -> BinaryIO:
    """The file at `text` opened for reading (binary) when it is a regular file inside one of
    `directories` after resolving every link; PathRefused otherwise (see the module docstring)."""
    if not text.startswith("/") or ".." in text.split("/") or "\x00" in text:
        raise PathRefused("not absolute, or a '..' component")
    roots = _roots(directories)
    try:
        real = os.path.realpath(text, strict=True)
    except OSError as error:
        raise PathRefused(f"cannot resolve: {error.strerror}") from None
    if not _inside(real, roots):
        raise PathRefused("outside the listed directories once resolved")
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        raise PathRefused(f"cannot open: {error.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise PathRefused("not a regular file")
        opened = os.readlink(f"/proc/self/fd/{fd}")
        if not _inside(opened, roots):
            raise PathRefused("the file opened lies outside the listed directories")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def open_or_refuse(text: str, directories: list[Path]) -> BinaryIO:
    """open_allowed for the API: 422 DISABLED when no directory is listed, 422 REFUSED (the same
    bytes whatever the reason) when the path is refused."""
    from fastapi import HTTPException, status  # for the API only: the worker imports this module too

    if not directories:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_ENTITY, DISABLED)
    try:
        return open_allowed(text, directories)
    except PathRefused:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_ENTITY, REFUSED) from None
