"""What each exact problem asks of an instance, whatever the backend.

The rules here belong to the *problem* (SPEC §5), so every backend gives the
same answer for the same input:

- :func:`check_instance` -- whether the instance poses the problem at all
  (an :class:`~opt_sched.errors.OptionError` naming the reason if not);
- :func:`infeasibility` -- why the problem has no solution on the instance
  (the one-pack IO-SCHED instance whose jobs do not fit their partition
  together), or ``None``; such an instance gets status ``infeasible`` from
  every backend without any solver call;
- :func:`combinatorial_bound` -- the lower bound of :mod:`opt_sched.bounds`
  that holds for every schedule of the problem.

Problems: ``io-sched`` (mapped jobs, one pack per partition: order the I/O),
``hpc-io`` (map and schedule, rules 1-5), ``packs`` (rules 1-6),
``planning`` (the average-bandwidth model, whose plan is executed under
rules 1-5 with the named resources) and ``hpc-io-reserved`` (HPC-IO with
releases on one partition that is partly reserved when the schedule starts:
a window of an online schedule, ``models/window-gap.md``).

A problem on a partly reserved platform is posed by the instance *and* a
:class:`ReservedPlatform` (the options record's ``reserved`` field, which
the front door passes here and to certification): its reservations enter
the combinatorial bound, and its ``validate`` is the one validation of a
schedule together with what the platform already runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ..errors import OptionError
from ..operations import one_pack_partitions, overfull_partition

if TYPE_CHECKING:
    from ..bounds import Expired
    from ..instance import Instance
    from ..reservations import Reservations
    from ..schedule import Schedule

__all__ = ["RESERVED_PROBLEMS", "ReservedPlatform", "check_instance",
           "combinatorial_bound", "infeasibility"]

RESERVED_PROBLEMS = ("hpc-io-reserved",)
"""The problems posed on a partly reserved platform: they need a
:class:`ReservedPlatform`, and no other problem takes one."""


class ReservedPlatform(Protocol):
    """A partition partly taken when the schedule starts (time 0).

    ``instance`` is the instance the schedule is of; ``reservations`` the
    nodes held from 0 and the I/O-node busy intervals
    (:class:`~opt_sched.reservations.Reservations`); ``validate(schedule)``
    raises :class:`~opt_sched.errors.InfeasibleScheduleError` unless the
    schedule meets rules 1-5 *together with* what holds the reservations.
    :class:`opt_sched.experiments.window_instance.Window` is one: its
    ``validate`` adds the running jobs as jobs and calls the validator.
    """

    @property
    def instance(self) -> Instance: ...

    @property
    def reservations(self) -> Reservations: ...

    def validate(self, schedule: Schedule | None = None) -> None: ...


def check_instance(instance: Instance, problem: str,
                   reserved: ReservedPlatform | None = None) -> None:
    """Raise :class:`OptionError` if ``instance`` does not pose ``problem``.

    IO-SCHED needs every job mapped (its effective partition,
    :meth:`Instance.effective_partition`) and no dependency.
    ``hpc-io-reserved`` needs ``reserved`` (of this very instance), one
    partition, no dependency, and holds that fit the partition; no other
    problem takes ``reserved``. The other problems take any instance.
    """
    if problem in RESERVED_PROBLEMS:
        _check_reserved(instance, problem, reserved)
    elif reserved is not None:
        raise OptionError(f"reserved: problem={problem!r} takes no reservations "
                          f"(only {', '.join(RESERVED_PROBLEMS)})")
    if problem == "io-sched":
        one_pack_partitions(instance, "problem='io-sched'")


def _check_reserved(instance: Instance, problem: str,
                    reserved: ReservedPlatform | None) -> None:
    where = f"problem={problem!r}"
    if reserved is None:
        raise OptionError(f"reserved=None: {where} needs the reserved platform "
                          "(a window of an online schedule); no command poses it")
    if reserved.instance is not instance and reserved.instance != instance:
        raise OptionError(f"reserved: its instance {reserved.instance.name!r} is not "
                          f"the instance solved ({instance.name!r})")
    if instance.platform.num_partitions != 1:
        raise OptionError(f"{where}: {instance.platform.num_partitions} partitions, "
                          "one only")
    if instance.has_dependencies:
        raise OptionError(f"{where}: dependencies are not supported")
    reserved.reservations.check_fits(instance.platform.partitions[0].nodes)


def infeasibility(instance: Instance, problem: str) -> str | None:
    """Why ``problem`` has no solution on ``instance``, or ``None``.

    IO-SCHED: all jobs of partition ``k`` run together from ``t_k``, so
    rule 4 needs ``sum_{i on k} Q_i <= P_k``. The other problems always have
    a solution (every job fits some partition, :class:`Instance` checks it,
    and jobs may run one after the other).
    """
    if problem != "io-sched":
        return None
    full = overfull_partition(instance, one_pack_partitions(instance))
    if full is None:
        return None
    k, used, nodes = full
    return f"partition {k}: one pack needs {used} nodes, has {nodes}"


def combinatorial_bound(instance: Instance, problem: str, objective: str,
                        expired: Expired | None = None, *,
                        reserved: ReservedPlatform | None = None) -> float:
    """The best bound of :mod:`opt_sched.bounds` valid for ``problem``.

    IO-SCHED fixes the start of every job at its pack start, so its bounds
    use ``fixed_start=True`` (they are larger); HPC-IO, packs and planning
    (executed under rules 1-5) use the free-start bounds.
    ``hpc-io-reserved``: the largest of the bounds that see the
    reservations (:func:`opt_sched.bound_models.flow_bounds_under`, every
    objective) and, for the makespan, the free-start makespan bounds
    (:func:`opt_sched.bound_models.makespan_bounds_under`: reservations only
    add constraints), all under ``exclusive``, the model of the exact
    layer's schedules. (:mod:`..bounds` is imported here: it loads numba,
    and the command line imports the exact layer's registry while building
    its parser.)
    """
    if problem in RESERVED_PROBLEMS:
        from ..bound_models import flow_bounds_under, makespan_bounds_under

        assert reserved is not None  # check_instance
        found = dict(flow_bounds_under(instance, objective, "exclusive",
                                       reservations=reserved.reservations,
                                       expired=expired))
        if objective == "makespan":
            found.update(makespan_bounds_under(instance, "exclusive",
                                               expired=expired))
        return max(found.values())
    from ..bounds import lower_bound

    return lower_bound(instance, objective, fixed_start=problem == "io-sched",
                       expired=expired)
