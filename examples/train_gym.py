"""Train a small scheduling policy in ``opt_sched/BatchScheduling-v0`` with
the cross-entropy method, numpy only, and report its gap to the optimum.

    python examples/train_gym.py [--trace ../shared/data/swf/KTH-SP2.swf.gz]
        [--iterations 20] [--population 16] [--episodes 16] [--jobs 256]
        [--bracket-windows 3] [--smoke]

The policy scores every visible job with a linear function of its features
(``w . x_k``, :mod:`opt_sched.gym.features`) and picks the legal job of
highest score (it never waits); the environment backfills under it (EASY,
``--no-backfill`` to turn it off), as in RLScheduler. The cross-entropy
method keeps a Gaussian over ``w``: each iteration draws ``--population``
weight vectors, runs each on the same ``--episodes`` training windows
(drawn once), keeps the quarter with the lowest mean bounded slowdown and
refits the Gaussian to them. It prints the learning curve (the Gaussian's
mean policy, the population's best and mean, per iteration; FCFS and EASY
on the training windows for scale), then the trained policy against FCFS,
SJF and EASY on held-out windows, and, on ``--bracket-windows`` of them, the
certified bracket of the mean flow time: the policy is at least
``at_least`` and at most ``at_most`` above the optimum of the window (best
schedule found, proven lower bound).

``--smoke`` runs a handful of steps (the test does).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
TRACE = REPO.parent / "shared" / "data" / "swf" / "KTH-SP2.swf.gz"


def linear_policy(weights: np.ndarray):
    """Pick the legal job of highest ``w . x`` (else wait)."""
    def policy(observation: np.ndarray, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask[:-1])
        if not len(legal):
            return len(mask) - 1
        scores = observation[legal] @ weights
        return int(legal[np.argmax(scores)])
    return policy


def evaluate(env, policy, starts) -> float:
    """The mean bounded slowdown of ``policy`` over the windows ``starts``."""
    from opt_sched.gym.baselines import run_episode

    values = [run_episode(env, policy, start=s)[1]["episode"]["mean_bounded_slowdown"]
              for s in starts]
    return float(np.mean(values))


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trace", default=str(TRACE))
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--population", type=int, default=16)
    parser.add_argument("--episodes", type=int, default=16)
    parser.add_argument("--jobs", type=int, default=256)
    parser.add_argument("--test-windows", type=int, default=10)
    parser.add_argument("--bracket-windows", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-backfill", dest="backfill", action="store_false")
    parser.add_argument("--smoke", action="store_true",
                        help="a handful of steps: 2 iterations of 4, small windows")
    args = parser.parse_args(argv)
    if args.smoke:
        args.iterations, args.population, args.episodes = 2, 4, 1
        args.jobs, args.test_windows, args.bracket_windows = 16, 2, 1
        args.time_limit = 1.0

    from opt_sched.gym import BatchSchedulingEnv
    from opt_sched.gym.baselines import BASELINES, run_episode
    from opt_sched.gym.episode import episode_bracket, validate_episode
    from opt_sched.gym.features import FEATURES

    started = time.perf_counter()
    env = BatchSchedulingEnv(args.trace, jobs=args.jobs, backfill=args.backfill)
    last = len(env.stream) - env.jobs
    rng = np.random.default_rng(args.seed)
    mean, std = np.zeros(FEATURES), np.ones(FEATURES)
    elite_count = max(1, args.population // 4)
    starts = rng.integers(0, last + 1, args.episodes).tolist()
    scale = {name: evaluate(BatchSchedulingEnv(args.trace, jobs=args.jobs,
                                               **BASELINES[name][1]),
                            BASELINES[name][0](), starts)
             for name in ("fcfs", "easy")}
    print(f"mean bounded slowdown on {len(starts)} training windows of {env.jobs} "
          f"jobs (fcfs {scale['fcfs']:.3f}, easy {scale['easy']:.3f})")
    print("iteration  mean_policy  best_bsld  population_bsld")
    curve = []
    for it in range(args.iterations):
        population = mean + std * rng.standard_normal((args.population, FEATURES))
        scores = np.array([evaluate(env, linear_policy(w), starts)
                           for w in population])
        elite = population[np.argsort(scores)[:elite_count]]
        mean, std = elite.mean(axis=0), elite.std(axis=0) + 0.05
        centre = evaluate(env, linear_policy(mean), starts)
        curve.append((centre, float(scores.min()), float(scores.mean())))
        print(f"{it:9d}  {centre:11.3f}  {scores.min():9.3f}  {scores.mean():15.3f}")

    trained = linear_policy(mean)
    test = np.random.default_rng(args.seed + 1).integers(
        0, last + 1, args.test_windows).tolist()
    table = {"trained": evaluate(env, trained, test)}
    for name in ("fcfs", "sjf", "easy"):
        factory, options = BASELINES[name]
        baseline_env = BatchSchedulingEnv(args.trace, jobs=args.jobs, **options)
        table[name] = evaluate(baseline_env, factory(), test)
    print(f"\nmean bounded slowdown on {len(test)} held-out windows of {env.jobs} jobs")
    for name, value in table.items():
        print(f"  {name:8s} {value:9.3f}")

    brackets = []
    print("\nthe trained policy's gap to the optimum (mean flow time, per window)")
    print("  window  policy  best_found  lower_bound  at_least  at_most")
    for start in test[:args.bracket_windows]:
        run_episode(env, trained, start=start)
        instance, schedule = validate_episode(env.engine.jobs, env.engine.start)
        found = episode_bracket(instance, schedule,
                                time_limit=args.time_limit)["mean-flow-time"]
        brackets.append(found)
        print(f"  {start:6d}  {found['online']:.0f}  {found['best_found']:.0f}  "
              f"{found['lower_bound']:.0f}  {found['at_least']:.3f}  "
              f"{found['at_most']:.3f}")
    print(f"\n{time.perf_counter() - started:.0f} s")
    return {"curve": curve, "table": table, "brackets": brackets,
            "weights": mean.tolist()}


if __name__ == "__main__":
    main()
