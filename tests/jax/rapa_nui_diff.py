"""Differential play of the batched JAX Rapa Nui against the reference engine.

Every game is dealt by the reference engine, converted with ``from_reference``, played in JAX
(all games of one player count at once: ``vmap`` over games, ``lax.scan`` over steps, random legal
actions from a JAX key) and then replayed action by action in the reference engine, which must
give the same legal mask, the same observation for every seat and the same rewards at every step,
and the same score breakdown and winners at the end.

Long run: ``python -m tests.jax.rapa_nui_diff --games-per-config 12`` (3 player counts × 192
switch combinations × 12 games).
"""

from __future__ import annotations

import argparse
import functools
import itertools
import random
import time

import jax
import jax.numpy as jnp
import numpy as np

from tabletop_gym.core.game import REWARD_TYPES
from tabletop_gym.envs.rapa_nui.observer import RapaNuiObserver
from tabletop_gym.envs.rapa_nui.rules import RapaNuiConfig, RapaNuiGame
from tabletop_gym.jax import rapa_nui as R


def all_configs(num_players: int) -> list[RapaNuiConfig]:
    """Every combination of the switches for one player count (192)."""
    return [
        RapaNuiConfig(
            num_players=num_players,
            reward_type=rt,
            allow_voluntary_moai_discard=vol,
            active_supply_offering_optional=opt,
            moai_choice=mc,
            offering_supply_limited=lim,
            zero_count_kind_value=zc,
            hunter_gatherer_majority_bonus=hg,
        )
        for rt, vol, opt, mc, lim, zc, hg in itertools.product(
            REWARD_TYPES,
            (False, True),
            (False, True),
            ("per_unit", "all_same"),
            (True, False),
            ("zero", "ranked"),
            (True, False),
        )
    ]


@functools.partial(jax.jit, static_argnames=("steps",))
def rollout(states: R.State, key: jax.Array, steps: int) -> dict[str, jax.Array]:
    """Play every game with random legal actions; per step what the reference must reproduce."""
    n = states.hands.shape[1]

    def one(carry, k):
        s = carry
        mask = jax.vmap(R.legal_action_mask)(s)
        obs = jax.vmap(lambda st: jax.vmap(lambda p: R.observe(st, p))(jnp.arange(n)))(s)
        keys = jax.random.split(k, mask.shape[0])
        action = jax.vmap(lambda kk, m: jax.random.categorical(kk, jnp.where(m, 0.0, -jnp.inf)))(
            keys, mask
        )
        action = jnp.where(s.terminated, -1, action)
        s2 = jax.vmap(R.step)(s, jnp.maximum(action, 0))
        out = {
            "mask": mask,
            "obs": obs.astype(jnp.int16),
            "action": action,
            "rewards": jax.vmap(R.rewards)(s2),
            "terminated": jax.vmap(R.terminated)(s2),
        }
        return s2, out

    final, trace = jax.lax.scan(one, states, jax.random.split(key, steps))
    trace["breakdown"] = jax.vmap(R.score_breakdown)(final)
    trace["winners"] = jax.vmap(R.winners)(final)
    trace["final"] = final
    return trace


def compare(num_players: int, games_per_config: int, seed: int) -> dict[str, int]:
    """Play and compare; raise AssertionError at the first difference. Returns counts."""
    configs = all_configs(num_players)
    rng = random.Random(seed)
    refs, starts = [], []
    for cfg in configs:
        game = RapaNuiGame(cfg)
        for _ in range(games_per_config):
            ref = game.new_initial_state(random.Random(rng.getrandbits(32)))
            refs.append(ref)
            starts.append(R.from_reference(ref))
    batch = jax.tree.map(lambda *xs: np.stack(xs), *starts)
    steps = refs[0].game.max_game_length
    trace = jax.device_get(rollout(batch, jax.random.PRNGKey(seed), steps))
    observers = {}
    decisions = 0
    for g, ref in enumerate(refs):
        observer = observers.setdefault(ref.game.config, RapaNuiObserver(ref.game))
        where = f"game {g} ({ref.game.config})"
        for t in range(steps):
            legal = np.zeros(45, bool)
            if not ref.is_terminal():
                legal[ref.legal_actions()] = True
            assert (trace["mask"][t, g] == legal).all(), f"{where} step {t}: mask differs"
            for p in range(num_players):
                want = observer.encode(ref, p)
                got = trace["obs"][t, g, p]
                assert (got == want).all(), (
                    f"{where} step {t} seat {p}: observation differs at {np.flatnonzero(got != want)}"
                )
            action = int(trace["action"][t, g])
            if action < 0:
                assert ref.is_terminal(), f"{where} step {t}: JAX ended, the reference did not"
                break
            ref.apply_action(action)
            decisions += 1
            assert bool(trace["terminated"][t, g]) == ref.is_terminal(), f"{where} step {t}"
            got_r = trace["rewards"][t, g]
            want_r = np.array(ref.returns(), np.float32)
            assert (got_r == want_r).all(), f"{where} step {t}: rewards {got_r} != {want_r}"
        assert ref.is_terminal(), f"{where}: not over after {steps} steps"
        bd = ref.score_breakdown()
        for key in ("vp_tiles", "moai", "wood", "offerings", "total", "moai_count", "wood_count"):
            assert trace["breakdown"][key][g].tolist() == [b[key] for b in bd], f"{where}: {key}"
        assert trace["breakdown"]["kind_values"][g].tolist() == list(bd[0]["kind_values"].values())
        assert np.flatnonzero(trace["winners"][g]).tolist() == ref.winners(), f"{where}: winners"
        final = jax.tree.map(lambda x, g=g: x[g], trace["final"])
        assert R.to_reference(final, ref.game).to_dict() == ref.to_dict(), f"{where}: final state"
    return {"games": len(refs), "decisions": decisions}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games-per-config", type=int, default=12)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    total = {"games": 0, "decisions": 0}
    t0 = time.perf_counter()
    for n in (2, 3, 4):
        got = compare(n, args.games_per_config, args.seed + n)
        print(f"{n} players: {got['games']} games, {got['decisions']} decisions, 0 differences")
        for k in total:
            total[k] += got[k]
    print(
        f"all: {total['games']} games, {total['decisions']} decisions, 0 differences "
        f"({time.perf_counter() - t0:.0f} s)"
    )


if __name__ == "__main__":
    main()
