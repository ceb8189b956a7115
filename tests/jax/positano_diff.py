"""Differential play of the batched JAX Positano against the reference engine.

Every game is dealt by the reference engine, converted with ``from_reference`` and played in
JAX (all games of one player count and cliff size at once: ``vmap`` over games, ``lax.scan`` over
steps, random legal actions from a JAX key). At a bid node of a 2–6 player game the seats commit
their bids one per step in seat order (hidden until the last); the reference engine then applies
them as one joint action. Replaying the actions in the reference engine must give, at every step,
the same legal mask for every seat, the same observation for every seat (a pending bid changes
none), the same rewards and termination; at the end the same score breakdown, winners and
position.

Configurations (a covering set; the product of explicit goal lists is large): for every player
count and every allowed ``board_size`` value (0 = auto, and 4 or 5 explicitly), every
``reward_type`` × {random goals, four explicit goal lists that together name every goal face of
that cliff}; solo adds the six ``solo_goal_set`` values per reward type.

Long run: ``python -m tests.jax.positano_diff --games-per-config 12``.
"""

from __future__ import annotations

import argparse
import functools
import random
import time

import jax
import jax.numpy as jnp
import numpy as np

from tabletop_gym.core.game import REWARD_TYPES
from tabletop_gym.envs.positano.observer import PositanoObserver
from tabletop_gym.envs.positano.rules import PositanoConfig, PositanoGame
from tabletop_gym.jax import positano as P

# Four goal lists, 3 cards each, that together show every face of the six cards (rules §1.8).
GOAL_LISTS = {
    4: (
        ("grande", "solitario", "eccesso"),
        ("piccolo", "gruppo", "equilibrato"),
        ("dietro", "bordo", "perfetto"),
        ("colonna", "mezzo", "altezza"),
    ),
}
GOAL_LISTS[5] = tuple(tuple("centro" if g == "mezzo" else g for g in x) for x in GOAL_LISTS[4])

SHAPES = ((1, 4), (2, 4), (3, 4), (4, 4), (4, 5), (5, 5), (6, 5))
"""(players, cliff size): each pair has its own array shapes (one compiled rollout each)."""


def all_configs(num_players: int, size: int) -> list[PositanoConfig]:
    """The covering set of configurations of one (players, size) pair (module docstring)."""
    auto = 4 if num_players <= 4 else 5
    sizes = (0, size) if size == auto else (size,)
    out = []
    for board_size in sizes:
        for rt in REWARD_TYPES:
            base = {"num_players": num_players, "board_size": board_size, "reward_type": rt}
            out.append(PositanoConfig(**base))
            out += [PositanoConfig(**base, goals=goals) for goals in GOAL_LISTS[size]]
            if num_players == 1:
                out += [PositanoConfig(**base, solo_goal_set=k) for k in range(1, 7)]
    return out


@functools.partial(jax.jit, static_argnames=("steps",))
def rollout(states: P.State, key: jax.Array, steps: int) -> dict[str, jax.Array]:
    """Play every game with random legal actions; per step what the reference must reproduce."""
    n = states.rewards.shape[1]

    def one(s, k):
        masks = jax.vmap(P.legal_action_masks)(s)
        mask = jax.vmap(P.legal_action_mask)(s)
        obs = jax.vmap(lambda st: jax.vmap(lambda p: P.observe(st, p))(jnp.arange(n)))(s)
        keys = jax.random.split(k, mask.shape[0])
        action = jax.vmap(lambda kk, m: jax.random.categorical(kk, jnp.where(m, 0.0, -jnp.inf)))(
            keys, mask
        )
        action = jnp.where(s.terminated, -1, action)
        s2 = jax.vmap(P.step)(s, jnp.maximum(action, 0))
        out = {
            "masks": masks,
            "pending": s.pending,
            "obs": obs.astype(jnp.int16),
            "action": action,
            "player": jax.vmap(P.current_player)(s),
            "rewards": jax.vmap(P.rewards)(s2),
            "terminated": jax.vmap(P.terminated)(s2),
        }
        return s2, out

    final, trace = jax.lax.scan(one, states, jax.random.split(key, steps))
    trace["breakdown"] = jax.vmap(P.score_breakdown)(final)
    trace["winners"] = jax.vmap(P.winners)(final)
    trace["final"] = final
    return trace


def _check_breakdown(trace: dict, g: int, ref, where: str) -> None:
    bd = ref.score_breakdown()
    cols = bd[0]["colours"] if ref.game.solo else bd
    b = trace["breakdown"]
    for c, col in enumerate(cols):
        assert b["building_points"][g, c] == col["building_points"], f"{where}: buildings {c}"
        lots = {name: int(b["lot_points"][g, p]) for p in range(25)
                if (name := _lot_name(p)) in col["buildings"]}
        assert lots == col["buildings"], f"{where}: per-building points of colour {c}"
        assert b["gelato_parts"][g, c].tolist() == list(col["gelato_parts"].values()), where
        assert b["gelato"][g, c] == col["gelato"], f"{where}: gelato {c}"
        assert b["goals"][g, c].tolist() == list(col["goals"].values()), f"{where}: goals {c}"
        assert b["total"][g, c] == col["total"], f"{where}: total {c}"
    assert b["result"][g].tolist() == [x["total"] for x in bd], f"{where}: result"
    assert np.flatnonzero(trace["winners"][g]).tolist() == ref.winners(), f"{where}: winners"


def _lot_name(p: int) -> str:
    return f"{p // 5 + 1}{'ABCDE'[p % 5]}"


def compare(num_players: int, size: int, games_per_config: int, seed: int) -> dict[str, int]:
    """Play and compare; raise AssertionError at the first difference. Returns counts."""
    configs = all_configs(num_players, size)
    rng = random.Random(seed)
    refs, starts = [], []
    for cfg in configs:
        game = PositanoGame(cfg)
        for _ in range(games_per_config):
            ref = game.new_initial_state(random.Random(rng.getrandbits(32)))
            refs.append(ref)
            starts.append(P.from_reference(ref))
    batch = jax.tree.map(lambda *xs: np.stack(xs), *starts)
    game0 = refs[0].game
    # A bid node takes one step per seat here, one decision in the reference.
    steps = game0.max_game_length + game0.num_rounds * (num_players - 1)
    trace = jax.device_get(rollout(batch, jax.random.PRNGKey(seed), steps))
    observers: dict = {}
    decisions = 0
    n = num_players
    for g, ref in enumerate(refs):
        observer = observers.setdefault(ref.game.config, PositanoObserver(ref.game))
        where = f"game {g} ({ref.game.config})"
        joint: list[int] = []
        for t in range(steps):
            pending = trace["pending"][t, g]
            for p in range(n):
                legal = np.zeros(192, bool)
                if not ref.is_terminal() and (num_players == 1 or pending[p] < 0):
                    legal[ref.legal_actions(p)] = True
                got = trace["masks"][t, g, p]
                assert (got == legal).all(), f"{where} step {t} seat {p}: mask differs"
                want = observer.encode(ref, p)
                got_o = trace["obs"][t, g, p]
                assert (got_o == want).all(), (
                    f"{where} step {t} seat {p}: observation differs at "
                    f"{np.flatnonzero(got_o != want)}"
                )
            action = int(trace["action"][t, g])
            if action < 0:
                assert ref.is_terminal(), f"{where} step {t}: JAX ended, the reference did not"
                break
            if ref.is_simultaneous_node():
                assert int(trace["player"][t, g]) == len(joint), f"{where} step {t}: bid order"
                joint.append(action)
                if len(joint) < n:
                    assert not trace["terminated"][t, g]
                    assert not trace["rewards"][t, g].any()
                    continue
                ref.apply_joint_action(joint)
                joint = []
            else:
                ref.apply_action(action)
            decisions += 1
            assert bool(trace["terminated"][t, g]) == ref.is_terminal(), f"{where} step {t}"
            got_r = trace["rewards"][t, g]
            want_r = np.array(ref.returns(), np.float32)
            assert (got_r == want_r).all(), f"{where} step {t}: rewards {got_r} != {want_r}"
        assert ref.is_terminal(), f"{where}: not over after {steps} steps"
        _check_breakdown(trace, g, ref, where)
        final = jax.tree.map(lambda x, g=g: x[g], trace["final"])
        assert P.to_reference(final, ref.game).to_dict() == ref.to_dict(), f"{where}: final state"
    return {"games": len(refs), "decisions": decisions, "configs": len(configs)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games-per-config", type=int, default=12)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    total = {"games": 0, "decisions": 0, "configs": 0}
    t0 = time.perf_counter()
    for n, size in SHAPES:
        got = compare(n, size, args.games_per_config, args.seed + 10 * n + size)
        print(
            f"{n} players {size}x{size}: {got['configs']} configs, {got['games']} games, "
            f"{got['decisions']} decisions, 0 differences",
            flush=True,
        )
        for k in total:
            total[k] += got[k]
    print(
        f"all: {total['configs']} configs, {total['games']} games, {total['decisions']} "
        f"decisions, 0 differences ({time.perf_counter() - t0:.0f} s)"
    )


if __name__ == "__main__":
    main()
