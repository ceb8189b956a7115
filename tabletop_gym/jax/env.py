"""Batched envs with auto-reset: a pure JAX one for training loops, a Gymnasium one on top.

:class:`BatchedEnv` steps ``batch_size`` games at once. Each call returns, per game, the
observation and legal mask of the seat to decide; a game that ends in a step reports its
returns and ``done`` and is replaced in that same step by a fresh deal, whose first observation
is the one returned. Both methods are pure and ``jax.jit``-compiled, so they also run inside
``lax.scan``.

A vmapped shuffle of the whole batch at every step (to have a deal ready wherever a game ends)
would cost more than the game itself. Instead each game carries the deck of its next deal and
shuffles it by Fisher–Yates swaps, as many per step as finish the shuffle within the shortest
game (``min_decisions``; one for Rapa Nui, whose 60-decision games outlast the 49 swaps), so the
deck is a uniform permutation by the time it is dealt. A game that ends sooner (only an illegal
action can end one) gets a full shuffle at that step. A deck of several segments (Positano's
tiles, goal cards, star sets, ...) is shuffled segment by segment.

Two switches serve training and evaluation loops: ``final_observation=True`` also returns every
seat's view of each game as the step left it (the final position of a game that just ended, which
auto-reset has already replaced), and ``auto_reset=False`` leaves finished games finished until
the next :meth:`BatchedEnv.reset`. Every seat's returns of a game that ended are always in
:attr:`TimeStep.rewards`.

:class:`VectorEnv` wraps it as a ``gymnasium.vector.VectorEnv`` with numpy arrays in and out,
for people who do not write JAX (one policy plays every seat: the observation is always that of
the seat to act).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, NamedTuple

import gymnasium
import jax
import jax.numpy as jnp
import numpy as np

from tabletop_gym.core.batched import BatchedGame
from tabletop_gym.jax.core import make


class EnvState(NamedTuple):
    """The batch of game states and what the next deals are drawn from.

    Attributes:
        games: The batched game states.
        key: The key of the next random draws.
        next_decks: Per game, the deck of its next deal, shuffled a few Fisher–Yates swaps per
            step.
        shuffled: Per game, how many swaps of the pending shuffle are done (``len(deck) - 1``:
            complete, a uniform permutation).
    """

    games: Any
    key: jax.Array
    next_decks: jax.Array
    shuffled: jax.Array


class TimeStep(NamedTuple):
    """What one call returns for every game of the batch.

    Attributes:
        observation: Float32 ``(B, observation_size)``, the view of the seat to decide.
        action_mask: Bool ``(B, num_actions)``, that seat's legal actions.
        current_player: Int32 ``(B,)``, the seat to decide.
        rewards: Float32 ``(B, num_players)``: the returns of a game that ended in this call,
            zeros otherwise.
        done: Bool ``(B,)``: the game ended in this call (with auto-reset, its slot now holds a
            new deal).
        final_observation: Float32 ``(B, num_players, observation_size)`` or ``None``: with
            ``BatchedEnv(final_observation=True)``, every seat's view of each game as the step
            left it, before any reset; for a game that ended, its final position, so it can be
            bootstrapped or evaluated. ``None`` otherwise (the default, which costs nothing).
    """

    observation: jax.Array
    action_mask: jax.Array
    current_player: jax.Array
    rewards: jax.Array
    done: jax.Array
    final_observation: jax.Array | None = None


@dataclasses.dataclass(frozen=True)
class BatchedEnv:
    """``batch_size`` games of one :class:`~tabletop_gym.core.batched.BatchedGame`.

    Attributes:
        game: The batched game.
        batch_size: Games stepped at once.
        auto_reset: Deal anew, in the same step, wherever a game ends (the default). With
            ``False`` a finished game stays finished until :meth:`reset`: later steps leave it
            unchanged and report it with ``current_player`` negative, an all-zero observation, an
            all-False mask, zero rewards and ``done`` False (``done`` is True only in the step it
            ended).
        final_observation: Also return every seat's view of every game as the step left it
            (:attr:`TimeStep.final_observation`); it costs ``num_players`` observations a step.
    """

    game: BatchedGame
    batch_size: int
    auto_reset: bool = True
    final_observation: bool = False

    def observe_all(self, games: Any) -> jax.Array:
        """Float32 ``(B, num_players, observation_size)``: every seat's view of every game."""
        n = self.game.num_players
        # One vmap over (game, seat) pairs: a vmap over seats nested in the vmap over games
        # hangs XLA's CPU runtime once a third vmap (over training seeds) is added.
        pairs = jax.tree.map(lambda x: jnp.repeat(x, n, axis=0), games)
        seats = jnp.tile(jnp.arange(n, dtype=jnp.int32), self.batch_size)
        views = jax.vmap(self.game.observe)(pairs, seats)
        return views.reshape(self.batch_size, n, -1)

    def _timestep(
        self, games: Any, rewards: jax.Array, done: jax.Array, final: jax.Array | None = None
    ) -> TimeStep:
        g = self.game
        player = jax.vmap(g.current_player)(games)
        obs = jax.vmap(g.observe)(games, player)
        mask = jax.vmap(g.legal_action_mask)(games)
        if not self.auto_reset:
            over = player < 0
            obs = jnp.where(over[:, None], 0.0, obs)
            mask = mask & ~over[:, None]
        return TimeStep(
            observation=obs,
            action_mask=mask,
            current_player=player,
            rewards=rewards,
            done=done,
            final_observation=final,
        )

    def _shuffle(self, key: jax.Array, decks: jax.Array) -> jax.Array:
        keys = jax.random.split(key, self.batch_size)
        ends = self.game.deck_ends
        if ends is None:
            return jax.vmap(jax.random.permutation)(keys, decks)
        # Each segment on its own: sort by (segment, random key).
        noise = jax.vmap(lambda k: jax.random.uniform(k, ends.shape))(keys)
        order = jnp.lexsort((noise, jnp.broadcast_to(jnp.asarray(ends), noise.shape)), axis=-1)
        return jnp.take_along_axis(decks, order, axis=1)

    def _rewards(self, games: Any, done: jax.Array) -> jax.Array:
        """The returns of the games that ended (zeros elsewhere).

        A game's returns may be computed from its final position (Positano scores it when
        asked), so only the ended games are scored: they are gathered into a slice of an eighth
        of the batch, or the whole batch is scored in the rare step where more than that ended.
        """
        g = self.game
        k = max(1, self.batch_size // 8)
        mask = done[:, None]

        def every() -> jax.Array:
            return jnp.where(mask, jax.vmap(g.rewards)(games), 0.0)

        def some() -> jax.Array:
            (idx,) = jnp.nonzero(done, size=k, fill_value=0)
            sub = jax.tree.map(lambda x: x[idx], games)
            real = jnp.arange(k) < done.sum()  # the rest are fillers pointing at slot 0
            got = jnp.where(real[:, None], jax.vmap(g.rewards)(sub), 0.0)
            return jnp.zeros((self.batch_size, g.num_players), jnp.float32).at[idx].add(got)

        return jax.lax.cond(done.sum() > k, every, some)

    @functools.partial(jax.jit, static_argnums=0)
    def reset(self, key: jax.Array) -> tuple[EnvState, TimeStep]:
        """Deal ``batch_size`` games from ``key``."""
        key, k1, k2 = jax.random.split(key, 3)
        base = jnp.broadcast_to(jnp.asarray(self.game.deck), (self.batch_size, self.game.deck.size))
        games = jax.vmap(self.game.init_from_deck)(self._shuffle(k1, base))
        full = jnp.full(self.batch_size, self.game.deck.size - 1, jnp.int32)
        zeros = jnp.zeros((self.batch_size, self.game.num_players), jnp.float32)
        state = EnvState(games, key, self._shuffle(k2, base), full)
        final = self.observe_all(games) if self.final_observation else None
        return state, self._timestep(games, zeros, jnp.zeros(self.batch_size, bool), final)

    @functools.partial(jax.jit, static_argnums=0)
    def step(self, state: EnvState, actions: jax.Array) -> tuple[EnvState, TimeStep]:
        """Apply one action per game (that of its seat to decide); deal anew where one ended.

        Without auto-reset, a game already over is left as it is (its action is ignored).
        """
        g = self.game
        if not self.auto_reset:
            was_over = jax.vmap(g.terminated)(state.games)
            games = jax.vmap(g.step)(state.games, actions)
            done = jax.vmap(g.terminated)(games) & ~was_over
            rewards = self._rewards(games, done)
            final = self.observe_all(games) if self.final_observation else None
            return state._replace(games=games), self._timestep(games, rewards, done, final)
        games = jax.vmap(g.step)(state.games, actions)
        done = jax.vmap(g.terminated)(games)
        rewards = self._rewards(games, done)
        final = self.observe_all(games) if self.final_observation else None
        key, k1, k2 = jax.random.split(state.key, 3)
        size = g.deck.size
        decks, i = state.next_decks, state.shuffled
        # The pending shuffles of the games that end now must be complete before they are dealt.
        short = done & (i < size - 1)
        decks = jax.lax.cond(
            short.any(),
            lambda: jnp.where(short[:, None], self._shuffle(k2, decks), decks),
            lambda: decks,
        )
        fresh = jax.vmap(g.init_from_deck)(decks)

        def pick(new: jax.Array, old: jax.Array) -> jax.Array:
            return jnp.where(done.reshape((-1,) + (1,) * (old.ndim - 1)), new, old)

        games = jax.tree.map(pick, fresh, games)
        # A dealt deck starts its next shuffle: enough swaps per step to finish it within the
        # shortest game (a no-op once complete).
        i = jnp.where(done, 0, i)
        rows = jnp.arange(self.batch_size)
        swaps = -(-(size - 1) // max(1, g.min_decisions))
        for k in [k1] if swaps == 1 else list(jax.random.split(k1, swaps)):
            ends = size if g.deck_ends is None else jnp.asarray(g.deck_ends)[i]
            j = jax.random.randint(k, (self.batch_size,), i, ends)
            a, b = decks[rows, i], decks[rows, j]
            decks = decks.at[rows, i].set(b).at[rows, j].set(a)
            i = jnp.minimum(i + 1, size - 1)
        return EnvState(games, key, decks, i), self._timestep(games, rewards, done, final)


class VectorEnv(gymnasium.vector.VectorEnv):
    """A Gymnasium vector env over :class:`BatchedEnv` (numpy in, numpy out).

    ``step(actions)`` takes one action id per game for its seat to decide. The reward is the
    return of the seat that acted (non-zero only when its action ended the game);
    ``info["rewards"]`` holds every seat's returns, ``info["action_mask"]`` (int8) and
    ``info["current_player"]`` describe the next decision. A finished game is replaced in the same
    step (``autoreset_mode`` ``SAME_STEP``): the observation returned is the new deal's.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - gymnasium reads it from the class
        "autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP
    }

    def __init__(self, game: str | None = None, num_envs: int = 64, **config: Any):
        """Build ``num_envs`` games of ``game`` with the reference config switches ``config``.

        ``game`` defaults to the registry's default for ``"batched"``.
        """
        if game is None:
            from tabletop_gym.registry import default_game

            game = default_game("batched")
        self.batched = BatchedEnv(make(game, **config), num_envs)
        g = self.batched.game
        self.num_envs = num_envs
        self.single_observation_space = gymnasium.spaces.Box(
            -np.inf, np.inf, (g.observation_size,), np.float32
        )
        self.single_action_space = gymnasium.spaces.Discrete(g.num_actions)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, num_envs
        )
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)
        self._state: EnvState | None = None
        self._mask: np.ndarray | None = None
        self._player: np.ndarray | None = None

    def _out(self, ts: TimeStep) -> tuple[np.ndarray, dict[str, Any]]:
        ts = jax.device_get(ts)
        self._mask = np.asarray(ts.action_mask, np.int8)
        self._player = np.asarray(ts.current_player)
        info = {"action_mask": self._mask, "current_player": self._player}
        return np.asarray(ts.observation), info

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal every game; ``seed`` fixes the whole sequence of deals."""
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        self._state, ts = self.batched.reset(jax.random.PRNGKey(seed))
        return self._out(ts)

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One action id per game; see the class docstring for what comes back."""
        if self._state is None:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(
                f"actions must be {self.num_envs} integer action ids (shape ({self.num_envs},)), "
                f"got shape {actions.shape} dtype {actions.dtype}"
            )
        mover = self._player
        self._state, ts = self.batched.step(self._state, jnp.asarray(actions, jnp.int32))
        rewards = np.asarray(ts.rewards)
        obs, info = self._out(ts)
        info["rewards"] = rewards
        reward = rewards[np.arange(self.num_envs), mover]
        done = np.asarray(ts.done)
        return obs, reward, done, np.zeros_like(done), info

    def action_masks(self) -> np.ndarray:
        """Int8 ``(num_envs, num_actions)``: the legal actions of each game's seat to decide."""
        if self._mask is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._mask
