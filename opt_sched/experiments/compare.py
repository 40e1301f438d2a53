"""Every pack heuristic x every I/O policy on one instance, all validated.

The heuristics (seed 003 §5-6):

- ``first-fit``: packs by :func:`~opt_sched.heuristics.first_fit` (``S = inf``);
- ``make-pack(S=s)``: Make-Pack with sensibility ``s``; the entry
  ``"alpha"`` of ``sensibilities`` means ``S = alpha``, the instance's I/O
  load (eq. 6), written ``make-pack(S=alpha)``;
- ``one-pack`` (only when every job is mapped, e.g. ``tucan5``): each
  partition runs its jobs as one pack, the IO-SCHED setting of seed 003 §6.1.

Packs go to the I/O nodes by LPT (:func:`~opt_sched.heuristics.pack_plan`).
Each (heuristic, policy) schedule comes from :func:`~opt_sched.simulation.simulate`,
passes :func:`~opt_sched.validation.assert_feasible` and is measured by
:func:`~opt_sched.metrics.summary`. The gap to the best makespan lower bound
``L`` (:func:`~opt_sched.bounds.lower_bound`, valid for every schedule of the
instance) is ``(C_max - L) / L`` (SPEC §7).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from ..errors import OptionError
from ..instance import Instance

__all__ = ["COLUMNS", "compare", "heuristic_plans"]

COLUMNS = ("heuristic", "policy", "sensibility", "makespan", "max_stretch",
           "mean_pack_max_stretch", "num_packs", "exec", "delay", "idle",
           "lower_bound", "gap")


def heuristic_plans(instance: Instance, *,
                    sensibilities: Sequence[float | str] = (1.0, "alpha"),
                    io_nodes: int | None = None,
                    include_first_fit: bool = True) -> list[tuple[str, float, object]]:
    """``(label, S, plan)`` for every pack heuristic that applies.

    ``S`` is ``inf`` for First-Fit and NaN for one-pack.
    """
    from ..heuristics import pack_plan
    from ..simulation import OnePackPlan

    out: list[tuple[str, float, object]] = []
    if instance.is_mapped:
        out.append(("one-pack", math.nan, OnePackPlan()))
    if include_first_fit:
        out.append(("first-fit", math.inf,
                    pack_plan(instance, "first-fit", io_nodes=io_nodes)))
    for entry in sensibilities:
        if entry == "alpha":
            label, s = "make-pack(S=alpha)", instance.io_load()
        elif isinstance(entry, str):
            raise OptionError(f"compare: sensibility={entry!r} is neither a number "
                              f"nor 'alpha'")
        else:
            label, s = f"make-pack(S={entry:g})", float(entry)
        out.append((label, s, pack_plan(instance, "make-pack", s, io_nodes=io_nodes)))
    return out


def compare(instance: Instance, *, policies: Sequence[str] | None = None,
            sensibilities: Sequence[float | str] = (1.0, "alpha"),
            io_nodes: int | None = None,
            include_first_fit: bool = True) -> pd.DataFrame:
    """One validated row per heuristic x I/O policy.

    Parameters
    ----------
    instance
        The workload.
    policies
        I/O policy names (default: all eight,
        :data:`~opt_sched.simulation.POLICY_NAMES`).
    sensibilities
        Make-Pack sensibilities; numbers ``> 0`` or ``"alpha"``.
    io_nodes
        Partitions used by the LPT allocation (default: all).
    include_first_fit
        Add the First-Fit baseline.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`: ``exec``, ``delay``, ``idle`` are node-times
        (seed 003 Fig. 14); ``lower_bound`` is the best makespan bound and
        ``gap = (makespan - lower_bound) / lower_bound``.

    Raises
    ------
    OptionError, PlanError
        Bad options; InfeasibleScheduleError if a schedule fails the
        validator (a bug).
    """
    from ..bounds import lower_bound
    from ..metrics import summary
    from ..simulation import POLICY_NAMES, simulate
    from ..validation import assert_feasible

    names = list(POLICY_NAMES) if policies is None else list(policies)
    bound = lower_bound(instance, "makespan")
    rows = []
    for label, s, plan in heuristic_plans(instance, sensibilities=sensibilities,
                                          io_nodes=io_nodes,
                                          include_first_fit=include_first_fit):
        for policy in names:
            schedule = simulate(instance, plan, policy)
            assert_feasible(instance, schedule)
            m = summary(instance, schedule)
            makespan = float(m["makespan"])
            rows.append({
                "heuristic": label,
                "policy": policy,
                "sensibility": s,
                "makespan": makespan,
                "max_stretch": float(m["max_stretch"]),
                "mean_pack_max_stretch": float(m["mean_pack_max_stretch"]),
                "num_packs": int(m["num_packs"]),
                "exec": float(m["exec_node_time"]),
                "delay": float(m["delay_node_time"]),
                "idle": float(m["idle_node_time"]),
                "lower_bound": bound,
                "gap": (makespan - bound) / bound if bound > 0 else math.nan,
            })
    return pd.DataFrame(rows, columns=list(COLUMNS))
