"""The batch simulator's driver of the event loop (numba, ``cache=True``).

:func:`run` executes every plan. It sees jobs, phases, partitions and
*gates*, never plans: :mod:`opt_sched.simulation.program` lowers a plan
into these arrays. The phases themselves run in the exclusive-I/O event
loop of :mod:`.events` -- the same loop as the replay's ``exclusive``
execution model --, which this driver calls between the instants where
jobs end, exactly as the replay engine does with an online scheduler; the
driver adds the plan's start rule.

Start rule (SPEC §3)
--------------------
Partition ``k`` has ``capacity[k]`` nodes. Its jobs are started strictly in
the order of its *start queue* ``q_jobs[q_off[k]:q_off[k+1]]`` (no
overtaking): the head job ``i`` starts at the first time ``t`` with

.. math:: \\mathrm{gate}(i)\\ \\text{open} \\;\\wedge\\; t \\ge e_i
          \\;\\wedge\\; \\mathrm{free}_k(t) \\ge Q_i
          \\;\\wedge\\; \\forall r:\\ \\mathrm{free}_r(t) \\ge q_{ir},

where ``e_i`` is its earliest start, a gate opens when every job it awaits
has completed (a pack barrier, the job's predecessors, or both), and ``r``
ranges over the named resources (shared by all partitions). A job frees its
``Q_i`` nodes and its resources when it completes.

An instant ``t`` (*decisions are taken once per instant*): the event loop
applies every event of ``t`` and returns the jobs that end; the driver
frees their nodes and resources and opens gates, in event order, then
applies the earliest-start wake-ups due at ``t`` (in the order they were
set: only a head job blocked by its earliest start sets one, so a
partition has at most one); it serves the start queues of the touched
partitions (a stack, last touched first); the loop's ``settle`` call
applies the events those starts created at ``t`` (zero-length computes)
-- if jobs end, the driver serves again --, and finally lets every free
I/O node with waiting phases pick one.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..borrow import borrow_all
from . import events as ev
from .events import MODE_FIFO, MODE_STATIC, MODE_STRETCH

__all__ = ["MODE_FIFO", "MODE_STATIC", "MODE_STRETCH", "run"]


@njit(inline="always")
def _mark(k, stack, flag, size):
    """Push partition ``k`` on the stack of start queues to serve (once);
    returns the new size."""
    if not flag[k]:
        flag[k] = True
        stack[size] = k
        size += 1
    return size


@njit(cache=True)
def run(job_part, job_nodes, job_earliest, job_gate, capacity, q_off, q_jobs,
        gate_count_init, gate_part, succ_off, succ_gate, res_cap, job_dem,
        mode, ph_off, ji, jf, pf, ki, wheap, meta):
    """Simulate a plan; the results are in the state (``pf`` rows
    ``P_CSTART``/``P_IOSTART``, ``jf`` row ``F_JSTART``); returns the number
    of jobs that never started (a gate that never opened, which a checked
    plan never produces).

    Parameters
    ----------
    job_part, job_nodes, job_earliest, job_gate : arrays of length ``n``
        Partition ``k(i)``, nodes ``Q_i``, earliest start ``e_i`` and gate of
        each job.
    capacity, q_off, q_jobs : partition nodes ``P_k`` and start queues.
    gate_count_init, gate_part : jobs each gate awaits, and its partition.
    succ_off, succ_gate : CSR list of the gates each job's completion opens.
    res_cap, job_dem : capacities of the ``M`` named resources and the
        ``n x M`` demands.
    mode : ``MODE_STATIC``, ``MODE_FIFO`` or ``MODE_STRETCH``.
    ph_off, ji, jf, pf, ki, wheap, meta
        A fresh :func:`.events.new_state`, ``pf`` holding each phase's
        ``d``, ``key`` and ``done`` for its job's partition.
    """
    ph_off, ji, jf, pf, ki, wheap, meta = borrow_all(ph_off, ji, jf, pf, ki, wheap,
                                                     meta)
    n = job_part.shape[0]
    R = capacity.shape[0]
    n_res = res_cap.shape[0]
    gate_count = gate_count_init.copy()
    free = capacity.copy()
    res_free = res_cap.copy()
    head = q_off[:R].copy()
    ended = ji[ev.J_ENDED]
    # earliest-start wake-ups: at most one per partition (for its head job),
    # due at wake_t[k] (inf: none), applied in the order they were set
    wake_t = np.empty(R)
    wake_t[:] = math.inf
    wake_seq = np.zeros(R, np.int64)
    seq = 0
    # partitions whose start queue may move (a stack: last touched first)
    sd_stack = np.empty(R, np.int64)
    sd_flag = np.zeros(R, np.bool_)
    sd_len = 0
    for k in range(R):
        sd_len = _mark(k, sd_stack, sd_flag, sd_len)

    # settle / advance as run-time booleans: numba would specialise ``step``
    # on literal constants, compiling it again beside the replay's copy
    settle = n >= 0
    advance = not settle
    t = -math.inf
    count = 0
    while True:
        # -- the instant's completions (event order), then its wake-ups ------
        for e in range(count):
            j = ended[e]
            k = job_part[j]
            free[k] += job_nodes[j]
            if head[k] < q_off[k + 1]:
                sd_len = _mark(k, sd_stack, sd_flag, sd_len)
            if n_res > 0:
                # resources are global: every start queue may now move
                for r in range(n_res):
                    res_free[r] += job_dem[j, r]
                for kk in range(R):
                    if head[kk] < q_off[kk + 1]:
                        sd_len = _mark(kk, sd_stack, sd_flag, sd_len)
            for s in range(succ_off[j], succ_off[j + 1]):
                g = succ_gate[s]
                gate_count[g] -= 1
                if gate_count[g] == 0:
                    sd_len = _mark(gate_part[g], sd_stack, sd_flag, sd_len)
        while True:
            first = -1
            for k in range(R):
                if wake_t[k] == t and (first < 0 or wake_seq[k] < wake_seq[first]):
                    first = k
            if first < 0:
                break
            wake_t[first] = math.inf
            sd_len = _mark(first, sd_stack, sd_flag, sd_len)

        # -- serve the touched start queues -----------------------------------
        while sd_len > 0:
            sd_len -= 1
            k = sd_stack[sd_len]
            sd_flag[k] = False
            stop = q_off[k + 1]
            while head[k] < stop:
                j = q_jobs[head[k]]
                if gate_count[job_gate[j]] > 0:
                    break
                if job_earliest[j] > t:
                    if wake_t[k] == math.inf:  # else already set for j
                        wake_t[k] = job_earliest[j]
                        wake_seq[k] = seq
                        seq += 1
                    break
                if free[k] < job_nodes[j]:
                    break
                blocked = False
                for r in range(n_res):
                    if res_free[r] < job_dem[j, r]:
                        blocked = True
                if blocked:
                    break
                head[k] += 1
                free[k] -= job_nodes[j]
                for r in range(n_res):
                    res_free[r] -= job_dem[j, r]
                ev.start(j, k, t, ph_off, ji, jf, pf, meta)

        # -- finish the instant; on to the next one ---------------------------
        count = ev.step(t, settle, n, mode, ph_off, ji, jf, pf, ki, wheap, meta)[1]
        if count > 0:
            continue  # jobs ended at t because of the starts: serve again
        until = math.inf
        for k in range(R):
            until = min(until, wake_t[k])
        t, count = ev.step(until, advance, n, mode, ph_off, ji, jf, pf, ki, wheap,
                           meta)
        if count == 0 and t == math.inf:
            break

    unstarted = 0
    status = ji[ev.J_STATUS]
    for j in range(n):
        if status[j] == 0:
            unstarted += 1
    return unstarted
