"""One progress-bar style for every long command: done/total, rate and ETA."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class RateColumn(TextColumn):
    def __init__(self) -> None:
        super().__init__("")

    def render(self, task) -> Text:  # type: ignore[override]
        speed = task.finished_speed or task.speed
        return Text(f"{speed:6.1f}/s" if speed else "     -/s", style="progress.data.speed")


@contextmanager
def progress_bar(console: Console, description: str, total: int | None) -> Iterator[Callable[[int], None]]:
    """Yields an ``advance(n)`` callback that is safe to call from worker threads.

    ``total=None`` starts without a known total; ``advance.set_total(n)``
    sets it once the work is known (e.g. after candidates are proposed).
    """
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task(description, total=total)

        def advance(count: int = 1) -> None:
            progress.advance(task, count)

        advance.set_total = lambda count: progress.update(task, total=count)  # type: ignore[attr-defined]
        yield advance
