"""Stand-ins around queue orders (not a test module): wrappers that hide an
order's fast paths, so that the replay engine must step it in Python, and
the smallest cluster view that ``attach`` (and the blocks toolkit) reads.

A wrapper shows only what it forwards: :class:`Unkeyed` has ``name``,
``attach`` and ``sort`` (no static key, no ``fused_priority``, no hooks);
:class:`Stepped` adds the three ``observe_*`` hooks.
"""

from __future__ import annotations


class Unkeyed:
    """A queue order without a static key: the engine must then step the
    scheduler in Python, pass by pass (same passes, no fused loop).
    ``inner`` is an order or a queue-order spec (``"fcfs"``, ``"sjf"``...)."""

    def __init__(self, inner: object = "fcfs") -> None:
        if isinstance(inner, str):
            from opt_sched.scheduling import get_queue_order

            inner = get_queue_order(inner)
        self.inner = inner
        self.name = inner.name

    def attach(self, jobs, cluster):
        self.inner.attach(jobs, cluster)

    def sort(self, queue, now):
        return self.inner.sort(queue, now)


class Stepped(Unkeyed):
    """The order with its hooks but without ``fused_priority``: the engine
    must step it in Python."""

    def observe_submit(self, now, job):
        self.inner.observe_submit(now, job)

    def observe_start(self, now, job):
        self.inner.observe_start(now, job)

    def observe_end(self, now, job, killed):
        self.inner.observe_end(now, job, killed)


class ClusterView:
    """A cluster of partitions of ``sizes`` machines (b = 1 each), nothing
    running: the part of the engine's cluster view that an order's
    ``attach`` and the blocks toolkit read."""

    def __init__(self, *sizes: int) -> None:
        self.sizes = sizes
        self.num_partitions = len(sizes)
        self.running: dict = {}

    def size(self, partition: int) -> int:
        return self.sizes[partition]

    def bandwidth(self, partition: int) -> float:
        return 1.0
