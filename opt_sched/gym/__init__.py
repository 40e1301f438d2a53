"""A Gymnasium environment for batch scheduling on real traces, with the gap
to the optimum (``docs/gym.md``; needs the extra ``opt_sched[gym]``).

Importing this package registers ``opt_sched/BatchScheduling-v0``::

    import gymnasium as gym
    import opt_sched.gym

    env = gym.make("opt_sched/BatchScheduling-v0", workload="KTH-SP2.swf.gz")
    obs, info = env.reset(seed=0)

Modules: ``workload`` (job streams and windows), ``engine`` (the event
engine, EASY backfilling underneath), ``features`` (the observation),
``rewards``, ``episode`` (validation, metrics, the bracket), ``env`` (the
environment), ``baselines`` (FCFS, SJF, EASY, random as policies).
gymnasium is imported here and nowhere else in opt_sched.
"""

from __future__ import annotations

try:
    import gymnasium
except ImportError as err:  # pragma: no cover - the extra is missing
    raise ImportError("opt_sched.gym needs gymnasium: pip install "
                      "'opt_sched[gym]'") from err

from .env import MASKS, BatchSchedulingEnv

__all__ = ["ENV_ID", "MASKS", "BatchSchedulingEnv"]

ENV_ID = "opt_sched/BatchScheduling-v0"
"""The registered id."""

if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="opt_sched.gym.env:BatchSchedulingEnv")
