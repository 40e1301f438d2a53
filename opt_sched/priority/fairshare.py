r"""``fairshare:<operator>``: the waiting queue ordered by hierarchical
fair-share priority vectors (seed 002, Paper II, Karma).

At each pass, for every (account, user) with a waiting job, with the
targets ``t`` of :class:`~opt_sched.priority.tree.TargetTree` and the
states ``s`` of the decayed usage (:mod:`~opt_sched.priority.usage`,
half-life 14 days by default):

.. math:: v_u = \bigl(F(t_a, s_a),\; F(t_{u|a}, s_{u|a})\bigr)

with ``F`` the operator (:mod:`~opt_sched.priority.operators`). Jobs are
sorted by ``v`` of their owner, lexicographically and highest first, each
component first mapped to ``2^bits`` integer levels when ``bits`` is given
(:mod:`~opt_sched.priority.vector`, Paper II §2.2); ties keep submission
order. Before any usage is recorded every state is 0, so every user is at
``F(t, 0)`` (1 for the ``[-1, 1]`` operators: FCFS among users).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

from ..scheduling.base import Cluster, JobTable
from .history import FollowsHistory, JobHistory
from .operators import Operator, get_operator
from .tree import TargetTree
from .usage import DEFAULT_HALF_LIFE
from .vector import check_bits, priority_key

__all__ = ["FairShareOrder", "fairshare_vectors"]


def fairshare_vectors(operator: Operator, tree: TargetTree,
                      usage: Mapping[Hashable, float],
                      owners: Sequence[tuple[str, str]]
                      ) -> dict[tuple[str, str], tuple[float, float]]:
    """The priority vector ``(F(t_a, s_a), F(t_{u|a}, s_{u|a}))`` of each
    (account, user) in ``owners``, from node-second ``usage`` per (account,
    user)."""
    by_account: dict[str, float] = {}
    for (account, _), used in usage.items():
        by_account[account] = by_account.get(account, 0.0) + used
    total = sum(by_account.values())
    account_t = tree.account_targets()
    out = {}
    user_t: dict[str, dict[str, float]] = {}
    for owner in set(owners):
        account, user = owner
        if account not in user_t:
            user_t[account] = tree.user_targets(account)
        used_a = by_account.get(account, 0.0)
        s_a = used_a / total if total > 0 else 0.0
        s_u = usage.get(owner, 0.0) / used_a if used_a > 0 else 0.0
        out[owner] = (float(operator(account_t.get(account, 0.0), s_a)),
                      float(operator(user_t[account].get(user, 0.0), s_u)))
    return out


class FairShareOrder(FollowsHistory):
    """Fair-share queue order (see the module docstring).

    Parameters
    ----------
    operator
        An operator name (``"sigmoid-2"``) or :class:`Operator`.
    tree
        The target tree (:class:`TargetTree`, or the mapping of
        :meth:`TargetTree.from_mapping`); default: equal shares.
    half_life
        Usage decay half-life in seconds (``inf``: no decay).
    bits
        Resolution of each vector component (``None``: full precision).
    """

    def __init__(self, operator: str | Operator = "sigmoid-2",
                 tree: TargetTree | Mapping[str, object] | None = None,
                 half_life: float = DEFAULT_HALF_LIFE,
                 bits: int | None = None) -> None:
        self.operator = (operator if isinstance(operator, Operator)
                         else get_operator(operator))
        self.name = f"fairshare:{self.operator.name}"
        self._tree_spec = tree
        self.bits = check_bits(bits)
        self.history = JobHistory(half_life)

    def attach(self, jobs: JobTable, cluster: Cluster) -> None:
        spec = self._tree_spec
        if isinstance(spec, TargetTree):
            tree = TargetTree(dict(spec.accounts), {a: dict(u) for a, u in
                                                    spec.users.items()},
                              spec.default_share)
        elif spec is None:
            tree = TargetTree()
        else:
            tree = TargetTree.from_mapping(spec)
        self.tree = tree
        self.history.attach(jobs, cluster, tree)

    def keys(self, queue: Sequence[int], now: float) -> dict[int, tuple[float, ...]]:
        """Each waiting job's key (larger first)."""
        history = self.history
        owner = history.owner
        owners = [owner[j] for j in queue]
        vectors = fairshare_vectors(self.operator, self.tree,
                                    history.usage.values(now), owners)
        low = self.operator.low
        keys = {o: priority_key(v, self.bits, low) for o, v in vectors.items()}
        return {j: keys[owner[j]] for j in queue}

    def sort(self, queue: Sequence[int], now: float) -> Sequence[int]:
        self.history.sync(queue, now)
        if len(queue) < 2:
            return queue
        keys = self.keys(queue, now)
        return sorted(queue, key=lambda j: tuple(-x for x in keys[j]))
