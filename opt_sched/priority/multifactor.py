r"""``multifactor``: Slurm's multifactor job priority (``priority/multifactor``,
Slurm 14.03 as configured for Edison in seed 002's ScSF experiments).

.. math:: \mathrm{prio}_i = \left\lfloor w_{age} A_i + w_{size} Z_i
          + w_{fs} F_i \right\rfloor

- **age** :math:`A_i = \min(1, (now - \epsilon_i) / \mathrm{max\_age})`,
  with ``epsilon_i`` the time the job became *eligible* (its submit time, or
  the end of its last dependency: a chained job's age starts then) and
  ``max_age`` = ``PriorityMaxAge`` (7 days by default).
- **job size**, favouring small jobs *relative to time*
  (``PriorityFavorSmall=YES``, ``PriorityFlags=SMALL_RELATIVE_TO_TIME``):

  .. math:: Z_i = 1 - \frac{c_i / \max(1, e_i / 60)}{C}

  with ``c_i`` the job's cores (``Q_i`` times ``cores_per_node``), ``e_i``
  its requested time in seconds (Slurm divides by the limit in minutes) and
  ``C`` the cluster's cores, clamped to ``[0, 1]``. With
  ``relative_to_time=False``: ``Z_i = (N - Q_i) / N`` (nodes, favour
  small); with ``favor_small=False`` the size term is ``Q_i / N``.
- **fair-share** :math:`F_i`: the job owner's single-level factor from an
  operator (:mod:`~opt_sched.priority.operators`) on its *global* target
  ``t_a t_{u|a}`` and global state ``U_u / sum U``; ``slurm-original``
  (:math:`2^{-s/t}`, Slurm's classic factor) by default; an operator of
  range ``[-1, 1]`` is mapped to ``(F + 1)/2``.

Defaults are seed 002's ``slurm.conf.edison.regular`` (ScSF repository):
``PriorityWeightAge=50000000``, ``PriorityWeightJobSize=600000000``,
``PriorityWeightFairShare=0``. Slurm truncates the sum to an integer; so do
we (ties are broken by submission order, as Slurm breaks them by job id).
Slurm recomputes priorities every ``PriorityCalcPeriod``; here they are
recomputed at every pass.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from ..errors import OptionError
from ..scheduling.base import Cluster, JobTable
from .history import FollowsHistory, JobHistory
from .operators import Operator, get_operator
from .tree import TargetTree
from .usage import DEFAULT_HALF_LIFE

__all__ = ["EDISON_WEIGHTS", "MultifactorOrder"]

EDISON_WEIGHTS = {"age": 50_000_000.0, "size": 600_000_000.0, "fairshare": 0.0}
"""ScSF's Edison Slurm weights (seed 002, external configuration)."""

DEFAULT_MAX_AGE = 7 * 86400.0
"""Slurm's default ``PriorityMaxAge`` (7 days)."""


def _weight(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or value < 0:
        raise OptionError(f"multifactor: {name}={value!r} must be a finite "
                          f"number >= 0")
    return float(value)


class MultifactorOrder(FollowsHistory):
    """Slurm multifactor priority (see the module docstring).

    Parameters
    ----------
    weight_age, weight_size, weight_fairshare
        The weights (defaults: ScSF's Edison configuration).
    max_age
        ``PriorityMaxAge`` in seconds.
    cores_per_node
        Cores of one machine (24 on Edison), for the size factor.
    favor_small, relative_to_time
        ``PriorityFavorSmall`` and ``SMALL_RELATIVE_TO_TIME``.
    operator, tree, half_life
        The fair-share factor (used only with ``weight_fairshare > 0``).
    """

    name = "multifactor"

    def __init__(self, weight_age: float = EDISON_WEIGHTS["age"],
                 weight_size: float = EDISON_WEIGHTS["size"],
                 weight_fairshare: float = EDISON_WEIGHTS["fairshare"], *,
                 max_age: float = DEFAULT_MAX_AGE, cores_per_node: int = 1,
                 favor_small: bool = True, relative_to_time: bool = True,
                 operator: str | Operator = "slurm-original",
                 tree: TargetTree | Mapping[str, object] | None = None,
                 half_life: float = DEFAULT_HALF_LIFE) -> None:
        self.weight_age = _weight("weight_age", weight_age)
        self.weight_size = _weight("weight_size", weight_size)
        self.weight_fairshare = _weight("weight_fairshare", weight_fairshare)
        self.max_age = _weight("max_age", max_age)
        if self.max_age <= 0:
            raise OptionError(f"multifactor: max_age={max_age!r} must be > 0")
        if isinstance(cores_per_node, bool) or not isinstance(cores_per_node, int) \
                or cores_per_node < 1:
            raise OptionError(f"multifactor: cores_per_node={cores_per_node!r} "
                              f"must be an integer >= 1")
        self.cores_per_node = cores_per_node
        self.favor_small = bool(favor_small)
        self.relative_to_time = bool(relative_to_time)
        self.operator = (operator if isinstance(operator, Operator)
                         else get_operator(operator))
        self._tree_spec = tree
        self.history = JobHistory(half_life)

    # -- protocol --------------------------------------------------------------
    def attach(self, jobs: JobTable, cluster: Cluster) -> None:
        spec = self._tree_spec
        if spec is None or isinstance(spec, TargetTree):
            tree = TargetTree() if spec is None else TargetTree(
                dict(spec.accounts), {a: dict(u) for a, u in spec.users.items()},
                spec.default_share)
        else:
            tree = TargetTree.from_mapping(spec)
        self.tree = tree
        self.history.attach(jobs, cluster, tree)
        machines = sum(cluster.size(k) for k in range(cluster.num_partitions))
        self._size = [self._size_factor(int(q), float(e), machines)
                      for q, e in zip(jobs.nodes.tolist(), jobs.estimate.tolist())]
        self._size_array = np.array(self._size, dtype=float)

    def fused_priority(self):
        """This order for the fused replay
        (:class:`~opt_sched.scheduling.fused_order.AgeSizePriority`), or
        ``None`` with a fair-share weight (its usage needs the events)."""
        from ..scheduling.fused_order import AgeSizePriority

        if self.weight_fairshare > 0:
            return None
        n = len(self._size_array)
        return AgeSizePriority(
            np.arange(n, dtype=np.int64), self.history.eligible_times.copy(),
            self._size_array.copy(), np.arange(n, dtype=np.int64), False,
            self.weight_age, self.weight_size, self.max_age)

    def sort(self, queue: Sequence[int], now: float) -> Sequence[int]:
        self.history.sync(queue, now)
        if len(queue) < 2:
            return queue
        jobs = np.asarray(queue, dtype=np.int64)
        prio = self.priority_array(jobs, now)
        return jobs[np.argsort(-prio, kind="stable")].tolist()

    # -- the factors -------------------------------------------------------------
    def _size_factor(self, nodes: int, estimate: float, machines: int) -> float:
        if self.relative_to_time:
            cores = nodes * self.cores_per_node
            minutes = max(1.0, estimate / 60.0) if math.isfinite(estimate) else math.inf
            value = cores / minutes / (machines * self.cores_per_node)
            return min(1.0, max(0.0, 1.0 - value if self.favor_small else value))
        share = nodes / machines
        return min(1.0, max(0.0, 1.0 - share if self.favor_small else share))

    def age_factor(self, job: int, now: float) -> float:
        """``A_i`` at ``now``."""
        age = now - self.history.eligible_time(job)
        return min(1.0, max(0.0, age / self.max_age))

    def size_factor(self, job: int) -> float:
        """``Z_i``."""
        return self._size[job]

    def fairshare_factors(self, queue: Sequence[int], now: float) -> dict[int, float]:
        """``F_i`` of each waiting job (in ``[0, 1]``)."""
        history = self.history
        usage = history.usage.values(now)
        total = sum(usage.values())
        out = {}
        cache: dict[tuple[str, str], float] = {}
        for job in queue:
            owner = history.owner[job]
            if owner not in cache:
                t = self.tree.global_target(*owner)
                s = usage.get(owner, 0.0) / total if total > 0 else 0.0
                value = float(self.operator(t, s))
                cache[owner] = value if self.operator.low == 0.0 else (value + 1) / 2
            out[job] = cache[owner]
        return out

    def priority_array(self, jobs: np.ndarray, now: float) -> np.ndarray:
        """:meth:`priorities` of the jobs ``jobs`` as an array (the same
        floating-point operations, element by element)."""
        age = now - self.history.eligible_times[jobs]
        value = (self.weight_age * np.minimum(1.0, np.maximum(0.0, age / self.max_age))
                 + self.weight_size * self._size_array[jobs])
        if self.weight_fairshare > 0:
            fs = self.fairshare_factors(jobs.tolist(), now)
            value = value + self.weight_fairshare * np.array(
                [fs[j] for j in jobs.tolist()], dtype=float)
        return np.floor(value)

    def priorities(self, queue: Sequence[int], now: float) -> dict[int, float]:
        """The integer priority of each waiting job at ``now``."""
        fs = (self.fairshare_factors(queue, now) if self.weight_fairshare > 0
              else None)
        out = {}
        for job in queue:
            value = (self.weight_age * self.age_factor(job, now)
                     + self.weight_size * self._size[job])
            if fs is not None:
                value += self.weight_fairshare * fs[job]
            out[job] = float(math.floor(value))
        return out
