"""Online metrics (SPEC §9) and the pictures."""

from __future__ import annotations

import pytest

from opt_sched import Instance, Job, Platform
from opt_sched.errors import OptionError
from opt_sched.metrics import job_table, queue_over_time, summary
from opt_sched.scheduling import replay


def _fcfs_case():
    """Two machines; a (2 nodes, 4 s) at 0, b (1 node, 1 s) at 1, c (1 node,
    2 s, walltime 1.5) at 1: b and c start at 4; c is killed at 5.5."""
    inst = Instance("h", Platform.homogeneous(1, nodes=2), (
        Job.periodic("a", 2, 4.0, 0.0, release=0.0, walltime=5.0),
        Job.periodic("b", 1, 1.0, 0.0, release=1.0, walltime=5.0),
        Job.periodic("c", 1, 2.0, 0.0, release=1.0, walltime=1.5)))
    return inst, replay(inst, "fcfs", kill_at_walltime=True)


def test_wait_turnaround_slowdown_and_kills_by_hand():
    inst, schedule = _fcfs_case()
    table = job_table(inst, schedule)
    assert table["wait"].tolist() == [0.0, 3.0, 3.0]
    assert table["turnaround"].tolist() == [4.0, 4.0, 4.5]
    assert table["killed"].tolist() == [False, False, True]
    # slowdown (C - r) / run: 4/4, 4/1, 4.5/2
    assert table["flow_stretch"].tolist() == [1.0, 4.0, 2.25]
    # bounded slowdown with tau = 10: max(1, (C - r) / max(run, 10))
    assert table["bounded_slowdown"].tolist() == [1.0, 1.0, 1.0]
    # the killed job executed 1.5 of its 2 s
    assert table.loc["c", "exec_time"] == 1.5
    s = summary(inst, schedule)
    assert s["killed"] == 1 and s["mean_wait"] == 2.0 and s["max_wait"] == 3.0
    assert s["mean_turnaround"] == pytest.approx(12.5 / 3)


def test_queue_over_time_by_hand():
    inst, schedule = _fcfs_case()
    q = queue_over_time(inst, schedule)
    # 0 queued until 1, then b and c (2 jobs, 2 nodes) until 4, then none
    assert q["time"].tolist() == [0.0, 1.0, 4.0]
    assert q["queued"].tolist() == [0, 2, 0]
    assert q["queued_nodes"].tolist() == [0, 2, 0]


def test_plots_draw_and_check_their_window(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    from opt_sched.plot import plot_gantt, plot_usage

    inst, schedule = _fcfs_case()
    ax = plot_gantt(inst, schedule)
    assert len(ax.collections) >= 3  # one bar per job at least
    ax.figure.savefig(tmp_path / "g.png")
    fig = plot_usage(inst, schedule)
    fig.savefig(tmp_path / "u.png")
    assert (tmp_path / "g.png").stat().st_size > 1000
    with pytest.raises(OptionError, match="window"):
        plot_gantt(inst, schedule, window=(5.0, 1.0))
