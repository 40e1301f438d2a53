"""Replay doors: schedulers of another kind of workload behind ``opt-sched replay``.

``opt-sched replay --scheduler NAME`` runs the space-sharing schedulers of
:data:`opt_sched.scheduling.SCHEDULERS` on traces and instances. Schedulers
that make schedules of another shape (seed 004's gang schedulers on a gang
workload: :mod:`opt_sched.schedule_kinds`) come through a :class:`ReplayDoor`:
their names join ``--scheduler``'s choices, their own options join the
command as one argument group, and a replay with one of them is handed to
the door. Doors register through the entry-point group
``opt_sched.replay_doors`` (:mod:`opt_sched.plugins`), keyed by the
execution model's name; opt_sched declares its gang door there too
(``opt_sched.cli.gang:REPLAY_DOOR``), so the command names no kind.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..plugins import PluginMapping, check_named

__all__ = ["REPLAY_DOORS", "ReplayDoor", "applies_to", "door_of", "doors",
           "kind_options"]


@dataclass(frozen=True)
class ReplayDoor:
    """How ``opt-sched replay`` runs the schedulers of one kind.

    Attributes
    ----------
    name
        The execution model's name (of its
        :class:`~opt_sched.schedule_kinds.ScheduleKind`).
    title
        The title of the command's argument group of its options.
    noun
        What its schedulers are called in messages (``"gang"``).
    schedulers
        ``() -> names``: its schedulers, listed on demand.
    add_options
        ``(group) -> None``: adds its own options to an argument group.
    own_options
        The option destinations only its schedulers take (refused with any
        other scheduler, and with ``--methods``).
    takes
        ``(scheduler) -> destinations``: every option that scheduler takes
        (any other one given is refused, naming who takes it).
    run
        ``(args) -> exit status``: the replay, ``args.trace`` being the
        workload file.
    """

    name: str
    title: str
    noun: str
    schedulers: Callable[[], Sequence[str]]
    add_options: Callable[[Any], None]
    own_options: frozenset[str]
    takes: Callable[[str], frozenset[str]]
    run: Callable[[argparse.Namespace], int]


def _check(name: str, value: Any) -> None:
    check_named(value, ReplayDoor, name)


REPLAY_DOORS: MutableMapping[str, ReplayDoor] = PluginMapping("replay_doors", {},
                                                              _check)
"""Execution model name -> :class:`ReplayDoor`, filled from the entry-point
group ``opt_sched.replay_doors`` when listed."""


def doors() -> list[ReplayDoor]:
    """Every registered door (loads the group once per process)."""
    return list(REPLAY_DOORS.values())


def door_of(scheduler: str) -> ReplayDoor | None:
    """The door whose schedulers include ``scheduler``, ``None`` for a
    space-sharing scheduler."""
    return next((door for door in doors() if scheduler in door.schedulers()), None)


def kind_options() -> frozenset[str]:
    """The options some door's schedulers take and no space-sharing one."""
    return frozenset().union(*(door.own_options for door in doors()))


def applies_to(dest: str) -> str | None:
    """Who takes the door option ``dest``: ``the gang schedulers gs, iogs``
    (only those whose :attr:`ReplayDoor.takes` lists it), ``None`` if no
    door's own option."""
    for door in doors():
        if dest in door.own_options:
            takers = [name for name in door.schedulers() if dest in door.takes(name)]
            plural = "s" if len(takers) > 1 else ""
            return f"the {door.noun} scheduler{plural} " + ", ".join(takers)
    return None
