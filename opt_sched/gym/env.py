"""``opt_sched/BatchScheduling-v0``: batch scheduling of a trace window as a
Gymnasium environment (``docs/gym.md``).

An episode is a window of ``jobs`` consecutive jobs of a workload
(:mod:`opt_sched.gym.workload`), drawn by ``reset(seed=...)`` (or
``options={"start": i}``), on an empty machine of ``M`` nodes
(``options={"bracket": True}`` asks for the bracket of this episode only). At each
decision point the agent sees the first ``K`` queued jobs and the machine
(:mod:`opt_sched.gym.features`) and picks one of them (actions ``0 .. K-1``)
or "wait for the next event" (action ``K``). The engine
(:mod:`opt_sched.gym.engine`) starts the picked job when it fits, with EASY
backfilling underneath if ``backfill``; with ``mask="fits"`` only jobs that
fit now may be picked.

Decision points: the engine advances by itself while the queue is empty
(or, with ``mask="fits"``, while no visible job fits). The episode ends
(``terminated``) when every job of the window has started; it is never
truncated.

Masks: ``info["action_mask"]`` and :meth:`BatchSchedulingEnv.action_masks`
(int8 / bool, ``K + 1`` entries). A masked action is replaced by the first
legal one (``info["invalid_action"] = True``, reward ``- invalid_penalty``),
so random unmasked actions (``check_env``) still make episodes.

At the end ``info["episode"]`` holds the metrics
(:func:`~opt_sched.gym.episode.episode_metrics`), the episode's schedule has
passed opt_sched's validator (``validate=True``), and with ``bracket=True``
``info["bracket"]`` holds the certified bracket of the window
(:func:`~opt_sched.gym.episode.episode_bracket`).
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..errors import OptionError
from .engine import Engine
from .episode import (
    BRACKET_OBJECTIVES,
    episode_bracket,
    episode_metrics,
    stream_job,
    validate_episode,
)
from .features import FEATURES, Observer
from .rewards import Reward, reward_function
from .workload import JobStream, job_stream

__all__ = ["MASKS", "BatchSchedulingEnv"]

MASKS = ("queue", "fits")
"""``queue``: any visible job may be picked (it waits until it fits);
``fits``: only the visible jobs that fit now."""


def _int_option(name: str, value: object, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
            or value < low:
        raise OptionError(f"gym: {name}={value!r} must be an integer >= {low}")
    return int(value)


class BatchSchedulingEnv(gym.Env):
    """The environment (module doc).

    Parameters
    ----------
    workload
        A trace path, a :class:`~opt_sched.traces.Trace`, an
        :class:`~opt_sched.instance.Instance` or ``{"generator": NAME,
        **params}`` (:func:`~opt_sched.gym.workload.job_stream`).
    jobs
        ``n``, the jobs of a window (default 256, capped at the workload).
    visible
        ``K``, the visible queue.
    backfill
        EASY backfilling underneath a reserved job.
    mask
        :data:`MASKS`.
    reward
        ``"bsld"``, ``"wait"``, ``"utilisation"`` or a function
        (:mod:`opt_sched.gym.rewards`).
    validate
        Check every finished episode with the validator.
    bracket
        Put the window's certified bracket in the last ``info``
        (``bracket_objectives``, ``bracket_time_limit`` seconds each).
    invalid_penalty
        Subtracted from the reward of a masked action.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

    def __init__(self, workload: Any, *, jobs: int = 256, visible: int = 32,
                 backfill: bool = False, mask: str = "queue",
                 reward: str | Reward = "bsld", validate: bool = True,
                 bracket: bool = False,
                 bracket_objectives: tuple[str, ...] = BRACKET_OBJECTIVES,
                 bracket_time_limit: float = 10.0,
                 invalid_penalty: float = 0.0) -> None:
        super().__init__()
        self.stream = job_stream(workload)
        self.jobs = min(_int_option("jobs", jobs, 1), len(self.stream))
        self.visible = _int_option("visible", visible, 1)
        if mask not in MASKS:
            raise OptionError(f"gym: mask={mask!r} is not one of {', '.join(MASKS)}")
        self.mask = mask
        self.backfill = bool(backfill)
        self.reward_fn = reward_function(reward)
        self.validate = bool(validate)
        self.bracket = bool(bracket)
        from ..experiments.window import WINDOW_OBJECTIVES

        self.bracket_objectives = tuple(bracket_objectives)
        for name in self.bracket_objectives:
            if name not in WINDOW_OBJECTIVES:
                raise OptionError(f"gym: bracket_objectives entry {name!r} is not "
                                  f"one of {', '.join(WINDOW_OBJECTIVES)}")
        if isinstance(bracket_time_limit, bool) or not isinstance(
                bracket_time_limit, (int, float)) or not bracket_time_limit > 0:
            raise OptionError(f"gym: bracket_time_limit={bracket_time_limit!r} must "
                              "be a number > 0")
        self.bracket_time_limit = float(bracket_time_limit)
        self.invalid_penalty = float(invalid_penalty)
        self.action_space = spaces.Discrete(self.visible + 1)
        self.observation_space = spaces.Box(0.0, 1.0, (self.visible + 1, FEATURES),
                                            np.float32)
        self.window_start = 0
        self._bracket = self.bracket
        self.engine: Engine | None = None
        self._mask = np.zeros(self.visible + 1, np.int8)
        self._made: list = [None] * len(self.stream)  # Jobs built for validation

    # -- gymnasium API -------------------------------------------------
    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        last = len(self.stream) - self.jobs
        start = (options or {}).get("start")
        if start is None:
            start = int(self.np_random.integers(0, last + 1))
        elif isinstance(start, bool) or not isinstance(start, (int, np.integer)) \
                or not 0 <= start <= last:
            raise OptionError(f"gym: options.start={start!r} must be an integer in "
                              f"[0, {last}]")
        self.window_start = int(start)
        self._bracket = bool((options or {}).get("bracket", self.bracket))
        window = self.stream.window(self.window_start, self.jobs)
        self.engine = Engine(window, backfill=self.backfill)
        self.observer = Observer(self.engine, self.visible,
                                 fit_only=self.mask == "fits")
        self._settle()
        obs, self._mask = self.observer.observe()
        return obs, self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool,
                                          dict[str, Any]]:
        engine = self.engine
        if engine is None:
            raise OptionError("gym: step() before reset()")
        if engine.done:
            raise OptionError("gym: step() after the episode ended; call reset()")
        action = int(action)
        invalid = not (0 <= action <= self.visible and self._mask[action])
        if invalid:
            action = int(np.flatnonzero(self._mask)[0])
        engine.just_started = []
        if action == self.visible:
            engine.advance()
        else:
            engine.pick(engine.queue[action])
        started = engine.just_started
        self._settle()
        reward = float(self.reward_fn(engine, started))
        if invalid:
            reward -= self.invalid_penalty
        obs, self._mask = self.observer.observe()
        info = self._info()
        if invalid:
            info["invalid_action"] = True
        terminated = engine.done
        if terminated:
            info.update(self._final())
        return obs, reward, terminated, False, info

    def action_masks(self) -> np.ndarray:
        """The legal actions now (bool, ``K + 1``: the visible jobs, then
        "wait")."""
        return self._mask.astype(bool)

    # -- internals -----------------------------------------------------
    def _settle(self) -> None:
        """Advance while there is no decision to take (module doc)."""
        engine = self.engine
        assert engine is not None
        fit_only = self.mask == "fits"
        K = self.visible
        while not engine.done:
            queue = engine.queue
            if queue and not fit_only:
                return
            if queue and fit_only:
                nodes, free = engine._nodes, engine.free
                if any(nodes[j] <= free for j in queue[:K]):
                    return
            engine.advance()

    def _info(self) -> dict[str, Any]:
        engine = self.engine
        assert engine is not None
        return {"action_mask": self._mask, "now": float(engine.now),
                "queued": len(engine.queue), "started": engine.started,
                "window_start": self.window_start}

    def _final(self) -> dict[str, Any]:
        engine = self.engine
        assert engine is not None
        jobs: JobStream = engine.jobs
        out: dict[str, Any] = {"episode": episode_metrics(jobs, engine.start)}
        if self.validate or self._bracket:
            made, stream, first = self._made, self.stream, self.window_start
            for i in range(first, first + self.jobs):
                if made[i] is None:
                    made[i] = stream_job(stream, i)
            instance, schedule = validate_episode(
                jobs, engine.start, made=made[first:first + self.jobs])
            out["validated"] = True
            if self._bracket:
                out["bracket"] = episode_bracket(
                    instance, schedule, objectives=self.bracket_objectives,
                    time_limit=self.bracket_time_limit)
        return out
