"""The assessment's documents to attach to a change request: Markdown (`markdown`), its print view
as HTML (`print_html`: the Markdown rendered, with a print stylesheet) and PDF (`pdf`: that print
view printed by the headless Chromium the lab installs, Playwright's page.pdf on /usr/bin/chromium;
never a downloaded browser). Each says what it rests on (`About`: the lab's version, the team's
server's version, each new version's server, the dataset's sha256, the date and the link).

Layout: the title and what it rests on; per version its verdict line and its to-do list, numbered,
each item one line with its action and evidence link; then the evidence per area (each heading with
its count), per version.
"""

import html
from dataclasses import dataclass
from datetime import datetime
from importlib import metadata

from markdown_it import MarkdownIt

from upgradelab.assessment.report import AREAS, Area, AssessmentReport, TodoItem

CHROMIUM = "/usr/bin/chromium"  # Debian's; Playwright drives it, never downloads one
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
PDF_TIMEOUT_MS = 30_000
AREA_TITLES: dict[Area, str] = {
    "not_evaluated": "Not evaluated",
    "does_not_start": "Will not start",
    "locks_out": "Cannot log in",
    "does_not_load": "No longer loads or parses",
    "changes_results": "Returns other results",
    "slower": "Slower",
    "changes_behaviour": "Changes behaviour",
}


@dataclass
class About:
    """What a document rests on: assessment `assessment_id` of `source` (the team's target, capture
    or option file), the page's `link` (absolute URL), `made` (UTC), the lab's version."""

    assessment_id: int
    source: str
    link: str
    made: datetime
    lab_version: str = ""

    def __post_init__(self) -> None:
        if not self.lab_version:
            try:
                self.lab_version = metadata.version("upgradelab")
            except metadata.PackageNotFoundError:
                self.lab_version = "unknown"


def _line(item: TodoItem, base: str) -> str:
    action = f" **Do:** {_md(item.action)}" if item.action else ""
    evidence = f" ([evidence]({base}{item.evidence}))" if item.evidence else ""
    return f"**{AREA_TITLES[item.area]}:** {_md(item.text)}.{action}{evidence}"


def _md(text: str) -> str:
    """One line of the report's words, as Markdown text (no markup of its own, one line)."""
    flat = " ".join(text.split())
    for char in "\\`*_[]<>#|":
        flat = flat.replace(char, "\\" + char)
    return flat


def markdown(report: AssessmentReport, about: About, base: str = "") -> str:
    """The report as Markdown (module docstring); evidence links prefixed with `base` (the lab's
    URL, "" for links relative to it)."""
    out = [
        f"# Upgrade assessment {about.assessment_id}: {_md(about.source)}",
        "",
        f"- Made: {about.made:%Y-%m-%d %H:%M} UTC by Upgrade Lab {about.lab_version}",
        f"- Link: {about.link}",
        f"- Team's server: {_md(report.source_version or 'not read')}"
        + (f" (capture {report.capture_id})" if report.capture_id else ""),
    ]
    for version in report.versions:
        out.append(f"- {_md(version.version)}: {_md(version.server or 'binary not read')}")
    shas = sorted({v.dataset_sha256 for v in report.versions if v.dataset_sha256})
    out.append(f"- Dataset sha256: {', '.join(shas) or 'no dataset replayed'}")
    out += ["", "## What to do first", ""]
    for version in report.versions:
        out += [f"### {_md(version.verdict)}", ""]
        out += [f"{n}. {_line(item, base)}" for n, item in enumerate(version.todo, 1)] or ["Nothing to do."]
        out.append("")
    out += ["## Evidence by area", ""]
    for version in report.versions:
        for area in AREAS:
            items = [item for item in version.todo if item.area == area]
            if not items:
                continue
            out += [f"### {_md(version.version)}: {AREA_TITLES[area]} ({len(items)})", ""]
            for item in items:
                link = f" ([{item.kind} {item.job_id}]({base}{item.evidence}))" if item.evidence else ""
                out.append(f"- {_md(item.subject)}: {_md(item.text)}. Do: {_md(item.action) or '-'}{link}")
            out.append("")
    return "\n".join(out)


PRINT_CSS = """
body { font-family: sans-serif; font-size: 11pt; margin: 0; color: #111; }
h1 { font-size: 17pt; } h2 { font-size: 14pt; margin-top: 1.2em; } h3 { font-size: 12pt; }
li { margin: 0.2em 0; } a { color: #0645ad; }
@page { size: A4; margin: 16mm 14mm; }
"""


def print_html(report: AssessmentReport, about: About, base: str = "") -> str:
    """The report's print view: the Markdown rendered to one HTML page with a print stylesheet."""
    body = MarkdownIt("commonmark").render(markdown(report, about, base))
    title = html.escape(f"Upgrade assessment {about.assessment_id}")
    return (
        f'<!doctype html><html><head><meta charset="utf-8"><title>{title}</title>'
        f"<style>{PRINT_CSS}</style></head><body>{body}</body></html>"
    )


def pdf(page_html: str) -> bytes:
    """`page_html` printed to PDF (A4) by headless Chromium (/usr/bin/chromium through Playwright;
    no network: the page is set as content). RuntimeError naming the browser when it cannot start."""
    from playwright.sync_api import Error, sync_playwright

    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
            try:
                page = browser.new_page()
                page.set_content(page_html, timeout=PDF_TIMEOUT_MS)
                return page.pdf(format="A4", print_background=True)
            finally:
                browser.close()
    except Error as failed:
        raise RuntimeError(f"{CHROMIUM} could not print the report: {failed}") from failed
