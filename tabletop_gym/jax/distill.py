"""A network distilled from the Python heuristic bot: the ``heuristic-net`` opponent of training.

Training "against the heuristic" inside one ``jax.jit`` needs the heuristic as a JAX function.
Rather than write the bot a second time, its decisions are cloned into the actor network of
:mod:`tabletop_gym.jax.train` by behaviour cloning:

1. :func:`collect` plays seeded Python games with the heuristic bot in every seat and records,
   at every decision, the reference observer's vector (bit-identical to the batched engine's
   ``observe``), the legal mask and the bot's action. With probability ``explore`` the seat then
   plays a uniformly random legal action instead (the label stays the bot's), so the data also
   covers positions the bot would not steer into, as a learner's opponent meets them.
2. :func:`distill` fits the actor by cross-entropy over the legal actions (optax Adam,
   minibatches, epochs) and reports its **agreement**: the share of held-out decisions where its
   greedy masked argmax is the bot's action.
3. The result is an ordinary policy checkpoint (``jax:<path>``, :mod:`tabletop_gym.agents.
   jax_policy`), recording the games, the samples and the agreement. The trainer plays it
   greedily in the non-learner seats with ``opponents="heuristic-net"``; the learner is always
   scored against the real Python heuristic.

Command line: ``python -m tabletop_gym.jax.distill --game rapa_nui --players 2 --games 2000
--out heuristic_net.npz``.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import pathlib
import sys
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax

from tabletop_gym.jax.core import make
from tabletop_gym.jax.train import (
    ACTIVATIONS,
    TrainConfig,
    Trainer,
    load_params,
    portable_path,
    save_checkpoint,
)


@dataclasses.dataclass(frozen=True)
class Samples:
    """Decisions of the heuristic bot.

    Attributes:
        observation: ``(N, observation_size)`` observer vectors: float32, or uint8 where
            :func:`collect` found every value a whole number in 0..255 (lossless, and a quarter
            of the memory: every shipped game's observer gives such vectors).
        action_mask: ``(N, num_actions)`` bool legal masks.
        action: ``(N,)`` the bot's action at each.
        games: Games played to collect them.
        gain: ``(N, num_actions)`` for a search teacher's decisions (``collect(gains=True)``):
            each candidate's mean value over the worlds minus that of the policy's own move, 0
            for a move not searched (and for every move of a decision with one legal move).
    """

    observation: np.ndarray
    action_mask: np.ndarray
    action: np.ndarray
    games: int
    gain: np.ndarray | None = None


def collect(game: str, num_players: int, games: int, seed: int = 0, explore: float = 0.1,
            teacher: str = "heuristic", gains: bool = False, **config: Any) -> Samples:
    """Play ``games`` seeded games of heuristic bots and record every decision with its label.

    Args:
        game: Game name.
        num_players: Seats.
        games: Games to play (deal seeds ``seed .. seed + games - 1``).
        seed: First deal's seed; also seeds the bots' tie-breaks and the exploring moves.
        explore: Chance that a seat plays a random legal action after recording the bot's.
        teacher: The agent spec in every seat whose moves are the labels (default the
            heuristic; a search agent such as ``search:<policy>?worlds=8`` for expert
            iteration, handed the engine state as it is in play).
        gains: Record each decision's :attr:`Samples.gain` (a search teacher only).
        **config: Further game config switches.

    Raises:
        ValueError: On no games, ``explore`` outside [0, 1], or ``gains`` of a teacher that is
            not a search.
    """
    from tabletop_gym.agents.base import choose_action
    from tabletop_gym.agents.kinds import is_kind, make_agent
    from tabletop_gym.arena.envs import raw_env_factory

    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    if not 0.0 <= explore <= 1.0:
        raise ValueError(f"explore must lie in [0, 1], got {explore}")
    if gains and not is_kind(teacher, "search"):
        raise ValueError(f"gains are the search's values; the teacher {teacher!r} is not a "
                         "search: agent")
    from tabletop_gym.agents.base import reference_size

    env = raw_env_factory(game)(num_players=num_players, **config)
    size = reference_size(env.observer)  # what the batched engine's observe gives
    rng = np.random.default_rng(seed)
    # One block per game, kept compact: a collection of a million decisions and more would
    # otherwise be held twice over in float32 while it is stacked.
    obs_blocks: list[np.ndarray] = []
    mask_blocks: list[np.ndarray] = []
    actions: list[int] = []
    gain_rows: list[np.ndarray] = []
    for g in range(games):
        obs_rows: list[np.ndarray] = []
        mask_rows: list[np.ndarray] = []
        env.reset(seed=seed + g)
        bots = {name: make_agent(teacher, env.game, env.observer, rng)
                for name in env.possible_agents}
        for name in env.agent_iter():
            obs, _r, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            bot: Any = bots[name]
            searched = getattr(bot, "searches", 0)
            label = int(choose_action(bot, env, name))
            mask = np.asarray(obs["action_mask"], bool)
            if gains:
                row = np.zeros(mask.shape, np.float32)
                if bot.searches > searched:  # one legal move is played unsearched
                    values = bot.last_values  # the policy's own move first
                    own = next(iter(values.values()))
                    for a, v in values.items():
                        row[a] = v - own
                gain_rows.append(row)
            obs_rows.append(np.asarray(obs["observation"][:size], np.float32))
            mask_rows.append(mask)
            actions.append(label)
            move = label
            if explore and rng.random() < explore:
                move = int(rng.choice(np.flatnonzero(mask)))
            env.step(move)
        if obs_rows:
            obs_blocks.append(_compact(np.stack(obs_rows)))
            mask_blocks.append(np.stack(mask_rows))
    return Samples(_concatenate(obs_blocks), _concatenate(mask_blocks),
                   np.asarray(actions, np.int32), games,
                   np.stack(gain_rows) if gains else None)


def _compact(block: np.ndarray) -> np.ndarray:
    """``block`` as uint8 where that keeps every value exactly, else as it is."""
    small = block.astype(np.uint8)
    return small if np.array_equal(small, block) else block


def _concatenate(blocks: list[np.ndarray]) -> np.ndarray:
    """The blocks one after another, each released once copied (``blocks`` ends empty).

    Peak memory is the result and one block, where ``np.concatenate`` holds all of them and
    the result together. The result is uint8 where every block is, else float32.
    """
    kinds = {b.dtype for b in blocks}
    dtype = blocks[0].dtype if len(kinds) == 1 else np.dtype(np.float32)
    out = np.empty((sum(b.shape[0] for b in blocks), *blocks[0].shape[1:]), dtype)
    at = 0
    blocks.reverse()  # popped from the end, in order
    while blocks:
        b = blocks.pop()
        out[at:at + b.shape[0]] = b
        at += b.shape[0]
    return out


def greedy(trainer: Trainer, params: Any, samples: Samples, rows: np.ndarray,
           chunk: int = 4096) -> np.ndarray:
    """The network's greedy masked argmax at each of ``rows``.

    The rows go through the network ``chunk`` at a time: every row's observation at once would
    take several times the samples' own memory on a large collection.
    """
    picks = [np.asarray(jnp.argmax(trainer.apply(
        params, jnp.asarray(samples.observation[rows[i:i + chunk]], jnp.float32),
        jnp.asarray(samples.action_mask[rows[i:i + chunk]]))[0], -1))
        for i in range(0, rows.size, chunk)]
    return np.concatenate(picks) if picks else np.zeros(0, np.int64)


def agreement(trainer: Trainer, params: Any, samples: Samples, rows: np.ndarray) -> float:
    """Share of ``rows`` where the network's greedy masked argmax is the bot's action.

    Raises:
        ValueError: On no rows.
    """
    if rows.size == 0:
        raise ValueError("agreement needs at least one row")
    return float(np.mean(greedy(trainer, params, samples, rows) == samples.action[rows]))


def distill(game: str, num_players: int, samples: Samples, hidden: tuple[int, ...] = (64, 64),
            activation: str = "tanh", epochs: int = 20, batch_size: int = 512,
            lr: float = 1e-3, holdout: float = 0.1, seed: int = 0, init: str | None = None,
            beta: float | None = None, **config: Any) -> tuple[Trainer, Any, dict[str, Any]]:
    """Fit the actor to the bot's decisions; the trainer (for its network), params and report.

    The decisions are split at random into a training part and ``holdout`` for the agreement.
    With ``init`` (a ``jax:`` checkpoint path) the fit starts from that network, with its layers
    and activation (``hidden`` and ``activation`` are then not read), instead of a fresh one: a
    warm start keeps what the network knows where the labels do not speak.

    With ``beta`` (a search's samples with :attr:`Samples.gain`, and ``init``) the target is not
    the searched move but the starting network's policy improved by the search's values,
    ``softmax(logits + beta * gain)`` over the legal moves: where the worlds found little
    difference the network's own preferences stand, and a move's weight grows with its gain
    rather than jumping to whichever candidate won on a few worlds.

    Raises:
        ValueError: On a holdout outside (0, 1), no epochs, too few samples to hold out any, an
            ``init`` that is not a checkpoint of this game and table, or a ``beta`` without
            gains or ``init``.
    """
    if not 0.0 < holdout < 1.0:
        raise ValueError(f"holdout must lie in (0, 1), got {holdout}")
    if epochs < 1 or batch_size < 1:
        raise ValueError(f"epochs and batch_size must be at least 1, got {epochs}, {batch_size}")
    if beta is not None and (samples.gain is None or init is None or not beta >= 0):
        raise ValueError("beta (>= 0) improves the starting network's policy by the search's "
                         "gains: it needs init and samples collected with gains=True; got "
                         f"beta={beta!r}, init={init!r}, gains "
                         f"{'present' if samples.gain is not None else 'absent'}")
    n = samples.action.shape[0]
    n_hold = math.floor(holdout * n)
    if n_hold < 1 or n - n_hold < 1:
        raise ValueError(f"{n} samples are too few to hold out {holdout:.0%}")
    bg = make(game, num_players=num_players, **config)
    if init is not None:
        from tabletop_gym.agents.jax_policy import load_policy

        meta = load_policy(init)[1]
        hidden, activation = tuple(int(h) for h in meta["hidden"]), str(meta["activation"])
    trainer = Trainer(bg, TrainConfig(hidden=tuple(hidden), activation=activation))
    order = np.random.default_rng(seed).permutation(n)
    hold, fit = order[:n_hold], order[n_hold:]
    params = (trainer.init_params(jax.random.PRNGKey(seed)) if init is None else
              load_params(trainer, init, jax.random.PRNGKey(seed)))
    start_agreement = (None if init is None else
                       round(agreement(trainer, params, samples, hold), 4))
    num_actions = samples.action_mask.shape[1]
    if beta is None:
        targets = None
    else:
        # Fixed once, from the starting network: the fit moves towards one improvement of it.
        assert samples.gain is not None
        targets = np.concatenate([np.asarray(jax.nn.softmax(
            trainer.apply(params, jnp.asarray(samples.observation[i:i + 4096], jnp.float32),
                          jnp.asarray(samples.action_mask[i:i + 4096]))[0]
            + beta * jnp.asarray(samples.gain[i:i + 4096]), -1)) for i in range(0, n, 4096)])
    opt = optax.adam(lr)
    opt_state = opt.init(params)

    def loss(p: Any, obs: jax.Array, mask: jax.Array, target: jax.Array) -> jax.Array:
        logits, _ = trainer.apply(p, obs, mask)
        # Illegal moves have no weight in any target; 0 * log(~0) is kept out of the sum.
        terms = jnp.where(target > 0, target * jax.nn.log_softmax(logits), 0.0)
        return -terms.sum(-1).mean()

    @jax.jit
    def step(p: Any, s: Any, obs: jax.Array, mask: jax.Array,
             target: jax.Array) -> tuple[Any, Any, jax.Array]:
        value, grads = jax.value_and_grad(loss)(p, obs, mask, target)
        updates, s = opt.update(grads, s, p)
        return optax.apply_updates(p, updates), s, value

    def target_rows(idx: np.ndarray) -> jax.Array:
        if targets is None:
            return jax.nn.one_hot(samples.action[idx], num_actions)
        return jnp.asarray(targets[idx])

    rng = np.random.default_rng(seed + 1)
    size = min(batch_size, fit.size)
    steps = fit.size // size
    t0 = time.perf_counter()
    last = float("nan")
    for _ in range(epochs):
        shuffled = rng.permutation(fit)
        for b in range(steps):
            idx = shuffled[b * size:(b + 1) * size]
            params, opt_state, value = step(params, opt_state,
                                            jnp.asarray(samples.observation[idx],
                                                        jnp.float32),
                                            jnp.asarray(samples.action_mask[idx]),
                                            target_rows(idx))
            last = float(value)
    report = {
        "games": samples.games, "samples": int(n), "holdout_samples": int(n_hold),
        "epochs": epochs, "batch_size": size, "lr": lr, "final_loss": round(last, 5),
        "train_agreement": round(agreement(trainer, params, samples, fit), 4),
        "holdout_agreement": round(agreement(trainer, params, samples, hold), 4),
        **({} if init is None else {"init": portable_path(init),
                                    "init_holdout_agreement": start_agreement}),
        **({} if targets is None else {
            "beta": beta,
            # The share of decisions where the improved policy's favourite is the searched move.
            "target_agreement_with_labels": round(float(np.mean(
                targets.argmax(1) == samples.action)), 4),
            "holdout_agreement_with_target": round(float(np.mean(
                greedy(trainer, params, samples, hold) == targets[hold].argmax(1))), 4)}),
        "seconds": round(time.perf_counter() - t0, 1),
    }
    return trainer, params, report


def distill_to(path: str | pathlib.Path, game: str, num_players: int, games: int = 2000,
               seed: int = 0, explore: float = 0.1, hidden: tuple[int, ...] = (64, 64),
               epochs: int = 20, activation: str = "tanh", **config: Any) -> dict[str, Any]:
    """Collect, distil and save a ``heuristic-net`` checkpoint; the report it records."""
    samples = collect(game, num_players, games, seed=seed, explore=explore, **config)
    trainer, params, report = distill(game, num_players, samples, hidden=hidden,
                                      activation=activation, epochs=epochs, seed=seed, **config)
    report["explore"] = explore
    save_checkpoint(path, trainer, params, seed=seed, learner_steps=0, iterations=0,
                    algorithm="behaviour cloning of the Python heuristic (tabletop_gym.jax."
                              "distill)", distilled=report)
    return report


VERSIONS = (1, 2, 3)
"""The shipped distilled heuristics. Version 1 (``heuristic-net``) is the trainer's opponent and
the continuation of the searches first shipped; version 2 (``heuristic-net-v2``) is fitted on
several times the games, agrees with the heuristic more often, and continues the search at four
players and solo; version 3 (``heuristic-net-v3``, Positano at 2 and 4 players) is the same size
with ReLU units, fitted on three times version 2's games again. All are kept: results trained or
scored against one name it."""


def shipped(game: str, num_players: int, version: int = 1) -> pathlib.Path:
    """The package's distilled heuristic of a game and table size (:data:`VERSIONS`).

    Raises:
        ValueError: For another version, or when none is shipped for the game and table (the
            message lists those that are).
    """
    from tabletop_gym.agents.base import shipped_file

    if version not in VERSIONS:
        raise ValueError(f"no distilled heuristic version {version!r}; shipped: {VERSIONS}")
    stem = "heuristic_net" if version == 1 else f"heuristic_net_v{version}"
    # Version 1's files are the heuristic_net_<game>_... ones, no other version's.
    family = "heuristic_net_[!v]*.npz" if version == 1 else f"{stem}_*.npz"
    what = "distilled heuristic" if version == 1 else f"distilled heuristic v{version}"
    return shipped_file(f"{stem}_{game}_{num_players}p.npz", family,
                        f"no {what} for {game} with {num_players} players",
                        " (make one: python -m tabletop_gym.jax.distill)")


def distilled_games() -> list[str]:
    """The games whose heuristic is distilled (benchmark block's ``distill``), by name."""
    from tabletop_gym.registry import game_specs

    return sorted(spec.name for spec in game_specs()
                  if spec.benchmark.distill and spec.batched is not None)


def main(argv: list[str] | None = None) -> int:
    """Command line: distil the heuristic of one game and table size into a checkpoint."""
    from tabletop_gym.console import line_buffered

    line_buffered(sys.stdout)  # a long job: each line reaches its log when it is printed
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", required=True, choices=distilled_games())
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--games", type=int, default=2000)
    p.add_argument("--explore", type=float, default=0.1)
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--hidden", type=int, nargs="+", default=[64, 64])
    p.add_argument("--activation", choices=sorted(ACTIVATIONS), default="tanh")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    try:
        report = distill_to(a.out, a.game, a.players, games=a.games, seed=a.seed,
                            explore=a.explore, hidden=tuple(a.hidden), epochs=a.epochs,
                            activation=a.activation)
    except ValueError as err:
        p.error(str(err))
    print(report)
    print(f"saved {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
