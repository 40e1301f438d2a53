"""The ``portfolio`` backend of IO-SCHED: bounds, seeds, CP-SAT, LNS and deadline
questions, under one time limit (``models/lns.md``, "The portfolio").

Per I/O node (partitions are independent in IO-SCHED):

1. **bounds**: the combinatorial bounds of :mod:`opt_sched.bounds` (fixed
   starts) and, for the max stretch, ``propagated-edf``
   (:mod:`opt_sched.bounds_stretch`);
2. **seeds**: the eight list policies and, for a periodic node, the
   unrolled cyclic steady state (at most ``cyclic_share`` of the time); for
   the max stretch, simulated annealing over the I/O order from the best of
   them (:mod:`opt_sched.exact.io_sched.anneal`, ``anneal_share`` of the
   time); the best seed, the annealed one included, is the incumbent;
3. stop if the best seed meets the bound; otherwise
4. a quick round of **deadline questions**
   (:func:`opt_sched.exact.io_sched.deadlines.search.deadline_search`, at most
   ``q0 = min(quick_seconds, share / 10)`` seconds, ``share`` the node's part
   of the time limit): "strictly below the incumbent?" first, then a gallop
   and bisection from the bound;
5. optionally (``cpsat_leg > 0``; off by default), for the max stretch on a
   one-node instance of at most ``cpsat_max_ops`` operations, the
   **CP-SAT leg**: one run of the plain CP-SAT solver's
   search (:class:`opt_sched.exact.io_sched.cpsat.IoSchedCpsat` with its
   default ladder, optimisation and bisection, as ``solver="cpsat"`` runs
   it) for ``cpsat_leg`` of the node's share, warm-started with the
   portfolio's incumbent and best seeds and given its bound: CP-SAT's
   schedule and bound join the portfolio's, so the answer keeps the best
   of both (``models/lns.md``, "Best of both");
6. for a one-node instance of at most ``cpsat_max_ops`` operations,
   **rounds** of the CP-SAT model of IO-SCHED
   (:class:`opt_sched.exact.io_sched.cpsat.IoSchedCpsat`: its ladder,
   optimisation and bisection, warm-started with the incumbent and the best
   seeds; ``cp0 * 2^r`` seconds, ``cp0 = min(cpsat_round, 0.15 share)``),
   each followed by deadline questions (``q0 * 2^r``) unless the next round
   is the last, until closed. The last round (less than three rounds' time
   left) shares the time left, questions first, then CP-SAT: the questions
   get ``1 - cpsat_share`` of it, or 75 % (with 90 % of that for "strictly
   below the incumbent?") when CP-SAT's previous run did not improve the
   incumbent, the sign that the open side is the bound; the last CP-SAT run
   leaves ``min(3 s, 5 % share)`` for a final "strictly below the
   incumbent?" when it improves the incumbent, else for more questions.
   Restarts with a new seed cut the heavy tail of the solve times; the
   small first rounds give a short time limit (10 s) a CP-SAT probe before
   the long questions. Larger nodes: the LNS
   (:func:`opt_sched.exact.io_sched.lns.search.improve_order`), then
   questions.

Registered as ``solve(instance, "io-sched", objective, solver="portfolio")``
(:mod:`opt_sched.exact.registry`): the front door computes the
combinatorial bound, runs :func:`run` within its deadline and certifies the
answer (:func:`opt_sched.exact.certify.certify`: the validator, the
objective recomputed from the schedule, the bounds merged, ``optimal`` iff
the value meets the bound).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ....errors import OptionError
from ....instance import Instance
from ....objectives import BATCH_OBJECTIVES
from ...cpsat.settings import check_run_options
from ...deadline import Deadline, OutOfTimeError, Stopwatch
from ...progress import report
from ...result import Outcome, SolveStatus
from ..orders import NodeJobs, node_jobs, order_value, orders_to_schedule
from .seeds import Seed, best_seed, cyclic_seeds, policy_seeds

__all__ = ["CPSAT_MAX_OPS", "OBJECTIVES", "OPTIONS", "PortfolioSettings", "prepare",
           "run"]

_QUESTIONS_WHEN_STUCK = 0.75
"""The last round's share of the questions when CP-SAT's previous run did
not improve the incumbent."""

_FINAL_QUESTION = 3.0
"""Seconds (at most 5 % of the node's share) kept after the last CP-SAT run
for "strictly below the incumbent?" when that run improved the incumbent,
else for more questions. On the 10x20 max-stretch instance load 1.3 seed 1
the last run found 1.709615 and the question refutes anything below it in
0.6 s."""

_BELOW_WHEN_STUCK = 0.9
"""... and the share of those questions' time that "strictly below the
incumbent?" may take."""

_LEG_LOWER_BOUNDING = True
"""Whether the CP-SAT leg runs CP-SAT's bound ladder and bisection around
its optimisation, as ``solver="cpsat"`` does (``models/lns.md``, "Best of
both": optimisation alone measured no better)."""

CPSAT_MAX_OPS = 1500
"""One-node instances up to this many operations use the CP-SAT model as
the primal phase; larger ones the LNS."""

OBJECTIVES = BATCH_OBJECTIVES
"""Both objectives."""


def _share(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not 0 <= value <= 1:
        raise OptionError(f"{name}={value!r} must be a share in [0, 1]")


def _seconds(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise OptionError(f"{name}={value!r} must be a number of seconds > 0")


@dataclass(frozen=True)
class PortfolioSettings:
    """Options of ``solve(..., solver="portfolio")`` (module docstring).

    ``cyclic``/``lns``/``anneal``: use the cyclic seed / the LNS / the
    annealing seed (max stretch); ``cyclic_share``, ``anneal_share``: the
    shares of the time the cyclic and annealing seeds may take;
    ``cpsat_max_ops``: largest one-node instance given to the CP-SAT model;
    ``cpsat_round``, ``quick_seconds``: caps of the first round's CP-SAT and
    question budgets (15 % and 10 % of the node's share at most; they double
    each round); ``cpsat_share``: CP-SAT's share of the last round;
    ``cpsat_leg``: the max stretch's CP-SAT leg's share of the node's time
    (0, the default: no leg; measured no better at 0.3 once the annealed
    order is the incumbent, ``models/lns.md``, "Best of both").
    """

    time_limit: float = 60.0
    seed: int = 0
    num_workers: int = 2
    cyclic: bool = True
    cyclic_share: float = 0.15
    anneal: bool = True
    anneal_share: float = 0.2
    cpsat_max_ops: int = CPSAT_MAX_OPS
    cpsat_share: float = 0.6
    cpsat_leg: float = 0.0
    cpsat_round: float = 6.0
    quick_seconds: float = 3.0
    lns: bool = True

    def __post_init__(self) -> None:
        check_run_options(self.time_limit, self.seed, self.num_workers)
        for name in ("cyclic", "lns", "anneal"):
            if not isinstance(getattr(self, name), bool):
                raise OptionError(f"{name}={getattr(self, name)!r} must be a bool")
        for name in ("cyclic_share", "cpsat_share", "anneal_share", "cpsat_leg"):
            _share(name, getattr(self, name))
        for name in ("cpsat_round", "quick_seconds"):
            _seconds(name, getattr(self, name))
        if isinstance(self.cpsat_max_ops, bool) or not isinstance(
                self.cpsat_max_ops, int) or self.cpsat_max_ops < 0:
            raise OptionError(f"cpsat_max_ops={self.cpsat_max_ops!r} must be an "
                              "integer >= 0")


OPTIONS = PortfolioSettings
"""The options record of this model (:mod:`opt_sched.exact.registry`)."""


def prepare(options: object) -> None:
    """One-time set-up before the time limit runs: the simulator's compiled
    kernel (list-policy seeds), the propagation kernel of the
    ``propagated-edf`` bound and the annealing kernels (numba)."""
    from ....bounds_stretch import propagate_windows
    from ...warm import prepare as warm_prepare
    from ..anneal import compile_kernels

    warm_prepare()
    compile_kernels()
    propagate_windows([0.0, 0.0], [3.0, 3.0], [1.0, 1.0], [-1, -1], [0.0, 0.0])


def _node_bound(instance: Instance, node: NodeJobs, objective: str) -> float:
    """Combinatorial bound of one node's sub-instance."""
    from ....bounds import lower_bound

    sub = instance if len(node.members) == instance.num_jobs else \
        instance.subset([instance.jobs[i].id for i in node.members])
    if objective == "makespan":
        return lower_bound(sub, "makespan", fixed_start=True)
    from ....bounds_stretch import best_stretch_bound

    return best_stretch_bound(sub)[0]


def _structure(instance: Instance, nodes: list[NodeJobs], orders: list[list[int]]):
    from ...cpsat.common import Structure

    n = instance.num_jobs
    partition = [0] * n
    io_order: list[tuple] = [() for _ in range(instance.platform.num_partitions)]
    packs: list[tuple] = [() for _ in range(instance.platform.num_partitions)]
    for node, order in zip(nodes, orders):
        seen = [0] * node.num_jobs
        ops = []
        for j in order:
            ops.append((node.members[j], seen[j]))
            seen[j] += 1
        io_order[node.partition] = tuple(ops)
        packs[node.partition] = (tuple(node.members),)
        for i in node.members:
            partition[i] = node.partition
    return Structure(tuple(partition), tuple(io_order), packs=tuple(packs))


def _cpsat_phase(instance: Instance, nodes: list[NodeJobs], objective: str,
                 seeds: list[list[Seed]], incumbent: list[int], bound: float,
                 time_limit: float, seed: int, num_workers: int, *,
                 lower_bounding: bool = True
                 ) -> tuple[list[int] | None, float, dict[str, Any]]:
    """The CP-SAT model warm-started with the incumbent and the best seeds:
    (its order or ``None``, the bound, info). ``lower_bounding``: CP-SAT's
    bound ladder and bisection around its optimisation (else optimisation
    alone)."""
    from ...cpsat.settings import ScheduleCpsatSettings
    from ..cpsat import IoSchedCpsat, io_sched_data
    from ..orders import orders_from_schedule

    clock = Stopwatch()
    deadline = Deadline(max(0.1, time_limit))
    settings = ScheduleCpsatSettings(time_limit=max(0.1, time_limit), seed=seed,
                                     num_workers=num_workers,
                                     lower_bounding=lower_bounding)
    try:
        data = io_sched_data(instance, None, deadline)
        structures = [_structure(instance, nodes, [incumbent])] + [
            _structure(instance, nodes, [s.order]) for s in
            sorted(seeds[0], key=lambda s: s.value)[:3]]
        model = IoSchedCpsat(data, objective, settings, lower_bound=bound,
                             warm=structures, deadline=deadline)
        outcome = model.solve(deadline)
    except OutOfTimeError as exc:
        return None, bound, {"cpsat_stopped": str(exc)}
    info = {"cpsat_status": str(outcome.status), "cpsat_seconds": round(clock(), 3)}
    order = None
    if outcome.schedule is not None:
        order = orders_from_schedule(nodes, outcome.schedule)[0]
    lower = outcome.bound if outcome.bound is not None else bound
    return order, max(bound, lower), info


def _cpsat_leg(instance: Instance, nodes: list[NodeJobs], seeds: list[list[Seed]],
               incumbent: list[int], bound: float, budget: float, seed: int,
               num_workers: int) -> dict[str, Any]:
    """The max stretch's CP-SAT leg (module docstring, step 5): the plain
    CP-SAT solver's search for ``budget`` seconds from the portfolio's
    incumbent, seeds and bound. Returns its own answer, before it is merged:
    ``order`` (``None`` without one), ``value`` (that order's semi-active
    value, ``inf`` without one), ``bound`` (proven, at least ``bound``),
    ``start_order`` / ``start_value`` / ``start_bound`` (the portfolio's
    before the leg) and CP-SAT's ``info``."""
    start = order_value(nodes[0], incumbent, "max-stretch")
    report("portfolio: cpsat leg", incumbent=start, bound=bound)
    order, lower, cp_info = _cpsat_phase(instance, nodes, "max-stretch", seeds,
                                         incumbent, bound, budget, seed, num_workers,
                                         lower_bounding=_LEG_LOWER_BOUNDING)
    value = float("inf") if order is None else \
        order_value(nodes[0], order, "max-stretch")
    return {"order": order, "value": value, "bound": lower,
            "start_order": list(incumbent), "start_value": start,
            "start_bound": bound, "seconds": round(budget, 3), **cp_info}


def _anneal_seeds(nodes: list[NodeJobs], seeds: list[list[Seed]], bounds: list[float],
                  objective: str, budget: float, seed: int) -> None:
    """Add an ``anneal`` seed to each open node, annealed from its best seed
    (``budget`` seconds shared by the open nodes)."""
    from ..anneal import anneal_order

    open_nodes = [k for k, slot in enumerate(seeds)
                  if best_seed(slot).value > bounds[k] * (1 + 1e-9) + 1e-12]
    if budget <= 0.05 or not open_nodes:
        return
    for k in open_nodes:
        start = best_seed(seeds[k])
        result = anneal_order(nodes[k], objective, start.order,
                              budget / len(open_nodes), seed=seed)
        seeds[k].append(Seed("anneal", result.order, result.value))


def _tell(phase: str | None, values: list[float], bounds: list[float]) -> None:
    """Report the phase, the incumbent and the bound of the instance (the
    worst node's: both objectives are maxima over the jobs)."""
    report(phase, incumbent=max(values, default=None),
           bound=max(bounds, default=None))


def run(instance: Instance, objective: str, options: PortfolioSettings, *,
        lower_bound: float | None, deadline: Deadline) -> Outcome:
    """The portfolio (module docstring) within ``deadline``; the front door
    (:func:`opt_sched.solve`) certifies its answer."""
    from ..deadlines import node_grid
    from ..deadlines.search import QuestionLog, deadline_search
    from ..lns.search import improve_order

    clock = Stopwatch()
    # the orders become a schedule after the search: keep time for it
    time_limit = max(0.05, deadline.remaining() - 0.02
                     - 2e-6 * instance.num_io_phases)
    seed, num_workers = options.seed, options.num_workers
    cyclic, cyclic_share, lns = options.cyclic, options.cyclic_share, options.lns
    cpsat_max_ops, cpsat_share = options.cpsat_max_ops, options.cpsat_share
    cpsat_round, quick_seconds = options.cpsat_round, options.quick_seconds
    nodes = node_jobs(instance)
    report("portfolio: bounds")
    bounds = [_node_bound(instance, node, objective) for node in nodes]
    if lower_bound is not None and len(nodes) == 1:
        bounds[0] = max(bounds[0], lower_bound)
    report("portfolio: seeds", bound=max(bounds, default=None))
    seeds = policy_seeds(instance, nodes, objective)
    info: dict[str, Any] = {"bound_seconds": round(clock(), 3)}
    best = [best_seed(s) for s in seeds]
    if cyclic and any(b.value > lb * (1 + 1e-9) for b, lb in zip(best, bounds)):
        budget = min(cyclic_share * time_limit, max(0.0, time_limit - clock()))
        if budget > 0.05:
            _tell("portfolio: cyclic seeds", [b.value for b in best], bounds)
            for slot, extra in zip(seeds, cyclic_seeds(nodes, objective, budget,
                                                        num_workers=num_workers,
                                                        seed=seed)):
                slot.extend(extra)
            best = [best_seed(s) for s in seeds]
    if options.anneal and objective == "max-stretch":
        _tell("portfolio: annealing", [b.value for b in best], bounds)
        _anneal_seeds(nodes, seeds, bounds, objective,
                      min(options.anneal_share * time_limit,
                          max(0.0, time_limit - clock())), seed)
        # the annealed order is the incumbent when it is the best seed (it
        # used to reach the search only as a CP-SAT warm start)
        best = [best_seed(s) for s in seeds]
    info["seeds"] = [{s.name: s.value for s in slot} for slot in seeds]
    info["seed_best"] = [b.name for b in best]
    orders = [list(b.order) for b in best]
    values = [b.value for b in best]
    phases: list[dict[str, Any]] = [{} for _ in nodes]
    open_nodes = [k for k in range(len(nodes))
                  if values[k] > bounds[k] * (1 + 1e-9) + 1e-12]
    for rank, k in enumerate(open_nodes):
        node = nodes[k]
        left = time_limit - clock()
        share = left / (len(open_nodes) - rank)
        if share <= 0.05:
            break
        grid = node_grid(node)
        end = clock() + share
        where = f" (node {rank + 1}/{len(open_nodes)})" if len(open_nodes) > 1 else \
            ""
        small = node.num_ops <= 5000
        log = QuestionLog()  # the node's questions across the rounds

        def questions(budget: float, k: int = k, grid=grid, log=log,
                      below_share: float = 0.75, where: str = where) -> None:
            _tell(f"portfolio: deadline questions{where}", values, bounds)
            state = deadline_search(grid, objective, orders[k], bounds[k], budget,
                                    num_workers=num_workers, seed=seed,
                                    below_share=below_share, log=log)
            bounds[k] = max(bounds[k], state.lower)
            if state.upper < values[k]:
                orders[k], values[k] = state.order, state.upper
            phases[k]["questions"] = phases[k].get("questions", 0) + \
                len(state.answers)
            phases[k].setdefault("answers", []).extend(state.answers[-8:])
            _tell(None, values, bounds)

        def closed(k: int = k) -> bool:
            return values[k] <= bounds[k] * (1 + 1e-9) + 1e-12

        # first-round budgets: at most 15 % / 10 % of the node's share, so
        # that a short time limit still gets a CP-SAT probe before the long
        # questions
        cp0 = min(cpsat_round, 0.15 * share)
        q0 = min(quick_seconds, 0.1 * share)
        final = min(_FINAL_QUESTION, 0.05 * share)
        if small:  # a quick look: is the best seed optimal?
            questions(q0)
        if objective == "max-stretch" and len(nodes) == 1 \
                and node.num_ops <= cpsat_max_ops and options.cpsat_leg > 0 \
                and not closed():
            leg = _cpsat_leg(instance, nodes, seeds, orders[k], bounds[k],
                             min(options.cpsat_leg * share, end - clock()), seed,
                             num_workers)
            phases[k]["cpsat_leg"] = leg
            bounds[k] = max(bounds[k], leg["bound"])
            if leg["order"] is not None and leg["value"] < values[k]:
                orders[k], values[k] = list(leg["order"]), leg["value"]
            _tell(None, values, bounds)
        if len(nodes) == 1 and node.num_ops <= cpsat_max_ops:
            # rounds of CP-SAT then questions, with budgets doubling from
            # cp0 / q0: restarts cut the heavy tail of the solve times, and
            # each round starts from the best order and bound found so far.
            # The last round (the time left is under three rounds) shares
            # the time: questions first, then CP-SAT. When the previous
            # CP-SAT run did not improve the incumbent the open side is
            # most likely the bound: the questions get at least
            # ``_QUESTIONS_WHEN_STUCK`` of it (instead of 1 - cpsat_share),
            # and "strictly below the incumbent?" most of theirs.
            r = 0
            improved = True
            while not closed() and end - clock() > 0.05:
                left = end - clock()
                last = left <= 3 * (cp0 + q0) * 2 ** r
                if last:
                    if improved:
                        questions((1 - cpsat_share) * left)
                    else:
                        questions(max(1 - cpsat_share, _QUESTIONS_WHEN_STUCK) * left,
                                  below_share=_BELOW_WHEN_STUCK)
                    if closed() or end - clock() <= 0.05:
                        break
                # the last CP-SAT run leaves a final slice for "strictly
                # below the incumbent?" in case it improves the incumbent
                budget = end - clock() - final if last else cp0 * 2 ** r
                _tell(f"portfolio: cpsat round {r + 1}{where}", values, bounds)
                order, lower, cp_info = _cpsat_phase(
                    instance, nodes, objective, seeds, orders[k], bounds[k],
                    budget, seed + r, num_workers)
                phases[k].setdefault("cpsat", []).append(cp_info)
                bounds[k] = max(bounds[k], lower)
                improved = False
                if order is not None:
                    value = order_value(node, order, objective)
                    if value < values[k]:
                        orders[k], values[k] = order, value
                        improved = True
                _tell(None, values, bounds)
                if last and not closed() and end - clock() > 0.05:
                    # the slice, or what CP-SAT left unused: "strictly below
                    # the new incumbent?", else more questions
                    questions(end - clock(),
                              below_share=1.0 if improved else _BELOW_WHEN_STUCK)
                if last or closed() or end - clock() <= 0.05:
                    break
                r += 1
                left = end - clock()
                if left > 3 * (cp0 + q0) * 2 ** r:  # else the last round next
                    questions(min(left, q0 * 2 ** (r - 1)))
        else:
            if lns and not closed() and end - clock() > 0.05:
                lns_budget = (end - clock()) * (0.85 if small else 1.0)
                _tell(f"portfolio: lns{where}", values, bounds)

                def improved(_order: list[int], value: float, k: int = k) -> None:
                    shown = list(values)  # values[k] changes after the LNS
                    shown[k] = min(shown[k], value)
                    _tell(None, shown, bounds)

                order, value, stats = improve_order(
                    grid, objective, orders[k], lns_budget, seed=seed,
                    lower=bounds[k], num_workers=num_workers,
                    on_improve=improved)
                phases[k].update(lns_windows=stats.windows,
                                 lns_improvements=stats.improvements)
                if value < values[k]:
                    orders[k], values[k] = order, value
            if not closed() and small and end - clock() > 0.05:
                questions(end - clock())
    info["phases"] = phases
    info["node_bounds"] = bounds
    schedule = orders_to_schedule(instance, nodes, orders, "portfolio/io-sched")
    bound = max(bounds) if bounds else 0.0
    if objective == "max-stretch":
        bound = max(1.0, bound)
    info["portfolio_bound"] = bound
    closed = all(v <= b * (1 + 1e-9) + 1e-12 for v, b in zip(values, bounds))
    return Outcome(SolveStatus.OPTIMAL if closed else SolveStatus.FEASIBLE,
                   schedule, bound, info)
