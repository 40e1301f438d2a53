r"""The independent validator: is a timed schedule feasible? (SPEC §3, §9, §10)

Every method (simulator, heuristics, exact models, online schedulers) is
judged here, so this package shares no code with :mod:`opt_sched.simulation`:
it never replays events, it only checks the intervals a schedule states, with
sorting and sweep-line passes over half-open intervals ``[start, end)`` of
flat numpy arrays (:mod:`~opt_sched.validation.table`).

Notation. Job ``i`` runs on partition ``k(i)`` of ``P_k`` nodes and I/O
bandwidth ``b_k``. Compute phase ``j`` occupies ``[c_ij, c_ij + w_ij)``; I/O
phase ``j`` occupies ``[o_ij, e_ij)`` with ``e_ij`` given by the execution
model (``o_ij + v_ij / b_k(i)`` under exclusive I/O). The job holds its nodes
on ``[S_i, C_i)``: ``S_i`` the earliest start of its phases, ``C_i`` the latest
end, or its kill time ``K_i`` if it was killed at its wall time.

Tolerance (:mod:`~opt_sched.validation.tolerance`): what floating point can
lose at the times compared, never more. A comparison that involves the end of
a phase of length ``L`` near time ``t`` absorbs
``tau = min(8 ulps of t + rel_tol * L, L / 2)``; one of two times that are not
phase ends absorbs 8 ulps. It does not grow with the clock (at ``t = 1e9`` s,
``tau`` is about ``1e-6`` s), never hides a phase (``tau <= L / 2``), and no
other time of the schedule can widen it.

Rules, one module each:

0. job-coverage (:mod:`.coverage`): every job of the instance is listed
   exactly once; a missing, unknown or repeated job is named.
1. release-and-dependencies (:mod:`.release`): :math:`S_i \ge r_i`,
   :math:`S_i \ge C_p` for every predecessor ``p`` (up to ``tau``).
2. phase-lengths (:mod:`.lengths`): stated ends equal true ends within
   ``tau``; every phase time lies in the range where floating-point times
   can show its length (a start at ``1e308`` is reported here).
3. phase-order (:mod:`.order`): compute ``j``, I/O ``j``, compute ``j+1``,
   never overlapping (gaps allowed).
4. node-capacity (:mod:`.capacity`, :mod:`.machines`): per partition and
   time, :math:`\sum Q_i \le P_k`; named resources; a pre-mapped job runs on
   its partition; stated machines are ``Q_i`` distinct numbers of
   ``0..P_k-1``, never held by two running jobs (all or none per partition).
5. the execution model's I/O rule (:mod:`.execution`): ``exclusive-io`` for
   ``Schedule.execution == "exclusive"``, the default (one phase at a time
   per I/O node, non-preemptive).
6. pack-discipline (:mod:`.packs`, when ``schedule.packs`` is set or
   ``check_packs=True``).
7. walltime-kill (:mod:`.kills`): a job marked killed is killed at
   ``S_i + e_i``, started every phase it lists by then, and was still running;
   in a schedule that kills at the wall time, no job runs past it unmarked.

The validator never stops at the first violation: every violation is
counted, and up to ``max_per_rule`` of each rule are stored with a message
``"rule <n> <name>: ..."`` naming the jobs or phases (``"a:io[3]"``) and the
time. A malformed schedule (wrong types, wrong number of phases for a job
that was not killed, a partition that does not exist, a time that is not a
finite number, an unknown execution model) is bad input and raises
:class:`~opt_sched.errors.ScheduleFormatError` instead.

Examples
--------
>>> from opt_sched import Instance, Job, JobSchedule, Platform, Schedule
>>> inst = Instance("two", Platform.homogeneous(1, nodes=4),
...                 (Job.periodic("a", 2, 2.0, 3.0), Job.periodic("b", 2, 1.0, 2.0)))
>>> sched = Schedule((JobSchedule("a", 0, (0.0,), (2.0,)),
...                   JobSchedule("b", 0, (0.0,), (1.0,))))
>>> report = validate(inst, sched)
>>> report.feasible
False
>>> print(report.violations[0].message)
rule 5 exclusive-io: b:io[0] [1, 3) overlaps a:io[0] [2, 5) on partition 0 at t=2
>>> print(validate(inst, Schedule(sched.jobs[:1])).violations[0].message)
rule 0 job-coverage: job b is missing from the schedule
"""

from __future__ import annotations

from ..lazy import lazy_exports
from .io_rule import IoPhases, IoRule
from .io_rules import IO_RULES, io_rule

# The validator and its rules on first use (PEP 562): the metrics of a
# replay read the phase table (.table) and the I/O rule only.
__getattr__, __dir__ = lazy_exports(__name__, globals(), {
    **dict.fromkeys(("MAX_PER_RULE", "RULES", "ValidationReport", "Violation"),
                    ".report"),
    **dict.fromkeys(("assert_feasible", "validate"), ".validator"),
})

__all__ = [
    "IO_RULES",
    "MAX_PER_RULE",
    "RULES",
    "IoPhases",
    "IoRule",
    "ValidationReport",
    "Violation",
    "assert_feasible",
    "io_rule",
    "validate",
]
