"""Starting the API or a Celery worker loads no library that only a request or a job needs (issue 31).

The gate starts about 100 processes of the product (each test session's API and worker, the fault
tests' restarted ones, second pools, `upgradelab serve`) and each paid ~4 CPU-s of imports, ~1 s of
it scipy.stats, loaded by modules that use it inside one function. Those modules import such a
library in the function that uses it (results/stats/verdicts.py: `from scipy import stats` in
`interval`); this test keeps them there: a module-level import of one of them on the API's or the
worker's import path fails here, named, with the chain that loaded it.

What each start may not load, and why it is not needed at start:
- scipy (stats, ~1 CPU-s): only computing an interval or a p-value (results/stats/).
- docker, requests (~0.15 CPU-s): only a docker target's first use (targets/provisioners/docker_*.py).
- fastapi, starlette (the worker; ~0.4 CPU-s): the worker serves no request; the services it shares
  with the API import HTTPException where they raise it (errors.py), db.py makes SessionDep on first use.
The command line (`upgradelab`) has its own, stricter check: tests/cli/test_cli_start.py.
"""

import subprocess
import sys
from collections.abc import Callable
from typing import NoReturn

import pytest

# the import a start does -> the modules it must leave unloaded
STARTS: dict[str, tuple[str, tuple[str, ...]]] = {
    # uvicorn upgradelab.main:app, `upgradelab serve`, and the tests that build the app in-process
    "api": ("import upgradelab.main", ("scipy", "docker", "requests")),
    # `celery -A upgradelab.worker worker`: the app, then its `include` modules (the task modules) as
    # the worker imports them at start-up (Celery's loader.import_default_modules)
    "worker": (
        "from upgradelab.worker import celery_app; celery_app.loader.import_default_modules()",
        ("scipy", "docker", "requests", "fastapi", "starlette"),
    ),
}

# Who loaded each forbidden module: `import a.b` calls the loader for a.b, which loads a first;
# the chain names the importing modules up to the start's own import.
_PROBE = """
import importlib._bootstrap as bootstrap, sys
loading, loaded_by, load = [], {}, bootstrap._find_and_load
def traced(name, import_):
    if name not in sys.modules and name not in loaded_by:
        loaded_by[name] = next((m for m in reversed(loading) if not m.startswith(name + ".")), None)
    loading.append(name)
    try:
        return load(name, import_)
    finally:
        loading.pop()
bootstrap._find_and_load = traced
START
bootstrap._find_and_load = load
for name in FORBIDDEN:
    if name in sys.modules:
        chain = [name]
        while loaded_by.get(chain[-1]):
            chain.append(loaded_by[chain[-1]])
        print(" <- ".join(chain))
"""


def loaded_at_start(start: str, forbidden: tuple[str, ...]) -> list[str]:
    """The `forbidden` top-level modules loaded by `start` in a fresh interpreter, each as the chain
    of imports that loaded it ("scipy <- upgradelab.results.stats.verdicts <- ... <- upgradelab.main")."""
    code = _PROBE.replace("START", start).replace("FORBIDDEN", repr(forbidden))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.mark.parametrize("start", sorted(STARTS))
def test_a_start_loads_no_library_only_requests_or_jobs_need(start: str) -> None:
    code, forbidden = STARTS[start]
    assert loaded_at_start(code, forbidden) == []


def test_the_check_names_a_library_the_start_loads_and_who_loaded_it() -> None:
    """The probe itself: a start that does load one is reported with its chain (so the test above
    fails when a module-level import comes back)."""
    found = loaded_at_start("import upgradelab.results.stats.bootstrap", ("numpy", "scipy"))
    assert found == ["numpy <- upgradelab.results.stats.bootstrap"]


def _raising(error: Exception) -> Callable[..., NoReturn]:
    def call(*_: object) -> NoReturn:
        raise error

    return call


def test_a_docker_client_error_while_building_an_option_list_is_still_an_unreadable_list(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """targets/option_lists.py names the Docker client's errors without importing docker at start:
    one raised by the build (the client's first use, here) is OptionListUnavailable as before, and
    any other error still propagates."""
    from docker.errors import APIError

    from upgradelab.targets import option_lists
    from upgradelab.targets.models import Target

    target = Target(name="t-docker", flavor="mysql", provisioner="docker", settings={})
    monkeypatch.setattr(option_lists, "provisioner_for", lambda *_: None)
    monkeypatch.setattr(option_lists, "server_names", _raising(APIError("no engine")))
    with pytest.raises(option_lists.OptionListUnavailable, match=r"t-docker: .* cannot be read.*no engine"):
        option_lists.build(target)
    monkeypatch.setattr(option_lists, "server_names", _raising(KeyError("bug")))
    with pytest.raises(KeyError, match="bug"):
        option_lists.build(target)
