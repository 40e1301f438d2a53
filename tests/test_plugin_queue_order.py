"""A queue order from outside the package (issue 25): one entry point of the
group ``opt_sched.queue_orders`` makes ``replay --order NAME`` (and
``NAME:ARG``) run EASY over it, with no edit to opt_sched.

The plug-in is installed without pip (:func:`tests.test_plugins.install`);
the replay runs in a real subprocess and its schedule is checked against
the same order registered in this process, and validated.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from opt_sched.json_files import read_instance, read_schedule
from opt_sched.validation import assert_feasible

from .plugin_helpers import head_instance, install_package, load_source, opt_sched

ORDER_SOURCE = '''
"""Widest job first: a static queue order (ties in submission order)."""

import numpy as np


class WidestFirst:
    name = "widest-first"

    def __init__(self, arg=None):
        self.sign = -1.0 if arg in (None, "desc") else 1.0

    def attach(self, jobs, cluster):
        self._key = (self.sign * np.asarray(jobs.nodes, float)).tolist().__getitem__

    def sort(self, queue, now):
        return sorted(queue, key=self._key)
'''

ENTRY_POINTS = """
[opt_sched.queue_orders]
widest-first = myorder.order:WidestFirst
"""


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    return install_package(tmp_path, "myorder", "A queue-order plug-in.",
                           {"order": ORDER_SOURCE}, ENTRY_POINTS)


@pytest.mark.parametrize("spec", ["widest-first", "widest-first:asc"])
def test_replay_takes_the_plugin_queue_order(plugin, tmp_path, spec):
    from opt_sched.scheduling import get_scheduler, replay

    path = head_instance(tmp_path)
    out = tmp_path / "s.json"
    done = opt_sched(plugin, "replay", str(path), "--scheduler", "easy", "--order",
                     spec, "--validate", "--quiet", "--json", "--schedule", str(out),
                     cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["validated"] is True
    instance = read_instance(path)
    schedule = read_schedule(out)
    assert_feasible(instance, schedule)
    order = load_source(plugin / "myorder" / "order.py").WidestFirst(
        spec.partition(":")[2] or None)
    direct = replay(instance, get_scheduler("easy", order=order))
    assert [js.start for js in schedule.jobs] == [js.start for js in direct.jobs]
    # the order decides something: FCFS's EASY differs on this workload
    fcfs = replay(instance, "easy")
    assert [js.start for js in fcfs.jobs] != [js.start for js in direct.jobs]


def test_an_unknown_order_lists_the_registry(plugin, tmp_path):
    done = opt_sched(plugin, "replay", str(head_instance(tmp_path)), "--scheduler",
                     "easy", "--order", "tallest-first", "--quiet", cwd=tmp_path)
    assert done.returncode == 2
    assert "widest-first" in done.stderr and "fairshare" in done.stderr
