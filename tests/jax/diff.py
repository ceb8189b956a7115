"""What the differential tests of both batched engines share: deal, random rollout, replay.

A differential run deals games with the reference engine, converts them with the engine
module's ``from_reference``, plays them all at once in JAX with random legal actions
(:func:`random_rollout`: ``vmap`` over games, ``lax.scan`` over steps) and replays every game's
actions in the reference engine (:func:`replay`), which must reproduce the masks, every seat's
observation, the rewards and termination at every step and the whole position at the end
(:func:`check_final_position`). ``tests/jax/rapa_nui_diff.py`` and ``positano_diff.py`` add
what is particular to their game (Positano's hidden bids, the score breakdowns).
"""

from __future__ import annotations

import argparse
import functools
import random
import time
from collections.abc import Callable, Iterable, Sequence
from types import ModuleType
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tabletop_gym.core.game import Game, GameConfig, State

Trace = dict[str, Any]


def deal_references(
    game_class: type[Game], configs: Sequence[GameConfig], games_per_config: int, seed: int
) -> list[State]:
    """``games_per_config`` reference deals of every config, each from its own seeded RNG."""
    rng = random.Random(seed)
    refs = []
    for cfg in configs:
        game = game_class(cfg)
        for _ in range(games_per_config):
            refs.append(game.new_initial_state(random.Random(rng.getrandbits(32))))
    return refs


def batch_of(module: ModuleType, refs: Iterable[State]) -> Any:
    """The reference positions converted by ``module.from_reference`` and stacked as a batch."""
    return jax.tree.map(lambda *xs: np.stack(xs), *[module.from_reference(r) for r in refs])


@functools.partial(jax.jit, static_argnames=("module", "steps", "extra"))
def random_rollout(
    module: ModuleType,
    states: Any,
    key: jax.Array,
    steps: int,
    extra: Callable[[Any], dict[str, jax.Array]] | None = None,
) -> Trace:
    """Play every game of the batch with random legal actions for ``steps`` steps.

    Per step the trace holds, before the step, the ``mask`` of the seat to decide, every seat's
    observation (``obs``, as int16: every entry is a small integer) and whatever ``extra``
    returns for the batch; the ``action`` taken (−1 once the game is over); and after it the
    ``rewards`` and ``terminated``. At the end: ``breakdown``, ``winners`` and ``final`` (the
    last states).

    Args:
        module: The engine module (``tabletop_gym.envs.rapa_nui.batched`` or ``positano``).
        states: A batch of states (a leading axis on every field).
        key: The key of the random actions.
        steps: Scan length: at least the longest game.
        extra: A function of the batch of states giving more per-step arrays to record (a
            module-level function, so that the compiled rollout is reused).
    """
    n = states.rewards.shape[1]
    seats = jnp.arange(n)

    def one(s: Any, k: jax.Array) -> tuple[Any, Trace]:
        mask = jax.vmap(module.legal_action_mask)(s)
        obs = jax.vmap(lambda st: jax.vmap(lambda p: module.observe(st, p))(seats))(s)
        keys = jax.random.split(k, mask.shape[0])
        action = jax.vmap(lambda kk, m: jax.random.categorical(kk, jnp.where(m, 0.0, -jnp.inf)))(
            keys, mask
        )
        action = jnp.where(s.terminated, -1, action)
        s2 = jax.vmap(module.step)(s, jnp.maximum(action, 0))
        out = {
            "mask": mask,
            "obs": obs.astype(jnp.int16),
            "action": action,
            "rewards": jax.vmap(module.rewards)(s2),
            "terminated": jax.vmap(module.terminated)(s2),
            **(extra(s) if extra is not None else {}),
        }
        return s2, out

    final, trace = jax.lax.scan(one, states, jax.random.split(key, steps))
    trace["breakdown"] = jax.vmap(module.score_breakdown)(final)
    trace["winners"] = jax.vmap(module.winners)(final)
    trace["final"] = final
    return trace


MaskCheck = Callable[[Trace, int, int, State], Iterable[tuple[str, np.ndarray, np.ndarray]]]
"""``(trace, step, game, ref) -> [(label, got, want), ...]``: the masks to compare at a step."""
Apply = Callable[[State, int, int], bool]
"""``(ref, action, step) -> done``: enter a JAX step's action in the reference; False while a
decision is still incomplete (a hidden bid with more seats to bid)."""


def replay(
    trace: Trace,
    g: int,
    ref: State,
    observer: Any,
    steps: int,
    where: str,
    masks: MaskCheck,
    apply: Apply,
) -> int:
    """Replay game ``g``'s actions in ``ref``, asserting equality at every step.

    Checks at each step the masks from ``masks``, every seat's observation, then after the
    action termination and rewards; a game JAX ended must be over in the reference too.

    Returns:
        The reference decisions taken.
    """
    decisions = 0
    for t in range(steps):
        for label, got, want in masks(trace, t, g, ref):
            assert (got == want).all(), f"{where} step {t}{label}: mask differs"
        for p in range(ref.game.num_players):
            want_o = observer.encode(ref, p)
            got_o = trace["obs"][t, g, p]
            assert (got_o == want_o).all(), (
                f"{where} step {t} seat {p}: observation differs at "
                f"{np.flatnonzero(got_o != want_o)}"
            )
        action = int(trace["action"][t, g])
        if action < 0:
            assert ref.is_terminal(), f"{where} step {t}: JAX ended, the reference did not"
            break
        if not apply(ref, action, t):
            assert not trace["terminated"][t, g], f"{where} step {t}: ended mid-decision"
            assert not trace["rewards"][t, g].any(), f"{where} step {t}: rewards mid-decision"
            continue
        decisions += 1
        assert bool(trace["terminated"][t, g]) == ref.is_terminal(), f"{where} step {t}"
        got_r = trace["rewards"][t, g]
        want_r = np.array(ref.returns(), np.float32)
        assert (got_r == want_r).all(), f"{where} step {t}: rewards {got_r} != {want_r}"
    assert ref.is_terminal(), f"{where}: not over after {steps} steps"
    return decisions


def check_final_position(module: ModuleType, trace: Trace, g: int, ref: State, where: str) -> None:
    """Game ``g``'s last JAX state converted back equals the reference position."""
    final = jax.tree.map(lambda x: x[g], trace["final"])
    assert module.to_reference(final, ref.game).to_dict() == ref.to_dict(), f"{where}: position"


Part = tuple[str, int, Callable[[int, int], dict[str, int]]]
"""``(label, seed offset, compare(games_per_config, seed) -> counts)``: one part of a long run."""


def long_run(description: str, parts: Sequence[Part]) -> None:
    """The command line of a long differential run: each part's counts, then the totals.

    ``--games-per-config`` (default 12) and ``--seed`` (default 2026; a part plays with the
    seed plus its offset). A difference stops the run with an AssertionError naming it.
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--games-per-config", type=int, default=12)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    total: dict[str, int] = {}
    t0 = time.perf_counter()
    for label, offset, compare in parts:
        got = compare(args.games_per_config, args.seed + offset)
        counts = ", ".join(f"{v} {k}" for k, v in got.items())
        print(f"{label}: {counts}, 0 differences", flush=True)
        for k, v in got.items():
            total[k] = total.get(k, 0) + v
    counts = ", ".join(f"{v} {k}" for k, v in total.items())
    print(f"all: {counts}, 0 differences ({time.perf_counter() - t0:.0f} s)")


def vmapped_deal(game: Any, count: int, key: jax.Array) -> tuple[Any, jax.Array, jax.Array]:
    """``count`` deals of a bound game under ``jit`` and ``vmap``: states, seat 0's
    observations and the masks."""

    @jax.jit
    def deal(key: jax.Array) -> tuple[Any, jax.Array, jax.Array]:
        states = jax.vmap(game.init)(jax.random.split(key, count))
        obs = jax.vmap(game.observe)(states, jnp.zeros(count, jnp.int32))
        return states, obs, jax.vmap(game.legal_action_mask)(states)

    return deal(key)
