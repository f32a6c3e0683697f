"""Docs that cannot go stale silently: every source path and code name the docs mention must exist.

Reads README.md and docs/**/*.md (the user guide, mkdocs.yml) and checks, against the source tree
(parsed with ast, nothing imported):

- every path ending in a source suffix (.py .ts .tsx .mjs .sh .toml .css .html .json .yaml .md), and every
  backticked folder path of two parts or more ending in `/` (`results/store/`), exists under one
  of the roots a doc may write it from: the repository, backend/, backend/upgradelab/, frontend/,
  frontend/src/, or, written from inside its package, as the end of some path
  (`provisioners/local.py`); one starting with `../` or `./` (a link between the guide's pages) from
  the document's own folder. A path with a `*` and a `/` is a glob that must match something
  (`results/store/summary.*`); a bare file name (`worker.py`) must be some file's name. Paths with
  placeholders (`<target>`, `{state_dir}`), URLs and absolute paths are not the repository's and
  are skipped, as are one-part folders (`template/` is also a server's datadir).
- every backticked `path/module.name` (`results/store/summary.undecided`): the module (its path as
  a dotted name, matched from its end) must define the name;
- every backticked dotted name `a.b` (or `a.b.c`, `a.b(args)`) whose first part names a backend
  module or package (`verdicts`, `execution`, `upgradelab`) or a backend class (`Provisioner`):
  the rest must be defined there: a submodule, a top-level def/class/assignment/import, or a
  member of a class (its bases followed by name). A first part that names no module or class
  (`run.context`, `random.Random`) is not a code reference and is skipped.

A document may declare paths of its own examples, not meant to exist (a job kind to come), in an
HTML comment: `<!-- docs-check: examples fixsearch/ api/fixsearch.py -->`; references starting
with one of them are skipped in that document.

Exit 1 naming each missing reference as `file:line: what`; exit 0 printing how many were checked.
Run with the venv's python from anywhere: `.venv/bin/python scripts/docs_check.py`.
"""

import ast
import fnmatch
import os
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ROOTS = ("", "backend", "backend/upgradelab", "frontend", "frontend/src")
SUFFIXES = ("py", "ts", "tsx", "mjs", "sh", "toml", "css", "html", "json", "yaml", "md")
# a path: word characters, dots, dashes and slashes, ending in a source suffix (optionally a glob)
PATH = re.compile(
    r"(?<![\w/.{<-])((?:[\w.*-]+/)*[\w*-]+(?:\.[\w-]+)*\.(?:"
    + "|".join(SUFFIXES)
    + r"|\*))(?![\w/])"
)
FOLDER = re.compile(
    r"^[\w-]+/(?:[\w-]+/)+$"
)  # `results/store/`, `pages/RunPage/` (backticked only)
DOTTED = re.compile(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\(.*\))?$")
TASK_NAME = re.compile(r"upgradelab(?:\.\w+)+")
# `results/store/summary.undecided`: a module's path and a name in it (the name is no file suffix)
PATH_NAME = re.compile(r"^((?:[A-Za-z_]\w*/)+[A-Za-z_]\w*)\.([A-Za-z_]\w*)(?:\(.*\))?$")
# a doc's own examples of paths that are not meant to exist (a job kind to come, `fixsearch/`):
# `<!-- docs-check: examples fixsearch/ api/fixsearch.py -->` anywhere in that document
EXAMPLES = re.compile(r"<!--\s*docs-check:\s*examples\s+([^>]*?)\s*-->")
BACKTICKED = re.compile(r"`([^`\n]+)`")
SKIP_DIRS = {
    "node_modules",
    ".venv",
    ".git",
    "dist",
    "__pycache__",
    ".mypy_cache",
    ".ruff_cache",
}


@dataclass
class Module:
    """What one backend module defines at top level, and its classes' members and bases."""

    names: set[str] = field(default_factory=set)
    classes: dict[str, tuple[set[str], list[str]]] = field(default_factory=dict)
    strings: set[str] = field(
        default_factory=set
    )  # string constants spelt `upgradelab.x.y`


def _module(path: Path) -> Module:
    tree = ast.parse(path.read_text(), str(path))
    found = Module()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and TASK_NAME.fullmatch(node.value)
        ):
            found.strings.add(node.value)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            found.names.add(node.name)
            members = set()
            for item in node.body:
                if isinstance(
                    item, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
                ):
                    members.add(item.name)
                elif isinstance(item, ast.Assign):
                    members |= {t.id for t in item.targets if isinstance(t, ast.Name)}
                elif isinstance(item, ast.AnnAssign) and isinstance(
                    item.target, ast.Name
                ):
                    members.add(item.target.id)
            bases = [ast.unparse(base).rsplit(".", 1)[-1] for base in node.bases]
            found.classes[node.name] = (members, bases)
        elif isinstance(node, ast.Assign):
            found.names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found.names.add(node.target.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            found.names |= {
                (alias.asname or alias.name).split(".")[0] for alias in node.names
            }
    return found


class Source:
    """The backend's modules by dotted path (`runs.runner`, `upgradelab.runs.runner`) and its classes."""

    def __init__(self, repo: Path) -> None:
        package = repo / "backend" / "upgradelab"
        self.modules: dict[str, Module] = {}
        self.packages: set[str] = set()
        for path in sorted(package.rglob("*.py")):
            parts = list(path.relative_to(package).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            self.modules[".".join(["upgradelab", *parts])] = _module(path)
            if path.name == "__init__.py":
                self.packages.add(".".join(["upgradelab", *parts]))
        # names the code spells as strings: Celery task names (`upgradelab.datasets.remove_copies`)
        self.strings = set().union(
            *(module.strings for module in self.modules.values())
        )
        self.classes: dict[str, list[tuple[set[str], list[str]]]] = defaultdict(list)
        for module in self.modules.values():
            for name, members in module.classes.items():
                self.classes[name].append(members)

    def _class_has(
        self, name: str, member: str, seen: frozenset[str] = frozenset()
    ) -> bool:
        if name in seen:
            return False
        for members, bases in self.classes.get(name, []):
            if member in members or any(
                self._class_has(b, member, seen | {name}) for b in bases
            ):
                return True
        return False

    def _in_module(self, dotted: str, rest: list[str]) -> bool:
        module = self.modules[dotted]
        if not rest:
            return True
        head = rest[0]
        if f"{dotted}.{head}" in self.modules:
            return self._in_module(f"{dotted}.{head}", rest[1:])
        if head in module.classes:
            return len(rest) == 1 or self._class_has(head, rest[1])
        if head in module.names:
            return True
        # a field of one of the module's classes (`settings.server_dir`)
        return len(rest) == 1 and any(
            self._class_has(name, head) for name in module.classes
        )

    def resolves(self, reference: str) -> bool | None:
        """True/False for a dotted name whose first part is a backend module, package or class;
        None when the first part names none of them (not a code reference)."""
        parts = reference.split(".")
        if reference in self.strings:
            return True
        if parts[0] == "upgradelab" and f"upgradelab.{parts[1]}" not in self.modules:
            return None  # a label or setting spelt with the lab's prefix (`upgradelab.slot`)
        # modules whose dotted path ends with the longest run of the reference's leading parts
        candidates = []
        for take in range(len(parts), 0, -1):
            suffix = ".".join(parts[:take])
            found = [m for m in self.modules if m == suffix or m.endswith("." + suffix)]
            if found:
                candidates = [(m, parts[take:]) for m in found]
                break
        if candidates:
            return any(self._in_module(m, rest) for m, rest in candidates)
        if parts[0] in self.classes:
            return self._class_has(parts[0], parts[1])
        return None


def tree_files(repo: Path) -> tuple[set[str], set[str]]:
    """(every file, every folder) of the repository as paths relative to it, without installed or
    generated folders (node_modules, .venv, caches)."""
    files: set[str] = set()
    folders: set[str] = set()
    for directory, subdirs, names in os.walk(repo):
        subdirs[:] = [d for d in subdirs if d not in SKIP_DIRS]
        relative = Path(directory).relative_to(repo).as_posix()
        prefix = "" if relative == "." else relative + "/"
        folders |= {prefix + d for d in subdirs}
        files |= {prefix + name for name in names}
    return files, folders


def _path_exists(tree: tuple[set[str], set[str]], path: str, folder: bool) -> bool:
    files, folders = tree
    path = path.rstrip("/")
    pool = folders if folder else files
    if "/" not in path:  # a bare name: some file's name anywhere
        return any(p.rsplit("/", 1)[-1] == path for p in pool)
    for root in ROOTS:
        full = f"{root}/{path}" if root else path
        if "*" in full:
            if any(fnmatch.fnmatchcase(p, full) for p in pool):
                return True
        elif full in pool:
            return True
    # a path written from inside its package (`provisioners/local.py` in the targets section)
    return "*" not in path and any(p.endswith("/" + path) for p in pool)


def check(repo: Path, docs: list[Path]) -> tuple[list[str], int]:
    """(each missing reference as `file:line: what`, how many references were checked)."""
    source = Source(repo)
    tree = tree_files(repo)
    missing: list[str] = []
    checked = 0
    for doc in docs:
        text = doc.read_text()
        examples = tuple(
            name for found in EXAMPLES.finditer(text) for name in found.group(1).split()
        )
        for number, line in enumerate(text.splitlines(), 1):
            where = f"{doc.relative_to(repo)}:{number}"
            for match in PATH.finditer(line):
                path = match.group(1)
                if path.startswith(("http", "www.")) or "<" in path or "{" in path:
                    continue
                if examples and path.startswith(
                    examples
                ):  # the document's declared examples
                    continue
                if (
                    "*" in path and "/" not in path
                ):  # `input.*` in prose, not a glob of the tree
                    continue
                checked += 1
                if path.startswith(("../", "./")):  # a Markdown link from the doc's own folder
                    linked = os.path.normpath(doc.parent.relative_to(repo) / path)
                    if Path(linked).as_posix() not in tree[0]:
                        missing.append(f"{where}: no file {path} (from {doc.parent.relative_to(repo)})")
                    continue
                if not _path_exists(tree, path, folder=False):
                    missing.append(f"{where}: no file {path}")
            for match in BACKTICKED.finditer(line):
                text = match.group(1).strip()
                if examples and text.startswith(examples):
                    continue
                if FOLDER.match(text):
                    checked += 1
                    if not _path_exists(tree, text, folder=True):
                        missing.append(f"{where}: no folder {text}")
                    continue
                path_name = PATH_NAME.match(text)
                if path_name and path_name.group(2) not in SUFFIXES:
                    reference = (
                        path_name.group(1).replace("/", ".") + "." + path_name.group(2)
                    )
                    found = source.resolves(reference)
                    checked += found is not None
                    if found is False:
                        missing.append(
                            f"{where}: no {path_name.group(2)} in {path_name.group(1)}.py"
                        )
                    continue
                dotted = DOTTED.match(text)
                if dotted is None or PATH.fullmatch(text.split("(")[0]):
                    continue
                found = source.resolves(dotted.group(1))
                if found is None:
                    continue
                checked += 1
                if not found:
                    missing.append(f"{where}: no {dotted.group(1)} in the backend")
    return missing, checked


def main() -> int:
    docs = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    missing, checked = check(REPO, docs)
    for line in missing:
        print(line, file=sys.stderr)
    if missing:
        print(
            f"docs check: {len(missing)} of {checked} references name nothing in the tree",
            file=sys.stderr,
        )
        return 1
    print(
        f"docs check: {checked} references in {len(docs)} documents, all found",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
