"""What a RapaNui-v0 learner step costs at the least, against what its vector env spends on it.

Usage: ``python bench/floor.py [--steps 3000] [--warmup 300] [--reps 3]
[--learner heuristic|random] [--n-envs 8] [--ppo-steps 8192] [--ppo-reps 3]``.

First the vector env ``train()`` builds (8 envs, seed 0, ``train()``'s env kwargs; with
``--n-envs k`` it has k envs and steps 8/k times as often, so as many learner steps are timed)
is stepped as ``MaskablePPO`` steps it, both mask fetches of a step included, for ``--steps``
vector steps after ``--warmup`` untimed ones; its CPU time per learner step (the median over
three equal thirds of the timed steps) is the **vector env** row. The learner's moves are
chosen outside the timing: by default the heuristic's move (``train()``'s hinted policy starts
there and stays near it), or a random legal move. Every game finished in the timed steps is
kept with its learner seat.

Then those games are replayed with nothing but the work a learner step cannot do without, one
part added per pass, so that each row is the difference between two passes:

* **rules**: dealing each game and, at every position, its legal actions and the action;
* **observations**: the observer's kept vector brought up to date and the seat's view gathered
  wherever the env hands one out (before every learner decision, at the end of the game, and
  before every opponent decision that has a choice);
* **opponents**: the heuristic's decision (``act_on``) at every opponent decision with a choice.

What the vector env spends beyond the three is its **layers**: the AEC env's bookkeeping
(agent selection, masks, infos, rewards, the record), the single-agent env's opponent loop,
observation and info, the vector env's batches and episode statistics, resets and reseeding.
The replay steps one game at a time, so it also keeps its data warmer in the CPU caches than
eight interleaved envs do: the floor is a little lower than the same work inside the env.

Prints one row per part in microseconds of CPU time (``time.process_time``) per learner step,
the best of ``--reps`` passes each.

With ``--ppo-steps N`` (default 8192; 0 skips it) it also runs ``bench/run.py``'s
``ppo_env_share`` (the bench's MaskablePPO row) ``--ppo-reps`` times (default 3), takes the
run of median env share, and prints what the issue's target of an env
share of at most 15 % leaves the env: the rest of a learner step (the policy, the hint) times
15/85 is the env's budget inside training; over the ratio of the env's cost inside training to
its cost alone (the CPU caches the policy's step empties) it is the budget alone, to set
against the floor and the layers above.
"""

from __future__ import annotations

import argparse
import pathlib
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]

ENV_ID = "RapaNui-v0"


Game = tuple[int, list[int], int]
"""A finished game: its engine seed, its actions and the learner's engine seat."""


def timed_steps(
    venv: Any, obs: np.ndarray, steps: int, choose: Callable[[np.ndarray, np.ndarray], Any]
) -> tuple[float, np.ndarray]:
    """Step ``venv`` as ``MaskablePPO`` steps it; its CPU seconds and the last observations.

    Each of the ``steps`` vector steps fetches the masks both ways a step does
    (``action_masks()`` and ``env_method("action_masks")``) and steps the actions
    ``choose(obs, masks)`` picks; only the env's calls are timed, not ``choose``.
    ``bench/compare.py`` times another checkout's vector env with this same loop.
    """
    spent = 0.0
    for _ in range(steps):
        t = time.process_time()
        masks = venv.action_masks()
        venv.env_method("action_masks")
        spent += time.process_time() - t
        actions = choose(obs, masks)
        t = time.process_time()
        obs = venv.step(actions)[0]
        spent += time.process_time() - t
    return spent, obs


def play_vec(steps: int, learner: str, warmup: int = 300, n_envs: int = 8) -> tuple[
    float, list[Game], dict[str, Any]
]:
    """Step ``train()``'s vector env; CPU s per learner step and the finished games.

    Returns:
        The vector env's CPU seconds per learner step over ``steps`` vector steps, and each
        game finished in them as ``(engine seed, actions, learner's engine seat)``, and the
        game's config.
    """
    from tabletop_gym.envs.rapa_nui.bot import RapaNuiHeuristic
    from tabletop_gym.integrations.sb3 import make_vec_env
    from tabletop_gym.tasks.recipes import DEFAULT_ENV_KWARGS
    from tabletop_gym.wrappers.single_agent import SingleAgentEnv

    venv = make_vec_env(ENV_ID, n_envs=n_envs, seed=0,
                        env_kwargs=DEFAULT_ENV_KWARGS.get(ENV_ID))
    first = venv.envs[0].aec
    chooser = RapaNuiHeuristic(first.game, first.observer, np.random.default_rng(0))
    rng = np.random.default_rng(0)
    finished: list[Game] = []
    keep = [False]
    reset = SingleAgentEnv.reset

    def reset_keeping(self: SingleAgentEnv, **kwargs: Any) -> Any:
        # A finished game is kept as it is reset away: its engine seed and actions, what
        # record() holds (without record()'s provenance, which would cost more than the game).
        aec = self.aec
        if keep[0] and aec.state_obj is not None and aec.state_obj.is_terminal():
            finished.append((aec._engine_seed, list(aec._actions), aec.seat_of(self._learner)))
        return reset(self, **kwargs)

    def choose(obs: np.ndarray, masks: np.ndarray) -> Any:
        if learner == "random":
            return (rng.random(masks.shape) * masks).argmax(axis=1)
        return np.array([chooser.act_on(o, m.nonzero()[0].tolist())
                         for o, m in zip(obs, masks, strict=True)])

    SingleAgentEnv.reset = reset_keeping  # type: ignore[method-assign]
    try:
        obs = venv.reset()
        obs = timed_steps(venv, obs, warmup, choose)[1]
        keep[0] = True
        # The median of three thirds: one disturbed stretch of a shared machine moves it less.
        third = max(1, steps // 3)
        thirds = []
        for _ in range(3):
            spent, obs = timed_steps(venv, obs, third, choose)
            thirds.append(spent)
        spent = statistics.median(thirds)
        steps = third
    finally:
        SingleAgentEnv.reset = reset  # type: ignore[method-assign]
    return spent / (steps * venv.num_envs), finished, first.game.config.to_dict()


def replay(
    games: list[Game], config: dict[str, Any], parts: int
) -> tuple[float, int]:
    """Replay ``games`` doing the first ``parts`` of rules, observations, opponents.

    Returns:
        CPU seconds spent and the learner decisions replayed.
    """
    from tabletop_gym.envs.rapa_nui.bot import RapaNuiHeuristic
    from tabletop_gym.envs.rapa_nui.observer import RapaNuiObserver
    from tabletop_gym.envs.rapa_nui.rules import RapaNuiGame

    game = RapaNuiGame(**config)
    observer = RapaNuiObserver(game)
    bots = [RapaNuiHeuristic(game, observer, np.random.default_rng(q))
            for q in range(game.num_players)]
    observe = parts >= 2
    decide = parts >= 3
    decisions = 0
    t = time.process_time()
    for seed, actions, seat in games:
        state = game.new_initial_state(random.Random(seed))
        for action in actions:
            cur = state.current_player()
            legal = state._legal_actions()
            if cur == seat:
                decisions += 1
                if observe:
                    observer.encode(state, cur)
            elif len(legal) > 1 and observe:
                vector = observer.encode(state, cur)
                if decide:
                    bots[cur].act_on(vector, legal)
            state.apply_trusted_action(action)
        if observe:
            observer.encode(state, seat)  # the learner's last observation
    return time.process_time() - t, decisions


def check(games: list[Game], config: dict[str, Any]) -> None:
    """Replay each game with every action checked: each must be legal and end the game.

    The timed passes apply the actions unchecked, as the env does after its own check; this
    pass makes sure they replay the games that were played.

    Raises:
        RuntimeError: When an action is illegal or a game does not end with its last action.
    """
    from tabletop_gym.core.game import IllegalActionError
    from tabletop_gym.envs.rapa_nui.rules import RapaNuiGame

    game = RapaNuiGame(**config)
    for i, (seed, actions, _seat) in enumerate(games):
        state = game.new_initial_state(random.Random(seed))
        try:
            for action in actions:
                state.apply_action(action)
        except IllegalActionError as err:
            raise RuntimeError(f"game {i} (engine seed {seed}) does not replay: {err}") from None
        if not state.is_terminal():
            raise RuntimeError(f"game {i} (engine seed {seed}) does not end with its actions")


def main(argv: list[str] | None = None) -> int:
    """Time the vector env, replay its games part by part, print the rows."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=3000, help="timed vector steps")
    p.add_argument("--reps", type=int, default=3, help="passes per replay row (best kept)")
    p.add_argument("--warmup", type=int, default=300, help="untimed vector steps first")
    p.add_argument("--learner", choices=("heuristic", "random"), default="heuristic")
    p.add_argument("--n-envs", type=int, default=8,
                   help="envs in the vector env (train() steps 8)")
    p.add_argument("--ppo-steps", type=int, default=8192,
                   help="learner steps of the bench's MaskablePPO row (0: skip the budget)")
    p.add_argument("--ppo-reps", type=int, default=3, help="MaskablePPO runs (the median is used)")
    p.add_argument("--target", type=float, default=0.15, help="the env share to budget for")
    args = p.parse_args(argv)
    # This checkout's package (only when run as a script: bench/compare.py loads this file to
    # time another checkout's package with timed_steps).
    sys.path.insert(0, str(ROOT))
    scale = 8 / args.n_envs  # as many learner steps as 8 envs take
    per_step, games, config = play_vec(int(args.steps * scale), args.learner,
                                       int(args.warmup * scale), args.n_envs)
    if not games:
        raise SystemExit("no game finished in the timed steps; give more --steps")
    check(games, config)
    decisions = replay(games, config, 1)[1]
    costs = [min(replay(games, config, parts)[0] for _ in range(args.reps)) / decisions
             for parts in (1, 2, 3)]
    rules, observations, opponents = costs[0], costs[1] - costs[0], costs[2] - costs[1]
    floor = costs[2]
    us = 1e6
    print(f"{ENV_ID}, {len(games)} games ({args.learner} learner, {args.n_envs} envs), "
          "CPU µs per learner step:")
    print("| part | µs per learner step | share of the vector env |")
    print("|---|---|---|")
    for name, value in (("rules", rules), ("observations", observations),
                        ("opponents' decisions", opponents), ("**floor** (the three)", floor),
                        ("layers (the rest)", per_step - floor),
                        ("**vector env**", per_step)):
        print(f"| {name} | {us * value:.1f} | {100 * value / per_step:.0f} % |")
    if args.ppo_steps:
        budget(per_step, floor, args.ppo_steps, args.target, args.ppo_reps)
    return 0


def budget(per_step: float, floor: float, ppo_steps: int, target: float, reps: int = 3) -> None:
    """Print the env's budget at an env share of ``target`` against the floor and the layers."""
    sys.path.insert(0, str(ROOT / "bench"))
    from run import ppo_env_share

    rows = [ppo_env_share(ENV_ID, ppo_steps) for _ in range(reps)]
    # The median run by env share, whose own figures are used together.
    row = sorted(rows, key=lambda r: r["env_share"])[len(rows) // 2]
    env = row["env_us_per_step"]
    step = 1e6 / row["timesteps_per_s"]  # CPU µs of a whole learner step
    allowed = target / (1 - target) * (step - env)
    inflation = env / (1e6 * per_step)
    alone = allowed / inflation
    share = 100 * row["env_share"]
    print(f"\nInside MaskablePPO (the median of {reps} runs of {ppo_steps} learner steps): env "
          f"share {share:.1f} %, env "
          f"{env:.1f} µs of a {step:.0f} µs learner step; {inflation:.2f} times its cost alone.")
    print(f"An env share of {100 * target:.0f} % allows the env {allowed:.1f} µs inside training, "
          f"{alone:.1f} µs alone: {alone - 1e6 * floor:+.1f} µs beside the floor "
          f"({1e6 * floor:.1f}), against layers of {1e6 * (per_step - floor):.1f} µs now.")


if __name__ == "__main__":
    raise SystemExit(main())
