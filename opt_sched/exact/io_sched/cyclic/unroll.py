"""From one period to a full schedule: rotation, unrolling, ramp-up and
ramp-down (``models/cyclic.md``).

A cyclic timetable is summarised by its *word*: the jobs in the order the
node serves them around the circle, one letter per operation. Repeating the
word is the node order of the periodic timetable laid end to end (positions
``a + k lambda`` sorted), and because the operations of a periodic job are
identical, the ``q``-th occurrence of job ``j`` is simply its operation
``q``.

The full order of a rotation ``theta`` of the word repeats the rotated word
and drops the occurrences of a job past its ``n_j`` operations (the
*ramp-down*: a job that runs out leaves the pattern, the others keep their
relative order). Its semi-active timing is the *ramp-up* and the
compression of the ramp-down: every operation as early as the order allows.
It is never later than the periodic timetable itself shifted by
``max_j w_j`` (which is feasible for that order), so a period ``lambda``
gives a makespan of at most ``t_k + max_j w_j + ceil(max_j n_j / m_j) lambda
+ lambda``. Every rotation is tried and the best value kept.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..orders import NodeJobs, objective_value, semi_active

__all__ = ["best_rotation", "unrolled_order"]


def unrolled_order(node: NodeJobs, word: Sequence[int], rotation: int = 0
                   ) -> list[int]:
    """The node order of ``word`` rotated by ``rotation`` letters, repeated
    until every job has all its operations; jobs without I/O are absent, and
    jobs with I/O that the word misses are appended round-robin (none when
    the word comes from a pattern of the node)."""
    counts = list(node.counts)
    left = counts[:]
    letters = list(word[rotation:]) + list(word[:rotation])
    out: list[int] = []
    present = {j for j in letters}
    if letters:
        while any(left[j] for j in present):
            for j in letters:
                if left[j]:
                    out.append(j)
                    left[j] -= 1
    while any(left):
        for j in range(node.num_jobs):
            if left[j]:
                out.append(j)
                left[j] -= 1
    return out


def best_rotation(node: NodeJobs, word: Sequence[int], objective: str
                  ) -> tuple[list[int], float, int]:
    """The rotation of ``word`` whose unrolled order has the best semi-active
    value: ``(order, value, rotation)``."""
    best: tuple[float, int, list[int]] | None = None
    for theta in range(max(1, len(word))):
        order = unrolled_order(node, word, theta)
        value = objective_value(node, semi_active(node, order), objective)
        if best is None or value < best[0]:
            best = (value, theta, order)
    assert best is not None
    return best[2], best[0], best[1]
