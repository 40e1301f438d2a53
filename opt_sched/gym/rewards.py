"""Rewards of :class:`~opt_sched.gym.env.BatchSchedulingEnv`.

A reward is a function ``reward(engine, started) -> float`` called after
every step, where ``started`` are the jobs the step started (the picked
job and any job backfilled while it waited) and ``engine`` the
:class:`~opt_sched.gym.engine.Engine` (its clock ``now``, arrays ``start``,
``jobs.submit``, ``jobs.run``, ``jobs.nodes``, ``done``). Built in, for a
window of ``n`` jobs (every sum over an episode is the episode's metric):

- ``"bsld"`` (default): ``-(1/n) sum_{i started} max(1, (S_i + T_i - r_i)
  / max(T_i, tau))``, ``tau = 10`` s: the episode's return is minus its
  mean bounded slowdown (the flow is known at the start: the engine knows
  ``T_i``, the policy does not);
- ``"wait"``: ``-(1/n) sum_{i started} (S_i - r_i) / 3600``: minus the mean
  wait in hours;
- ``"utilisation"``: 0 until the last step, then ``sum_i Q_i T_i / (M
  (max_i C_i - min_i r_i))``.

A callable with the signature above is used as it is.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import OptionError
from .engine import Engine

__all__ = ["REWARDS", "TAU", "Reward", "reward_function"]

TAU = 10.0
"""``tau`` of the bounded slowdown, seconds."""

Reward = Callable[[Engine, list], float]


def bounded_slowdown(engine: Engine, started: list) -> float:
    jobs = engine.jobs
    total = 0.0
    for j in started:
        run = float(jobs.run[j])
        flow = engine.start[j] + run - jobs.submit[j]
        total += max(1.0, flow / max(run, TAU))
    return -total / engine.n


def wait(engine: Engine, started: list) -> float:
    jobs = engine.jobs
    total = sum(engine.start[j] - jobs.submit[j] for j in started)
    return -float(total) / (3600.0 * engine.n)


def utilisation(engine: Engine, started: list) -> float:
    if not engine.done:
        return 0.0
    span = float((engine.start + engine.jobs.run).max() - engine.jobs.submit[0])
    return engine.busy_area / (engine.machines * span) if span > 0 else 1.0


REWARDS: dict[str, Reward] = {"bsld": bounded_slowdown, "wait": wait,
                              "utilisation": utilisation}
"""Built-in rewards by name (module doc)."""


def reward_function(reward: str | Reward) -> Reward:
    """The reward named ``reward``, or ``reward`` itself if callable.

    Raises
    ------
    OptionError
        An unknown name.
    """
    if callable(reward):
        return reward
    if reward not in REWARDS:
        raise OptionError(f"gym: reward={reward!r} is not one of "
                          f"{', '.join(REWARDS)} or a function")
    return REWARDS[reward]
