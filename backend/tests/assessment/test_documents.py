"""The assessment's documents (assessment/document.py) from a constructed report: the Markdown says
what it rests on and lists the to-do items in order, and the PDF printed by the lab's headless
Chromium (Debian's /usr/bin/chromium) holds the to-do list's first line, read back by pdftotext
(poppler-utils, scripts/install.sh)."""

import subprocess
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

from tests.assessment.children import NEW, capture, fix_search, planted_check, planted_replay
from upgradelab.assessment.document import About, markdown, pdf, print_html
from upgradelab.assessment.report import AssessmentReport, VersionEvidence, build_report

ABOUT = About(9, "team", "http://lab.example/assessments/9", datetime(2026, 12, 6, 9, 0, tzinfo=UTC), "1.2.3")


def _report() -> AssessmentReport:
    searches = [fix_search(11, "c" * 32, "restored", "SET STATEMENT optimizer_switch='semijoin=on' FOR ...")]
    evidence = VersionEvidence(NEW, check=planted_check(), replay=planted_replay(), fix_searches=searches)
    return build_report(capture(), [evidence])


def test_the_markdown_says_what_it_rests_on_and_the_todo_in_order() -> None:
    text = markdown(_report(), ABOUT, "http://lab.example")
    assert "Made: 2026-12-06 09:00 UTC by Upgrade Lab 1.2.3" in text
    assert "Link: http://lab.example/assessments/9" in text
    assert "Team's server: 10.11.14-MariaDB (capture 3)" in text
    assert "mariadb-11.8: mariadbd 11.8.9" in text
    lines = [line for line in text.splitlines() if line[:3] in {f"{n}. " for n in range(1, 10)}]
    assert lines[0].startswith("1. **Will not start:** option innodb\\_file\\_format=Barracuda")
    assert "([evidence](http://lab.example/captures/3#check-5))" in lines[0]
    assert [line.split("**")[1] for line in lines] == [
        "Will not start:",
        "Cannot log in:",
        "No longer loads or parses:",
        "Returns other results:",
        "Returns other results:",
        "Slower:",
        "Slower:",
        "Changes behaviour:",
    ]
    assert "### mariadb-11.8: Slower (2)" in text
    assert "**Do:** apply: SET STATEMENT optimizer\\_switch='semijoin=on' FOR ..." in text


def test_the_pdf_holds_the_todo_lists_first_line(tmp_path: Path) -> None:
    report = _report()
    # in a thread of its own, as the API calls it: a session's browser tests hold Playwright's sync
    # API (its event loop) in the main thread, and a second one there is refused
    with ThreadPoolExecutor(1) as pool:
        document = pool.submit(pdf, print_html(report, ABOUT, "http://lab.example")).result(timeout=120)
    assert document.startswith(b"%PDF-")
    path = tmp_path / "assessment.pdf"
    path.write_bytes(document)
    text = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout
    flat = " ".join(text.split())
    assert report.versions[0].verdict in flat
    first = report.versions[0].todo[0]
    assert f"Will not start: {first.text}." in flat, flat[:2000]
    assert flat.index("Will not start:") < flat.index("Cannot log in:") < flat.index("Changes behaviour:")
