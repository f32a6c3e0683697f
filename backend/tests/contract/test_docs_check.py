"""The docs check (scripts/docs_check.py, run by scripts/test.sh): a path or code name the docs
mention that the tree does not have is named; what the tree has, and prose that only looks dotted,
passes."""

import importlib.util
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[3]


def _docs_check() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_check", REPO / "scripts" / "docs_check.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_docs_check_names_each_missing_path_and_code_name(tmp_path: Path) -> None:
    package = tmp_path / "backend" / "upgradelab" / "execution"
    package.mkdir(parents=True)
    (package.parent / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "lifecycle.py").write_text(
        "class Base:\n    def finish(self): ...\n\n"
        "class Lease(Base):\n    kind: str\n\n"
        "def final_status(): ...\n\nTASK = 'upgradelab.execution.sweep'\n"
    )
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "test.sh").write_text("")
    doc = tmp_path / "README.md"
    doc.write_text(
        "The status is final in execution/lifecycle.py (`lifecycle.final_status`, `Lease.finish`,\n"
        "`Lease.kind`, `upgradelab.execution.lifecycle.Lease`); scripts/test.sh runs it;\n"
        "the task `upgradelab.execution.sweep`; the label `upgradelab.slot`; `run.context`.\n"
        "Stale: runs/runner.py has `lifecycle.final_state`, `Lease.start`,\n"
        "`upgradelab.execution.locks.lock_names`; results/summary.* and `results/store/`;\n"
        "`execution/lifecycle.final_status` is, `execution/lifecycle.finished` is not.\n"
        "<!-- docs-check: examples fixsearch/ -->A new kind adds fixsearch/jobs.py, `fixsearch/runner.py`.\n"
    )
    missing, checked = _docs_check().check(tmp_path, [doc])
    assert missing == [
        "README.md:4: no file runs/runner.py",
        "README.md:4: no lifecycle.final_state in the backend",
        "README.md:4: no Lease.start in the backend",
        "README.md:5: no file results/summary.*",
        "README.md:5: no upgradelab.execution.locks.lock_names in the backend",
        "README.md:5: no folder results/store/",
        "README.md:6: no finished in execution/lifecycle.py",
    ]
    assert checked == 15  # 4 paths, 1 folder, 10 code names; `upgradelab.slot` and `run.context` skipped


def test_a_link_between_the_guides_pages_is_read_from_the_pages_own_folder(tmp_path: Path) -> None:
    jobs = tmp_path / "docs" / "jobs"
    jobs.mkdir(parents=True)
    (tmp_path / "docs" / "targets.md").write_text("# Targets\n")
    page = jobs / "capture.md"
    page.write_text("See [Targets](../targets.md) and [Datasets](../datasets.md) and [Run](./run.md).\n")
    missing, checked = _docs_check().check(tmp_path, [page])
    assert missing == [
        "docs/jobs/capture.md:1: no file ../datasets.md (from docs/jobs)",
        "docs/jobs/capture.md:1: no file ./run.md (from docs/jobs)",
    ]
    assert checked == 3
