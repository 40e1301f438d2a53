"""Steps per second of ``opt_sched/BatchScheduling-v0`` with a random agent,
and the baselines' table (issue 28, items 3 and 4; ``docs/gym.md``).

    python scripts/bench_gym.py [--trace ../shared/data/swf/KTH-SP2.swf.gz]
        [--episodes 100] [--jobs 256]
    python scripts/bench_gym.py --baselines 20 [--bracket] [--time-limit 10]

Speed: KTH-SP2 windows of ``--jobs`` jobs (default 256), drawn by
``reset(seed=k)``, an agent drawing a legal action uniformly (jobs and
"wait"), the environment made by ``gymnasium.make`` (its default wrappers
included), every episode validated, on one core: the figure is steps per
second of this process's CPU time (``time.process_time``; the machine may
be shared), with the wall-clock figure beside it, and the same without the
validation (``validate=False``). Goal: >= 20,000 steps/s.

Baselines: FCFS, SJF, EASY (FCFS with the environment's backfilling) and
random on ``--baselines`` windows drawn with ``--seed``: mean bounded
slowdown, mean flow time, mean wait, utilisation and, with ``--bracket``,
the gap bracket on the mean flow time (``at_least`` / ``at_most``: the
policy is at least / at most that far above the optimum) and the number of
windows where the lower bound is at most the policy's value.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TRACE = REPO.parent / "shared" / "data" / "swf" / "KTH-SP2.swf.gz"


def speed(trace: str, episodes: int, jobs: int, validate: bool) -> dict[str, float]:
    """Steps, CPU and wall seconds of ``episodes`` random-agent episodes."""
    import gymnasium
    import numpy as np

    import opt_sched.gym  # noqa: F401  (registers the id)

    env = gymnasium.make("opt_sched/BatchScheduling-v0", workload=trace, jobs=jobs,
                         validate=validate)
    draws = np.random.default_rng(0).random(1 << 20).tolist()
    k = steps = 0
    env.reset(seed=0)
    cpu, wall = time.process_time(), time.perf_counter()
    for episode in range(episodes):
        _, info = env.reset(seed=episode)
        done = False
        while not done:
            legal = info["action_mask"].nonzero()[0]
            action = legal[int(draws[k] * len(legal))]
            k = (k + 1) & ((1 << 20) - 1)
            _, _, done, _, info = env.step(action)
            steps += 1
    return {"steps": steps, "cpu": time.process_time() - cpu,
            "wall": time.perf_counter() - wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trace", default=str(TRACE))
    parser.add_argument("--episodes", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=256)
    parser.add_argument("--baselines", type=int, default=0, metavar="WINDOWS")
    parser.add_argument("--bracket", action="store_true")
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.baselines:
        from opt_sched.gym.baselines import baseline_table

        started = time.perf_counter()
        rows = baseline_table(args.trace, windows=args.baselines, jobs=args.jobs,
                              seed=args.seed, bracket=args.bracket,
                              time_limit=args.time_limit)
        columns = ["policy", "windows", "mean_bounded_slowdown", "mean_flow_time",
                   "mean_wait", "utilisation"]
        if args.bracket:
            columns += ["at_least", "at_most", "bound_holds"]
        print(f"{Path(args.trace).name}: {args.baselines} windows of {args.jobs} "
              f"jobs (seed {args.seed}), {time.perf_counter() - started:.0f} s")
        print("| " + " | ".join(columns) + " |")
        print("|" + "---|" * len(columns))
        for row in rows:
            cells = [f"{row[c]:.3f}" if isinstance(row[c], float) else str(row[c])
                     for c in columns]
            print("| " + " | ".join(cells) + " |")
        return
    for validate in (True, False):
        r = speed(args.trace, args.episodes, args.jobs, validate)
        print(f"{'validated' if validate else 'not validated':>13}: {r['steps']} "
              f"steps in {r['cpu']:.2f} s CPU ({r['steps'] / r['cpu']:,.0f} steps/s "
              f"on one core), {r['wall']:.2f} s wall "
              f"({r['steps'] / r['wall']:,.0f} steps/s)")


if __name__ == "__main__":
    main()
