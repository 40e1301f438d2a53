"""Baselines as policies of the environment, and their table over windows.

A policy is ``policy(observation, mask) -> action``; it sees what an agent
sees (:mod:`opt_sched.gym.features`; never a real run time):

- ``fcfs``: the first legal job of the visible queue (submit order);
- ``sjf``: the legal job with the smallest estimate ``e_i`` (column 2, a
  monotone function of ``e_i``), ties to the earlier submit;
- ``easy``: ``fcfs`` in an environment with ``backfill=True``: the queue
  head is reserved and EASY backfills under it (the engine's backfilling),
  i.e. EASY-FCFS;
- ``random``: a uniformly drawn legal job (never "wait"), seeded.

:data:`BASELINES` gives each policy with the environment options it runs
under. :func:`baseline_table` runs them on the same windows and, with
``bracket``, brackets every window once (the window's lower bound holds
for every schedule of it; the best schedule found is the best of the
bracket's search and of the baselines' own episodes).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .env import BatchSchedulingEnv

__all__ = ["BASELINES", "Policy", "baseline_table", "fcfs", "random_policy",
           "run_episode", "sjf"]

Policy = Callable[[np.ndarray, np.ndarray], int]


def fcfs(observation: np.ndarray, mask: np.ndarray) -> int:
    """The first legal job (else "wait")."""
    legal = np.flatnonzero(mask[:-1])
    return int(legal[0]) if len(legal) else len(mask) - 1


def sjf(observation: np.ndarray, mask: np.ndarray) -> int:
    """The legal job with the smallest estimate (else "wait")."""
    legal = np.flatnonzero(mask[:-1])
    if not len(legal):
        return len(mask) - 1
    return int(legal[np.argmin(observation[legal, 2])])


def random_policy(seed: int = 0) -> Policy:
    """A policy drawing a legal job uniformly (else "wait"), seeded."""
    rng = np.random.default_rng(seed)

    def policy(observation: np.ndarray, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask[:-1])
        if not len(legal):
            return len(mask) - 1
        return int(legal[rng.integers(len(legal))])
    return policy


BASELINES: dict[str, tuple[Callable[[], Policy], dict[str, Any]]] = {
    "fcfs": (lambda: fcfs, {"backfill": False}),
    "sjf": (lambda: sjf, {"backfill": False}),
    "easy": (lambda: fcfs, {"backfill": True}),
    "random": (lambda: random_policy(0), {"backfill": False}),
}
"""Name -> (policy factory, environment options)."""


def run_episode(env: BatchSchedulingEnv, policy: Policy, *,
                seed: int | None = None, start: int | None = None
                ) -> tuple[float, dict[str, Any], int]:
    """One episode of ``policy``: ``(return, last info, steps)``."""
    options = None if start is None else {"start": start}
    obs, info = env.reset(seed=seed, options=options)
    total, steps, done = 0.0, 0, False
    while not done:
        obs, reward, done, truncated, info = env.step(policy(obs, info["action_mask"]))
        total += reward
        steps += 1
        done = done or truncated
    return total, info, steps


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values) if values else math.nan


def baseline_table(workload: Any, *, windows: int = 20, jobs: int = 256,
                   seed: int = 0, names: Sequence[str] = tuple(BASELINES),
                   bracket: bool = False, time_limit: float = 10.0,
                   env_options: Mapping[str, Any] | None = None
                   ) -> list[dict[str, Any]]:
    """One row per baseline: the mean over ``windows`` windows (drawn with
    ``seed``) of the bounded slowdown, the mean flow time and, with
    ``bracket``, of the gap bracket on the mean flow time (``at_least``,
    ``at_most``, :func:`~opt_sched.gym.episode.episode_bracket`), plus the
    number of windows whose value is at least the lower bound (a test of
    the bound: all of them)."""
    from .episode import episode_bracket, validate_episode

    options = dict(env_options or {})
    envs = {name: BatchSchedulingEnv(workload, jobs=jobs, **{
        **options, **BASELINES[name][1]}) for name in names}
    first = next(iter(envs.values()))
    rng = np.random.default_rng(seed)
    starts = rng.integers(0, len(first.stream) - first.jobs + 1, windows).tolist()
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    for start in starts:
        values: dict[str, dict[str, Any]] = {}
        for name in names:
            env = envs[name]
            _, info, steps = run_episode(env, BASELINES[name][0](), start=start)
            values[name] = {**info["episode"], "steps": steps}
        if bracket:
            env = envs["easy" if "easy" in envs else names[0]]  # its episode
            instance, schedule = validate_episode(env.engine.jobs, env.engine.start)
            found = episode_bracket(instance, schedule, time_limit=time_limit)
            found = found["mean-flow-time"]
            best = min([found["best_found"]] +
                       [v["mean_flow_time"] for v in values.values()])
            lower = found["lower_bound"]
            for v in values.values():
                flow = v["mean_flow_time"]
                v["at_least"] = (flow - best) / best
                v["at_most"] = (flow - lower) / lower if lower else math.nan
                v["bound_holds"] = lower is None or lower <= flow * (1 + 1e-9)
        for name in names:
            results[name].append(values[name])
    rows = []
    for name in names:
        per = results[name]
        row = {"policy": name, "windows": len(per),
               "mean_bounded_slowdown": _mean([v["mean_bounded_slowdown"]
                                               for v in per]),
               "mean_flow_time": _mean([v["mean_flow_time"] for v in per]),
               "mean_wait": _mean([v["mean_wait"] for v in per]),
               "utilisation": _mean([v["utilisation"] for v in per])}
        if bracket:
            row["at_least"] = _mean([v["at_least"] for v in per])
            row["at_most"] = _mean([v["at_most"] for v in per])
            row["bound_holds"] = sum(bool(v["bound_holds"]) for v in per)
        rows.append(row)
    return rows
