"""Masked PPO on the batched engines: rollout, credit assignment and update in one ``jax.jit``.

In the style of PureJaxRL: one iteration (:meth:`Trainer.update`) steps ``num_envs`` games
``num_steps`` times by ``lax.scan`` over :class:`~tabletop_gym.jax.env.BatchedEnv`, assigns credit
seat by seat (:func:`seat_gae`) and runs ``epochs`` × ``minibatches`` clipped-PPO steps, all in one
compiled program; independent seeds are ``jax.vmap``-ped into that same program
(:meth:`Trainer.compiled`).

The network is a pair of flax ``linen`` MLPs (:class:`ActorCritic`: a separate actor and critic,
``hidden`` sizes, ``tanh`` by default) trained by optax Adam; illegal action ids get the logit
:data:`MASKED_LOGIT`, so they are never sampled and carry no probability.

One network plays every learner seat. Each seat's decisions form that seat's own trajectory: a
decision's reward is what the seat receives until its own next decision (in these games, its return
when the game ends, whoever made the last move), and GAE runs from one of the seat's decisions to
its next one, never through another seat's. A rollout that stops mid-game bootstraps each seat from
the critic's value of that seat's own view of the position the rollout stopped at (every seat's view
is computed once per rollout, :meth:`BatchedEnv.observe_all`). See :func:`seat_gae`.

Opponents (``opponents``) are chosen inside the jit, per game: ``"self"`` (every seat the learner),
``"random"`` (one learner seat, drawn per game, the others uniform among legal actions) or
``"pool"`` (the others a frozen past snapshot of the network, drawn per game by prioritised
fictitious self-play, :func:`pfsp_probabilities`) or ``"heuristic-net"`` (the others the network
distilled from the Python heuristic bot, :mod:`tabletop_gym.jax.distill`, played greedily; the
learner's win rate against it is logged). Only learner decisions enter the PPO loss.
A further ``eval_envs`` games per seed always play one learner seat against random seats and never
enter the loss: they give the win rate against random measured inside the jit.
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import json
import math
import pathlib
import time
from collections.abc import Callable
from typing import Any, NamedTuple

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax.sharding import Mesh

from tabletop_gym.core.batched import BatchedGame
from tabletop_gym.jax.actor import ACTIVATIONS, Actor, actor_logits, load_actor
from tabletop_gym.jax.core import make
from tabletop_gym.jax.devices import data_mesh, split_games
from tabletop_gym.jax.env import BatchedEnv, EnvState, TimeStep

MASKED_LOGIT = -1e9
"""The logit of an illegal action id: its probability underflows to exactly 0."""
OPPONENTS = ("self", "pool", "random", "heuristic-net")
"""Who plays the non-learner seats (see the module docstring)."""


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    """PPO settings (PureJaxRL's defaults where they apply).

    Attributes:
        num_envs: Games per seed whose learner decisions train the network.
        num_steps: Steps of every game per rollout (an iteration is ``num_envs * num_steps``
            decisions of training games).
        epochs: Passes over a rollout.
        minibatches: Minibatches per pass (must divide ``num_envs * num_steps``).
        lr: Adam step size.
        gamma: Discount per decision of the same seat.
        gae_lambda: GAE λ.
        clip_eps: PPO ratio (and value) clip.
        ent_coef: Entropy bonus over the legal actions.
        vf_coef: Value-loss weight.
        max_grad_norm: Global gradient-norm clip.
        hidden: Hidden layer sizes of each of the actor and the critic.
        activation: ``"tanh"`` or ``"relu"``.
        opponents: One of :data:`OPPONENTS`.
        opponent_net: The distilled heuristic's checkpoint (``opponents="heuristic-net"``).
        pool_size: Snapshots in the pool (``opponents="pool"``).
        pool_every: Iterations between two snapshots entering the pool (the oldest leaves).
        pfsp_power: Exponent ``p`` of the PFSP weight ``(1 - win rate)^p``.
        eval_envs: Further games per seed of one learner seat against random seats, outside the
            loss (0: none, and no win rate is measured).
    """

    num_envs: int = 512
    num_steps: int = 64
    epochs: int = 4
    minibatches: int = 4
    lr: float = 2.5e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_eps: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: tuple[int, ...] = (64, 64)
    activation: str = "tanh"
    opponents: str = "self"
    opponent_net: str | None = None
    pool_size: int = 4
    pool_every: int = 10
    pfsp_power: float = 2.0
    eval_envs: int = 64

    def __post_init__(self) -> None:
        """Refuse a setting out of range, naming it and what is allowed."""
        for name in ("num_envs", "num_steps", "epochs", "minibatches", "pool_size", "pool_every"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be an integer of at least 1, got {value!r}")
        if not isinstance(self.eval_envs, int) or self.eval_envs < 0:
            raise ValueError(f"eval_envs must be an integer of at least 0, got {self.eval_envs!r}")
        if (self.num_envs * self.num_steps) % self.minibatches:
            raise ValueError(f"minibatches={self.minibatches} must divide num_envs * num_steps = "
                             f"{self.num_envs * self.num_steps}")
        if self.opponents not in OPPONENTS:
            raise ValueError(f"opponents must be one of {OPPONENTS}, got {self.opponents!r}")
        if (self.opponents == "heuristic-net") != (self.opponent_net is not None):
            raise ValueError("opponent_net (the distilled heuristic's checkpoint) goes with "
                             f"opponents='heuristic-net' and only with it; got opponents="
                             f"{self.opponents!r}, opponent_net={self.opponent_net!r}")
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {tuple(ACTIVATIONS)}, "
                             f"got {self.activation!r}")
        hidden = tuple(self.hidden)
        if not hidden or not all(isinstance(h, int) and h >= 1 for h in hidden):
            raise ValueError(f"hidden must be a non-empty list of positive layer sizes, "
                             f"got {self.hidden!r}")
        object.__setattr__(self, "hidden", hidden)
        for name in ("lr", "clip_eps", "max_grad_norm"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)!r}")
        for name in ("gamma", "gae_lambda"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must lie in [0, 1], got {getattr(self, name)!r}")
        for name in ("ent_coef", "vf_coef", "pfsp_power"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"{name} must be at least 0, got {getattr(self, name)!r}")

    @classmethod
    def from_overrides(cls, overrides: dict[str, Any]) -> TrainConfig:
        """The defaults with ``overrides`` (unknown keys refused, listing the known ones)."""
        known = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(overrides) - set(known))
        if unknown:
            raise ValueError(f"unknown PPO setting(s) {unknown}; known: {known}")
        return cls(**overrides)


class MLP(nn.Module):
    """Hidden layers with an activation, then a linear output (orthogonal init, PureJaxRL's)."""

    hidden: tuple[int, ...]
    out: int
    activation: str
    out_scale: float

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        """The output for the rows of ``x``."""
        act = ACTIVATIONS[self.activation]
        for i, h in enumerate(self.hidden):
            layer = nn.Dense(h, kernel_init=nn.initializers.orthogonal(math.sqrt(2)),
                             bias_init=nn.initializers.zeros, name=f"hidden_{i}")
            x = act(layer(x))
        return nn.Dense(self.out, kernel_init=nn.initializers.orthogonal(self.out_scale),
                        bias_init=nn.initializers.zeros, name="out")(x)


class ActorCritic(nn.Module):
    """A separate actor MLP (masked logits) and critic MLP (the deciding seat's value)."""

    num_actions: int
    hidden: tuple[int, ...] = (64, 64)
    activation: str = "tanh"

    @nn.compact
    def __call__(self, obs: jax.Array, mask: jax.Array) -> tuple[jax.Array, jax.Array]:
        """``(logits, value)``: illegal ids get :data:`MASKED_LOGIT`."""
        logits = MLP(self.hidden, self.num_actions, self.activation, 0.01, name="actor")(obs)
        value = MLP(self.hidden, 1, self.activation, 1.0, name="critic")(obs)[..., 0]
        return jnp.where(mask, logits, MASKED_LOGIT), value


def seat_gae(
    players: jax.Array,
    dones: jax.Array,
    rewards: jax.Array,
    values: jax.Array,
    last_values: jax.Array,
    gamma: float,
    lam: float,
) -> tuple[jax.Array, jax.Array]:
    """GAE per seat of turn-based games: advantages and value targets of every decision.

    Step ``t`` of game ``b`` is a decision of seat ``players[t, b]`` (a negative id: no decision,
    as for a finished game without auto-reset), whose value estimate is ``values[t, b]``; then
    ``rewards[t, b]`` (every seat's) arrive and ``dones[t, b]`` says whether that ended the game.

    For a decision of seat ``p`` at ``t``, let ``t'`` be ``p``'s next decision in the same game.
    Its reward ``r`` is the sum of ``rewards[s, b, p]`` for ``t <= s < t'`` (up to the game's end
    when the game ends first, whoever moved last), and

    ``δ = r + γ·V' − V_t``, ``A_t = δ + γλ·A_t'``,

    with ``V' = values[t']`` and ``A_t'`` the advantage there; ``V' = A_t' = 0`` when the game
    ends before ``t'``; and when the rollout ends first, ``V' = last_values[b, p]`` (the value of
    ``p``'s own view of the position the rollout stopped at) and ``A_t' = 0``. Another seat's
    decisions in between are skipped, never chained through.

    Args:
        players: Int ``(T, B)``.
        dones: Bool ``(T, B)``.
        rewards: Float ``(T, B, N)``.
        values: Float ``(T, B)``.
        last_values: Float ``(B, N)``.
        gamma: Discount per decision of the same seat.
        lam: GAE λ.

    Returns:
        ``(advantages, targets)``, float ``(T, B)``; ``targets = advantages + values``; zeros
        where there is no decision.
    """
    n = rewards.shape[-1]
    seats = jnp.arange(n)
    zeros = jnp.zeros_like(last_values)

    def back(carry: tuple[jax.Array, ...], x: tuple[jax.Array, ...]) -> tuple[Any, jax.Array]:
        next_value, next_adv, pending, ended = carry
        player, done, reward, value = x
        d = done[:, None]
        # A game that ends here is not the one the later steps of this slot belong to.
        pending = jnp.where(d, reward, pending + reward)
        ended = d | ended
        follow = (~ended).astype(value.dtype)
        delta = pending + gamma * next_value * follow - value[:, None]
        adv = delta + gamma * lam * follow * next_adv
        mine = player[:, None] == seats
        out = jnp.where(mine, adv, 0.0).sum(1)
        carry = (
            jnp.where(mine, value[:, None], next_value),
            jnp.where(mine, adv, next_adv),
            jnp.where(mine, 0.0, pending),
            jnp.where(mine, False, ended),
        )
        return carry, out

    init = (last_values, zeros, zeros, jnp.zeros(last_values.shape, bool))
    _, adv = jax.lax.scan(back, init, (players, dones, rewards, values), reverse=True)
    has = (players >= 0).astype(values.dtype)
    return adv, (adv + values) * has


def pfsp_probabilities(wins: jax.Array, games: jax.Array, power: float) -> jax.Array:
    """Prioritised fictitious self-play: the chance of drawing each snapshot as the opponent.

    The learner's win rate against a snapshot is ``(wins + 1) / (games + 2)`` (an unplayed one
    counts as 0.5) and its weight ``(1 - win rate)^power``: the snapshots it beats least are
    drawn most (``power = 0``: uniform).
    """
    rate = (wins + 1.0) / (games + 2.0)
    weight = (1.0 - rate) ** power
    return weight / weight.sum()


def win_shares(returns: jax.Array) -> jax.Array:
    """Per seat, its share of the win from the returns: 1/k for each of the k best, else 0.

    Exact for ``reward_type="win_loss"`` (winners +1 or a shared win of all 0); for the other
    reward types it splits ties of the returns, not the rules' tie-breaks.
    """
    best = returns == returns.max(-1, keepdims=True)
    return best / best.sum(-1, keepdims=True)


class Transition(NamedTuple):
    """One step of a rollout (per game)."""

    observation: jax.Array
    action_mask: jax.Array
    action: jax.Array
    log_prob: jax.Array
    value: jax.Array
    player: jax.Array
    in_loss: jax.Array
    done: jax.Array
    rewards: jax.Array


class Runner(NamedTuple):
    """Everything one seed's training carries from one iteration to the next.

    Attributes:
        params: The learner network.
        opt_state: Adam's state.
        env_state: The games (``num_envs`` training games, then ``eval_envs``).
        timestep: Their last :class:`~tabletop_gym.jax.env.TimeStep`.
        learner_seat: Per game, the learner's seat (drawn anew when a game ends; unused by
            ``"self"`` training games, where every seat is the learner's).
        opponent: Per game, the pool slot of its opponents (``"pool"``).
        pool: The frozen snapshots, stacked (``pool_size`` on the leading axis).
        pool_wins: The learner's win shares against each snapshot since it entered.
        pool_games: Games against each snapshot since it entered.
        key: The next random draws.
        iteration: Updates done.
    """

    params: Any
    opt_state: Any
    env_state: EnvState
    timestep: TimeStep
    learner_seat: jax.Array
    opponent: jax.Array
    pool: Any
    pool_wins: jax.Array
    pool_games: jax.Array
    key: jax.Array
    iteration: jax.Array


@dataclasses.dataclass(frozen=True, eq=False)
class Trainer:
    """Masked PPO of one game and config (hashable by identity: a static argument of ``jit``).

    Args:
        game: The batched game (:func:`tabletop_gym.jax.core.make`).
        config: The PPO settings.
        devices: Local devices the games are split over (None: every one;
            :mod:`tabletop_gym.jax.devices`). Not a setting of the run: the results agree with
            one device's up to the order of floating-point sums.
    """

    game: BatchedGame
    config: TrainConfig = dataclasses.field(default_factory=TrainConfig)
    devices: int | None = None

    @functools.cached_property
    def mesh(self) -> Mesh | None:
        """The mesh the games are split over (None on one device)."""
        return data_mesh(self.env.batch_size, self.devices)

    def _split(self, r: Runner) -> Runner:
        """``r`` with its games split over the devices (the rest replicated)."""
        if self.mesh is None:
            return r
        e = r.env_state
        # Every field but the env's one key has the games on its leading axis.
        games, decks, shuffled, timestep, seat, opponent = split_games(
            (e.games, e.next_decks, e.shuffled, r.timestep, r.learner_seat, r.opponent),
            self.mesh)
        return r._replace(env_state=e._replace(games=games, next_decks=decks, shuffled=shuffled),
                          timestep=timestep, learner_seat=seat, opponent=opponent)

    @functools.cached_property
    def network(self) -> ActorCritic:
        """The actor-critic of this game's sizes."""
        return ActorCritic(self.game.num_actions, self.config.hidden, self.config.activation)

    @functools.cached_property
    def env(self) -> BatchedEnv:
        """The training games followed by the evaluation games."""
        return BatchedEnv(self.game, self.config.num_envs + self.config.eval_envs)

    @functools.cached_property
    def optimizer(self) -> optax.GradientTransformation:
        """Global-norm clip, then Adam."""
        c = self.config
        return optax.chain(optax.clip_by_global_norm(c.max_grad_norm), optax.adam(c.lr, eps=1e-5))

    @functools.cached_property
    def opponent_net(self) -> Actor:
        """The distilled heuristic's actor (``opponents="heuristic-net"``).

        Raises:
            ValueError: When it is missing, or was made for another game, table or observation.
        """
        g = self.game
        return load_actor(str(self.config.opponent_net), g.name, g.num_players,
                          g.observation_size)

    def _net_logits(self, obs: jax.Array, mask: jax.Array) -> jax.Array:
        """The distilled heuristic's greedy choice as logits: 0 at its masked argmax."""
        net = self.opponent_net
        best = jnp.argmax(jnp.where(mask, actor_logits(net.layers, net.activation, obs), -jnp.inf),
                          axis=-1)
        return jnp.where(jnp.arange(mask.shape[-1]) == best[:, None], 0.0, MASKED_LOGIT)

    def apply(self, params: Any, obs: jax.Array, mask: jax.Array) -> tuple[jax.Array, jax.Array]:
        """``(masked logits, value)`` of ``params`` on rows of observations and masks."""
        out: tuple[jax.Array, jax.Array] = self.network.apply(params, obs, mask)  # type: ignore[assignment]
        return out

    def init_params(self, key: jax.Array) -> Any:
        """Fresh network parameters."""
        g = self.game
        return self.network.init(key, jnp.zeros((1, g.observation_size), jnp.float32),
                                 jnp.ones((1, g.num_actions), bool))

    def init(self, key: jax.Array, params: Any = None) -> Runner:
        """One seed's starting state: fresh network, fresh deals, a pool of the fresh network.

        Args:
            key: The seed's key.
            params: The network to start from (default: fresh from ``key``, the same as
                :meth:`compiled` makes).
        """
        c = self.config
        k_net, k_env, k_seat, key = jax.random.split(key, 4)
        if params is None:
            params = self.init_params(k_net)
        env_state, ts = self.env.reset(k_env)
        size = self.env.batch_size
        pool = jax.tree.map(lambda x: jnp.broadcast_to(x, (c.pool_size, *x.shape)), params)
        return self._split(Runner(
            params=params,
            opt_state=self.optimizer.init(params),
            env_state=env_state,
            timestep=ts,
            learner_seat=jax.random.randint(k_seat, (size,), 0, self.game.num_players),
            opponent=jnp.arange(size, dtype=jnp.int32) % c.pool_size,
            pool=pool,
            pool_wins=jnp.zeros(c.pool_size, jnp.float32),
            pool_games=jnp.zeros(c.pool_size, jnp.float32),
            key=key,
            iteration=jnp.zeros((), jnp.int32),
        ))

    def _opponent_logits(self, r: Runner, ts: TimeStep) -> jax.Array:
        """The logits the non-learner seats sample from: a pool snapshot's, or uniform."""
        uniform = jnp.where(ts.action_mask, 0.0, MASKED_LOGIT)
        training = jnp.arange(self.env.batch_size) < self.config.num_envs
        if self.config.opponents == "heuristic-net":
            net = self._net_logits(ts.observation, ts.action_mask)
            return jnp.where(training[:, None], net, uniform)
        if self.config.opponents != "pool":
            return uniform
        # Every snapshot's logits for every game, then each game's own: cheaper than gathering a
        # copy of the weights per game.
        every = jax.vmap(lambda p: self.apply(p, ts.observation, ts.action_mask)[0])(
            r.pool)
        chosen = every[r.opponent, jnp.arange(ts.observation.shape[0])]
        return jnp.where(training[:, None], chosen, uniform)

    def _learner_decides(self, r: Runner, ts: TimeStep) -> jax.Array:
        """Per game, whether the seat to decide is the learner's."""
        mine = ts.current_player == r.learner_seat
        if self.config.opponents == "self":
            training = jnp.arange(self.env.batch_size) < self.config.num_envs
            return mine | training
        return mine

    def _step(self, r: Runner, _: Any) -> tuple[Runner, tuple[Transition, dict[str, jax.Array]]]:
        c, g = self.config, self.game
        ts = r.timestep
        key, k_learn, k_opp, k_seat, k_pick = jax.random.split(r.key, 5)
        logits, value = self.apply(r.params, ts.observation, ts.action_mask)
        learner_action = jax.random.categorical(k_learn, logits)
        log_prob = jnp.take_along_axis(jax.nn.log_softmax(logits), learner_action[:, None], 1)[:, 0]
        learner = self._learner_decides(r, ts)
        other_action = jax.random.categorical(k_opp, self._opponent_logits(r, ts))
        action = jnp.where(learner, learner_action, other_action)
        env_state, nts = self.env.step(r.env_state, action)

        size = self.env.batch_size
        rows = jnp.arange(size)
        training = rows < c.num_envs
        done = nts.done
        share = win_shares(nts.rewards)[rows, r.learner_seat]
        scored = done & training
        pool_games = r.pool_games + jax.ops.segment_sum(
            scored.astype(jnp.float32), r.opponent, c.pool_size)
        pool_wins = r.pool_wins + jax.ops.segment_sum(
            jnp.where(scored, share, 0.0), r.opponent, c.pool_size)
        evaluated = done & ~training
        stats = {
            "train_games": scored.sum(),
            "train_returns": jnp.where(scored[:, None], nts.rewards, 0.0).sum(0),
            "learner_return": jnp.where(scored, nts.rewards[rows, r.learner_seat], 0.0).sum(),
            "learner_wins": jnp.where(scored, share, 0.0).sum(),
            "eval_games": evaluated.sum(),
            "eval_wins": jnp.where(evaluated, share, 0.0).sum(),
            "eval_return": jnp.where(evaluated, nts.rewards[rows, r.learner_seat], 0.0).sum(),
        }
        probs = pfsp_probabilities(pool_wins, pool_games, c.pfsp_power)
        drawn = jax.random.categorical(k_pick, jnp.log(probs), shape=(size,))
        seat = jax.random.randint(k_seat, (size,), 0, g.num_players)
        transition = Transition(ts.observation, ts.action_mask, action, log_prob, value,
                                ts.current_player, learner & training, done, nts.rewards)
        r = r._replace(
            env_state=env_state, timestep=nts, key=key, pool_wins=pool_wins,
            pool_games=pool_games,
            learner_seat=jnp.where(done, seat, r.learner_seat),
            opponent=jnp.where(done, drawn.astype(jnp.int32), r.opponent),
        )
        return self._split(r), (transition, stats)

    def _loss(self, params: Any, batch: Transition, adv: jax.Array,
              targets: jax.Array) -> tuple[jax.Array, dict[str, jax.Array]]:
        c = self.config
        logits, value = self.apply(params, batch.observation, batch.action_mask)
        log_all = jax.nn.log_softmax(logits)
        log_prob = jnp.take_along_axis(log_all, batch.action[:, None], 1)[:, 0]
        w = batch.in_loss.astype(jnp.float32)
        n = jnp.maximum(w.sum(), 1.0)
        mean = (adv * w).sum() / n
        std = jnp.sqrt((((adv - mean) ** 2) * w).sum() / n)
        adv = (adv - mean) / (std + 1e-8)
        ratio = jnp.exp(log_prob - batch.log_prob)
        clipped = jnp.clip(ratio, 1.0 - c.clip_eps, 1.0 + c.clip_eps)
        policy = -(jnp.minimum(ratio * adv, clipped * adv) * w).sum() / n
        v_clip = batch.value + jnp.clip(value - batch.value, -c.clip_eps, c.clip_eps)
        v_loss = 0.5 * (jnp.maximum((value - targets) ** 2, (v_clip - targets) ** 2) * w).sum() / n
        probs = jax.nn.softmax(logits)
        entropy = -(jnp.where(batch.action_mask, probs * log_all, 0.0).sum(-1) * w).sum() / n
        total = policy + c.vf_coef * v_loss - c.ent_coef * entropy
        return total, {"policy_loss": policy, "value_loss": v_loss, "entropy": entropy}

    def update(self, r: Runner) -> tuple[Runner, dict[str, jax.Array]]:
        """One PPO iteration of one seed: rollout, credit, epochs of minibatches, pool refresh.

        Returns:
            The next runner state and the iteration's metrics (``learner_steps``: decisions in
            the loss; ``train_games`` and per-seat ``train_returns`` sums of the training games
            that ended; ``eval_games``, ``eval_wins``, ``eval_return`` of the games against
            random; the losses; ``pool_win_rate`` per snapshot).
        """
        c = self.config
        r, (traj, stats) = jax.lax.scan(self._step, self._split(r), None, c.num_steps)
        views = self.env.observe_all(r.env_state.games)
        _, last_values = self.apply(
            r.params, views, jnp.ones((*views.shape[:2], self.game.num_actions), bool))
        adv, targets = seat_gae(traj.player, traj.done, traj.rewards, traj.value, last_values,
                                c.gamma, c.gae_lambda)
        # Only the training games carry learner decisions.
        keep = slice(0, c.num_envs)
        data = jax.tree.map(lambda x: x[:, keep], (traj, adv, targets))
        flat = jax.tree.map(lambda x: x.reshape((-1, *x.shape[2:])), data)
        total = c.num_envs * c.num_steps
        grad = jax.grad(self._loss, has_aux=True)

        def epoch(carry: Any, key: jax.Array) -> tuple[Any, dict[str, jax.Array]]:
            order = jax.random.permutation(key, total)
            shards = jax.tree.map(
                lambda x: x[order].reshape((c.minibatches, -1, *x.shape[1:])), flat)

            def minibatch(carry: Any, mb: Any) -> tuple[Any, dict[str, jax.Array]]:
                params, opt_state = carry
                batch, a, t = mb
                grads, aux = grad(params, batch, a, t)
                updates, opt_state = self.optimizer.update(grads, opt_state, params)
                return (optax.apply_updates(params, updates), opt_state), aux

            return jax.lax.scan(minibatch, carry, shards)

        key, *epoch_keys = jax.random.split(r.key, c.epochs + 1)
        (params, opt_state), losses = jax.lax.scan(
            epoch, (r.params, r.opt_state), jnp.stack(epoch_keys))
        iteration = r.iteration + 1
        pool, wins, games = r.pool, r.pool_wins, r.pool_games
        if c.opponents == "pool":
            slot = (iteration // c.pool_every) % c.pool_size
            fresh = iteration % c.pool_every == 0
            pool = jax.tree.map(
                lambda stack, p: jnp.where(fresh, stack.at[slot].set(p), stack), pool, params)
            wins = jnp.where(fresh, wins.at[slot].set(0.0), wins)
            games = jnp.where(fresh, games.at[slot].set(0.0), games)
        metrics = {k: v.sum(0) for k, v in stats.items()}
        metrics.update({k: v.mean() for k, v in losses.items()})
        metrics["learner_steps"] = traj.in_loss.sum()
        metrics["pool_win_rate"] = (r.pool_wins + 1.0) / (r.pool_games + 2.0)
        r = r._replace(params=params, opt_state=opt_state, key=key, iteration=iteration,
                       pool=pool, pool_wins=wins, pool_games=games)
        return r, metrics

    def _init_seeds(self, keys: jax.Array) -> Runner:
        # The networks are made one seed after another (lax.map): XLA's CPU runtime hangs on
        # the orthogonal initialiser's QR decompositions batched by vmap.
        params = jax.lax.map(lambda k: self.init_params(jax.random.split(k, 4)[0]), keys)
        return jax.vmap(self.init)(keys, params)

    @functools.cached_property
    def compiled(self) -> tuple[Any, Any]:
        """``(init, update)`` over a leading axis of seeds, each one jitted program."""
        return jax.jit(self._init_seeds), jax.jit(jax.vmap(self.update))


def policy_logits(trainer: Trainer, params: Any, obs: jax.Array, mask: jax.Array) -> jax.Array:
    """The masked logits of ``params`` on rows of observations (for tests and agents)."""
    return trainer.apply(params, obs, mask)[0]


def flat_params(params: Any) -> dict[str, np.ndarray]:
    """The network's arrays by name (``actor/hidden_0/kernel``, ...), float32 numpy."""
    from flax.traverse_util import flatten_dict

    return {k: np.asarray(v, np.float32)
            for k, v in flatten_dict(params["params"], sep="/").items()}


def load_params(trainer: Trainer, path: str | pathlib.Path, key: jax.Array | None = None) -> Any:
    """A ``jax:`` checkpoint's network as ``trainer``'s parameters (to start a fit from it).

    A checkpoint without a critic (a behaviour clone) gets a fresh critic drawn from ``key``.

    Raises:
        ValueError: When the file is not a checkpoint of the trainer's game, table and
            observation, or its layers or activation are not the trainer's (saying both).
    """
    from flax.traverse_util import flatten_dict, unflatten_dict

    from tabletop_gym.agents.jax_policy import load_policy

    arrays, meta = load_policy(path)
    g, c = trainer.game, trainer.config
    have = (meta["game"], int(meta["num_players"]), int(meta["observation_size"]),
            tuple(int(h) for h in meta["hidden"]), meta["activation"])
    want = (g.name, g.num_players, g.observation_size, tuple(c.hidden), c.activation)
    if have != want:
        raise ValueError(f"{path} holds a network for (game, players, observation size, hidden, "
                         f"activation) = {have}; this fit needs {want}")
    fresh = flatten_dict(trainer.init_params(key if key is not None else jax.random.PRNGKey(0)),
                         sep="/")
    loaded = {k: jnp.asarray(arrays[k[len("params/"):]]) if k[len("params/"):] in arrays else v
              for k, v in fresh.items()}
    return unflatten_dict(loaded, sep="/")


JAX_LIBRARIES = ("jax", "jaxlib", "flax", "optax")
"""Distributions whose versions a checkpoint's provenance adds to the package's own list."""


def portable_settings(config: TrainConfig) -> dict[str, Any]:
    """The settings as JSON, with a net shipped in the package named by its package path.

    A results file or a checkpoint then says which distilled net was played without naming the
    machine it was trained on.
    """
    out = {k: list(v) if isinstance(v, tuple) else v
           for k, v in dataclasses.asdict(config).items()}
    if out.get("opponent_net") is not None:
        out["opponent_net"] = portable_path(str(out["opponent_net"]))
    return out


def portable_path(path: str | pathlib.Path) -> str:
    """A file shipped in the package by its package path (``tabletop_gym/...``), else as given."""
    package = pathlib.Path(__file__).resolve().parent.parent
    resolved = pathlib.Path(str(path)).resolve()
    if resolved.is_relative_to(package):
        return str(pathlib.Path("tabletop_gym") / resolved.relative_to(package))
    return str(path)


def checkpoint_metadata(trainer: Trainer, seed: int, learner_steps: int,
                        iterations: int, **extra: Any) -> dict[str, Any]:
    """What a checkpoint records of the network, the game, the training and its provenance."""
    from tabletop_gym.provenance import library_versions, metadata, usable_cores

    g = trainer.game
    return {
        "game": g.name,
        "num_players": g.num_players,
        "config": g.config.to_dict(),
        "observation_size": g.observation_size,
        "num_actions": g.num_actions,
        "hidden": list(trainer.config.hidden),
        "activation": trainer.config.activation,
        "train": portable_settings(trainer.config),
        "algorithm": "masked PPO (tabletop_gym.jax.train)",
        "seed": seed,
        "learner_steps": learner_steps,
        "iterations": iterations,
        # The networks' float rounding depends on it (the same to the bit on as many cores).
        "train_cpus": usable_cores(),
        "provenance": metadata(jax_libraries=library_versions(JAX_LIBRARIES)),
        **extra,
    }


def save_checkpoint(path: str | pathlib.Path, trainer: Trainer, params: Any, seed: int,
                    learner_steps: int, iterations: int, **extra: Any) -> pathlib.Path:
    """Save one seed's network as a ``jax:<path>`` agent checkpoint (``.npz``)."""
    from tabletop_gym.agents.jax_policy import save_policy

    meta = checkpoint_metadata(trainer, seed, learner_steps, iterations, **extra)
    return save_policy(path, flat_params(params), meta)


def _seed_params(params: Any, index: int) -> Any:
    return jax.tree.map(lambda x: x[index], params)


def _log_fields(num_players: int) -> list[str]:
    return (["iteration", "seed", "seconds", "learner_steps", "learner_steps_per_s",
             "train_games"] + [f"mean_return_seat_{p}" for p in range(num_players)]
            + ["learner_mean_return", "learner_win_rate", "games_vs_random",
               "win_rate_vs_random",
               "mean_return_vs_random", "policy_loss", "value_loss", "entropy",
               "pool_win_rates"])


def _rows(iteration: int, seconds: float, rate: float, totals: np.ndarray,
          m: dict[str, np.ndarray], num_players: int) -> list[dict[str, Any]]:
    rows = []
    for k in range(totals.shape[0]):
        games = float(m["train_games"][k])
        evals = float(m["eval_games"][k])
        row: dict[str, Any] = {
            "iteration": iteration, "seed": k, "seconds": round(seconds, 3),
            "learner_steps": int(totals[k]), "learner_steps_per_s": round(rate, 1),
            "train_games": int(games),
        }
        for p in range(num_players):
            row[f"mean_return_seat_{p}"] = (round(float(m["train_returns"][k][p]) / games, 4)
                                            if games else "")
        row["learner_mean_return"] = (round(float(m["learner_return"][k]) / games, 4)
                                      if games else "")
        # The learner's seat's win share in the training games: against the distilled
        # heuristic with opponents="heuristic-net" (self-play: a seat drawn per game).
        row["learner_win_rate"] = (round(float(m["learner_wins"][k]) / games, 4)
                                   if games else "")
        row["games_vs_random"] = int(evals)
        row["win_rate_vs_random"] = round(float(m["eval_wins"][k]) / evals, 4) if evals else ""
        row["mean_return_vs_random"] = (round(float(m["eval_return"][k]) / evals, 4)
                                        if evals else "")
        for name in ("policy_loss", "value_loss", "entropy"):
            row[name] = round(float(m[name][k]), 5)
        row["pool_win_rates"] = ";".join(f"{x:.3f}" for x in np.asarray(m["pool_win_rate"][k]))
        rows.append(row)
    return rows


def _print_line(text: str) -> None:
    # Python block-buffers stdout into a file or a pipe: `make train > log` would show nothing
    # for minutes, then everything at once.
    print(text, flush=True)


def train(
    game: str,
    num_players: int = 2,
    config: TrainConfig | None = None,
    seeds: int = 1,
    seed: int = 0,
    timesteps: int | None = None,
    minutes: float | None = None,
    out: str | pathlib.Path = "runs",
    eval_games: int = 200,
    progress: bool = True,
    env_config: dict[str, Any] | None = None,
    echo: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Train ``seeds`` independent learners in one program, log, checkpoint and evaluate.

    Training stops once every seed has ``timesteps`` learner decisions (default 1,000,000 when
    no ``minutes`` are given), or after ``minutes`` of wall-clock time (compile included),
    whichever comes first. The run directory ``<out>/jax_<game>_<n>p_<opponents>_seed<seed>``
    receives ``log.csv`` (one row per iteration and seed), ``seed_<k>.npz`` (each seed's network),
    ``policy.npz`` (the seed with the best win rate against random over the last iterations),
    ``run.json`` (budget, speed, compile time, provenance) and ``eval.csv``/``eval.json`` (that
    policy against the real Python heuristic and random, seat-rotated, ``eval_games`` each).

    Args:
        game: A game with a batched engine.
        num_players: Seats.
        config: PPO settings (defaults: :class:`TrainConfig`).
        seeds: Independent learners, vmapped into one program.
        seed: The root seed (learner ``k`` gets the ``k``-th split of its key).
        timesteps: Learner decisions per seed to train for.
        minutes: Wall-clock budget.
        out: Parent directory of the run directory.
        eval_games: Games of each final evaluation (0: none).
        progress: Print a progress line every few seconds.
        env_config: Further reference config switches (``reward_type``, ...).
        echo: Where progress and the final table go (default: printed, each line flushed at
            once, so a log file or a pipe shows the run as it goes).

    Returns:
        A summary (paths, steps, speeds, compile seconds, evaluation rows).

    Raises:
        ValueError: On a bad budget or seed count (nothing compiled or written).
        tabletop_gym.core.game.ConfigError: On a bad game or config.
    """
    config = config or TrainConfig()
    echo = echo or _print_line
    if not isinstance(seeds, int) or seeds < 1:
        raise ValueError(f"seeds must be an integer of at least 1, got {seeds!r}")
    if timesteps is not None and timesteps < 1:
        raise ValueError(f"timesteps must be at least 1, got {timesteps!r}")
    if minutes is not None and not minutes > 0:
        raise ValueError(f"minutes must be positive, got {minutes!r}")
    if eval_games < 0:
        raise ValueError(f"eval_games must be at least 0, got {eval_games!r}")
    if timesteps is None and minutes is None:
        timesteps = 1_000_000
    bg = make(game, num_players=num_players, **(env_config or {}))
    trainer = Trainer(bg, config)
    from tabletop_gym.provenance import git_commit

    git_commit()  # read (and kept) now: the commit of the code that trains, not of a later one
    run_dir = pathlib.Path(out) / f"jax_{bg.name}_{num_players}p_{config.opponents}_seed{seed}"
    run_dir.mkdir(parents=True, exist_ok=True)
    init, update = trainer.compiled
    start = time.perf_counter()
    runner = init(jax.random.split(jax.random.PRNGKey(seed), seeds))
    totals = np.zeros(seeds, np.int64)
    recent: list[np.ndarray] = []
    iteration, compile_s = 0, 0.0
    rates: list[float] = []
    last_print = 0.0
    with (run_dir / "log.csv").open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=_log_fields(num_players))
        writer.writeheader()
        while True:
            t0 = time.perf_counter()
            runner, metrics = update(runner)
            m = jax.device_get(metrics)
            dt = time.perf_counter() - t0
            iteration += 1
            steps = np.asarray(m["learner_steps"], np.int64)
            totals += steps
            if iteration == 1:
                compile_s = dt  # the first call compiles, then runs one iteration
            else:
                rates.append(float(steps.sum()) / dt)
            rate = float(steps.sum()) / dt
            elapsed = time.perf_counter() - start
            writer.writerows(_rows(iteration, elapsed, rate, totals, m, num_players))
            evals = np.maximum(np.asarray(m["eval_games"], np.float64), 1.0)
            recent = [*recent[-4:], np.asarray(m["eval_wins"]) / evals]
            if progress and (elapsed - last_print >= 5.0 or iteration == 1):
                last_print = elapsed
                win = " ".join(f"{w:.2f}" for w in recent[-1])
                echo(f"iter {iteration:5d}  {int(totals.min()):>11,d} learner steps/seed  "
                     f"{rate:>9,.0f} steps/s  win vs random {win}  {elapsed:7.1f} s")
            if timesteps is not None and totals.min() >= timesteps:
                break
            if minutes is not None and elapsed >= minutes * 60:
                break
    train_s = time.perf_counter() - start
    best = int(np.argmax(np.mean(recent, axis=0)))
    paths = []
    for k in range(seeds):
        paths.append(save_checkpoint(run_dir / f"seed_{k}.npz", trainer,
                                     _seed_params(runner.params, k), seed=seed, learner_steps=int(
                                         totals[k]), iterations=iteration, seed_index=k))
    policy = save_checkpoint(run_dir / "policy.npz", trainer, _seed_params(runner.params, best),
                             seed=seed, learner_steps=int(totals[best]), iterations=iteration,
                             seed_index=best)
    summary: dict[str, Any] = {
        "game": bg.name, "num_players": num_players, "config": bg.config.to_dict(),
        "train": portable_settings(config),
        "seeds": seeds, "seed": seed, "iterations": iteration,
        "learner_steps_per_seed": totals.tolist(), "seconds": round(train_s, 2),
        "compile_and_first_iteration_s": round(compile_s, 2),
        "learner_steps_per_s": round(float(np.median(rates)), 1) if rates else None,
        "best_seed_index": best, "policy": str(policy),
        "checkpoints": [str(p) for p in paths],
    }
    if eval_games:
        from tabletop_gym.arena.evaluation import evaluate, format_table, save_results

        spec = f"jax:{policy}"
        cfg = {**(env_config or {}), "num_players": num_players}
        results = [evaluate(bg.name, spec, opp, n_games=eval_games, seed=seed, **cfg)
                   for opp in ("heuristic", "random")]
        echo(format_table(results))
        save_results(results, run_dir / "eval")
        summary["evaluation"] = [r.row() for r in results]
    from tabletop_gym.provenance import library_versions, metadata

    summary["provenance"] = metadata(jax_libraries=library_versions(JAX_LIBRARIES))
    (run_dir / "run.json").write_text(json.dumps(summary, indent=2) + "\n")
    summary["run_dir"] = str(run_dir)
    return summary


__all__ = [
    "JAX_LIBRARIES",
    "MASKED_LOGIT",
    "OPPONENTS",
    "ActorCritic",
    "Runner",
    "TrainConfig",
    "Trainer",
    "Transition",
    "checkpoint_metadata",
    "flat_params",
    "pfsp_probabilities",
    "policy_logits",
    "portable_path",
    "save_checkpoint",
    "seat_gae",
    "train",
    "win_shares",
]
