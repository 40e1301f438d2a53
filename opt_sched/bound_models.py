"""Which lower bound holds under which execution model (SPEC §7, §10).

Every lower bound is proven for the schedules of some execution models only
(``models/bounds.md``, "Which bounds hold under which execution model").
Each bound module declares it next to its bounds, as a table
``HOLDS_UNDER: {bound name: frozenset of model names}``
(:data:`opt_sched.bounds.HOLDS_UNDER`,
:data:`opt_sched.bounds_flow.HOLDS_UNDER` and ``HOLDS_UNDER_RESERVED``,
:data:`opt_sched.bounds_stretch.HOLDS_UNDER`,
:data:`opt_sched.bounds_shared.HOLDS_UNDER`, and :data:`HOLDS_UNDER_EXACT`
here for the exact layer's proven bound). The functions here take the
execution model (a name, an :class:`~opt_sched.execution.ExecutionSpec` or a
table; default ``exclusive``) and return only the bounds that hold under it.

*Safe default*: a model a bound does not list gets nothing from it. A model
added from outside the package therefore gets "no bound" (``value`` None)
until some bound is proven for it and lists it.

Summary (bound -> models):

=======================  ==================  ====================
bound                    objective           models
=======================  ==================  ====================
longest-job, area,       makespan            exclusive, shared
io-node,
jackson-preemptive
rate-capped-job, -area,  makespan            shared
-io-node
trivial, makespan-ratio, max-stretch         exclusive, shared
edf-bisection
propagated-edf           max-stretch         exclusive
alone, io-srpt, ...      flow objectives     exclusive, shared
(with reservations)      flow / window       exclusive
interval-lp              mean flow / window  exclusive
time-indexed-lp          mean flow / window  exclusive
time-indexed-edf         max flow stretch /  exclusive
                         window
split-srpt, ...,         window              exclusive
beside-knapsack
exact-solver             any                 exclusive
=======================  ==================  ====================
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from . import bounds, bounds_flow, bounds_shared, bounds_stretch, bounds_window_lp
from .execution.options import ExecutionSpec
from .instance import Instance
from .objectives import FLOW_OBJECTIVES, check_objective
from .one_machine import Expired
from .reservations import Reservations

__all__ = [
    "CATALOGUE",
    "EXACT_SOLVER",
    "HOLDS_UNDER_EXACT",
    "BoundInfo",
    "ModelBound",
    "best_bound_under",
    "bounds_under",
    "exact_bound_holds",
    "flow_bounds_under",
    "holds",
    "interval_lp_holds",
    "makespan_bounds_under",
    "max_stretch_bounds_under",
    "model_name",
    "no_bound_note",
]

EXACT_SOLVER = "exact-solver"
"""The exact layer's proven bound (and proven optimum): its models
(CP-SAT, MILP) have non-preemptive, exclusive I/O intervals."""

HOLDS_UNDER_EXACT: dict[str, frozenset[str]] = {
    EXACT_SOLVER: frozenset({"exclusive"}),
}
"""The exact layer's bound holds under ``exclusive`` only: under sharing a
schedule can beat the exclusive optimum (``models/bounds.md``; tested)."""


@dataclass(frozen=True)
class BoundInfo:
    """One lower bound as ``opt-sched bounds`` lists it."""

    name: str
    objectives: tuple[str, ...]
    models: frozenset[str]
    assumes: str


_MAKESPAN = ("makespan",)
_STRETCH = ("max-stretch",)
_FLOW = tuple(FLOW_OBJECTIVES)

CATALOGUE: tuple[BoundInfo, ...] = (
    BoundInfo("longest-job", _MAKESPAN, bounds.HOLDS_UNDER["longest-job"],
              "a phase never moves data faster than b_k"),
    BoundInfo("area", _MAKESPAN, bounds.HOLDS_UNDER["area"],
              "a job holds Q_i nodes for at least T_i(b)"),
    BoundInfo("io-node", _MAKESPAN, bounds.HOLDS_UNDER["io-node"],
              "an I/O node moves at most b_k in all"),
    BoundInfo("jackson-preemptive", _MAKESPAN, bounds.HOLDS_UNDER["jackson-preemptive"],
              "node moves at most b_k; fluid -> preemptive (Horn)"),
    BoundInfo("rate-capped-job", _MAKESPAN,
              bounds_shared.HOLDS_UNDER["rate-capped-job"],
              "shared: a phase runs at most min(eta_bar b_k, caps)"),
    BoundInfo("rate-capped-area", _MAKESPAN,
              bounds_shared.HOLDS_UNDER["rate-capped-area"],
              "shared: job lengths at their capped rates"),
    BoundInfo("rate-capped-io-node", _MAKESPAN,
              bounds_shared.HOLDS_UNDER["rate-capped-io-node"],
              "shared: a node moves at most eta_bar b_k in all"),
    BoundInfo("trivial", _STRETCH, bounds.HOLDS_UNDER["trivial"],
              "a job lasts at least T_i(b)"),
    BoundInfo("makespan-ratio", _STRETCH, bounds.HOLDS_UNDER["makespan-ratio"],
              "fixed starts; as jackson-preemptive"),
    BoundInfo("edf-bisection", _STRETCH, bounds.HOLDS_UNDER["edf-bisection"],
              "fixed starts; preemptive EDF relaxation"),
    BoundInfo("propagated-edf", _STRETCH, bounds_stretch.HOLDS_UNDER["propagated-edf"],
              "fixed starts; non-preemptive I/O (edge finding)"),
    *(BoundInfo(name, _FLOW, models, "preemptive/fluid relaxations, no reservation")
      for name, models in bounds_flow.HOLDS_UNDER.items()),
    BoundInfo(EXACT_SOLVER, ("makespan", "max-stretch"),
              HOLDS_UNDER_EXACT[EXACT_SOLVER],
              "the exact models' non-preemptive exclusive I/O"),
)
"""Every bound with the objectives it bounds, the models under which it
holds and what it assumes (one line; the proofs are in ``models/bounds.md``)."""


def model_name(execution: object = None) -> str:
    """The model's name: ``None`` -> ``exclusive``; a spec, a name, or a
    table with a ``model`` key. A name need not be registered (a bound
    simply does not hold under an unknown one)."""
    if execution is None:
        return "exclusive"
    if isinstance(execution, ExecutionSpec):
        return execution.model
    if isinstance(execution, str):
        return execution
    if isinstance(execution, Mapping):
        return str(execution.get("model", "exclusive"))
    return str(getattr(execution, "model", getattr(execution, "name", execution)))


def holds(table: Mapping[str, frozenset[str]], name: str, execution: object) -> bool:
    """Whether bound ``name`` of ``table`` holds under ``execution`` (a
    bound not in the table, or a model it does not list: no)."""
    return model_name(execution) in table.get(name, frozenset())


def _keep(values: Mapping[str, float], table: Mapping[str, frozenset[str]],
          execution: object) -> dict[str, float]:
    return {name: value for name, value in values.items()
            if holds(table, name, execution)}


def _listed(table: Mapping[str, frozenset[str]], name: str) -> bool:
    """Some bound of ``table`` holds under model ``name``."""
    return any(name in models for models in table.values())


def makespan_bounds_under(instance: Instance, execution: object = None, *,
                          fixed_start: bool = False,
                          expired: Expired | None = None) -> dict[str, float]:
    """The makespan bounds (:func:`opt_sched.bounds.makespan_bounds`, and
    under ``shared`` :func:`opt_sched.bounds_shared.shared_makespan_bounds`)
    that hold under ``execution``, by name; ``{}`` when none does."""
    name = model_name(execution)
    out: dict[str, float] = {}
    if _listed(bounds.HOLDS_UNDER, name):
        out = _keep(bounds.makespan_bounds(instance, fixed_start=fixed_start,
                                           expired=expired), bounds.HOLDS_UNDER, name)
    if _listed(bounds_shared.HOLDS_UNDER, name):  # they read the model's options
        out.update(_keep(bounds_shared.shared_makespan_bounds(
            instance, ExecutionSpec.parse(execution)), bounds_shared.HOLDS_UNDER, name))
    return out


def max_stretch_bounds_under(instance: Instance, execution: object = None, *,
                             fixed_start: bool | None = None,
                             expired: Expired | None = None) -> dict[str, float]:
    """The max-stretch bounds (:func:`opt_sched.bounds.max_stretch_bounds`)
    that hold under ``execution``, by name."""
    if not _listed(bounds.HOLDS_UNDER, model_name(execution)):
        return {}
    return _keep(bounds.max_stretch_bounds(instance, fixed_start=fixed_start,
                                           expired=expired), bounds.HOLDS_UNDER,
                 execution)


def flow_bounds_under(instance: Instance, objective: str, execution: object = None,
                      *, reservations: Reservations | None = None,
                      expired: Expired | None = None) -> dict[str, float]:
    """The bounds of :func:`opt_sched.bounds_flow.flow_bounds` that hold
    under ``execution`` (with reservations: :data:`~opt_sched.bounds_flow.
    HOLDS_UNDER_RESERVED`)."""
    table = (bounds_flow.HOLDS_UNDER if reservations is None
             else bounds_flow.HOLDS_UNDER_RESERVED)
    if not any(model_name(execution) in m for m in table.values()):
        return {}
    return _keep(bounds_flow.flow_bounds(instance, objective, reservations=reservations,
                                         expired=expired), table, execution)


def bounds_under(instance: Instance, objective: str, execution: object = None, *,
                 fixed_start: bool | None = None,
                 expired: Expired | None = None) -> dict[str, float]:
    """Every combinatorial bound of ``objective`` that holds under
    ``execution``, by name (``fixed_start`` as in
    :func:`opt_sched.bounds.lower_bound`)."""
    check_objective(objective)
    if objective in FLOW_OBJECTIVES:
        return flow_bounds_under(instance, objective, execution, expired=expired)
    if objective == "makespan":
        return makespan_bounds_under(instance, execution,
                                     fixed_start=bool(fixed_start), expired=expired)
    return max_stretch_bounds_under(instance, execution, fixed_start=fixed_start,
                                    expired=expired)


@dataclass(frozen=True)
class ModelBound:
    """The best bound under a model: ``value`` and ``name`` (both ``None``
    when no bound holds), and the model's name."""

    value: float | None
    name: str | None
    model: str

    @property
    def note(self) -> str | None:
        """``"no bound holds under <model>"`` when there is none, else None."""
        return None if self.value is not None else no_bound_note(self.model)


def best_bound_under(instance: Instance, objective: str, execution: object = None,
                     *, fixed_start: bool | None = None,
                     expired: Expired | None = None) -> ModelBound:
    """The largest of :func:`bounds_under`, or a :class:`ModelBound` with
    ``value=None`` when no bound holds under ``execution``."""
    found = bounds_under(instance, objective, execution, fixed_start=fixed_start,
                         expired=expired)
    name = model_name(execution)
    if not found:
        return ModelBound(None, None, name)
    best = max(found, key=found.__getitem__)
    return ModelBound(found[best], best, name)


def interval_lp_holds(execution: object = None) -> bool:
    """Whether the window's interval-indexed LP bound holds under
    ``execution`` (:data:`opt_sched.bounds_window_lp.HOLDS_UNDER`)."""
    return holds(bounds_window_lp.HOLDS_UNDER, "interval-lp", execution)


def exact_bound_holds(execution: object = None) -> bool:
    """Whether the exact layer's proven bound and optimum hold under
    ``execution`` (:data:`HOLDS_UNDER_EXACT`)."""
    return holds(HOLDS_UNDER_EXACT, EXACT_SOLVER, execution)


def no_bound_note(execution: object) -> str:
    """The note written where no bound holds."""
    return f"no bound holds under {model_name(execution)}"
