"""Search under hidden information on the batched engine: the ``search:`` agent.

At each decision the agent turns the Python position into the batched engine's state
(``from_reference``), draws ``worlds`` full states from what its seat knows
(:func:`~tabletop_gym.envs.rapa_nui.batched.resample_hidden`, the same distribution as the Python
resamplers), tries each candidate move in every world and continues every one of those games to
the end with a policy network playing every seat greedily from its own observation, all in one
``jax.jit`` over ``candidates × worlds`` games. A finished game is worth to the seat what it is
worth to :class:`~tabletop_gym.agents.ismcts.ISMCTSAgent` (win share and ``tanh`` of the score
margin, in [0, 1]).

Aggregation is **determinised averaging** with paired worlds: every candidate is scored on the
same worlds, so the difference of two candidates' values is free of the deal's luck, and the
agent plays another move than the policy's own greedy one only when its mean paired gain exceeds
``z`` standard errors (as ``ismcts:N:guided`` does with the heuristic). Why this and not a tree:
the continuations are played by a policy that reads each seat's observation only, so the one
place hidden information enters is the world sample, and averaging over worlds is exactly a
one-step policy improvement of that policy (a rollout algorithm); a tree over determinised worlds
(PIMC) would add strategy fusion below the root, and sequential halving pays off only when the
budget is many times the number of candidates, which a per-move time of a few tens of
milliseconds on a CPU does not give.

Candidates: every legal move when there are at most ``width``, else the ``width`` the policy
ranks highest (a Positano bid has up to 42). The number of candidates is rounded up to a power
of two (padding is never chosen), so a game compiles the search for at most a few widths.

The spec: ``search:<policy>?worlds=K&width=W&z=Z&others=<policy>&value=V`` with ``<policy>``
``jax-ppo`` (the shipped PPO policy), ``heuristic-net`` (the shipped network distilled from the
heuristic), ``heuristic-net-v2`` and ``heuristic-net-v3`` (its later versions, fitted on more
games: :data:`tabletop_gym.jax.distill.VERSIONS`) or a path to a ``jax:`` checkpoint; ``search``
alone is ``search:heuristic-net``. ``search:best`` is the strongest spec measured for the game
and table size, which its game spec names (``Benchmark.search``); the agent goes by that spec's
name. ``others`` names an opponent model: the policy the other seats play in the continuations
(by default the same policy plays every seat, so each move is valued as a reply to that policy).
``value`` says what a finished game is worth to the seat: ``win`` (the default, as above: win
share and the margin over the best other seat) or ``above``, the measure of a table of more than
two: the share of the other seats it finished above (a tie by score one half) and the mean over
them of ``tanh`` of the margin over each, weighted as ``win`` weighs its two parts. At two
players the two differ only where the rules break a tie of scores.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import pathlib
import time
import urllib.parse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np

from tabletop_gym.core.game import Game, State
from tabletop_gym.core.observer import Observer
from tabletop_gym.jax.actor import actor_logits, load_actor
from tabletop_gym.jax.devices import data_mesh, split_games

if TYPE_CHECKING:
    from tabletop_gym.jax.distill import Samples

DEFAULT_POLICY = "heuristic-net"
DEFAULT_WORLDS = 8
DEFAULT_WIDTH = 8
DEFAULT_Z = 1.0
VALUES = ("win", "above")
"""What a finished continuation can be worth to the searching seat (module docstring)."""
MAX_WORLDS = 1024
DISTILLED = {"heuristic-net": 1, "heuristic-net-v2": 2, "heuristic-net-v3": 3}
"""The distilled heuristics by name, and their versions (`distill.VERSIONS`)."""
SHIPPED = (*DISTILLED, "jax-ppo")
"""Policy names that resolve to the package's checkpoints for the game and table size."""
BEST = "best"
"""The policy name of ``search:best``: the game spec's strongest search for the table size."""


@dataclasses.dataclass(frozen=True)
class SearchSpec:
    """A parsed ``search:`` spec.

    Attributes:
        policy: A name of :data:`SHIPPED` or a checkpoint path.
        worlds: Worlds drawn per decision (the budget).
        width: Most candidates per decision.
        z: Standard errors of paired gain needed to leave the policy's own move.
        others: The policy the other seats play in the continuations (an opponent model),
            named as ``policy`` is; None: ``policy`` plays every seat.
        value: What a finished continuation is worth to the seat, one of :data:`VALUES`.
    """

    policy: str = DEFAULT_POLICY
    worlds: int = DEFAULT_WORLDS
    width: int = DEFAULT_WIDTH
    z: float = DEFAULT_Z
    others: str | None = None
    value: str = "win"

    @property
    def name(self) -> str:
        """The spec that makes this agent again."""
        query = f"worlds={self.worlds}"
        if self.width != DEFAULT_WIDTH:
            query += f"&width={self.width}"
        if self.z != DEFAULT_Z:
            query += f"&z={self.z:g}"
        if self.others is not None:
            query += f"&others={self.others}"
        if self.value != "win":
            query += f"&value={self.value}"
        return f"search:{self.policy}?{query}"


def parse_spec(spec: str) -> SearchSpec:
    """Read ``"search[:<policy>][?worlds=K&width=W&z=Z&others=<policy>&value=V]"``.

    Raises:
        ValueError: Naming what is not understood and what is allowed.
    """
    head, _, query = spec.partition("?")
    name, _, policy = head.partition(":")
    if name != "search":
        raise ValueError(f"cannot read {spec!r}; write 'search:<policy>?worlds=8' with <policy> "
                         f"one of {SHIPPED} or a .npz checkpoint path")
    fields: dict[str, Any] = {"policy": policy or DEFAULT_POLICY}
    if policy == BEST and query:
        raise ValueError(f"{spec!r}: search:best takes no options, it plays the settings its game "
                         "names for the table size; to change one, write that spec out "
                         "('search:heuristic-net-v3?worlds=64')")
    try:
        pairs = urllib.parse.parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError:
        raise ValueError(f"cannot read the options {query!r} of {spec!r}; write "
                         "'worlds=8&width=8&z=1'") from None
    for key, value in pairs:
        if key in fields:
            raise ValueError(f"option {key!r} is given twice in {spec!r}")
        if key in ("worlds", "width"):
            top = MAX_WORLDS if key == "worlds" else 64
            low = 1 if key == "worlds" else 2
            if not value.isdigit() or not low <= int(value) <= top:
                raise ValueError(f"{key} in {spec!r} must be an integer in {low}..{top}, "
                                 f"got {value!r}")
            fields[key] = int(value)
        elif key == "z":
            try:
                z = float(value)
            except ValueError:
                z = float("nan")
            if not np.isfinite(z) or z < 0:
                raise ValueError(f"z in {spec!r} must be a number >= 0, got {value!r}")
            fields[key] = z
        elif key == "others":
            if not value:
                raise ValueError(f"others in {spec!r} must name a policy: one of {SHIPPED} or a "
                                 ".npz checkpoint path")
            fields[key] = value
        elif key == "value":
            if value not in VALUES:
                raise ValueError(f"value in {spec!r} must be one of {VALUES}, got {value!r}")
            fields[key] = value
        else:
            raise ValueError(f"unknown option {key!r} in {spec!r}; known: worlds, width, z, "
                             "others, value")
    return SearchSpec(**fields)


def resolve_spec(spec: SearchSpec | str, game_name: str, num_players: int) -> SearchSpec:
    """The spec itself, or for ``search:best`` the spec its game names for ``num_players``.

    Raises:
        ValueError: For a spec that does not parse, or ``search:best`` where the game names no
            search for the table size (the message lists those it names).
    """
    if isinstance(spec, str):
        spec = parse_spec(spec)
    if spec.policy != BEST:
        return spec
    from tabletop_gym.registry import game_spec

    table = game_spec(game_name).benchmark.search
    if num_players not in table:
        have = ", ".join(f"{n} ({table[n]})" for n in sorted(table)) or "none"
        raise ValueError(f"search:best has no settings for {game_name} with {num_players} "
                         f"players; it has them for: {have}. Name a policy instead, "
                         "'search:heuristic-net?worlds=32'")
    return parse_spec(table[num_players])


def _bucket(count: int, width: int) -> int:
    """Candidates searched for ``count`` legal moves: a power of two, at most ``width``'s."""
    want = min(count, width)
    return max(2, 1 << (want - 1).bit_length())


def resolve_policy(policy: str, game_name: str, num_players: int) -> str:
    """The checkpoint path of a policy name (a shipped name or a path)."""
    if policy == "jax-ppo":
        from tabletop_gym.agents.base import jax_checkpoint_path

        return str(jax_checkpoint_path(game_name, num_players))
    if policy in DISTILLED:
        from tabletop_gym.jax.distill import shipped

        return str(shipped(game_name, num_players, DISTILLED[policy]))
    return policy


def _engine(game_name: str) -> Any:
    import importlib

    from tabletop_gym.jax.core import batched_games
    from tabletop_gym.registry import game_spec

    have = batched_games()
    if game_name not in have:
        raise ValueError(f"the search agent plays the games with a batched engine "
                         f"({', '.join(have)}), not {game_name!r}")
    batched = str(game_spec(game_name).batched)
    return importlib.import_module(batched.split(":")[0])


def _scores(module: Any, s: Any) -> jax.Array:
    b = module.score_breakdown(s)
    return b["result"] if "result" in b else b["total"]


def finished_value(scores: jax.Array, winners: jax.Array, seat: jax.Array | int,
                   bounds: tuple[float, float], worth: str = "win") -> jax.Array:
    """What a finished game is worth to ``seat``, in [0, 1] (the module docstring's ``value``).

    Args:
        scores: Every seat's final score.
        winners: Every seat's flag of winning (the rules' tie-breaks applied).
        seat: The searching seat.
        bounds: The score bounds of a solo game (its value is the score scaled into them).
        worth: One of :data:`VALUES`.
    """
    from tabletop_gym.agents.ismcts import MARGIN_SCALE, SCORE_WEIGHT

    scores = jnp.asarray(scores, jnp.float32)
    n = scores.shape[0]
    if n == 1:
        lo, hi = bounds
        return jnp.clip((scores[0] - lo) / max(hi - lo, 1.0), 0.0, 1.0)
    others = jnp.arange(n) != seat
    if worth == "above":
        diff = scores[seat] - scores
        above = jnp.where(others, 0.5 + 0.5 * jnp.sign(diff), 0.0).sum() / (n - 1)
        margins = jnp.where(others, 0.5 + 0.5 * jnp.tanh(diff / MARGIN_SCALE), 0.0)
        return (1 - SCORE_WEIGHT) * above + SCORE_WEIGHT * margins.sum() / (n - 1)
    win = jnp.where(winners[seat], 1.0 / winners.sum(), 0.0)
    best_other = jnp.max(jnp.where(others, scores, -jnp.inf))
    margin = 0.5 + 0.5 * jnp.tanh((scores[seat] - best_other) / MARGIN_SCALE)
    return (1 - SCORE_WEIGHT) * win + SCORE_WEIGHT * margin


@functools.lru_cache(maxsize=32)
def search_fn(game_name: str, config: Any, net_key: tuple[str, int], worlds: int, width: int,
              bounds: tuple[float, float], devices: int | None = None,
              others_key: tuple[str, int] | None = None,
              worth: str = "win") -> Callable[..., Any]:
    """The compiled search of one game config, network shape, world count and width.

    Returns ``f(params, state, seat, key, z) -> (action, candidates, mean values, steps)``:
    the action chosen, the candidate ids (the policy's order; ``-1`` padding), each
    candidate's mean value over the worlds, and the continuation steps simulated. With
    ``others_key`` (the other seats' network shape) ``params`` is the pair ``(own, others)``:
    the searching seat's continuations play ``own``, every other seat's play ``others``.
    ``worth`` is the spec's ``value``: what a finished continuation is worth to the seat.

    The ``width * worlds`` continuations are split over ``devices`` local devices
    (:mod:`tabletop_gym.jax.devices`; None: every one, where they split evenly, else one).
    """
    module = _engine(game_name)
    if devices is None and (width * worlds) % jax.local_device_count():
        devices = 1  # a small search that does not split evenly gains nothing from splitting
    mesh = data_mesh(width * worlds, devices)

    def network(key: tuple[str, int]) -> Callable[[Any, jax.Array], jax.Array]:
        return lambda params, obs: actor_logits(params, key[0], obs)

    own_logits = network(net_key)
    other_logits = network(others_key) if others_key is not None else None

    def logits(params: Any, obs: jax.Array) -> jax.Array:
        return own_logits(params[0] if other_logits is not None else params, obs)

    def value(s: Any, seat: jax.Array) -> jax.Array:
        return finished_value(_scores(module, s), module.winners(s), seat, bounds, worth)

    def policy_step(params: Any, s: Any, seat: jax.Array) -> Any:
        seats = jnp.maximum(jax.vmap(module.current_player)(s), 0)
        obs = jax.vmap(module.observe)(s, seats)
        mask = jax.vmap(module.legal_action_mask)(s)
        scores = logits(params, obs)
        if other_logits is not None:
            scores = jnp.where((seats == seat)[:, None], scores, other_logits(params[1], obs))
        a = jnp.argmax(jnp.where(mask, scores, -jnp.inf), -1)
        return jax.vmap(module.step)(s, a)

    def run(params: Any, state: Any, seat: jax.Array, key: jax.Array, z: jax.Array) -> Any:
        mask = module.legal_action_mask(state)
        root = jnp.where(mask, logits(params, module.observe(state, seat)[None])[0], -jnp.inf)
        top, cands = jax.lax.top_k(root, width)
        valid = top > -jnp.inf
        cands = jnp.where(valid, cands, cands[0])
        keys = jax.random.split(key, worlds)
        deals = jax.vmap(module.resample_hidden, in_axes=(None, None, 0))(state, seat, keys)
        tiled = jax.tree.map(lambda x: jnp.repeat(x[None], width, 0).reshape(-1, *x.shape[1:]),
                             deals)
        moves = jnp.repeat(cands, worlds)
        games = split_games(jax.vmap(module.step)(tiled, moves), mesh)

        def more(carry: Any) -> jax.Array:
            return ~carry[0].terminated.all()

        def play(carry: Any) -> Any:
            s, steps = carry
            return (split_games(policy_step(params, s, seat), mesh),
                    steps + (~s.terminated).sum())

        games, steps = jax.lax.while_loop(more, play, (games, jnp.int32(0)))
        values = jax.vmap(value, in_axes=(0, None))(games, seat).reshape(width, worlds)
        gains = values - values[0][None]
        mean = gains.mean(1)
        se = gains.std(1, ddof=1) / jnp.sqrt(worlds) if worlds > 1 else jnp.zeros(width)
        ok = valid & (mean > z * se) & (mean > 0)
        best = jnp.argmax(jnp.where(ok, mean, -jnp.inf))
        choice = jnp.where(ok.any(), best, 0)
        return (cands[choice], jnp.where(valid, cands, -1), values.mean(1),
                steps + width * worlds)

    return jax.jit(run)


class SearchAgent:
    """The ``search:`` agent: determinised averaging over batched worlds (module docstring).

    A search agent is handed the engine state (:meth:`act_in`, as
    :func:`tabletop_gym.agents.base.choose_action` does for every state agent); it turns it into
    the batched state and draws its worlds from what its seat knows only.

    Args:
        game: The Python game (Positano through the turn-based transform, or Rapa Nui).
        observer: The env's observer (its reference part is the policy's input).
        rng: Numpy generator or seed of the world keys.
        spec: The parsed spec, or the spec string.

    Raises:
        ValueError: For a game without a batched engine, split bids, or a policy that does not
            fit the game.
    """

    def __init__(self, game: Game, observer: Observer | None,
                 rng: np.random.Generator | int | None = None,
                 spec: SearchSpec | str = SearchSpec()):
        from tabletop_gym.agents.base import game_name
        from tabletop_gym.jax.core import make

        if getattr(game, "split", False):
            raise ValueError("the search agent plays whole bids; use split_bids=False")
        spec = resolve_spec(spec, game_name(game), game.num_players)
        self.spec = spec
        self.name = spec.name
        self.game = game
        self.game_name = game_name(game)
        self.module = _engine(self.game_name)
        inner = getattr(game, "inner", game)
        cfg = inner.config
        self.batched = make(self.game_name, **{f.name: getattr(cfg, f.name)
                                               for f in dataclasses.fields(cfg)})
        path = resolve_policy(spec.policy, self.game_name, game.num_players)
        self.net = load_actor(path, self.game_name, game.num_players,
                              self.batched.observation_size)
        self.others = (None if spec.others is None else
                       load_actor(resolve_policy(spec.others, self.game_name, game.num_players),
                                  self.game_name, game.num_players,
                                  self.batched.observation_size))
        self.params: Any = (self.net.layers if self.others is None else
                            (self.net.layers, self.others.layers))
        """What the compiled search takes as its networks' parameters."""
        lo, hi = inner.score_bounds
        self._bounds = (float(lo), float(hi))
        self.steps = 0
        """Continuation steps simulated so far (the speed benchmark reads it)."""
        self.seconds = 0.0
        """Wall time spent in searches so far."""
        self.searches = 0
        self.last_values: dict[int, float] = {}
        """After a search: each candidate's mean value over the worlds."""
        self.seed(rng if isinstance(rng, int) or rng is None else
                  int(rng.integers(0, 2**63 - 1)))

    def seed(self, seed: int | None) -> None:
        """Reseed the generator of the world keys."""
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """Refuse: a search agent needs the position (use :meth:`act_in`)."""
        raise TypeError("SearchAgent searches the engine: call act_in(state, seat), or play it "
                        "through tabletop_gym.agents.base.choose_action / evaluate / the envs")

    def compiled_for(self, width: int) -> dict[str, Any]:
        """The arguments :func:`search_fn` and :func:`selfplay_fn` compile this agent's search for.

        They cache on them, so the agent and a batched self-play of its spec share one key.
        """
        return {"game_name": self.game_name, "config": self.batched.config,
                "net_key": (self.net.activation, len(self.net.layers)),
                "worlds": self.spec.worlds, "width": width, "bounds": self._bounds,
                "others_key": None if self.others is None else
                (self.others.activation, len(self.others.layers)), "worth": self.spec.value}

    def _fn(self, width: int) -> Callable[..., Any]:
        return search_fn(**self.compiled_for(width))

    def warm_up(self, state: State) -> None:
        """Compile the search of every width this agent can use (from any position ``state``).

        Compiling takes seconds to minutes; a benchmark calls this so that no timed decision
        pays for it. Nothing else changes (the generator is not drawn from).
        """
        seat = max(state.current_player(), 0)
        s = self.module.from_reference(state)
        width = 2
        while width <= _bucket(self.spec.width, self.spec.width):
            jax.block_until_ready(self._fn(width)(self.params, s, seat,
                                                  jax.random.PRNGKey(0),
                                                  jnp.float32(self.spec.z)))
            width *= 2

    def act_in(self, state: State, seat: int) -> int:
        """Search from ``seat``'s information in ``state`` and return the chosen action."""
        legal = state.legal_actions()
        if state.current_player() != seat or not legal:
            raise ValueError(f"seat {seat} is not the one to act in this state")
        if len(legal) == 1:
            return int(legal[0])
        start = time.perf_counter()
        s = self.module.from_reference(state)
        width = _bucket(len(legal), self.spec.width)
        fn = self._fn(width)
        key = jax.random.PRNGKey(int(self.rng.integers(0, 2**31 - 1)))
        action, cands, values, steps = jax.device_get(
            fn(self.params, s, seat, key, jnp.float32(self.spec.z)))
        self.last_values = {int(a): float(v) for a, v in zip(cands, values, strict=True)
                            if a >= 0}
        self.steps += int(steps)
        self.seconds += time.perf_counter() - start
        self.searches += 1
        return int(action)


# --- batched self-play ----------------------------------------------------------------------


@functools.lru_cache(maxsize=8)
def selfplay_fn(game_name: str, config: Any, net_key: tuple[str, int], worlds: int, width: int,
                bounds: tuple[float, float], others_key: tuple[str, int] | None = None,
                worth: str = "win") -> Callable[..., Any]:
    """One decision of every game of a batch, each searched as :class:`SearchAgent` searches.

    Returns ``f(params, states, deals, decision, z) -> (states', record)``: every game not over
    plays the move :func:`search_fn` chooses for its seat to move with the key
    :func:`decision_key` gives its deal at that decision (a game over is left as it is), and
    ``record`` holds, per game, the seat's observation, the legal mask, the move, the gain row
    (each candidate's mean value minus the policy's own move's, 0 elsewhere and for a decision
    with one legal move, as :func:`tabletop_gym.jax.distill.collect` records it), whether the
    game was live, the continuation steps simulated and the candidates searched (the steps count
    all ``width`` candidates' continuations, as :func:`search_fn`'s do, those padding a decision
    of fewer legal moves included).

    The search is the one compiled for ``width`` candidates: a decision with fewer legal moves
    searches the same valid candidates on the same worlds as the agent's narrower search does,
    so it chooses the same move and gains.
    """
    module = _engine(game_name)
    run = search_fn(game_name=game_name, config=config, net_key=net_key, worlds=worlds,
                    width=width, bounds=bounds, others_key=others_key, worth=worth)

    def one(params: Any, s: Any, deal: jax.Array, decision: jax.Array, z: jax.Array) -> Any:
        live = module.current_player(s) >= 0
        seat = jnp.maximum(module.current_player(s), 0)
        mask = module.legal_action_mask(s)
        action, cands, values, steps = run(params, s, seat, decision_key(deal, decision), z)
        searched = live & (mask.sum() > 1)
        gain = jnp.zeros(mask.shape, jnp.float32).at[
            jnp.where(cands >= 0, cands, mask.shape[0])].set(values - values[0], mode="drop")
        gain = jnp.where(searched, gain, 0.0)
        record = {"live": live, "observation": module.observe(s, seat), "mask": mask,
                  "action": action, "gain": gain, "steps": jnp.where(searched, steps, 0),
                  "candidates": jnp.where(searched, (cands >= 0).sum(), 0)}
        moved = module.step(s, action)
        return jax.tree.map(lambda new, old: jnp.where(live, new, old), moved, s), record

    return jax.jit(jax.vmap(one, in_axes=(None, 0, 0, None, None)))


def decision_key(deal: int | jax.Array, decision: int | jax.Array) -> jax.Array:
    """The world key of a batched self-play game's ``decision``-th decision (from 0)."""
    return jax.random.fold_in(jax.random.PRNGKey(deal), decision)


def selfplay(game: str, num_players: int, games: int, seed: int = 0,
             teacher: str = "search:heuristic-net", gains: bool = False,
             stats: dict[str, float] | None = None, **config: Any) -> Samples:
    """:func:`tabletop_gym.jax.distill.collect` of a search teacher, every game in one batch.

    The deals are the Python env's (seeds ``seed .. seed + games - 1``, taken into the batched
    engine by ``from_reference``) and the teacher plays every seat, as in ``collect``; but all
    the games advance together, one decision of each per call of :func:`selfplay_fn`, so a
    device searches ``games × width × worlds`` continuations at once. Decision ``t`` of the
    game dealt from ``d`` draws its worlds from :func:`decision_key` ``(d, t)`` (``collect``
    draws them from the agent's generator instead, so the two play different games).

    Args:
        game: Game name.
        num_players: Seats.
        games: Games to play, all at once.
        seed: First deal's seed.
        teacher: The ``search:`` spec in every seat.
        gains: Record each decision's :attr:`~tabletop_gym.jax.distill.Samples.gain`.
        stats: If given, filled with ``steps`` (continuation steps simulated), ``decisions``
            (searched ones), ``candidates`` (the searched decisions' candidates, of ``width``
            each, the candidates the search compiled for: the rest is padding, whose
            continuations ``steps`` counts too), ``seconds`` (wall time from the call, dealing
            and compiling included), ``first_seconds`` (from the call to the end of the first
            decision, whose call compiles the search where the batch is new) and
            ``first_steps`` (the first decision's), so that a benchmark can time the rest
            alone.
        **config: Further game config switches.

    Returns:
        :class:`tabletop_gym.jax.distill.Samples` in ``collect``'s order (game by game), with
        the gains when ``gains`` is set.

    Raises:
        ValueError: On no games, or a teacher that is not a ``search:`` spec.
    """
    from tabletop_gym.agents.kinds import is_kind
    from tabletop_gym.arena.envs import raw_env_factory
    from tabletop_gym.jax.distill import Samples

    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    if not is_kind(teacher, "search"):
        raise ValueError(f"batched self-play plays a search: teacher, not {teacher!r}")
    start = time.perf_counter()
    env = raw_env_factory(game)(num_players=num_players, **config)
    agent = SearchAgent(env.game, env.observer, 0, teacher)
    starts = []
    # Dealt on the host and stacked by numpy, then moved once: a device transfer and a stack
    # per game and field would take longer than the deals.
    try:
        host = jax.devices("cpu")[0]
    except RuntimeError:  # JAX started without its CPU backend: deal where it can
        host = jax.devices()[0]
    with jax.default_device(host):
        for g in range(games):
            env.reset(seed=seed + g)
            starts.append(agent.module.from_reference(env.game_state))
    states = jax.device_put(jax.tree.map(lambda *x: np.stack(x), *starts))
    width = _bucket(agent.spec.width, agent.spec.width)
    fn = selfplay_fn(**agent.compiled_for(width))
    deals = jnp.arange(seed, seed + games)
    z = jnp.float32(agent.spec.z)
    records: list[dict[str, np.ndarray]] = []
    limit = 100_000  # no game of either engine comes near; a bound against an endless loop
    first = 0.0
    for t in range(limit):
        states, record = fn(agent.params, states, deals, t, z)
        record = jax.device_get(record)
        if t == 0:
            first = time.perf_counter() - start
        if not record["live"].any():
            break
        records.append(record)
    else:
        raise RuntimeError(f"the self-play games did not end in {limit} decisions")
    live = np.stack([r["live"] for r in records], 1)  # (games, decisions): game-major order

    def rows(name: str) -> np.ndarray:
        return np.stack([r[name] for r in records], 1)[live]

    if stats is not None:
        stats.update(steps=float(sum(r["steps"].sum() for r in records)),
                     decisions=float(sum((r["steps"] > 0).sum() for r in records)),
                     candidates=float(sum(r["candidates"].sum() for r in records)),
                     width=float(width),
                     seconds=time.perf_counter() - start, first_seconds=first,
                     first_steps=float(records[0]["steps"].sum()))
    return Samples(rows("observation").astype(np.float32), rows("mask").astype(bool),
                   rows("action").astype(np.int32), games,
                   rows("gain").astype(np.float32) if gains else None)


# --- expert iteration -----------------------------------------------------------------------

PART_GAMES = 50
"""Self-play games in one saved part of an iteration's decisions: what a resumed run keeps."""


def _collect_part(args: tuple[str, int, int, int, str, str, bool, bool, dict[str, Any]]) -> str:
    """Play one part's games (deal seeds ``first ..``) and save their decisions at ``path``."""
    from tabletop_gym.jax.distill import collect

    game, num_players, first, count, teacher, path, gains, batched, config = args
    if batched:
        s = selfplay(game, num_players, count, seed=first, teacher=teacher, gains=gains,
                     **config)
    else:
        s = collect(game, num_players, count, seed=first, explore=0.0, teacher=teacher,
                    gains=gains, **config)
    # Written under another name and renamed: an interrupted run leaves no half part behind.
    tmp = pathlib.Path(path).with_suffix(".tmp.npz")
    arrays: dict[str, np.ndarray] = {"observation": s.observation,
                                     "action_mask": s.action_mask, "action": s.action,
                                     "games": np.asarray(s.games, np.int64),
                                     "play": np.asarray(_play(batched))}
    if s.gain is not None:
        arrays["gain"] = s.gain
    np.savez_compressed(tmp, allow_pickle=False, **arrays)
    tmp.replace(path)
    return path


def _play(batched: bool) -> str:
    """How a part's games were played, as its file records it (a file without it: one by one)."""
    return "batched" if batched else "one by one"


def _load_part(path: pathlib.Path, games: int, gains: bool, batched: bool = False) -> Any:
    from tabletop_gym.jax.distill import Samples

    with np.load(path) as z:
        if int(z["games"]) != games:
            raise ValueError(f"{path} holds {int(z['games'])} games where this run plays "
                             f"{games} in that part; give another out folder")
        play = str(z["play"]) if "play" in z.files else _play(False)
        if play != _play(batched):
            raise ValueError(f"{path} holds games played {play}, where this run plays them "
                             f"{_play(batched)} (other worlds, other games); give another out "
                             "folder")
        if gains and "gain" not in z.files:
            raise ValueError(f"{path} holds no gains (collected without --beta); give another "
                             "out folder")
        return Samples(z["observation"], z["action_mask"], z["action"], games,
                       z["gain"] if gains else None)


def expert_iteration(game: str, num_players: int, out_dir: str | pathlib.Path,
                     iterations: int = 3, games: int = 20, worlds: int = DEFAULT_WORLDS,
                     width: int = DEFAULT_WIDTH, start: str = DEFAULT_POLICY,
                     hidden: tuple[int, ...] = (64, 64), epochs: int = 10, seed: int = 0,
                     warm: bool = False, workers: int = 1, z: float = DEFAULT_Z,
                     beta: float | None = None, batched: bool = False,
                     part_games: int = PART_GAMES, **config: Any) -> list[dict[str, Any]]:
    """Distil the search into its own policy, repeatedly (expert iteration, Anthony et al. 2017).

    Iteration ``k`` plays ``games`` self-play games of ``search:<policy k>?worlds=…`` in every
    seat (deal seeds ``seed + (k - 1) · games`` on, in parts of ``part_games`` games, each
    with its own generator seeded by its first deal and saved as
    ``iteration_<k>_deals_<first>.npz`` as it ends), records every decision with the search's
    move as its label (the improved policy's action: determinised averaging keeps no visit
    counts, and its values are of the candidates only), fits a fresh actor to those labels by
    cross-entropy (:func:`tabletop_gym.jax.distill.distill`) and saves it as
    ``iteration_<k>.npz`` with its report ``iteration_<k>.json``; that checkpoint is policy
    ``k + 1``. Policy 1 is ``start``. With ``warm`` the fit starts from policy ``k`` itself
    (:func:`tabletop_gym.jax.distill.distill`'s ``init``), so only where the search left the
    policy's move does the network have much to learn, and the labels of a few games do not have
    to teach it the whole game again. An iteration whose two files exist is not run again, nor
    a part whose file exists, so an interrupted run resumes where it stopped.

    Args:
        game: ``"rapa_nui"`` or ``"positano"``.
        num_players: Seats.
        out_dir: Where the checkpoints and reports go.
        iterations: Iterations in all (those already done included).
        games: Self-play games per iteration.
        worlds: Worlds per decision of the search.
        width: Candidates per decision of the search.
        start: The first policy (``heuristic-net``, ``jax-ppo`` or a checkpoint path).
        hidden: Layer widths of the distilled actors (with ``warm``: those of ``start``).
        epochs: Passes over an iteration's decisions.
        seed: First deal's seed and the fits' seed.
        warm: Start each fit from the policy that played the search's continuations.
        workers: Processes playing the parts side by side (the games are the same).
        z: The search's threshold (:class:`SearchSpec`): a label leaves the policy's move only
            when its paired gain passes ``z`` standard errors, so a larger one keeps fewer of the
            moves that won on a few worlds by chance.
        beta: Fit the policy improved by the search's values instead of its moves
            (:func:`tabletop_gym.jax.distill.distill`'s ``beta``; needs ``warm``): the parts
            then record every decision's gains.
        batched: Play each part's games together in the batched engine (:func:`selfplay`,
            every game's decisions searched in one call: what a GPU wants) instead of one by one
            through the Python env (:func:`tabletop_gym.jax.distill.collect`). The worlds are
            drawn from other keys, so the games differ, and a part's file records how it was
            played: a run refuses the other kind's parts.
        part_games: Games in one saved part (with ``batched``, in one batch).
        **config: Further game config switches.

    Returns:
        Every iteration's report (samples, agreement of the fit with the search, seconds).
    """
    from tabletop_gym.jax.distill import Samples, distill
    from tabletop_gym.jax.train import save_checkpoint

    if iterations < 1 or games < 1 or workers < 1 or part_games < 1:
        raise ValueError(f"iterations, games, workers and part_games must be at least 1, got "
                         f"{iterations}, {games}, {workers}, {part_games}")
    if not (np.isfinite(z) and z >= 0):
        raise ValueError(f"z must be a number >= 0, got {z!r}")
    if beta is not None and not (warm and np.isfinite(beta) and beta >= 0):
        raise ValueError(f"beta must be a number >= 0 and goes with warm (it improves the "
                         f"policy the fit starts from); got beta={beta!r}, warm={warm}")
    gains = beta is not None
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    policy = start
    reports: list[dict[str, Any]] = []
    for k in range(1, iterations + 1):
        path, report_path = out / f"iteration_{k}.npz", out / f"iteration_{k}.json"
        if path.is_file() and report_path.is_file():
            reports.append(json.loads(report_path.read_text()))
            policy = str(path)
            continue
        teacher = SearchSpec(policy, worlds, width, z).name
        start_s = time.perf_counter()
        first = seed + (k - 1) * games
        parts = [(first + i, min(part_games, games - i)) for i in range(0, games, part_games)]
        paths = [out / f"iteration_{k}_deals_{f}.npz" for f, _ in parts]
        todo = [(game, num_players, f, c, teacher, str(path), gains, batched, dict(config))
                for (f, c), path in zip(parts, paths, strict=True) if not path.is_file()]
        if workers > 1 and len(todo) > 1:
            import multiprocessing

            with multiprocessing.get_context("spawn").Pool(min(workers, len(todo))) as pool:
                list(pool.imap_unordered(_collect_part, todo))
        else:
            for job in todo:
                _collect_part(job)
        loaded = [_load_part(path, c, gains, batched)
                  for path, (_, c) in zip(paths, parts, strict=True)]
        samples = Samples(np.concatenate([x.observation for x in loaded]),
                          np.concatenate([x.action_mask for x in loaded]),
                          np.concatenate([x.action for x in loaded]), games,
                          np.concatenate([x.gain for x in loaded]) if gains else None)
        init = resolve_policy(policy, game, num_players) if warm else None
        trainer, params, report = distill(game, num_players, samples, hidden=hidden,
                                          epochs=epochs, seed=seed + k, init=init, beta=beta,
                                          **config)
        report.update(iteration=k, teacher=teacher,
                      total_seconds=round(time.perf_counter() - start_s, 1))
        save_checkpoint(path, trainer, params, seed=seed, learner_steps=0, iterations=k,
                        algorithm="expert iteration: the search agent's moves distilled "
                                  "(tabletop_gym.jax.search.expert_iteration)",
                        distilled=report)
        report_path.write_text(json.dumps(report, indent=1) + "\n")
        reports.append(report)
        policy = str(path)
    return reports


def main(argv: list[str] | None = None) -> int:
    """Command line: a run of :func:`expert_iteration`."""
    import argparse

    p = argparse.ArgumentParser(description=expert_iteration.__doc__.splitlines()[0]
                                if expert_iteration.__doc__ else None)
    from tabletop_gym.jax.core import batched_games

    p.add_argument("--game", required=True, choices=sorted(batched_games()))
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--iterations", type=int, default=3)
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--worlds", type=int, default=DEFAULT_WORLDS)
    p.add_argument("--width", type=int, default=DEFAULT_WIDTH)
    p.add_argument("--start", default=DEFAULT_POLICY)
    p.add_argument("--hidden", type=int, nargs="+", default=[64, 64])
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--warm", action="store_true",
                   help="start each fit from the policy the search continued with")
    p.add_argument("--z", type=float, default=DEFAULT_Z)
    p.add_argument("--beta", type=float, default=None,
                   help="fit the policy improved by the search's values (with --warm)")
    p.add_argument("--workers", type=int, default=1,
                   help="processes playing the self-play games side by side")
    p.add_argument("--batched", action="store_true",
                   help="play each part's games together in the batched engine (a GPU's way)")
    p.add_argument("--part-games", type=int, default=PART_GAMES,
                   help="games in one saved part (with --batched, in one batch)")
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    try:
        reports = expert_iteration(a.game, a.players, a.out, a.iterations, a.games, a.worlds,
                                   a.width, a.start, tuple(a.hidden), a.epochs, a.seed,
                                   a.warm, a.workers, a.z, a.beta, a.batched,
                                   a.part_games)
    except ValueError as err:
        p.error(str(err))
    for r in reports:
        print(json.dumps(r))
    return 0


__all__ = ["BEST", "SHIPPED", "VALUES", "SearchAgent", "SearchSpec", "decision_key",
           "expert_iteration", "finished_value", "parse_spec", "resolve_policy", "resolve_spec",
           "search_fn", "selfplay", "selfplay_fn"]
