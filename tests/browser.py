"""Headless Chromium (Debian's package) driven by Playwright, with every request the page makes recorded."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from paths import ROOT as REPO

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = REPO / "benchmorph-out" / "ci-artifacts"


def chromium_path() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    assert found, "chromium is not installed: run scripts/install.sh (apt-get install chromium)"
    return found


@dataclass
class Visit:
    page: Page
    load_seconds: float
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def external_requests(self) -> list[str]:
        """Everything but the file itself: a self-contained report fetches nothing."""
        return [url for url in self.requests if not url.startswith("file://")]


@contextmanager
def open_page(path: Path, width: int = 1400, height: int = 1000) -> Iterator[Visit]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            visit = Visit(page, 0.0)
            page.on("request", lambda request: visit.requests.append(request.url))
            page.on("pageerror", lambda error: visit.errors.append(str(error)))
            start = time.perf_counter()
            page.goto(path.resolve().as_uri(), wait_until="load")
            page.wait_for_selector("body[data-ready='1']")
            visit.load_seconds = time.perf_counter() - start
            yield visit
        finally:
            browser.close()


def keep_screenshot(page: Page, name: str, *also: Path) -> Path:
    """A full-page screenshot in the repo's ignored ci-artifacts folder (and wherever else asked)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    target = ARTIFACTS / name
    page.screenshot(path=str(target), full_page=True)
    for folder in also:
        shutil.copy(target, folder / name)
    return target
