"""The progress bar of ``opt-sched replay`` says that kernels are compiling
until the first progress report arrives (issue 25), then counts jobs."""

from __future__ import annotations

import sys

from opt_sched.cli.commands import replay as replay_command


class _Terminal:
    """A stand-in stderr that claims to be a terminal (the bar is only shown
    on one)."""

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


def test_bar_says_compiling_until_the_first_report(monkeypatch):
    monkeypatch.setattr(sys, "stderr", _Terminal())
    bar, report = replay_command._progress(quiet=False, total=10)
    assert bar is not None
    (task,) = bar.tasks
    assert replay_command.COMPILING in task.description
    report(4, 10)
    (task,) = bar.tasks
    assert replay_command.COMPILING not in task.description
    assert task.completed == 4


def test_no_bar_when_quiet(monkeypatch):
    monkeypatch.setattr(sys, "stderr", _Terminal())
    assert replay_command._progress(quiet=True, total=10) == (None, None)
