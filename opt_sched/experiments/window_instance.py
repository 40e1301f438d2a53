"""A window of an online schedule as an exact problem (SPEC §9, last line).

``extract_window(instance, schedule, start, count, mode=...)`` builds what
every clairvoyant schedule of a set ``W`` of jobs of the replayed instance
must respect, times shifted so that the window start ``t0`` is 0. Two
definitions of ``W`` (``models/window-gap.md``):

- ``mode="state"`` (default): **the window is the system's state at**
  ``t0 = r_start`` (the release of job ``start``, trace order). ``W`` is
  every job *queued* at ``t0`` -- a job before ``start`` in trace order
  (by release, then index: a trace's order; so released at or before
  ``t0``) that the replay did not start before ``t0`` -- plus the next
  arrivals ``start``, then the following jobs in trace order, until ``W``
  holds ``count`` jobs (all the queued jobs are kept even if there are more
  than ``count`` of them). Releases become ``max(r_i - t0, 0)``: the flow of
  a queued job is counted from ``t0``, the part of its wait a schedule of
  the window can still change;
- ``mode="consecutive"`` (the first definition): ``W`` is the ``count``
  consecutive jobs from index ``start``, ``t0 = min_{i in W} r_i``; the jobs
  queued at ``t0`` are left out (``queued_left_out``).

In both:

- **The window instance**: the jobs of ``W`` with their real phases
  (compute and I/O volumes as replayed) and their shifted releases, on the
  same partition (one partition: a trace's machine).
- **The running jobs** ``B = {j not in W : S_j < t0 < C_j}`` (started before
  ``t0``, not finished at ``t0``; ``S_j``, ``C_j`` from the replayed
  schedule) keep what they really used after ``t0``: their ``Q_j`` nodes on
  ``[0, C_j - t0)`` and the I/O node during the parts after ``t0`` of their
  real I/O phases. These are :class:`~opt_sched.reservations.Reservations`.
- Every other job is left out (later arrivals; in ``consecutive`` mode also
  the queued jobs). Leaving jobs out only removes constraints.

So a lower bound of the window instance with these reservations holds for
every schedule of the whole trace that gives the running jobs their real
nodes and I/O times after ``t0`` -- its restriction to ``W`` is a schedule of
the window instance that respects the reservations. It does not see the
jobs left out, nor any schedule that would have run ``B`` differently.

The online schedule restricted to ``W`` and shifted is a schedule of the
window instance; :meth:`Window.with_running` adds ``B`` as jobs (released at
0, their remaining occupancy as compute and I/O phases that run without
waiting) so that the validator checks the window schedule together with the
reservations.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

from ..errors import OptionError
from ..instance import Instance, Job
from ..reservations import Reservations
from ..schedule import JobSchedule, Schedule

__all__ = ["WINDOW_MODES", "Window", "extract_window"]


@dataclass(frozen=True)
class Window:
    """A window of an online schedule (module doc).

    Attributes
    ----------
    instance
        The window's jobs, releases shifted by ``-t0``.
    schedule
        The online schedule of those jobs, shifted (machines kept).
    reservations
        What the running jobs hold after ``t0`` (times from ``t0``).
    running
        The running jobs as ``(job, schedule)`` pairs, shifted, each a job
        released at 0 whose phases without waiting are its real remaining
        occupancy (:meth:`with_running`).
    start, count, t0
        Where the window is in the replayed instance.
    resolution
        What shifting the online times by ``-t0`` may lose: ``8`` spacings of
        floats at the latest time of the window in the replay (the
        validator's ``ulps`` at the original magnitude; 0 when ``t0`` is 0).
        The shift itself is exact (Sterbenz), but the replay rounded each
        phase end at the original magnitude, coarser than the validator's
        tolerance at the shifted one: a window job's I/O that ended exactly
        when a running job's began may overlap it by that much once
        shifted. The reservations are shrunk by it (a relaxation: the
        bounds stay valid, and they do not jump over such noise), and
        :meth:`validate` allows it.
    """

    instance: Instance
    schedule: Schedule
    reservations: Reservations
    running: tuple[tuple[Job, JobSchedule], ...]
    start: int
    count: int
    t0: float
    info: dict[str, object] = field(default_factory=dict)
    resolution: float = 0.0

    def validate(self, schedule: Schedule | None = None) -> None:
        """Check a schedule of the window (default: the online one) with the
        running jobs (:meth:`with_running`), at :attr:`resolution`.

        Raises
        ------
        InfeasibleScheduleError
            It breaks a rule.
        """
        from ..validation import assert_feasible

        assert_feasible(*self.with_running(schedule), resolution=self.resolution)

    def with_running(self, schedule: Schedule | None = None
                     ) -> tuple[Instance, Schedule]:
        """The window instance and a schedule of it (default: the online one)
        with the running jobs added as jobs (for the validator: the
        reservations are then checked by rules 4 and 5 like any job). If
        ``schedule`` states no machines, the running jobs' machines are
        dropped too (the validator wants all or none; rule 4 then counts
        nodes)."""
        if schedule is None:
            schedule = self.schedule
        jobs = tuple(job for job, _ in self.running) + self.instance.jobs
        running = tuple(js for _, js in self.running)
        if any(js.machines is None for js in schedule.jobs):
            running = tuple(dataclasses.replace(js, machines=None) for js in running)
        instance = Instance(self.instance.name + "+running", self.instance.platform,
                            jobs)
        return instance, Schedule(running + schedule.jobs, method=schedule.method,
                                  execution=schedule.execution)


def _io_intervals(job: Job, js: JobSchedule, bandwidth: float
                  ) -> list[tuple[float, float]]:
    """``[o, e)`` of every nonzero I/O phase (stated ends if given)."""
    out = []
    for j, v in enumerate(job.io_volume):
        if v > 0 and j < len(js.io_starts):
            begin = js.io_starts[j]
            end = js.io_ends[j] if js.io_ends is not None else begin + v / bandwidth
            out.append((begin, end))
    return out


def _running_job(job: Job, js: JobSchedule, t0: float, end: float, bandwidth: float
                 ) -> tuple[Job, JobSchedule, list[tuple[float, float]]]:
    """A running job's occupancy after ``t0``, as a job released at 0 that runs
    without waiting: compute up to each remaining I/O interval, that interval
    as I/O (volume ``(e - o) b``), compute up to its end. Also its busy
    intervals (shifted)."""
    busy = [(max(o, t0) - t0, e - t0) for o, e in _io_intervals(job, js, bandwidth)
            if e > t0]
    compute, volume, compute_starts, io_starts = [], [], [], []
    now = 0.0
    for o, e in busy:
        compute_starts.append(now)
        compute.append(max(0.0, o - now))
        io_starts.append(o)
        volume.append((e - o) * bandwidth)
        now = e
    compute_starts.append(now)
    compute.append(max(0.0, end - t0 - now))
    io_starts.append(now + compute[-1])
    volume.append(0.0)
    as_job = Job(job.id, job.nodes, tuple(compute), tuple(volume), release=0.0)
    as_schedule = JobSchedule(job.id, js.partition, tuple(compute_starts),
                              tuple(io_starts), machines=js.machines)
    return as_job, as_schedule, busy


def _shifted(js: JobSchedule, t0: float) -> JobSchedule:
    return JobSchedule(
        js.id, js.partition, tuple(t - t0 for t in js.compute_starts),
        tuple(t - t0 for t in js.io_starts),
        None if js.compute_ends is None else tuple(t - t0 for t in js.compute_ends),
        None if js.io_ends is None else tuple(t - t0 for t in js.io_ends),
        js.machines)


WINDOW_MODES = ("state", "consecutive")
"""The window definitions (module doc): ``state`` is the default."""


def _members(instance: Instance, schedule: Schedule, start: int, count: int,
             mode: str) -> tuple[list[Job], float, list[Job]]:
    """The window's jobs ``W`` (queued first, then arrivals, trace order),
    ``t0`` and the jobs queued at ``t0`` (module doc)."""
    jobs = instance.jobs
    if mode == "consecutive":
        members = list(jobs[start:start + count])
        t0 = min(job.release for job in members)
        queued = [job for job in jobs if job.id not in {m.id for m in members}
                  and job.release < t0 <= schedule[job.id].start]
        return members, t0, queued
    t0 = jobs[start].release
    # trace order: by release, then index (the instance order of a trace)
    ranked = sorted(range(len(jobs)), key=lambda i: (jobs[i].release, i))
    here = ranked.index(start)
    queued = [jobs[i] for i in ranked[:here] if schedule[jobs[i].id].start >= t0]
    arrivals = [jobs[i] for i in ranked[here:here + max(0, count - len(queued))]]
    return queued + arrivals, t0, queued


def extract_window(instance: Instance, schedule: Schedule, start: int, count: int,
                   *, mode: str = "state") -> Window:
    """The window of ``count`` jobs from index ``start`` (module doc).

    Raises
    ------
    OptionError
        The window does not fit the instance, an unknown ``mode``, the
        platform has several partitions, a job of the window or a running job
        has dependencies or was killed, or the schedule was not made under
        the exclusive I/O model (the bound's model, SPEC §3 rule 5).
    """
    n = instance.num_jobs
    for name, value, low in (("start", start, 0), ("count", count, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise OptionError(f"window: {name}={value!r} must be an integer >= {low}")
    if mode not in WINDOW_MODES:
        raise OptionError(f"window: mode={mode!r} must be one of "
                          f"{', '.join(WINDOW_MODES)}")
    if start + count > n:
        raise OptionError(f"window: start={start} count={count} ends past the "
                          f"{n} jobs of {instance.name!r}")
    if instance.platform.num_partitions != 1:
        raise OptionError(f"window: the platform has "
                          f"{instance.platform.num_partitions} partitions; windows "
                          "are for one-partition (trace) platforms")
    if schedule.execution != "exclusive":
        raise OptionError(f"window: the schedule's execution model is "
                          f"{schedule.execution!r}; the window bound is for "
                          "'exclusive' I/O (SPEC §3 rule 5)")
    bandwidth = instance.platform.partitions[0].bandwidth
    members, t0, queued = _members(instance, schedule, start, count, mode)
    chosen = {job.id for job in members}
    completions = schedule.completions(instance)
    running = []
    holds = []
    busy: list[tuple[float, float]] = []
    for job in instance.jobs:
        js = schedule[job.id]
        if job.id in chosen:
            _check_plain(job, js, "of the window")
            continue
        end = completions[job.id]
        if js.start < t0 < end:
            _check_plain(job, js, "running at the window start")
            as_job, as_schedule, job_busy = _running_job(job, js, t0, end, bandwidth)
            running.append((as_job, as_schedule))
            holds.append((end - t0, job.nodes))
            busy.extend(job_busy)
    jobs = tuple(Job(job.id, job.nodes, job.compute, job.io_volume,
                     release=max(0.0, job.release - t0)) for job in members)
    name = f"{instance.name}[{start}:{start + count}]"
    window_instance = Instance(name, instance.platform, jobs)
    window_schedule = Schedule(tuple(_shifted(schedule[job.id], t0) for job in members),
                               method=schedule.method, execution="exclusive")
    resolution = 0.0
    if t0 != 0:
        latest = max([completions[job.id] for job in members]
                     + [t0 + end for end, _ in holds])
        resolution = 8.0 * math.ulp(abs(latest))
    reservations = Reservations.build(
        [(max(0.0, end - resolution), q) for end, q in holds],
        [(o + resolution, e - resolution) for o, e in busy
         if e - o > 2 * resolution])
    left_out = [] if mode == "state" else queued
    info = {"mode": mode, "jobs": len(members),
            "first_job": members[0].id, "last_job": members[-1].id,
            "queued_at_t0": len(queued),
            "queued_nodes": sum(job.nodes for job in queued),
            "running_jobs": len(running), "held_nodes": reservations.held_nodes,
            "reserved_io_time": sum(e - o for o, e in reservations.io_busy),
            "queued_left_out": len(left_out),
            "queued_left_out_nodes": sum(job.nodes for job in left_out),
            "io_phases": sum(1 for job in members for v in job.io_volume if v > 0)}
    return Window(window_instance, window_schedule, reservations, tuple(running),
                  start, count, t0, info, resolution)


def _check_plain(job: Job, js: JobSchedule, where: str) -> None:
    if job.after:
        raise OptionError(f"window: job {job.id!r} {where} has dependencies; "
                          "windows of workflows are not supported")
    if js.killed_at is not None:
        raise OptionError(f"window: job {job.id!r} {where} was killed at its wall "
                          "time; the window bound needs complete jobs (replay "
                          "without --kill-at-walltime)")
