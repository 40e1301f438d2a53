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
``hpc-io`` (map and schedule, rules 1-5), ``packs`` (rules 1-6) and
``planning`` (the average-bandwidth model, whose plan is executed under
rules 1-5 with the named resources).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..operations import one_pack_partitions, overfull_partition

if TYPE_CHECKING:
    from ..bounds import Expired
    from ..instance import Instance

__all__ = ["check_instance", "combinatorial_bound", "infeasibility"]


def check_instance(instance: Instance, problem: str) -> None:
    """Raise :class:`OptionError` if ``instance`` does not pose ``problem``.

    IO-SCHED needs every job mapped (its effective partition,
    :meth:`Instance.effective_partition`) and no dependency; the other
    problems take any instance.
    """
    if problem == "io-sched":
        one_pack_partitions(instance, "problem='io-sched'")


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
                        expired: Expired | None = None) -> float:
    """The best bound of :mod:`opt_sched.bounds` valid for ``problem``.

    IO-SCHED fixes the start of every job at its pack start, so its bounds
    use ``fixed_start=True`` (they are larger); HPC-IO, packs and planning
    (executed under rules 1-5) use the free-start bounds. (:mod:`..bounds`
    is imported here: it loads numba, and the command line imports the
    exact layer's registry while building its parser.)
    """
    from ..bounds import lower_bound

    return lower_bound(instance, objective, fixed_start=problem == "io-sched",
                       expired=expired)
