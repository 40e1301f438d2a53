"""The Ousterhout matrix and its operations (seed 004 §3.1-§3.6).

Rows are time slices (virtual machines), at most ``mpl`` of them; columns
are the ``P`` nodes. A job holds the same set of columns in every row it
occupies (all its tasks are co-scheduled: gang), and has one *home row*;
other rows where it appears hold *replicas*. Each row is stored as a bit
mask of its occupied columns (bit ``c`` for node ``c``), so "these columns
are free in row r" is one AND.

The operations, as the seed names them (§3.1, §3.2, §3.6); every choice the
seed leaves open is fixed here and documented:

CleanMatrix (:meth:`OusterhoutMatrix.clean`)
    Remove every replica (every instance outside the job's home row).

MigrateMatrix (:meth:`OusterhoutMatrix.migrate`, Migrate-IOGS only)
    Repeat until nothing moves: for each remote job in admission order, for
    each row ``0..mpl-1`` in order, if all its file nodes are free in that
    row (its own columns count as free in its home row), move it there, onto
    its file nodes, and go to the next job. The seed's text prefers a random
    row, its pseudo-code the first: we take the first. A move costs the
    number of tasks that change node, ``|F_i minus cols_i|``; a job whose cost
    exceeds the budget left is skipped (smaller jobs behind it may still
    move).

CompactMatrix (:meth:`OusterhoutMatrix.compact`)
    Repeat until nothing moves: take the non-empty rows by increasing
    population (occupied columns; ties by row index) as sources ``i`` and by
    decreasing population (ties by row index) as targets ``j``, ``j != i``
    with ``pop(j) >= pop(i)``; move the first job of ``i`` (admission order)
    whose columns are free in ``j`` to ``j`` (same columns, new home), then
    start over. Each move raises the sum of squared populations, so the loop
    ends.

Schedule (in :mod:`opt_sched.gang.schedulers`), with two row choices here:
    :meth:`best_fit_row` -- the row (empty rows included, up to ``mpl``)
    with the fewest free columns among those with at least ``n`` free
    (ties: lowest index), and :meth:`columns_free_in_most_rows` -- the ``n``
    free columns of that row that are free in the most rows (ties: lowest
    column); :meth:`best_fit_row_for` -- the row with the fewest free
    columns among those where a given set of columns is free.

FillMatrix (:meth:`OusterhoutMatrix.fill`)
    For each group of jobs in turn (GS: all jobs; Adaptive-IOGS: local jobs,
    then remote jobs), repeat until nothing changes: for each job of the
    group in admission order (= start order: admission is FCFS), replicate
    it into the first row, among the rows that hold a home job, where it is
    absent and its columns are free. Replicas never go into empty rows: a
    row holding only replicas would lengthen the slice cycle and give the
    replicated jobs more time at the expense of every other row.

Jobs are numbered in admission order (the simulator numbers them by
arrival, and admission is FCFS), so "admission order" is increasing job
number.

The slice cycle (:meth:`next_row`) visits the non-empty rows in index order,
cyclically; empty rows take no time.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

__all__ = ["Migration", "OusterhoutMatrix", "columns_to_mask", "lowest_columns",
           "mask_columns"]


def mask_columns(mask: int) -> list[int]:
    """The node numbers set in ``mask``, increasing."""
    if mask.bit_count() <= 8:
        out = []
        while mask:
            low = mask & -mask
            out.append(low.bit_length() - 1)
            mask ^= low
        return out
    raw = np.frombuffer(mask.to_bytes((mask.bit_length() + 7) // 8, "little"),
                        np.uint8)
    return np.flatnonzero(np.unpackbits(raw, bitorder="little")).tolist()


def columns_to_mask(columns: Sequence[int], nodes: int) -> int:
    """The bit mask of node numbers ``columns`` (all below ``nodes``)."""
    if len(columns) <= 8:
        mask = 0
        for c in columns:
            mask |= 1 << c
        return mask
    bits = np.zeros(nodes, np.uint8)
    bits[np.asarray(columns, np.int64)] = 1
    return int.from_bytes(np.packbits(bits, bitorder="little").tobytes(), "little")


def lowest_columns(mask: int, count: int) -> int:
    """The ``count`` lowest set bits of ``mask`` (fewer if it has fewer)."""
    if count >= mask.bit_count():
        return mask
    rest = mask
    for _ in range(count):
        rest &= rest - 1
    return mask ^ rest


class Migration(tuple):
    """``(job, old_mask, new_mask, moved_tasks)`` of one MigrateMatrix move."""

    __slots__ = ()

    @property
    def job(self) -> int:
        return self[0]


class OusterhoutMatrix:
    """``mpl`` rows x ``nodes`` columns (see the module docstring).

    Attributes
    ----------
    occ
        ``occ[r]``: bit mask of the occupied columns of row ``r``.
    members
        ``members[r]``: the jobs present in row ``r`` (home or replica), as
        an insertion-ordered dict.
    home
        Job -> home row, in admission order.
    mask
        Job -> its column mask.
    rows_of
        Job -> the rows it occupies (home first).
    """

    def __init__(self, nodes: int, mpl: int) -> None:
        if mpl < 1:
            raise ValueError(f"mpl={mpl} must be >= 1")
        self.nodes = nodes
        self.mpl = mpl
        self.full = (1 << nodes) - 1
        self.occ = [0] * mpl
        self.members: list[dict[int, None]] = [{} for _ in range(mpl)]
        self.home: dict[int, int] = {}
        self.mask: dict[int, int] = {}
        self.rows_of: dict[int, list[int]] = {}

    # -- queries -------------------------------------------------------------------
    def __contains__(self, job: int) -> bool:
        return job in self.home

    def __len__(self) -> int:
        """Jobs in the matrix."""
        return len(self.home)

    @property
    def empty(self) -> bool:
        return not self.home

    def population(self, row: int) -> int:
        """Occupied columns of ``row``."""
        return self.occ[row].bit_count()

    def free_count(self, row: int) -> int:
        return self.nodes - self.occ[row].bit_count()

    def used_rows(self) -> list[int]:
        """Rows holding at least one job, increasing."""
        return [r for r in range(self.mpl) if self.members[r]]

    def next_row(self, after: int) -> int:
        """The first non-empty row after row ``after`` in cyclic order (``-1``
        for none; ``after=-1`` starts at row 0)."""
        mpl = self.mpl
        for step in range(1, mpl + 1):
            row = (after + step) % mpl
            if self.members[row]:
                return row
        return -1

    def best_fit_row(self, size: int) -> int:
        """The row with the fewest free columns among those with at least
        ``size`` free (ties: lowest index); ``-1`` if none."""
        best, best_free = -1, self.nodes + 1
        for row in range(self.mpl):
            free = self.nodes - self.occ[row].bit_count()
            if size <= free < best_free:
                best, best_free = row, free
        return best

    def best_fit_row_for(self, mask: int) -> int:
        """The row with the fewest free columns among those where every
        column of ``mask`` is free (ties: lowest index); ``-1`` if none."""
        best, best_free = -1, self.nodes + 1
        for row in range(self.mpl):
            occ = self.occ[row]
            if not occ & mask:
                free = self.nodes - occ.bit_count()
                if free < best_free:
                    best, best_free = row, free
        return best

    def columns_free_in_most_rows(self, row: int, size: int) -> int:
        """``size`` free columns of ``row``, preferring the columns free in
        the most rows (all ``mpl`` rows count; ties: lowest column).

        Bit-sliced counting: after folding in every row's free mask,
        ``at_least[k]`` holds the columns free in at least ``k`` rows.
        """
        full = self.full
        free = [full & ~o for o in self.occ]
        mpl = self.mpl
        at_least = [full] + [0] * (mpl + 1)
        for f in free:
            for k in range(mpl, 0, -1):
                at_least[k] |= at_least[k - 1] & f
        chosen, need = 0, size
        candidates = free[row]
        for k in range(mpl, 0, -1):
            level = candidates & at_least[k] & ~at_least[k + 1]
            if level:
                take = lowest_columns(level, need)
                chosen |= take
                need -= take.bit_count()
                if not need:
                    break
        if need:
            raise ValueError(f"row {row} has fewer than {size} free columns")
        return chosen

    # -- placement -----------------------------------------------------------------
    def place(self, job: int, row: int, mask: int) -> None:
        """Put ``job`` in ``row`` on columns ``mask``, as its home."""
        if self.occ[row] & mask:
            raise ValueError(f"job {job}: columns busy in row {row}")
        if job in self.home:
            raise ValueError(f"job {job} is already in the matrix")
        self.occ[row] |= mask
        self.members[row][job] = None
        self.home[job] = row
        self.mask[job] = mask
        self.rows_of[job] = [row]

    def remove(self, job: int) -> None:
        """Take every instance of ``job`` out of the matrix."""
        mask = self.mask.pop(job)
        for row in self.rows_of.pop(job):
            self.occ[row] ^= mask
            del self.members[row][job]
        del self.home[job]

    def _move_home(self, job: int, row: int, mask: int) -> None:
        """Move a job without replicas to ``row`` on ``mask`` (keeps its
        place in the admission order)."""
        old_row, old_mask = self.home[job], self.mask[job]
        self.occ[old_row] ^= old_mask
        del self.members[old_row][job]
        self.occ[row] |= mask
        self.members[row][job] = None
        self.home[job] = row
        self.mask[job] = mask
        self.rows_of[job] = [row]

    # -- the phases ------------------------------------------------------------------
    def clean(self) -> None:
        """CleanMatrix: drop every replica."""
        for job, rows in self.rows_of.items():
            if len(rows) > 1:
                mask = self.mask[job]
                for row in rows[1:]:
                    self.occ[row] ^= mask
                    del self.members[row][job]
                del rows[1:]

    def compact(self) -> int:
        """CompactMatrix; returns the number of moves."""
        moves = 0
        occ, members, mask = self.occ, self.members, self.mask
        while True:
            rows = [r for r in range(self.mpl) if members[r]]
            if len(rows) < 2:
                return moves
            pop = {r: occ[r].bit_count() for r in rows}
            sources = sorted(rows, key=lambda r: (pop[r], r))
            targets = sorted(rows, key=lambda r: (-pop[r], r))
            moved = False
            for i in sources:
                jobs = sorted(members[i])
                for j in targets:
                    if j == i or pop[j] < pop[i]:
                        continue
                    occ_j = occ[j]
                    for job in jobs:
                        m = mask[job]
                        if not occ_j & m:
                            self._move_home(job, j, m)
                            moved = True
                            break
                    if moved:
                        break
                if moved:
                    break
            if not moved:
                return moves
            moves += 1

    def fill(self, groups: Iterable[Sequence[int]]) -> int:
        """FillMatrix over ``groups`` of jobs, each in admission order;
        returns the number of replicas made."""
        rows = [r for r in range(self.mpl) if self.members[r]]
        occ, members, mask, rows_of = self.occ, self.members, self.mask, self.rows_of
        made = 0
        for group in groups:
            active = list(group)
            while active:
                still = []
                changed = False
                for job in active:
                    m = mask[job]
                    present = rows_of[job]
                    for row in rows:
                        if not occ[row] & m and row not in present:
                            occ[row] |= m
                            members[row][job] = None
                            present.append(row)
                            still.append(job)
                            changed = True
                            made += 1
                            break
                    # a job that found no row never will: occupancy only grows
                if not changed:
                    break
                active = still
        return made

    def migrate(self, remote: Sequence[int], file_masks: Sequence[int],
                budget: int) -> list[Migration]:
        """MigrateMatrix: move remote jobs (admission order) onto their file
        nodes in the first row where those are free, within ``budget`` moved
        tasks. Call after :meth:`clean` (jobs have no replicas)."""
        moves: list[Migration] = []
        pending = [j for j in remote if self.mask[j] != file_masks[j]]
        changed = True
        while changed and pending and budget > 0:
            changed = False
            left = []
            for job in pending:
                cur, target = self.mask[job], file_masks[job]
                cost = (target & ~cur).bit_count()
                if cost > budget:
                    left.append(job)
                    continue
                home_row = self.home[job]
                for row in range(self.mpl):
                    occ = self.occ[row]
                    if row == home_row:
                        occ &= ~cur
                    if not occ & target:
                        self._move_home(job, row, target)
                        moves.append(Migration((job, cur, target, cost)))
                        budget -= cost
                        changed = True
                        break
                else:
                    left.append(job)
            pending = left
        return moves

