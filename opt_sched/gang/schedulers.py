"""The four gang schedulers of seed 004: GS, IOGS, Adaptive-IOGS and
Migrate-IOGS.

At every scheduling event (a batch of arrivals and/or departures, see
:mod:`opt_sched.gang.simulator`) each scheduler recomputes the Ousterhout
matrix (:mod:`opt_sched.gang.matrix`) in the seed's phases:

.. code-block:: text

    CleanMatrix          drop replicas
    [MigrateMatrix]      Migrate-IOGS, at events with a departure
    CompactMatrix        pack jobs into the most populated rows
    Schedule             admit waiting jobs in FCFS order; stop at the first
                         job that does not fit (no backfilling)
    FillMatrix           replicate running jobs into holes

They differ in Schedule, FillMatrix and MigrateMatrix:

- ``gs`` (§3.2): Schedule takes the best-fit row with ``n`` free columns,
  and there the columns free in the most rows; FillMatrix goes over all
  jobs in start order.
- ``iogs`` (§3.3): Schedule takes the best-fit row where all the job's file
  nodes are free, and the file nodes; FillMatrix as GS.
- ``adaptive-iogs`` (§3.5): Schedule as IOGS when such a row exists, else
  as GS; FillMatrix goes over the local jobs, then the remote jobs, each in
  FCFS order.
- ``migrate-iogs`` (§3.6): Adaptive-IOGS plus MigrateMatrix with a budget
  of ``Q`` moved tasks per event.

The migration budget is per scheduling event; events happen only at slice
boundaries (the simulator defers them), so it is also per time slice, as
the seed says. MigrateMatrix runs at events that include a departure: the
seed examines remote jobs "every time when a job leaves the system".
With ``Q = 0`` Migrate-IOGS never moves a job and is Adaptive-IOGS exactly
(tested).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence

from ..errors import OptionError
from .matrix import Migration, OusterhoutMatrix

__all__ = [
    "GANG_SCHEDULERS",
    "GS",
    "IOGS",
    "AdaptiveIOGS",
    "GangScheduler",
    "MigrateIOGS",
    "get_gang_scheduler",
]


class GangScheduler:
    """Base class: the event procedure; subclasses choose rows and order.

    ``file_masks[j]`` is the bit mask of job ``j``'s file nodes and
    ``sizes[j]`` its number of tasks (jobs numbered in arrival order).
    """

    name = "gang"
    migrates = False

    def attach(self, sizes: Sequence[int], file_masks: Sequence[int]) -> None:
        self.sizes = sizes
        self.file_masks = file_masks

    # -- the policy ------------------------------------------------------------
    def admit(self, matrix: OusterhoutMatrix, job: int) -> tuple[int, int] | None:
        """``(row, columns mask)`` for ``job`` now, or ``None`` (it waits)."""
        raise NotImplementedError

    def fill_groups(self, matrix: OusterhoutMatrix) -> list[list[int]]:
        """The FillMatrix groups, each in admission order."""
        return [list(matrix.home)]

    def migrate(self, matrix: OusterhoutMatrix) -> list[Migration]:
        return []

    # -- the event procedure -------------------------------------------------------
    def event(self, matrix: OusterhoutMatrix, queue: deque[int],
              departed: bool) -> tuple[list[int], list[Migration]]:
        """Recompute the matrix at a scheduling event; returns the admitted
        jobs (in order) and the migrations."""
        matrix.clean()
        moves = self.migrate(matrix) if departed and self.migrates else []
        matrix.compact()
        admitted = []
        while queue:
            job = queue[0]
            slot = self.admit(matrix, job)
            if slot is None:
                break
            queue.popleft()
            matrix.place(job, slot[0], slot[1])
            admitted.append(job)
        matrix.fill(self.fill_groups(matrix))
        return admitted, moves

    def would_admit(self, matrix: OusterhoutMatrix, job: int) -> bool:
        """Whether :meth:`admit` would place ``job`` now (no side effect)."""
        return self.admit(matrix, job) is not None

    def options(self) -> dict[str, object]:
        return {}


class GS(GangScheduler):
    """Plain gang scheduling (seed §3.2): best-fit row, then the columns
    free in the most rows."""

    name = "gs"

    def admit(self, matrix: OusterhoutMatrix, job: int) -> tuple[int, int] | None:
        size = self.sizes[job]
        row = matrix.best_fit_row(size)
        if row < 0:
            return None
        return row, matrix.columns_free_in_most_rows(row, size)


class IOGS(GangScheduler):
    """I/O-aware gang scheduling (seed §3.3): only on the file nodes."""

    name = "iogs"

    def admit(self, matrix: OusterhoutMatrix, job: int) -> tuple[int, int] | None:
        files = self.file_masks[job]
        row = matrix.best_fit_row_for(files)
        return None if row < 0 else (row, files)


class AdaptiveIOGS(GangScheduler):
    """Adaptive-IOGS (seed §3.5): IOGS when a row has the file nodes free,
    otherwise GS; FillMatrix serves local jobs first."""

    name = "adaptive-iogs"

    def admit(self, matrix: OusterhoutMatrix, job: int) -> tuple[int, int] | None:
        files = self.file_masks[job]
        row = matrix.best_fit_row_for(files)
        if row >= 0:
            return row, files
        size = self.sizes[job]
        row = matrix.best_fit_row(size)
        if row < 0:
            return None
        return row, matrix.columns_free_in_most_rows(row, size)

    def fill_groups(self, matrix: OusterhoutMatrix) -> list[list[int]]:
        files = self.file_masks
        local, remote = [], []
        for job, mask in matrix.mask.items():
            (local if mask == files[job] else remote).append(job)
        return [local, remote]


class MigrateIOGS(AdaptiveIOGS):
    """Migrate-IOGS (seed §3.6): Adaptive-IOGS plus MigrateMatrix.

    Parameters
    ----------
    migration_budget
        ``Q``: tasks that may change node per scheduling event (= per slice).
    migration_cost
        ``C`` seconds: a migrated job does no work during the first ``C``
        seconds of the slices it runs in next (the simulator charges it).
    """

    name = "migrate-iogs"
    migrates = True

    def __init__(self, migration_budget: int = 64, migration_cost: float = 20.0
                 ) -> None:
        if isinstance(migration_budget, bool) or int(migration_budget) != \
                migration_budget or migration_budget < 0:
            raise OptionError(f"migration_budget={migration_budget!r} must be an "
                              f"integer >= 0")
        if not migration_cost >= 0:
            raise OptionError(f"migration_cost={migration_cost!r} must be >= 0")
        self.migration_budget = int(migration_budget)
        self.migration_cost = float(migration_cost)

    def migrate(self, matrix: OusterhoutMatrix) -> list[Migration]:
        if not self.migration_budget:
            return []
        files = self.file_masks
        remote = [job for job, mask in matrix.mask.items() if mask != files[job]]
        if not remote:
            return []
        return matrix.migrate(remote, files, self.migration_budget)

    def options(self) -> dict[str, object]:
        return {"migration_budget": self.migration_budget,
                "migration_cost": self.migration_cost}


GANG_SCHEDULERS: dict[str, Callable[..., GangScheduler]] = {
    "gs": GS,
    "iogs": IOGS,
    "adaptive-iogs": AdaptiveIOGS,
    "migrate-iogs": MigrateIOGS,
}
"""Scheduler name -> factory."""


def get_gang_scheduler(name: str, *, migration_budget: int = 64,
                       migration_cost: float = 20.0) -> GangScheduler:
    """A fresh gang scheduler; the migration options apply to
    ``migrate-iogs`` only.

    Raises
    ------
    OptionError
        Unknown name or bad option.
    """
    if name not in GANG_SCHEDULERS:
        raise OptionError(f"scheduler={name!r} is not a gang scheduler; choose "
                          f"one of {', '.join(GANG_SCHEDULERS)}")
    if name == "migrate-iogs":
        return MigrateIOGS(migration_budget, migration_cost)
    return GANG_SCHEDULERS[name]()
