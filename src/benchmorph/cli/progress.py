"""One progress-bar style for every long command: done/total, rate and ETA."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    Task,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class RateColumn(TextColumn):
    def __init__(self) -> None:
        super().__init__("")

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:6.1f}/s" if speed else "     -/s", style="progress.data.speed")


@contextmanager
def progress_bar(console: Console, description: str, total: int | None) -> Iterator[Callable[[int], None]]:
    """Yields an ``advance(n)`` callback that is safe to call from worker threads.

    ``total=None`` starts without a known total; ``advance.set_total(n)``
    sets it once the work is known (e.g. after candidates are proposed).
    """
    if not console.is_terminal:
        with plain_progress(console, description, total) as advance:
            yield advance
        return
    columns = (
        TextColumn("{task.description}", style="bold", markup=False),  # a file name is not markup
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[note]}", markup=False),
    )
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task(description, total=total, note="")

        def advance(count: int = 1) -> None:
            progress.advance(task, count)

        advance.set_total = lambda count: progress.update(task, total=count)  # type: ignore[attr-defined]
        advance.note = lambda text: progress.update(task, note=text)  # type: ignore[attr-defined]
        yield advance


@contextmanager
def plain_progress(
    console: Console, description: str, total: int | None, every: float = 10.0
) -> Iterator[Callable[[int], None]]:
    """Without a terminal (CI logs, nohup) a live bar shows nothing: print a line every ``every`` seconds."""
    lock = threading.Lock()
    state: dict[str, Any] = {"done": 0, "total": total, "last": time.monotonic(), "note": ""}
    started = time.monotonic()

    def line() -> str:
        elapsed = time.monotonic() - started
        done, whole = int(state["done"] or 0), state["total"]
        rate = done / elapsed if elapsed > 0 else 0.0
        text = f"{description}: {done}/{whole if whole is not None else '?'} ({rate:.1f}/s, {elapsed:.0f}s"
        if whole and rate > 0 and done < whole:
            text += f", eta {(whole - done) / rate:.0f}s"
        return text + ")" + (f" {state['note']}" if state["note"] else "")

    def advance(count: int = 1) -> None:
        with lock:
            state["done"] += count
            now = time.monotonic()
            if now - state["last"] >= every:
                state["last"] = now
                console.print(line(), highlight=False, soft_wrap=True)

    def set_total(count: int) -> None:
        with lock:
            state["total"] = count

    def note(text: str) -> None:
        with lock:
            state["note"] = text

    advance.set_total = set_total  # type: ignore[attr-defined]
    advance.note = note  # type: ignore[attr-defined]
    yield advance
    console.print(line(), highlight=False, soft_wrap=True)
