"""The eight I/O list policies of seed 003 §5.1 (SPEC §6).

When an I/O node becomes free and phases wait for it, the policy picks the
waiting phase with the smallest key; ties go to the earliest request, then
to the lowest instance index. Notation for the pending phase ``j`` of job
``i`` on a partition of bandwidth ``b``: ``d_ij = v_ij / b`` its duration,
``t`` the decision time, ``S_i`` the job's start, ``T_i = sum_j (w_ij +
d_ij)`` its contention-free length and

.. math:: P_{ij} = \\sum_{j' < j} (w_{ij'} + d_{ij'}) + w_{ij}

the contention-free work it has done when it requests phase ``j``.

The keys (smallest first):

====================== =====================================================
``lowest-id``          ``i`` (instance order)
``longest-io``         ``-d_ij``
``shortest-io``        ``d_ij``
``shortest-remaining`` ``d_ij + sum_{j' > j} (w_ij' + d_ij')``
``longest-remaining``  ``-(d_ij + sum_{j' > j} (w_ij' + d_ij'))``
``fifo``               the request time ``t_ij^req`` (end of compute ``j``)
``bandwidth``          ``(sum_j d_ij) / T_i``, the job's I/O fraction
``stretch``            ``-(t + d_ij - S_i) / (P_ij + d_ij)``
====================== =====================================================

``stretch`` reads "worst current stretch" (seed 003) as the stretch the job
would have at the end of this phase if the phase started now: elapsed time
over contention-free work done, both counted up to the end of the phase.
It is ``>= 1`` and grows with the time the job has lost waiting.

Six keys are fixed when the phase is requested and are precomputed per phase
(:attr:`Policy.phase_key`); ``fifo`` keys on the request time and ``stretch``
on the decision time, so the kernel computes those two itself (the integer
:attr:`Policy.mode` selects the kernel's branch).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..errors import OptionError
from ..plugins import check_named, load_group
from .events import MODE_FIFO, MODE_STATIC, MODE_STRETCH

__all__ = [
    "MODE_FIFO",
    "MODE_STATIC",
    "MODE_STRETCH",
    "POLICIES",
    "POLICY_NAMES",
    "PhaseTable",
    "Policy",
    "get_policy",
    "names",
    "register_policy",
    "segment_cumsum",
    "unregister_policy",
]


def segment_cumsum(x: np.ndarray, off: np.ndarray, reverse: bool = False
                   ) -> np.ndarray:
    """Cumulative sums of ``x`` restarted at every segment ``off[i]:off[i+1]``
    (from the segment's end when ``reverse``), each one sequential like
    ``np.cumsum`` applied segment by segment (so bit for bit the same).

    The segments of one length ``L`` are summed together, as the rows of an
    ``m x L`` matrix (``np.cumsum`` along a row accumulates in order): a
    loop over the distinct lengths, not over the segments.
    """
    x = np.asarray(x, np.float64)
    off = np.asarray(off, np.int64)
    counts = np.diff(off)
    if len(counts) and counts.min() == counts.max() > 0:  # one length: a matrix
        rows = x.reshape(len(counts), int(counts[0]))
        if reverse:
            return np.cumsum(rows[:, ::-1], axis=1)[:, ::-1].reshape(-1)
        return np.cumsum(rows, axis=1).reshape(-1)
    out = np.empty_like(x)
    for length in np.unique(counts):
        if length == 0:
            continue
        idx = off[:-1][counts == length][:, None] + np.arange(length)
        block = x[idx]
        if reverse:
            out[idx] = np.cumsum(block[:, ::-1], axis=1)[:, ::-1]
        else:
            out[idx] = np.cumsum(block, axis=1)
    return out


class PhaseTable(NamedTuple):
    """All phases of an instance, job after job (instance order).

    Job ``i`` owns entries ``off[i]:off[i+1]``; ``job[p]`` is the job of
    entry ``p``, ``w[p]`` its compute length and ``d[p]`` its I/O duration on
    the job's partition.
    """

    job: np.ndarray
    off: np.ndarray
    w: np.ndarray
    d: np.ndarray

    def done(self) -> np.ndarray:
        """``P_ij = sum_{j'<j} (w_ij' + d_ij') + w_ij`` per phase."""
        return segment_cumsum(self.w + self.d, self.off, False) - self.d

    def remaining(self) -> np.ndarray:
        """``d_ij + sum_{j'>j} (w_ij' + d_ij')`` per phase."""
        return segment_cumsum(self.w + self.d, self.off, True) - self.w

    def per_job(self, values: np.ndarray) -> np.ndarray:
        """Sum of ``values`` over each job's phases, repeated on its phases."""
        sums = segment_cumsum(values, self.off, True)[self.off[:-1]]
        return sums[self.job]


PhaseKey = Callable[[PhaseTable], np.ndarray]
"""``phases -> key`` of every phase (smaller is served first)."""


@dataclass(frozen=True)
class Policy:
    """An I/O list policy: its name, kernel mode and per-phase key."""

    name: str
    mode: int
    phase_key: PhaseKey | None
    summary: str


def lowest_id_key(ph: PhaseTable) -> np.ndarray:
    """``lowest-id``: key ``i``, the job's position in the instance."""
    return ph.job.astype(np.float64)


def longest_io_key(ph: PhaseTable) -> np.ndarray:
    """``longest-io``: key ``-d_ij``, the longest pending phase first."""
    return -ph.d


def shortest_io_key(ph: PhaseTable) -> np.ndarray:
    """``shortest-io``: key ``d_ij``, the shortest pending phase first."""
    return ph.d.copy()


def shortest_remaining_key(ph: PhaseTable) -> np.ndarray:
    """``shortest-remaining``: key ``d_ij + sum_{j'>j} (w_ij' + d_ij')``, the
    contention-free work left including the pending phase; least first."""
    return ph.remaining()


def longest_remaining_key(ph: PhaseTable) -> np.ndarray:
    """``longest-remaining``: key ``-(d_ij + sum_{j'>j} (w_ij' + d_ij'))``;
    the most work left first."""
    return -ph.remaining()


def bandwidth_key(ph: PhaseTable) -> np.ndarray:
    """``bandwidth``: key ``(sum_j d_ij) / T_i``, the job's I/O fraction;
    the job that needs the I/O node least, relative to its length, first
    (0 for a job of length 0)."""
    io = ph.per_job(ph.d)
    total = ph.per_job(ph.w + ph.d)
    return np.divide(io, total, out=np.zeros_like(io), where=total > 0)


_ALL = (
    Policy("lowest-id", MODE_STATIC, lowest_id_key,
           "lowest instance index first"),
    Policy("longest-io", MODE_STATIC, longest_io_key,
           "longest pending I/O phase first"),
    Policy("shortest-io", MODE_STATIC, shortest_io_key,
           "shortest pending I/O phase first"),
    Policy("shortest-remaining", MODE_STATIC, shortest_remaining_key,
           "least remaining contention-free work (pending I/O included) first"),
    Policy("longest-remaining", MODE_STATIC, longest_remaining_key,
           "most remaining contention-free work (pending I/O included) first"),
    Policy("fifo", MODE_FIFO, None,
           "earliest request first: key = request time"),
    Policy("bandwidth", MODE_STATIC, bandwidth_key,
           "lowest job I/O fraction (sum_j d_ij) / T_i first"),
    Policy("stretch", MODE_STRETCH, None,
           "largest stretch at the end of the phase if it started now, "
           "(t + d_ij - S_i) / (P_ij + d_ij), first"),
)

POLICIES: dict[str, Policy] = {p.name: p for p in _ALL}
"""The registry: policy name -> :class:`Policy` (built-ins, then the ones
added by :func:`register_policy`). Read it; change it only through
:func:`register_policy` / :func:`unregister_policy`."""

POLICY_NAMES: tuple[str, ...] = tuple(POLICIES)
"""The eight built-in names, in the order of seed 003 §5.1 (a constant:
:func:`names` also lists the registered ones)."""

_NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*\Z")
_MODES = (MODE_STATIC, MODE_FIFO, MODE_STRETCH)


def _add_plugin(name: str, policy: object) -> None:
    """Register the policy of plug-in ``name`` (:func:`register_policy`'s
    contract; its name must be the entry point's)."""
    check_named(policy, Policy, name)
    register_policy(policy)


def _load_plugins() -> None:
    """The ``opt_sched.io_policies`` plug-ins (:mod:`opt_sched.plugins`),
    once per process: on the first lookup of an unknown name, or a listing."""
    load_group("io_policies", _add_plugin)


def names() -> tuple[str, ...]:
    """Every policy name: the built-ins of :data:`POLICY_NAMES`, then the
    registered ones in registration order (plug-ins included)."""
    _load_plugins()
    return tuple(POLICIES)


def register_policy(policy: Policy, *, replace: bool = False) -> Policy:
    """Add an I/O policy, from inside or outside the package.

    The contract of a :class:`Policy` ``p``:

    - ``p.name``: lowercase letters and digits, words joined by ``-`` (it
      is the ``/policy`` part of method specs);
    - ``p.mode == MODE_STATIC`` with ``p.phase_key`` a function
      ``PhaseTable -> ndarray`` of one float per phase, fixed when the
      phase is requested: the kernel serves the smallest key first (ties:
      request time, then instance order). ``MODE_FIFO`` and
      ``MODE_STRETCH`` are the kernel's two dynamic keys, with
      ``phase_key=None``;
    - ``p.summary``: one line.

    The simulator, ``compare`` and ``gap`` then accept ``p.name``; it is
    listed by :func:`names` (not by the constant :data:`POLICY_NAMES`).

    Raises
    ------
    OptionError
        A bad name, mode or key, or a name already taken (built-ins are
        never replaced; others only with ``replace=True``).
    """
    if not isinstance(policy, Policy):
        raise OptionError(f"register_policy: {policy!r} is not a Policy")
    if not isinstance(policy.name, str) or not _NAME.match(policy.name):
        raise OptionError(f"register_policy: name={policy.name!r} is not a policy "
                          f"name (lowercase letters and digits, words joined by "
                          f"'-')")
    if policy.name in POLICY_NAMES:
        raise OptionError(f"register_policy: {policy.name!r} is a built-in policy")
    if policy.name in POLICIES and not replace:
        raise OptionError(f"register_policy: {policy.name!r} is already registered")
    if policy.mode not in _MODES:
        raise OptionError(f"register_policy: {policy.name}: mode={policy.mode!r} is "
                          f"not MODE_STATIC, MODE_FIFO or MODE_STRETCH")
    if (policy.mode == MODE_STATIC) != callable(policy.phase_key):
        raise OptionError(f"register_policy: {policy.name}: MODE_STATIC needs a "
                          f"phase_key function, the other modes phase_key=None")
    POLICIES[policy.name] = policy
    return policy


def unregister_policy(name: str) -> None:
    """Remove a policy added by :func:`register_policy`.

    Raises
    ------
    OptionError
        ``name`` is built in or not registered.
    """
    if name in POLICY_NAMES:
        raise OptionError(f"unregister_policy: {name!r} is a built-in policy")
    if name not in POLICIES:
        raise OptionError(f"unregister_policy: {name!r} is not registered")
    del POLICIES[name]


def get_policy(name: str) -> Policy:
    """The policy called ``name``.

    Raises
    ------
    OptionError
        ``name`` is not one of :func:`names`.
    """
    try:
        return POLICIES[name]
    except (KeyError, TypeError):
        pass
    _load_plugins()
    try:
        return POLICIES[name]
    except (KeyError, TypeError):
        raise OptionError(f"policy={name!r} is unknown; choose one of "
                          f"{', '.join(POLICIES)}") from None
