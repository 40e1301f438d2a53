"""Plans named on the command line, and plan files checked against the
instance before anything is simulated.

``--plan SPEC`` builds the plan of any registered method that makes one
(a method spec of :mod:`opt_sched.methods`: ``one-pack``,
``make-pack(S=2)+lpt(R=2)``, ``first-fit+lpt``, or a plug-in's): the
registry resolves the spec, checks it supports the instance, and builds the
plan. ``--plan packs`` and ``--plan starts`` read ``--plan-file``:

- packs: ``{"packs": [[["a", "b"], ["c"]], ...]}``, the ordered packs of
  each partition (or a schedule file that has ``packs``);
- starts: ``{"starts": {"a": {"partition": 0, "start": 0.0}, ...}}``, or a
  schedule file (its jobs' first compute starts and partitions).

Every job of the instance must appear exactly once, no unknown job, every
start a finite number ``>= 0``, every partition an index of the platform, a
schedule used as a plan must have one start per phase of each job. A key
given twice (a job listed twice in ``starts``) is refused by the JSON
reader. Each violation is one :class:`~opt_sched.errors.PlanError` line
naming the file, the job and the field (exit status 2).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..errors import PlanError, ScheduleFormatError

if TYPE_CHECKING:
    from ..instance import Instance

__all__ = ["PLAN_FILES", "build_plan", "read_plan_file"]

PLAN_FILES = ("packs", "starts")
"""The ``--plan`` words that read ``--plan-file`` (a format, not a method)."""
_START_KEYS = {"partition", "start"}
_STARTS_FILE_KEYS = {"starts", "instance", "method", "info"}


def read_plan_file(path: str) -> dict[str, Any]:
    """The JSON object of a plan file (errors name the file)."""
    from ..json_files import load_json

    data = load_json(path, PlanError)
    if not isinstance(data, Mapping):
        raise PlanError(f"{path}: expected an object with 'packs' or 'starts' "
                        f"(or a schedule), got {type(data).__name__}")
    return dict(data)


def _check_start(path: str, job_id: str, field: str, value: object) -> float:
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not math.isfinite(value)):
        raise PlanError(f"{path}: job {job_id!r}: {field}={value!r} is not a "
                        f"finite number")
    if value < 0:
        raise PlanError(f"{path}: job {job_id!r}: {field}={value!r} must be >= 0")
    return float(value)


def _check_partition(path: str, instance: Instance, job_id: str,
                     value: object) -> int:
    count = instance.platform.num_partitions
    if isinstance(value, bool) or not isinstance(value, int):
        raise PlanError(f"{path}: job {job_id!r}: partition={value!r} is not an "
                        f"integer")
    if not 0 <= value < count:
        raise PlanError(f"{path}: job {job_id!r}: partition={value} does not "
                        f"exist (platform has {count})")
    return value


def _starts_from_mapping(path: str, instance: Instance, data: dict[str, Any]):
    from ..simulation import StartsPlan
    from ..simulation.plans import check_ids

    unknown = sorted(set(data) - _STARTS_FILE_KEYS)
    if unknown:
        raise PlanError(f"{path}: unknown key {unknown[0]!r} next to 'starts'")
    starts = data["starts"]
    if not isinstance(starts, Mapping):
        raise PlanError(f"{path}: 'starts' must map job ids to "
                        "{\"partition\": k, \"start\": t}")
    check_ids(instance, list(starts), path)
    partition, start = {}, {}
    for job_id, entry in starts.items():
        if not isinstance(entry, Mapping):
            raise PlanError(f"{path}: job {job_id!r}: expected "
                            "{\"partition\": k, \"start\": t}, got "
                            f"{type(entry).__name__}")
        extra = sorted(set(entry) - _START_KEYS)
        if extra:
            raise PlanError(f"{path}: job {job_id!r}: unknown key {extra[0]!r} "
                            "(allowed: partition, start)")
        for key in ("partition", "start"):
            if key not in entry:
                raise PlanError(f"{path}: job {job_id!r}: missing field {key!r}")
        partition[job_id] = _check_partition(path, instance, job_id,
                                             entry["partition"])
        start[job_id] = _check_start(path, job_id, "start", entry["start"])
    return StartsPlan(partition=partition, start=start)


def _starts_from_schedule(path: str, instance: Instance, data: dict[str, Any]):
    from ..json_files import schedule_from_dict
    from ..simulation import StartsPlan
    from ..simulation.plans import check_ids

    try:
        schedule = schedule_from_dict(data)
    except ScheduleFormatError as err:
        raise PlanError(f"{path}: {err}") from None
    check_ids(instance, [js.id for js in schedule.jobs], path)
    for js in schedule.jobs:
        iterations = instance.job(js.id).iterations
        for field in ("compute_starts", "io_starts"):
            values = getattr(js, field)
            if len(values) != iterations:
                raise PlanError(f"{path}: job {js.id!r}: {field} has "
                                f"{len(values)} entries but the job has "
                                f"{iterations} iterations")
            for value in values:
                _check_start(path, js.id, field, value)
        _check_partition(path, instance, js.id, js.partition)
    return StartsPlan(partition={js.id: js.partition for js in schedule.jobs},
                      start={js.id: js.start for js in schedule.jobs})


def _plan_from_file(instance: Instance, kind: str, path: str):
    from ..simulation import PackPlan

    data = read_plan_file(path)
    if kind == "packs":
        if "packs" not in data or data["packs"] is None:
            raise PlanError(f"{path}: no 'packs' field (a list of packs per "
                            "partition)")
        try:
            plan = PackPlan(data["packs"])
        except PlanError as err:
            raise PlanError(f"{path}: {err}") from None
    elif "starts" in data:
        plan = _starts_from_mapping(path, instance, data)
    elif "jobs" in data:
        plan = _starts_from_schedule(path, instance, data)
    else:
        raise PlanError(f"{path}: expected 'starts' or a schedule's 'jobs'")
    try:
        plan.lower(instance)  # the plan's own checks, named with the file
    except PlanError as err:
        raise PlanError(f"{path}: {err}") from None
    return plan


def plan_method(text: str, io_policy: str | None):
    """The registered method of ``--plan SPEC`` under ``io_policy`` (the
    spec's own ``/policy`` when it names one; giving both is an error)."""
    from ..errors import OptionError
    from ..methods import method

    resolved = method(text)
    if "/" in text:
        if io_policy is not None:
            raise OptionError(f"--plan {text!r} names its I/O policy: leave out "
                              f"--io-policy {io_policy}")
        return resolved
    return resolved.with_policy(io_policy or "fifo") if resolved.entry.policy \
        else resolved


def build_plan(instance: Instance, args: argparse.Namespace):
    """``(plan, policy)`` of ``--plan`` (with ``--plan-file``,
    ``--io-policy``), checked against ``instance``.

    Raises
    ------
    PlanError
        The method does not support the instance, makes a schedule rather
        than a plan, or the plan file is bad.
    """
    from ..schedule import Schedule

    kind = args.plan
    if kind in PLAN_FILES:
        if args.plan_file is None:
            raise PlanError(f"--plan {kind} needs --plan-file (a JSON file with "
                            f"'{kind}', or a schedule)")
        return _plan_from_file(instance, kind, args.plan_file), args.io_policy or "fifo"
    if args.plan_file is not None:
        raise PlanError(f"--plan-file applies to --plan {' or '.join(PLAN_FILES)}, "
                        f"not to the method {kind!r}")
    chosen = plan_method(kind, args.io_policy)
    if chosen.entry.online:
        raise PlanError(f"--plan {chosen.spec}: an online scheduler makes a schedule, "
                        f"not a plan (run it with 'opt-sched replay --scheduler')")
    reason = chosen.supports(instance)
    if reason is not None:
        raise PlanError(f"--plan {chosen.spec}: {reason}")
    plan = chosen.entry.build(instance, chosen, 0)
    if isinstance(plan, Schedule):
        raise PlanError(f"--plan {chosen.spec}: the method makes a schedule, not a "
                        f"plan to execute (run it with 'opt-sched compare --methods')")
    return plan, chosen.policy or "fifo"
