"""Every heuristic x every I/O policy on one instance, all validated.

The heuristics are spec strings of :mod:`opt_sched.methods` without their
policy (``heuristic + "/" + policy`` is the full spec). By default: the
heuristic parts of every registered default spec that supports the
instance, in registry order; today

- ``one-pack`` (every job mapped, e.g. ``tucan5``, or one partition where
  all jobs fit together): each partition runs its jobs as one pack, the
  IO-SCHED setting of seed 003 §6.1;
- ``first-fit+lpt``: First-Fit packs (``S = inf``) placed by LPT;
- ``make-pack(S=1)+lpt`` and ``make-pack(S=alpha)+lpt``: Make-Pack with
  ``S = 1`` and with ``S = alpha``, the instance's I/O load (eq. 6).

The policies are every registered I/O policy
(:func:`opt_sched.simulation.policies.names`). A heuristic that does not
support the instance is skipped and its reason is listed in
``table.attrs["skipped"]``. Each schedule comes from
:meth:`~opt_sched.methods.Method.run`, passes
:func:`~opt_sched.validation.assert_feasible` and is measured by
:func:`~opt_sched.metrics.summary`. The gap to the best makespan lower bound
``L`` (:func:`~opt_sched.bounds.lower_bound`, valid for every schedule of the
instance) is :func:`~opt_sched.objectives.relative_gap` (SPEC §7).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from ..errors import OptionError, SpecError
from ..instance import Instance
from ..methods import Method

__all__ = ["COLUMNS", "compare", "compare_methods"]

COLUMNS = ("heuristic", "policy", "sensibility", "makespan", "max_stretch",
           "mean_pack_max_stretch", "num_packs", "exec", "delay", "idle",
           "lower_bound", "gap")


def _heuristic(text: str | Method) -> Method:
    from .. import methods

    if isinstance(text, Method):
        return text
    if methods.parse_spec(text).policy is not None:
        raise SpecError(f"compare: heuristic {text!r} names a policy; give the "
                        f"policies separately")
    return methods.method(text)


def compare_methods(instance: Instance, *,
                    heuristics: Sequence[str | Method] | None = None,
                    policies: Sequence[str] | None = None,
                    io_nodes: int | None = None
                    ) -> tuple[list[Method], list]:
    """The methods ``compare`` runs on ``instance`` and the skipped ones.

    Returns
    -------
    (methods, skipped)
        ``methods``: one :class:`~opt_sched.methods.Method` per supported
        heuristic x policy, heuristic-major; ``skipped``: one
        :class:`~opt_sched.methods.Skipped` per unsupported heuristic.
    """
    from .. import methods
    from ..simulation.policies import get_policy, names

    count = instance.platform.num_partitions
    if io_nodes is not None and (isinstance(io_nodes, bool)
                                 or not isinstance(io_nodes, int)
                                 or not 1 <= io_nodes <= count):
        raise OptionError(f"compare: io_nodes={io_nodes!r} must be in 1..{count} "
                          f"(the platform's partitions)")
    if heuristics is None:
        parts = list(dict.fromkeys(m.heuristic for m in methods.expand(
            [t for name in methods.names()
             for t in methods.get_entry(name).defaults])))
        chosen = [methods.method(p) for p in parts]
    else:
        chosen = [_heuristic(h) for h in heuristics]
    names_ = list(names()) if policies is None else list(policies)
    for name in names_:
        get_policy(name)  # unknown policy: OptionError before any run
    if io_nodes is not None:
        chosen = [m.with_stage_args("allocation", R=io_nodes) for m in chosen]
    runs, skipped, seen = [], [], set()
    for heuristic in chosen:
        if heuristic.heuristic in seen:
            continue
        seen.add(heuristic.heuristic)
        reason = heuristic.supports(instance)
        if reason:
            skipped.append(methods.Skipped(heuristic.heuristic, reason))
            continue
        runs.extend(heuristic.with_policy(p) for p in names_)
    return runs, skipped


def compare(instance: Instance, *, heuristics: Sequence[str | Method] | None = None,
            policies: Sequence[str] | None = None,
            io_nodes: int | None = None) -> pd.DataFrame:
    """One validated row per heuristic x I/O policy.

    Parameters
    ----------
    instance
        The workload.
    heuristics
        Specs without a policy, e.g. ``["first-fit+lpt",
        "make-pack(S=2.5)+lpt"]`` (default: see the module docstring).
    policies
        I/O policy names (default: every registered one).
    io_nodes
        ``R``: the LPT allocation uses partitions ``0..R-1`` (default:
        all); written into the heuristics as ``+lpt(R=...)``.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`: ``sensibility`` is Make-Pack's ``S`` as
        used (``inf`` for First-Fit, NaN when the method has none);
        ``exec``, ``delay``, ``idle`` are node-times (seed 003 Fig. 14);
        ``lower_bound`` is the best makespan bound and ``gap = (makespan -
        lower_bound) / lower_bound``. ``attrs["skipped"]`` lists the
        unsupported heuristics with their reasons.

    Raises
    ------
    SpecError, OptionError
        A bad heuristic, policy or ``io_nodes``. InfeasibleScheduleError if
        a schedule fails the validator (a bug).
    """
    from .. import validation
    from ..bounds import lower_bound
    from ..metrics import summary
    from ..objectives import gap_or_nan

    runs, skipped = compare_methods(instance, heuristics=heuristics,
                                    policies=policies, io_nodes=io_nodes)
    bound = lower_bound(instance, "makespan")
    rows = []
    for method in runs:
        schedule = method.run(instance)
        validation.assert_feasible(instance, schedule)
        m = summary(instance, schedule)
        makespan = float(m["makespan"])
        rows.append({
            "heuristic": method.heuristic,
            "policy": method.policy,
            "sensibility": method.effective(instance).get("sensibility", math.nan),
            "makespan": makespan,
            "max_stretch": float(m["max_stretch"]),
            "mean_pack_max_stretch": float(m["mean_pack_max_stretch"]),
            "num_packs": int(m["num_packs"]),
            "exec": float(m["exec_node_time"]),
            "delay": float(m["delay_node_time"]),
            "idle": float(m["idle_node_time"]),
            "lower_bound": bound,
            "gap": gap_or_nan(makespan, bound),
        })
    table = pd.DataFrame(rows, columns=list(COLUMNS))
    table.attrs["skipped"] = [tuple(s) for s in skipped]
    return table
