"""opt_sched.gym: the Gymnasium environment (issue 28, items 3-5)."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from opt_sched.errors import OptionError  # noqa: E402
from opt_sched.gym import ENV_ID, BatchSchedulingEnv  # noqa: E402
from opt_sched.gym.baselines import (  # noqa: E402
    BASELINES,
    baseline_table,
    fcfs,
    random_policy,
    sjf,
)
from opt_sched.gym.episode import episode_instance, episode_schedule  # noqa: E402

from .paths import FIXTURES, REPO, shared_data_dir  # noqa: E402

HEAD = FIXTURES / "traces" / "kth-sp2-head.swf"  # 40 KTH-SP2 jobs, 100 nodes


@pytest.fixture(scope="module")
def kth() -> str:
    return str(shared_data_dir() / "swf" / "KTH-SP2.swf.gz")


def _episode(env, policy, **reset):
    """Observations, rewards and the final info of one episode."""
    obs, info = env.reset(**reset)
    seen, rewards, done = [obs], [], False
    while not done:
        obs, reward, done, truncated, info = env.step(policy(obs, info["action_mask"]))
        assert not truncated
        seen.append(obs)
        rewards.append(reward)
    return seen, rewards, info


def _validated(env):
    """The episode's instance and schedule, checked by the validator."""
    from opt_sched.validation import validate

    instance = episode_instance(env.engine.jobs)
    schedule = episode_schedule(env.engine.jobs, env.engine.start)
    assert validate(instance, schedule).feasible
    return instance, schedule


def test_the_id_is_registered_and_check_env_passes():
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(ENV_ID, workload=str(HEAD), jobs=24, visible=8)
    assert isinstance(env.unwrapped, BatchSchedulingEnv)
    check_env(env.unwrapped, skip_render_check=True)


def test_gymnasium_is_imported_only_by_opt_sched_gym():
    hits = [p for p in (REPO / "opt_sched").rglob("*.py")
            if "gymnasium" in p.read_text() and "gym" not in p.relative_to(
                REPO / "opt_sched").parts[:1]]
    assert hits == []


def test_two_runs_with_one_seed_give_identical_episodes(kth):
    runs = []
    for _ in range(2):
        env = BatchSchedulingEnv(kth, jobs=128, backfill=True)
        obs, rewards, info = _episode(env, random_policy(7), seed=11)
        runs.append((obs, rewards, info["episode"], env.engine.start.copy(),
                     env.window_start))
    (o1, r1, m1, s1, w1), (o2, r2, m2, s2, w2) = runs
    assert w1 == w2
    assert len(o1) == len(o2) and all(np.array_equal(a, b) for a, b in zip(o1, o2))
    assert r1 == r2 and m1 == m2 and np.array_equal(s1, s2)
    other = BatchSchedulingEnv(kth, jobs=128)
    other.reset(seed=12)
    assert other.window_start != w1  # the seed picks the window


def test_sync_vector_env_steps_with_masks():
    envs = gymnasium.vector.SyncVectorEnv(
        [lambda: gymnasium.make(ENV_ID, workload=str(HEAD), jobs=16, visible=4)] * 2)
    obs, infos = envs.reset(seed=[1, 2])
    assert obs.shape == (2, 5, 8)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(120):
        actions = [int(rng.choice(np.flatnonzero(m))) for m in infos["action_mask"]]
        obs, _, terminated, _, infos = envs.step(np.array(actions))
        assert obs.shape == (2, 5, 8) and obs.dtype == np.float32
        finished += int(terminated.sum())
    assert finished >= 2


def test_fcfs_is_the_built_in_fcfs_replay(kth):
    """Picking the queue head is FCFS: the same starts as opt_sched's own
    FCFS replay of the window (a separate engine)."""
    from opt_sched.scheduling import replay

    env = BatchSchedulingEnv(kth, jobs=256)
    for start in (0, 7000, 21000):
        _, _, info = _episode(env, fcfs, options={"start": start})
        instance, _ = _validated(env)
        reference = replay(instance, "fcfs")
        expected = [reference[job.id].start for job in instance.jobs]
        assert env.engine.start.tolist() == expected
        assert info["validated"]


def _easy_by_counts(submit, run, estimate, nodes, machines):
    """EASY backfilling on node counts, written for this test: at every
    event the queue is served in submit order; the first job that does not
    fit gets the earliest time enough nodes are free by the estimates, and a
    later job starts if it fits now and ends by then or uses only the nodes
    left over at that time."""
    n = len(submit)
    start = [None] * n
    running = []  # (real end, estimated end, nodes)
    queue = []
    now, k, free = 0.0, 0, machines
    while k < n or queue:
        now = min([r[0] for r in running] + ([submit[k]] if k < n else []))
        for r in [r for r in running if r[0] <= now]:
            running.remove(r)
            free += r[2]
        while k < n and submit[k] <= now:
            queue.append(k)
            k += 1
        while queue and nodes[queue[0]] <= free:
            j = queue.pop(0)
            start[j] = now
            free -= nodes[j]
            running.append((now + run[j], now + estimate[j], nodes[j]))
        if queue:
            head = queue[0]
            avail, shadow = free, None
            for _, est_end, q in sorted(running, key=lambda r: max(r[1], now)):
                avail += q
                if avail >= nodes[head]:
                    shadow, extra = max(est_end, now), avail - nodes[head]
                    break
            for j in list(queue[1:]):
                if nodes[j] <= free and (now + estimate[j] <= shadow
                                         or nodes[j] <= extra):
                    if now + estimate[j] > shadow:
                        extra -= nodes[j]
                    queue.remove(j)
                    start[j] = now
                    free -= nodes[j]
                    running.append((now + run[j], now + estimate[j], nodes[j]))
    return start


def test_easy_baseline_is_easy_backfilling(kth):
    env = BatchSchedulingEnv(kth, jobs=256, backfill=True)
    for start in (0, 1000, 20000):
        _episode(env, fcfs, options={"start": start})
        jobs = env.engine.jobs
        expected = _easy_by_counts(jobs.submit.tolist(), jobs.run.tolist(),
                                   jobs.estimate.tolist(), jobs.nodes.tolist(),
                                   jobs.machines)
        assert env.engine.start.tolist() == expected
        _validated(env)


def test_metrics_and_returns_match_opt_sched_metrics(kth):
    from opt_sched.metrics import summary
    from opt_sched.objectives import objective_value

    env = BatchSchedulingEnv(kth, jobs=200, reward="bsld")
    _, rewards, info = _episode(env, sjf, seed=3)
    instance, schedule = _validated(env)
    expected = summary(instance, schedule)
    metrics = info["episode"]
    assert metrics["mean_bounded_slowdown"] == pytest.approx(
        expected["mean_bounded_slowdown"], rel=1e-12)
    assert metrics["mean_wait"] == pytest.approx(expected["mean_wait"], rel=1e-12)
    assert metrics["max_flow_stretch"] == pytest.approx(
        objective_value(instance, schedule, "max-flow-stretch"), rel=1e-12)
    assert metrics["mean_flow_time"] == pytest.approx(
        objective_value(instance, schedule, "mean-flow-time"), rel=1e-12)
    assert math.fsum(rewards) == pytest.approx(-metrics["mean_bounded_slowdown"],
                                               rel=1e-9)
    wait_env = BatchSchedulingEnv(kth, jobs=200, reward="wait")
    _, rewards, info = _episode(wait_env, sjf, seed=3)
    assert math.fsum(rewards) == pytest.approx(-info["episode"]["mean_wait"] / 3600)
    use_env = BatchSchedulingEnv(kth, jobs=200, reward="utilisation")
    _, rewards, info = _episode(use_env, sjf, seed=3)
    area = sum(j.nodes * j.compute[0] for j in instance.jobs)
    span = max(s.compute_starts[0] + j.compute[0]
               for s, j in zip(schedule.jobs, instance.jobs)) - instance.jobs[0].release
    assert rewards[-1] == pytest.approx(area / (env.stream.machines * span))
    assert all(r == 0 for r in rewards[:-1])


def test_a_user_reward_function_is_called_with_the_started_jobs():
    seen = []

    def reward(engine, started):
        seen.extend(started)
        return float(len(started))

    env = BatchSchedulingEnv(str(HEAD), jobs=30, reward=reward, backfill=True)
    _, rewards, _ = _episode(env, fcfs, seed=0)
    assert sorted(seen) == list(range(30)) and sum(rewards) == 30


def test_masks_fits_mode_offers_only_jobs_that_fit_now(kth):
    env = BatchSchedulingEnv(kth, jobs=128, mask="fits")
    obs, info = env.reset(seed=5)
    done = False
    while not done:
        mask = info["action_mask"]
        assert np.array_equal(env.action_masks(), mask.astype(bool))
        legal = np.flatnonzero(mask[:-1])
        assert len(legal) or mask[-1]
        nodes = env.engine.jobs.nodes[np.array(env.engine.queue[:len(legal) and
                                                                env.visible], int)]
        assert all(nodes[k] <= env.engine.free for k in legal)
        assert all(obs[k, 6] == 1 for k in legal)
        obs, _, done, _, info = env.step(fcfs(obs, mask))
    _validated(env)


def test_a_masked_action_is_replaced_by_a_legal_one():
    env = BatchSchedulingEnv(str(HEAD), jobs=20, visible=4, invalid_penalty=1.0)
    _, info = env.reset(seed=0)
    masked = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, _, _, info = env.step(masked)
    assert info["invalid_action"] and reward <= -1.0


def test_bracket_lower_bound_is_at_most_the_episode_value(kth):
    env = BatchSchedulingEnv(kth, jobs=24, bracket_time_limit=2.0)
    _, _, info = _episode(env, fcfs, options={"start": 1234})
    assert "bracket" not in info
    _, _, info = _episode(env, fcfs, options={"start": 1234, "bracket": True})
    found = info["bracket"]["mean-flow-time"]
    value = info["episode"]["mean_flow_time"]
    assert found["online"] == pytest.approx(value, rel=1e-12)
    assert found["lower_bound"] <= value * (1 + 1e-9)
    assert found["lower_bound"] <= found["best_found"] * (1 + 1e-9)
    assert found["best_found"] <= value * (1 + 1e-9)


def test_baseline_table_runs_every_baseline_on_the_same_windows():
    rows = baseline_table(str(HEAD), windows=3, jobs=20, bracket=True,
                          time_limit=1.0)
    assert [r["policy"] for r in rows] == list(BASELINES)
    for row in rows:
        assert row["windows"] == 3 and row["bound_holds"] == 3
        assert row["mean_bounded_slowdown"] >= 1.0
        assert 0 <= row["at_least"] <= row["at_most"] + 1e-9


def test_workloads_batsim_generated_and_refused():
    from opt_sched.json_files import read_instance

    batsim = BatchSchedulingEnv(str(FIXTURES / "traces" / "workload-small.json"))
    _, _, info = _episode(batsim, fcfs, seed=0)
    assert info["validated"] and batsim.jobs == 4
    generated = BatchSchedulingEnv({"generator": "nersc-edison", "days": 0.5,
                                    "seed": 1}, jobs=64)
    _, _, info = _episode(generated, sjf, seed=0)
    assert info["validated"]
    with pytest.raises(OptionError, match="I/O phases"):
        BatchSchedulingEnv(read_instance(REPO / "instances" / "tucan5.json"))


@pytest.mark.parametrize("kwargs, field", [
    ({"jobs": 0}, "jobs=0"), ({"visible": "4"}, "visible='4'"),
    ({"mask": "all"}, "mask='all'"), ({"reward": "speed"}, "reward='speed'"),
    ({"bracket_objectives": ("bsld",)}, "entry 'bsld'"),
    ({"bracket_time_limit": 0}, "bracket_time_limit=0"),
])
def test_bad_options_are_one_line_option_errors(kwargs, field):
    with pytest.raises(OptionError, match=field) as err:
        BatchSchedulingEnv(str(HEAD), **kwargs)
    assert "\n" not in str(err.value)


def test_bad_workload_and_start_are_option_errors():
    with pytest.raises(OptionError, match="is not a file"):
        BatchSchedulingEnv("no-such-trace.swf")
    env = BatchSchedulingEnv(str(HEAD), jobs=30)
    with pytest.raises(OptionError, match=r"options\.start=11"):
        env.reset(options={"start": 11})


def test_train_example_runs_in_smoke_mode():
    done = subprocess.run(
        [sys.executable, str(REPO / "examples" / "train_gym.py"), "--smoke",
         "--trace", str(HEAD)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "mean_policy" in done.stdout and "at_most" in done.stdout


def test_the_docs_example_runs(kth):
    import re

    text = (REPO / "docs" / "gym.md").read_text()
    block = re.findall(r"```python\n(.*?)```", text, flags=re.S)[0]
    assert '"KTH-SP2.swf.gz"' in block
    scope: dict = {}
    exec(compile(block.replace('"KTH-SP2.swf.gz"', repr(kth)), "gym.md", "exec"),
         scope)
    assert scope["info"]["validated"] and scope["info"]["episode"]["jobs"] == 256


def test_a_batsim_trace_with_its_platform():
    from opt_sched.traces import read_trace

    folder = shared_data_dir() / "batsim-medium_late"
    trace, _ = read_trace(folder / "workload.json", folder / "platform.xml")
    env = BatchSchedulingEnv(trace, jobs=len(trace), backfill=True)
    _, _, info = _episode(env, fcfs, seed=0)
    assert env.stream.machines == trace.machine_size
    assert info["validated"] and info["episode"]["jobs"] == len(trace)
    expected = _easy_by_counts(env.engine.jobs.submit.tolist(),
                               env.engine.jobs.run.tolist(),
                               env.engine.jobs.estimate.tolist(),
                               env.engine.jobs.nodes.tolist(), env.stream.machines)
    assert env.engine.start.tolist() == expected
