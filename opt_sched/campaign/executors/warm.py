"""Preloaded by the local executor's fork server: importing this module
imports the simulator, metrics, validator, bounds and heuristics and runs
one tiny simulation, so that the compiled kernel is loaded (from numba's
disk cache) once, in the fork server, and every worker forked from it
starts warm instead of paying ~1-2 s each. Any failure here is ignored:
the workers then warm up on their first task."""

from __future__ import annotations


def _warm() -> None:
    try:
        from ...bounds import lower_bound  # noqa: F401
        from ...heuristics import pack_plan  # noqa: F401
        from ...instance import Instance, Job, Platform
        from ...metrics import summary
        from ...simulation import OnePackPlan, simulate
        from ...validation import assert_feasible
        from .. import execute  # noqa: F401  (imports the method code paths)

        jobs = (Job.periodic("a", 1, 1.0, 1.0, 2, partition=0),
                Job.periodic("b", 1, 2.0, 1.0, 2, partition=0))
        instance = Instance("warm", Platform.homogeneous(1, nodes=2, bandwidth=1.0),
                            jobs)
        for policy in ("fifo", "stretch", "longest-remaining"):
            schedule = simulate(instance, OnePackPlan(), policy)
            assert_feasible(instance, schedule)
            summary(instance, schedule)
    except Exception:  # a cold worker is slower, not wrong
        pass


_warm()
