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

Online schedulers join the defaults where their entries'
``default_for`` takes the instance, each as its default spec names it (no
crossing with every policy): seed 000's ``ls/fifo`` and
``packs(order=random|max|char-dec)/fifo`` on seed 000's batch,
``fcfs/fifo``, ``easy/fifo`` and ``conservative/fifo`` on trace workloads
(jobs released at different times). The choice is the registry's
(:func:`opt_sched.methods.applicable`), never a list here; ``methods=``
replaces it with full specs run as written.

The policies are every registered I/O policy
(:func:`opt_sched.simulation.policies.names`). A heuristic that does not
support the instance is skipped and its reason is listed in
``table.attrs["skipped"]``. Each schedule comes from
:meth:`~opt_sched.methods.Method.run`, passes
:func:`~opt_sched.validation.assert_feasible` and is measured by
:func:`~opt_sched.metrics.summary`. The gap to the best makespan lower bound
``L`` that holds under the execution model
(:func:`~opt_sched.bound_models.best_bound_under`, valid for every schedule
of the instance under that model) is
:func:`~opt_sched.objectives.relative_gap` (SPEC §7); under a model no bound
is proven for, ``lower_bound`` and ``gap`` are ``None`` and ``bound_note``
says "no bound holds under <model>".
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
           "best_found", "lower_bound", "at_least", "gap", "bound_note")


def _heuristic(text: str | Method) -> Method:
    from .. import methods

    if isinstance(text, Method):
        return text
    if methods.parse_spec(text).policy is not None:
        raise SpecError(f"compare: heuristic {text!r} names a policy; give the "
                        f"policies separately")
    return methods.method(text)


def _heuristic_label(skip) -> object:
    """A skipped spec of a method crossed with every policy, labelled by its
    heuristic (``make-pack(S=alpha)+lpt``: one line for all its policies)."""
    from .. import methods

    spec = methods.parse_spec(skip.spec)
    entry = methods.get_entry(spec.head.name)
    if entry.online or not entry.policy:
        return skip
    return methods.Skipped(str(methods.Spec(spec.calls)), skip.reason)


def compare_methods(instance: Instance, *,
                    heuristics: Sequence[str | Method] | None = None,
                    policies: Sequence[str] | None = None,
                    io_nodes: int | None = None,
                    methods: str | Sequence[str | Method] | None = None
                    ) -> tuple[list[Method], list]:
    """The methods ``compare`` runs on ``instance`` and the skipped ones.

    Three ways to choose them:

    - ``methods``: full specs (a comma-separated string or a list, as
      :func:`opt_sched.methods.split_specs` reads), run as written (``/*``:
      every policy; no policy: ``fifo``);
    - ``heuristics``: specs without a policy, each crossed with ``policies``;
    - neither: the registry's defaults for ``instance``
      (:func:`opt_sched.methods.applicable` with no specs: every entry whose
      ``default_for`` and ``supports`` take the instance). A default of a
      policy-taking heuristic (an entry that is not
      :attr:`~opt_sched.methods.MethodEntry.online`) is crossed with every
      policy of ``policies``; an online method (``ls/fifo``) runs as its
      default spec names it.

    ``policies`` (default: every registered one) also filters the online
    defaults and ``methods`` to those policies.

    Returns
    -------
    (methods, skipped)
        ``methods``: the supported :class:`~opt_sched.methods.Method` s,
        heuristic-major; ``skipped``: one :class:`~opt_sched.methods.Skipped`
        per unsupported heuristic (crossed) or spec (as written).
    """
    from .. import methods as registry
    from ..simulation.policies import get_policy, names

    count = instance.platform.num_partitions
    if io_nodes is not None and (isinstance(io_nodes, bool)
                                 or not isinstance(io_nodes, int)
                                 or not 1 <= io_nodes <= count):
        raise OptionError(f"compare: io_nodes={io_nodes!r} must be in 1..{count} "
                          f"(the platform's partitions)")
    if heuristics is not None and methods is not None:
        raise OptionError("compare: give heuristics or methods, not both")
    names_ = list(names()) if policies is None else list(policies)
    for name in names_:
        get_policy(name)  # unknown policy: OptionError before any run

    def kept(m: Method) -> bool:
        return policies is None or m.policy is None or m.policy in names_

    skipped: list = []
    if methods is not None:
        wanted = [m for m in registry.expand(methods) if kept(m)]
        if not wanted:
            raise OptionError(f"compare: methods={methods!r} names no method"
                              + ("" if policies is None else
                                 f" under policies {', '.join(names_)}"))
    elif heuristics is not None:
        wanted = [h.with_policy(p) for h in map(_heuristic, heuristics)
                  for p in names_]
    else:
        defaults, skipped = registry.applicable(instance)
        wanted = []
        for m in defaults:
            if m.entry.online or not m.entry.policy:
                wanted.extend([m] if kept(m) else [])
            else:
                wanted.extend(m.with_policy(p) for p in names_)
    if io_nodes is not None:
        wanted = [m.with_stage_args("allocation", R=io_nodes) for m in wanted]
    runs, left_out = registry.applicable(instance, wanted)
    if methods is None:
        skipped = [_heuristic_label(s) for s in [*skipped, *left_out]]
    else:
        skipped = [*skipped, *left_out]
    return runs, list(dict.fromkeys(skipped))


def compare(instance: Instance, *, heuristics: Sequence[str | Method] | None = None,
            policies: Sequence[str] | None = None,
            io_nodes: int | None = None, execution: object = None,
            methods: str | Sequence[str | Method] | None = None) -> pd.DataFrame:
    """One validated row per heuristic x I/O policy (and per online method).


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
    execution
        The execution model (:class:`~opt_sched.execution.ExecutionSpec`, a
        name or a table; default ``exclusive``). Under ``shared`` the I/O
        policies make no difference (there is no I/O queue).
    methods
        Full specs instead of the defaults, run as written (e.g.
        ``"ls/fifo, make-pack(S=1)+lpt/*"``; see :func:`compare_methods`).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`: ``sensibility`` is Make-Pack's ``S`` as
        used (``inf`` for First-Fit, NaN when the method has none);
        ``exec``, ``delay``, ``idle`` are node-times (seed 003 Fig. 14);
        ``lower_bound`` is the best makespan bound that holds under
        ``execution`` (:func:`opt_sched.bound_models.best_bound_under`) and
        ``gap = (makespan - lower_bound) / lower_bound`` (the policy is at
        most this far above the optimum); ``best_found`` is the best makespan
        of the rows (validated schedules) and ``at_least = (makespan -
        best_found) / best_found`` (at least this far,
        :func:`opt_sched.objectives.bracket`); under a model with
        no proven bound both are ``None`` and ``bound_note`` says so
        (``"no bound holds under <model>"``; else ``None``).
        ``attrs["skipped"]`` lists the unsupported heuristics with their
        reasons.

    Raises
    ------
    SpecError, OptionError
        A bad heuristic, policy or ``io_nodes``. InfeasibleScheduleError if
        a schedule fails the validator (a bug).
    """
    from .. import validation
    from ..bound_models import best_bound_under
    from ..metrics import summary
    from ..objectives import best_known, bracket, gap_or_nan

    runs, skipped = compare_methods(instance, heuristics=heuristics,
                                    policies=policies, io_nodes=io_nodes,
                                    methods=methods)
    # only the bounds proven under this execution model (None: no bound)
    found = best_bound_under(instance, "makespan", execution)
    bound = found.value
    rows = []
    for method in runs:
        schedule = method.run(instance, execution=execution)
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
            "gap": None if bound is None else gap_or_nan(makespan, bound),
            "bound_note": found.note,
        })
    best = best_known(row["makespan"] for row in rows)
    for row in rows:
        row["best_found"] = best
        row["at_least"] = bracket(row["makespan"], best, None)[0]
    table = pd.DataFrame(rows, columns=list(COLUMNS))
    table.attrs["skipped"] = [tuple(s) for s in skipped]
    return table
