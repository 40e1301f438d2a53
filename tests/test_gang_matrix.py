"""Hand-checked Ousterhout-matrix examples: the seed's Fig. 3, Fig. 5 and
Fig. 7 situations, the phases one by one, and the quantum accounting of the
simulator, every expected value worked out by hand in the comments."""

from __future__ import annotations

from collections import deque

import pytest

from opt_sched.gang.matrix import (
    OusterhoutMatrix,
    columns_to_mask,
    lowest_columns,
    mask_columns,
)
from opt_sched.gang.metrics import gang_summary
from opt_sched.gang.schedulers import GS, IOGS, AdaptiveIOGS, MigrateIOGS
from opt_sched.gang.simulator import simulate_gang
from opt_sched.gang.validate import validate_gang
from opt_sched.gang.workload import GangWorkload


def rows(matrix: OusterhoutMatrix) -> list[dict[int, list[int]]]:
    """Row -> {job: its columns} (home and replicas)."""
    return [{j: mask_columns(matrix.mask[j]) for j in sorted(matrix.members[r])}
            for r in range(matrix.mpl)]


def cpu_jobs(nodes: int, sizes: list[int], work: list[float],
             files: list[tuple[int, ...]], arrival: list[float] | None = None,
             names: list[str] | None = None) -> GangWorkload:
    """Jobs without I/O (locality does not change their speed)."""
    n = len(sizes)
    return GangWorkload("hand", nodes, tuple(names or [f"J{i + 1}" for i in range(n)]),
                        arrival or [0.0] * n, sizes, work, [0] * n, file_nodes=files)


# -- bit helpers --------------------------------------------------------------------
def test_bit_helpers_round_trip():
    cols = [0, 3, 64, 65, 200, 319]
    mask = columns_to_mask(cols, 320)
    assert mask == sum(1 << c for c in cols)
    assert mask_columns(mask) == cols
    big = list(range(5, 300, 3))  # > 8 columns: the numpy path
    assert mask_columns(columns_to_mask(big, 320)) == big
    # the 3 lowest of {0, 3, 64, 65, ...} are {0, 3, 64}
    assert mask_columns(lowest_columns(mask, 3)) == [0, 3, 64]
    assert lowest_columns(mask, 99) == mask


# -- Fig. 3: GS builds the seed's example matrix --------------------------------
def test_fig3_matrix_from_gs():
    # 8 nodes, MPL 4; J1, J2 of 8 tasks, J3 of 4, J4 and J5 of 2, J6 of 4 arrive
    # together (one event, FCFS). GS, best fit then columns free in most rows:
    #  J1: every row has 8 free -> row 0 (lowest), columns 0-7.
    #  J2: rows 1-3 have 8 free -> row 1.
    #  J3: rows 2, 3 have 8 free -> row 2; all columns free in 2 rows -> 0-3.
    #  J4: row 2 has 4 free, row 3 has 8 -> best fit row 2; 4-7 free in 2 rows
    #      -> 4, 5.
    #  J5: row 2 (2 free) -> 6, 7.
    #  J6: row 3 only; every column free in 1 row -> 0-3.
    # FillMatrix (start order): J1-J3 fit nowhere else; J4 -> row 3 on 4, 5;
    # J5 -> row 3 on 6, 7. This is the seed's Fig. 3 exactly.
    matrix = OusterhoutMatrix(8, 4)
    gs = GS()
    gs.attach([8, 8, 4, 2, 2, 4], [0] * 6)
    queue = deque(range(6))
    admitted, moves = gs.event(matrix, queue, departed=False)
    assert admitted == [0, 1, 2, 3, 4, 5] and moves == [] and not queue
    assert rows(matrix) == [
        {0: list(range(8))},
        {1: list(range(8))},
        {2: [0, 1, 2, 3], 3: [4, 5], 4: [6, 7]},
        {3: [4, 5], 4: [6, 7], 5: [0, 1, 2, 3]},
    ]
    assert matrix.home == {0: 0, 1: 1, 2: 2, 3: 2, 4: 2, 5: 3}


def test_fig3_quantum_accounting():
    # The Fig. 3 jobs without I/O, T = 200, all-local work J1 200, J2 200,
    # J3 400, J4 300, J5 500, J6 100. Slices run the non-empty rows in order.
    #  s0 row0 [0,200): J1 done at 200 (row empty: the slice ends there).
    #  event 200: Clean drops J4, J5 from row 3; no compaction move (rows 1, 2
    #    full; row 3 (J6, 4 columns) cannot go into a full row); Fill puts J4,
    #    J5 back into row 3.
    #  s1 row1 [200,400): J2 done at 400. Event: same matrix minus row 1.
    #  s2 row2 [400,600): J3 400->200 left, J4 300->100, J5 500->300.
    #  s3 row3 [600,800): J6 done at 700, J4 (100 left, its replica) done at
    #    700, J5 300->100; the slice runs to 800 (J5 stays).
    #  event 800: Clean drops J5 from row 3 (row 3 empties).
    #  s4: the next non-empty row after 3 is row 2 [800,1000): J5 done at 900,
    #    J3 done at 1000.
    workload = cpu_jobs(8, [8, 8, 4, 2, 2, 4], [200, 200, 400, 300, 500, 100],
                        [tuple(range(8)), tuple(range(8)), (0, 1, 2, 3), (4, 5),
                         (6, 7), (0, 1, 2, 3)])
    record = simulate_gang(workload, "gs", mpl=4, quantum=200)
    assert record.slice_row.tolist() == [0, 1, 2, 3, 2]
    assert record.slice_start.tolist() == [0, 200, 400, 600, 800]
    assert record.slice_end.tolist() == [200, 400, 600, 800, 1000]
    assert record.finish.tolist() == [200, 400, 1000, 700, 900, 700]
    assert record.start.tolist() == [0, 200, 400, 400, 400, 600]
    assert validate_gang(workload, record) == []


# -- Fig. 5: IOGS fragments the matrix, GS does not -------------------------------
FIG5_FILES = [(0, 1), (1, 2)]  # A needs F on nodes 1-2, B needs G on 2-3 (0-based)


def test_fig5_iogs_two_rows_gs_one():
    # 4 nodes, MPL 2. IOGS: A -> row 0 on {0,1}; B's file node 1 is busy in
    # row 0 -> row 1 on {1,2}. Fill: A's {0,1} hits B's node 1 in row 1, B's
    # {1,2} hits A's node 1 in row 0: no replica. 50 % of the matrix is used.
    iogs = IOGS()
    iogs.attach([2, 2], [columns_to_mask(f, 4) for f in FIG5_FILES])
    matrix = OusterhoutMatrix(4, 2)
    iogs.event(matrix, deque([0, 1]), departed=False)
    assert rows(matrix) == [{0: [0, 1]}, {1: [1, 2]}]
    # GS: A -> row 0 on {0,1} (lowest of the columns free in both rows); B ->
    # best fit row 0 (2 free) on {2,3}. One full row: 100 %.
    gs = GS()
    gs.attach([2, 2], [columns_to_mask(f, 4) for f in FIG5_FILES])
    matrix = OusterhoutMatrix(4, 2)
    gs.event(matrix, deque([0, 1]), departed=False)
    assert rows(matrix) == [{0: [0, 1], 1: [2, 3]}, {}]


def test_fig5_matrix_utilisation():
    # A and B, 400 s of CPU each. IOGS alternates rows 0 and 1: slices
    # [0,200) A, [200,400) B, [400,600) A (done 600), [600,800) B (done 800);
    # each slice uses 2 of 4 columns -> utilisation 0.5. GS runs both in row
    # 0: [0,200), [200,400), both done at 400, 4 of 4 columns -> 1.0.
    workload = cpu_jobs(4, [2, 2], [400, 400], FIG5_FILES, names=["A", "B"])
    iogs = simulate_gang(workload, "iogs", mpl=2)
    assert iogs.finish.tolist() == [600, 800]
    assert gang_summary(workload, iogs)["matrix_utilisation"] == pytest.approx(0.5)
    gs = simulate_gang(workload, "gs", mpl=2)
    assert gs.finish.tolist() == [400, 400]
    assert gang_summary(workload, gs)["matrix_utilisation"] == pytest.approx(1.0)
    # GS put A on its file nodes by accident, B off them
    assert gang_summary(workload, gs)["local_jobs_at_start"] == 1


def test_fig5_job_c_waits_under_iogs():
    # C (3 tasks, 200 s, files {0,1,3}) arrives with A and B. IOGS: no row has
    # {0,1,3} free (row 0: A on 0,1; row 1: B on 1) and MPL is 2 -> C waits;
    # at 600 A leaves, row 0 is empty -> C is admitted to row 0; the next row
    # after 0 is row 1: [600,800) B done 800 (row empties); [800,1000) C done.
    # GS: C -> row 1 (row 0 is full) on {0,1,2}: [200,400) C done 400; then
    # [400,600) A, B done 600.
    workload = cpu_jobs(4, [2, 2, 3], [400, 400, 200], [*FIG5_FILES, (0, 1, 3)],
                        names=["A", "B", "C"])
    iogs = simulate_gang(workload, "iogs", mpl=2)
    assert iogs.admitted.tolist() == [0, 0, 600]
    assert iogs.start.tolist() == [0, 200, 800]
    assert iogs.finish.tolist() == [600, 800, 1000]
    gs = simulate_gang(workload, "gs", mpl=2)
    assert gs.placements[2] == ((0, 1, 2),)
    assert gs.start.tolist() == [0, 0, 200]
    assert gs.finish.tolist() == [600, 600, 400]
    for record in (iogs, gs):
        assert validate_gang(workload, record) == []


# -- Fig. 7: Adaptive-IOGS leaves D remote, Migrate-IOGS moves it -----------------
FIG7 = dict(names=["A", "C", "B", "D"], sizes=[2, 2, 1, 2],
            files=[(0, 1), (2, 3), (1,), (0, 1)])


def fig7_workload() -> GangWorkload:
    # A 400 s CPU, C 1000 s, B 1000 s, D: 500 s CPU + 10000 blocks; with
    # t_local 0.05 and t_remote 0.15 D takes 1000 s local (r = 0.5) and
    # 500 + 1500 = 2000 s remote: speed 1/2 when remote.
    return GangWorkload("fig7", 4, tuple(FIG7["names"]), [0.0] * 4, FIG7["sizes"],
                        [400, 1000, 1000, 500], [0, 0, 0, 10000], t_local=0.05,
                        t_remote=0.15, file_nodes=FIG7["files"])


def test_fig7_adaptive_places_d_remote():
    # Adaptive-IOGS, one event, FCFS:
    #  A: file nodes {0,1} free in both (empty) rows -> row 0.
    #  C: {2,3} free in row 0 (2 free) and row 1 (4 free) -> best fit row 0.
    #  B: {1} busy in row 0 -> row 1.
    #  D: {0,1}: row 0 busy, row 1 has B on 1 -> no local row; GS: row 1 (3
    #     free) on the free columns of row 1, {0,2,3}, all free in 1 row ->
    #     lowest two: {0,2}. Remote.
    # Fill (local A, C, B, then remote D): no replica fits.
    # This is the seed's Fig. 7: row 1 "A A C C", row 2 "D B D _".
    matrix = OusterhoutMatrix(4, 2)
    adaptive = AdaptiveIOGS()
    adaptive.attach(FIG7["sizes"], [columns_to_mask(f, 4) for f in FIG7["files"]])
    adaptive.event(matrix, deque(range(4)), departed=False)
    assert rows(matrix) == [{0: [0, 1], 1: [2, 3]}, {2: [1], 3: [0, 2]}]


def test_migrate_matrix_moves_d_when_a_leaves():
    # Remove A (it leaves): D's file nodes {0,1} are free in row 0 -> D moves
    # there, at the cost of one task (node 1; node 0 is already a file node).
    matrix = OusterhoutMatrix(4, 2)
    migrate = MigrateIOGS(migration_budget=64)
    files = [columns_to_mask(f, 4) for f in FIG7["files"]]
    migrate.attach(FIG7["sizes"], files)
    migrate.event(matrix, deque(range(4)), departed=False)
    matrix.remove(0)
    matrix.clean()
    moves = matrix.migrate([3], files, budget=64)
    assert [(m.job, mask_columns(m[2]), m[3]) for m in moves] == [(3, [0, 1], 1)]
    assert rows(matrix) == [{1: [2, 3], 3: [0, 1]}, {2: [1]}]
    # a budget below the task count moves nothing
    matrix = OusterhoutMatrix(4, 2)
    migrate.event(matrix, deque(range(4)), departed=False)
    matrix.remove(0)
    matrix.clean()
    assert matrix.migrate([3], files, budget=0) == []


def test_fig7_migration_trace():
    # Migrate-IOGS (Q 64, C 20), T = 200, MPL 2, matrix as above.
    #  s0 row0 [0,200): A 400->200, C 1000->800.
    #  s1 row1 [200,400): B 1000->800, D remote: 200 s at speed 1/2 -> 100
    #     all-local s done, 900 left.
    #  s2 row0 [400,600): A done 600; C 800->600.
    #  event 600 (departure): Migrate D to row 0 on {0,1} (+20 s stall);
    #    Compact: B ({1}) cannot join row 0; Fill: local C -> row 1 on {2,3}.
    #    Matrix: row 0 "D D C C", row 1 "_ B C C".
    #  s3 row1 [600,800): B 800->600, C 600->400.
    #  s4 row0 [800,1000): D stalls 20 then 180 local -> 720; C 400->200.
    #  s5 row1 [1000,1200): B 600->400, C done 1200.
    #  s6 row0 D 720->520; s7 row1 B 400->200; s8 row0 D ->320;
    #  s9 row1 [1800,2000): B done 2000 (row empties);
    #  s10 row0 [2000,2200): D 320->120; s11 row0 [2200,2320): D done 2320.
    workload = fig7_workload()
    record = simulate_gang(workload, "migrate-iogs", mpl=2, migration_budget=64,
                           migration_cost=20)
    assert record.finish.tolist() == [600, 1200, 2000, 2320]
    assert record.slice_row.tolist() == [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0]
    assert record.slice_end.tolist()[-1] == 2320
    assert record.placements[3] == ((0, 2), (0, 1))
    d_runs = record.runs_of(3)
    assert record.run_slice[d_runs].tolist() == [1, 4, 6, 8, 10, 11]
    assert record.run_local[d_runs].tolist() == [False, True, True, True, True, True]
    assert record.run_stall[d_runs].tolist() == [0, 20, 0, 0, 0, 0]
    summary = gang_summary(workload, record)
    assert summary["local_jobs_at_start"] == 3 and summary["local_jobs_at_end"] == 4
    assert summary["migrations"] == 1
    assert validate_gang(workload, record) == []


def test_fig7_without_migration():
    # Adaptive-IOGS: D stays remote on {0,2} in row 1 for its whole 2000 s.
    #  s0 row0 A 400->200, C 1000->800;  s1 row1 B 1000->800, D 1000->900 (x1/2)
    #  s2 row0 [400,600): A done 600, C 800->600.
    #  event 600: rows: 0 "_ _ C C" (population 2), 1 "D B D _" (3). Compact:
    #    source row 0, target row 1: C's {2,3} clash with D on 2 -> no; row 1
    #    has no more populated target. Fill, local first: C -> row 1? node 2
    #    busy (D), no; B {1} -> row 0: free -> replica; remote D {0,2} -> row
    #    0: node 2 busy (C), no. Matrix: row 0 "_ B C C", row 1 "D B D _".
    #  s3 row1 [600,800): B 800->600, D 900->800.
    #  s4 row0 [800,1000): B 600->400, C 600->400.
    #  s5 row1: B 400->200, D 800->700.  s6 row0: B done 1400, C 400->200.
    #  event 1400: row 0 "C" (B gone), row 1 "D", 2 columns each: C {2,3}
    #    into row 1 clashes with D on 2, D {0,2} into row 0 with C on 2: no
    #    move, no replica.
    #  s7 row1 [1400,1600): D 700->600. s8 row0 [1600,1800): C done 1800.
    #  event 1800: only row 1 (D, 600 all-local s left = 1200 s remote).
    #  s9.. row1: D done at 1800 + 1200 = 3000.
    workload = fig7_workload()
    record = simulate_gang(workload, "adaptive-iogs", mpl=2)
    assert record.finish.tolist() == [600, 1800, 1400, 3000]
    assert record.placements[3] == ((0, 2),)
    assert validate_gang(workload, record) == []


# -- the phases one at a time ---------------------------------------------------
def test_compact_moves_jobs_into_more_populated_rows():
    # 6 nodes, 3 rows: row 0 holds j0 on {0,1,2} (3 columns), row 1 j1 on
    # {3} (1), row 2 j2 on {4,5} (2). Sources by population: row 1, row 2,
    # row 0; targets row 0, row 2, row 1. j1 -> row 0 ({3} free there). Start
    # over: row 0 has 4, row 2 has 2: j2 {4,5} -> row 0. One row is left.
    matrix = OusterhoutMatrix(6, 3)
    matrix.place(0, 0, columns_to_mask([0, 1, 2], 6))
    matrix.place(1, 1, columns_to_mask([3], 6))
    matrix.place(2, 2, columns_to_mask([4, 5], 6))
    assert matrix.compact() == 2
    assert rows(matrix) == [{0: [0, 1, 2], 1: [3], 2: [4, 5]}, {}, {}]
    assert matrix.home == {0: 0, 1: 0, 2: 0}


def test_compact_keeps_columns():
    # j1 on {0} in row 1 cannot move into row 0 where j0 holds {0,1}: a moved
    # job keeps its columns (locality would be lost otherwise).
    matrix = OusterhoutMatrix(4, 2)
    matrix.place(0, 0, columns_to_mask([0, 1], 4))
    matrix.place(1, 1, columns_to_mask([0], 4))
    assert matrix.compact() == 0


def test_fill_replicates_into_used_rows_only():
    # 4 nodes, MPL 3, one job on {0,1} in row 0: rows 1 and 2 are empty, so no
    # replica (it would only lengthen the slice cycle).
    matrix = OusterhoutMatrix(4, 3)
    matrix.place(0, 0, columns_to_mask([0, 1], 4))
    assert matrix.fill([[0]]) == 0
    # with j1 on {2} in row 1, j0 is replicated there; Clean undoes it.
    matrix.place(1, 1, columns_to_mask([2], 4))
    assert matrix.fill([[0, 1]]) == 2  # j0 -> row 1, j1 -> row 0
    assert rows(matrix)[:2] == [{0: [0, 1], 1: [2]}, {0: [0, 1], 1: [2]}]
    matrix.clean()
    assert rows(matrix)[:2] == [{0: [0, 1]}, {1: [2]}]


def test_fill_order_decides_who_gets_the_hole():
    # 2 nodes, 2 rows: j0 on {0} in row 0, j1 on {1} in row 1. With groups
    # [[1], [0]] j1 is examined first: row 0 has column 1 free -> replica;
    # then j0: row 1 has column 0 free -> replica. Rows of each job: home
    # first, then the replica.
    matrix = OusterhoutMatrix(2, 2)
    matrix.place(0, 0, columns_to_mask([0], 2))
    matrix.place(1, 1, columns_to_mask([1], 2))
    assert matrix.fill([[1], [0]]) == 2
    assert matrix.rows_of == {0: [0, 1], 1: [1, 0]}


def test_best_fit_and_columns_free_in_most_rows():
    # 6 nodes, 3 rows: row 0 busy on {0,1,2,3} (2 free), row 1 busy on {0}
    # (5 free), row 2 empty (6 free). best_fit_row(2) = row 0 (fewest free);
    # best_fit_row(3) = row 1; best_fit_row(6) = row 2.
    matrix = OusterhoutMatrix(6, 3)
    matrix.place(0, 0, columns_to_mask([0, 1, 2, 3], 6))
    matrix.place(1, 1, columns_to_mask([0], 6))
    assert [matrix.best_fit_row(k) for k in (2, 3, 6)] == [0, 1, 2]
    assert matrix.best_fit_row_for(columns_to_mask([4, 5], 6)) == 0
    assert matrix.best_fit_row_for(columns_to_mask([0, 5], 6)) == 2
    # free rows per column: 0 -> 1 (row 2), 1-3 -> 2 (rows 1, 2), 4-5 -> 3.
    # Three columns of row 1 (free: 1-5): 4 and 5 (3 rows), then 1 (2 rows,
    # lowest).
    assert mask_columns(matrix.columns_free_in_most_rows(1, 3)) == [1, 4, 5]


def test_next_row_cycles_over_non_empty_rows():
    matrix = OusterhoutMatrix(4, 5)
    matrix.place(0, 1, 1)
    matrix.place(1, 3, 1)
    assert [matrix.next_row(r) for r in (-1, 0, 1, 2, 3, 4)] == [1, 1, 3, 3, 1, 1]
    matrix.remove(0)
    matrix.remove(1)
    assert matrix.next_row(-1) == -1


def test_idle_machine_and_early_slice_end():
    # One 2-task job of 50 s CPU arriving at 1000 on an idle machine: it is
    # admitted at 1000, runs [1000,1050) and the slice ends with it (its row
    # is empty). A second job arriving at 5000 finds the machine idle again.
    workload = cpu_jobs(4, [2, 1], [50, 300], [(0, 1), (2,)], arrival=[1000, 5000])
    record = simulate_gang(workload, "gs", mpl=2)
    assert record.slice_start.tolist() == [1000, 5000, 5200]
    assert record.slice_end.tolist() == [1050, 5200, 5300]
    assert record.finish.tolist() == [1050, 5300]
    assert validate_gang(workload, record) == []


def test_arrival_during_a_slice_waits_for_the_boundary():
    # j1 (4 nodes, 1000 s) runs from 0; j2 (2 nodes, 100 s) arrives at 50: the
    # event is deferred to the end of the slice, 200; GS puts j2 in row 1
    # (row 0 is full), and the next row after row 0 is row 1: [200,300) j2.
    workload = cpu_jobs(4, [4, 2], [1000, 100], [(0, 1, 2, 3), (0, 1)],
                        arrival=[0, 50])
    record = simulate_gang(workload, "gs", mpl=2)
    assert record.admitted.tolist() == [0, 200]
    assert record.start.tolist() == [0, 200]
    assert record.finish[1] == 300
    # j1: 200 (s0) + 800 more from 300 on, alone: done at 1100
    assert record.finish[0] == 1100
