"""A window of an online schedule as an exact problem (SPEC §9, last line).

``extract_window(instance, schedule, start, count)`` takes the ``count``
consecutive jobs ``W`` of the replayed instance from index ``start`` (trace
order) and builds what every clairvoyant schedule of them must respect.
Times are shifted so that the window's first release ``t0 = min_{i in W}
r_i`` is 0.

- **The window instance**: the jobs of ``W`` with their real phases
  (compute and I/O volumes as replayed) and their releases ``r_i - t0``, on
  the same partition (one partition: a trace's machine).
- **The running jobs** ``B = {j not in W : S_j < t0 < C_j}`` (started before
  ``t0``, not finished at ``t0``; ``S_j``, ``C_j`` from the replayed
  schedule) keep what they really used after ``t0``: their ``Q_j`` nodes on
  ``[0, C_j - t0)`` and the I/O node during the parts after ``t0`` of their
  real I/O phases. These are :class:`~opt_sched.reservations.Reservations`.
- Every other job is left out: the jobs queued at ``t0`` that are not in
  ``W`` (submitted earlier, started at or after ``t0``) and the later
  arrivals. Leaving jobs out only removes constraints.

So a lower bound of the window instance with these reservations holds for
every schedule of the whole trace that gives the running jobs their real
nodes and I/O times after ``t0`` -- its restriction to ``W`` is a schedule of
the window instance that respects the reservations. It does not see that
the left-out jobs compete with ``W`` in any real schedule (the bound is
optimistic about them), nor any schedule that would have run ``B``
differently.

The online schedule restricted to ``W`` and shifted is a schedule of the
window instance; :meth:`Window.with_running` adds ``B`` as jobs (released at
0, their remaining occupancy as compute and I/O phases that run without
waiting) so that the validator checks the window schedule together with the
reservations.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import OptionError
from ..instance import Instance, Job
from ..reservations import Reservations
from ..schedule import JobSchedule, Schedule

__all__ = ["Window", "extract_window"]


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
    """

    instance: Instance
    schedule: Schedule
    reservations: Reservations
    running: tuple[tuple[Job, JobSchedule], ...]
    start: int
    count: int
    t0: float
    info: dict[str, object] = field(default_factory=dict)

    def with_running(self) -> tuple[Instance, Schedule]:
        """The window instance and schedule with the running jobs added as
        jobs (for the validator: the reservations are then checked by rules
        4 and 5 like any job)."""
        jobs = tuple(job for job, _ in self.running) + self.instance.jobs
        schedules = tuple(js for _, js in self.running) + self.schedule.jobs
        instance = Instance(self.instance.name + "+running", self.instance.platform,
                            jobs)
        return instance, Schedule(schedules, method=self.schedule.method,
                                  execution=self.schedule.execution)


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


def extract_window(instance: Instance, schedule: Schedule, start: int, count: int
                   ) -> Window:
    """The window of ``count`` jobs from index ``start`` (module doc).

    Raises
    ------
    OptionError
        The window does not fit the instance, the platform has several
        partitions, a job of the window or a running job has dependencies or
        was killed, or the schedule was not made under the exclusive I/O
        model (the bound's model, SPEC §3 rule 5).
    """
    n = instance.num_jobs
    for name, value, low in (("start", start, 0), ("count", count, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise OptionError(f"window: {name}={value!r} must be an integer >= {low}")
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
    members = instance.jobs[start:start + count]
    chosen = {job.id for job in members}
    t0 = min(job.release for job in members)
    completions = schedule.completions(instance)
    running = []
    holds = []
    busy: list[tuple[float, float]] = []
    queued = []  # left out: submitted before t0, started at or after t0
    for job in instance.jobs:
        js = schedule[job.id]
        if job.id in chosen:
            _check_plain(job, js, "of the window")
            continue
        end = completions[job.id]
        if job.release < t0 <= js.start:
            queued.append(job)
        if js.start < t0 < end:
            _check_plain(job, js, "running at the window start")
            as_job, as_schedule, job_busy = _running_job(job, js, t0, end, bandwidth)
            running.append((as_job, as_schedule))
            holds.append((end - t0, job.nodes))
            busy.extend(job_busy)
    jobs = tuple(Job(job.id, job.nodes, job.compute, job.io_volume,
                     release=job.release - t0) for job in members)
    name = f"{instance.name}[{start}:{start + count}]"
    window_instance = Instance(name, instance.platform, jobs)
    window_schedule = Schedule(tuple(_shifted(schedule[job.id], t0) for job in members),
                               method=schedule.method, execution="exclusive")
    reservations = Reservations.build(holds, busy)
    info = {"first_job": members[0].id, "last_job": members[-1].id,
            "running_jobs": len(running), "held_nodes": reservations.held_nodes,
            "reserved_io_time": sum(e - o for o, e in reservations.io_busy),
            "queued_left_out": len(queued),
            "queued_left_out_nodes": sum(job.nodes for job in queued),
            "io_phases": sum(1 for job in members for v in job.io_volume if v > 0)}
    return Window(window_instance, window_schedule, reservations, tuple(running),
                  start, count, t0, info)


def _check_plain(job: Job, js: JobSchedule, where: str) -> None:
    if job.after:
        raise OptionError(f"window: job {job.id!r} {where} has dependencies; "
                          "windows of workflows are not supported")
    if js.killed_at is not None:
        raise OptionError(f"window: job {job.id!r} {where} was killed at its wall "
                          "time; the window bound needs complete jobs (replay "
                          "without --kill-at-walltime)")
