"""No backend module over ~350 lines without the reason it is one concept (issue 32; STYLE.md: a
module that passes ~400 lines is usually two concepts, split by concept). The reason is a line of
the module's docstring starting `One concept:`, so a reader finds it and this test can grep it."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "upgradelab"
LIMIT = 350  # lines, as `wc -l` counts them
REASON = "One concept:"


def unexplained_long_modules(package: Path) -> list[str]:
    """`path (N lines)` of each module of `package` over LIMIT lines whose docstring has no line
    starting with REASON."""
    found = []
    for path in sorted(package.rglob("*.py")):
        text = path.read_text()
        lines = text.count("\n")
        if lines <= LIMIT:
            continue
        docstring = ast.get_docstring(ast.parse(text)) or ""
        if not any(line.strip().startswith(REASON) for line in docstring.splitlines()):
            found.append(f"{path.relative_to(package.parent)} ({lines} lines)")
    return found


def test_every_backend_module_over_350_lines_says_why_it_is_one_concept() -> None:
    assert unexplained_long_modules(PACKAGE) == [], (
        f"split these by concept, or add a docstring line starting {REASON!r} saying why each is one"
    )


def test_a_long_module_passes_only_with_its_reason(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    body = "x = 1\n" * LIMIT
    (package / "short.py").write_text('"""Short."""\n' + "x = 1\n" * (LIMIT - 1))
    (package / "long.py").write_text('"""Two things."""\n' + body)
    (package / "reasoned.py").write_text('"""Rounds.\n\nOne concept: the round loop, in order.\n"""\n' + body)
    (package / "in_code.py").write_text('"""Rounds."""\n# One concept: not in the docstring\n' + body)
    assert unexplained_long_modules(package) == [
        f"pkg/in_code.py ({LIMIT + 2} lines)",
        f"pkg/long.py ({LIMIT + 1} lines)",
    ]
