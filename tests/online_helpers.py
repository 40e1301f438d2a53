"""Test helpers of the online schedulers: random online workloads, machine
and bandwidth checks."""

from __future__ import annotations

from hypothesis import strategies as st

from opt_sched import Instance, Job, Partition, Platform
from opt_sched.schedule import Schedule


# -- random online workloads ---------------------------------------------------------
@st.composite
def online_workloads(draw, max_jobs: int = 12, io: bool = True,
                     partitions: int = 1, wide: bool = False,
                     unknown: bool = False) -> Instance:
    """Jobs with releases and wall times (some shorter than the real
    length; with ``unknown``, some jobs have none), on ``1..partitions``
    partitions of 2-8 machines (65-200 if ``wide``; jobs then pre-mapped),
    with or without I/O, sometimes with a dependency."""
    count = draw(st.integers(1, partitions))
    low, high = (65, 200) if wide else (2, 8)
    sizes = [draw(st.integers(low, high)) for _ in range(count)]
    band = draw(st.sampled_from([0.5, 1.0, 2.0]))
    n = draw(st.integers(1, max_jobs))
    jobs = []
    for i in range(n):
        k = draw(st.integers(0, count - 1))
        iters = draw(st.integers(1, 3))
        compute = tuple(draw(st.integers(0, 12)) / 2 for _ in range(iters))
        volume = tuple((draw(st.integers(0, 6)) / 2 if io else 0.0)
                       for _ in range(iters))
        length = sum(compute) + sum(volume) / band
        wall = max(0.5, length + draw(st.integers(-4, 6)) / 2)
        if unknown and draw(st.integers(0, 5)) == 0:
            wall = None
        deps = ()
        if i and draw(st.integers(0, 5)) == 0:
            deps = (f"j{draw(st.integers(0, i - 1))}",)
        jobs.append(Job(f"j{i}", draw(st.integers(1, sizes[k])), compute, volume,
                        release=draw(st.integers(0, 30)) / 2, walltime=wall,
                        after=deps, partition=k if count > 1 else None))
    platform = Platform(tuple(Partition(s, band) for s in sizes))
    return Instance("online", platform, tuple(jobs))


# -- what the schedulers promised ------------------------------------------------------
class ReservationLog:
    """Wraps a profile scheduler to record, after every pass,

    - ``first[j]``: the start of the first reservation job ``j`` ever held;
    - ``as_head[j]``: the start of the reservation ``j`` held when it became
      the head of its queue (EASY), kept only while it stays the head: a
      head displaced by the queue order (``sjf``: a shorter job arrived)
      loses it;
    - ``later``: reservations that moved later than a previous one of the
      same job while it stayed the head.
    """

    def __init__(self, scheduler) -> None:
        self.scheduler = scheduler
        self.first: dict[int, float] = {}
        self.as_head: dict[int, float] = {}
        self.later: list[tuple[int, float, float]] = []
        self._heads: set[int] = set()
        inner_decide = scheduler.decide
        inner_sort = scheduler.order.sort

        def displaced(order) -> None:
            for old in self._heads & set(order):
                if order[0] != old:  # displaced before anything started
                    self.as_head.pop(old, None)

        def sort(queue, now):
            order = inner_sort(queue, now)
            displaced(list(order))
            return order

        inner_sorted = getattr(scheduler, "_sorted_queue", None)
        if inner_sorted is not None:  # keyed orders: the queue kept sorted

            def sorted_queue(k, released):
                order = inner_sorted(k, released)
                displaced(order.tolist())
                return order

            scheduler._sorted_queue = sorted_queue

        def decide(now):
            starts = inner_decide(now)
            self._heads = set()
            for k in range(len(scheduler._queues)):
                reserved = scheduler.reservations(k)
                for j, start in reserved.items():
                    self.first.setdefault(j, start)
                head = scheduler.head(k)
                if head is not None and head in reserved:
                    self._heads.add(head)
                    start = reserved[head]
                    if head not in self.as_head:
                        self.as_head[head] = start
                    elif start > self.as_head[head]:
                        self.later.append((head, self.as_head[head], start))
            return starts

        scheduler.decide = decide
        scheduler.order.sort = sort


def check_machines(instance: Instance, schedule: Schedule) -> None:
    """Every job holds ``Q_i`` distinct machines of its partition, and jobs
    that overlap in time on one partition hold disjoint machines (half-open
    ``[S_i, C_i)``)."""
    spans = []
    for job, js in zip(instance.jobs, schedule.jobs):
        size = instance.platform.partitions[js.partition].nodes
        assert len(js.machines) == job.nodes == len(set(js.machines)), job.id
        assert all(0 <= m < size for m in js.machines), job.id
        spans.append((js.start, schedule.completion(instance, job.id), js.partition,
                      set(js.machines), job.id))
    for a in range(len(spans)):
        for b in range(a + 1, len(spans)):
            s1, c1, k1, m1, i1 = spans[a]
            s2, c2, k2, m2, i2 = spans[b]
            if k1 == k2 and s1 < c2 and s2 < c1:
                assert not (m1 & m2), f"{i1} and {i2} share machines {m1 & m2}"


def running_bandwidth_peaks(instance: Instance, schedule: Schedule,
                            beta: list[float]) -> dict[int, float]:
    """Per partition, the largest sum of ``beta_i`` over the jobs running
    (``S_i <= t < C_i``) at some job start ``t``."""
    peaks: dict[int, float] = {}
    spans = [(js.start, schedule.completion(instance, js.id), js.partition, beta[i])
             for i, js in enumerate(schedule.jobs)]
    for t, _, k, _ in spans:
        total = sum(b for s, c, kk, b in spans if kk == k and s <= t < c)
        peaks[k] = max(peaks.get(k, 0.0), total)
    return peaks
