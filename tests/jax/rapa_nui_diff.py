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

import functools
import itertools

import jax
import numpy as np

from tabletop_gym.core.game import REWARD_TYPES
from tabletop_gym.envs.rapa_nui import batched as R
from tabletop_gym.envs.rapa_nui.observer import RapaNuiObserver
from tabletop_gym.envs.rapa_nui.rules import NUM_ACTIONS, RapaNuiConfig, RapaNuiGame
from tests.jax import diff


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


def _mask(trace: diff.Trace, t: int, g: int, ref) -> list[tuple[str, np.ndarray, np.ndarray]]:
    legal = np.zeros(NUM_ACTIONS, bool)
    if not ref.is_terminal():
        legal[ref.legal_actions()] = True
    return [("", trace["mask"][t, g], legal)]


def _apply(ref, action: int, t: int) -> bool:
    ref.apply_action(action)
    return True


def compare(num_players: int, games_per_config: int, seed: int) -> dict[str, int]:
    """Play and compare; raise AssertionError at the first difference. Returns counts."""
    refs = diff.deal_references(RapaNuiGame, all_configs(num_players), games_per_config, seed)
    steps = refs[0].game.max_game_length
    batch = diff.batch_of(R, refs)
    trace = jax.device_get(diff.random_rollout(R, batch, jax.random.PRNGKey(seed), steps))
    observers: dict[RapaNuiConfig, RapaNuiObserver] = {}
    decisions = 0
    for g, ref in enumerate(refs):
        observer = observers.setdefault(ref.game.config, RapaNuiObserver(ref.game))
        where = f"game {g} ({ref.game.config})"
        decisions += diff.replay(trace, g, ref, observer, steps, where, _mask, _apply)
        bd = ref.score_breakdown()
        for key in ("vp_tiles", "moai", "wood", "offerings", "total", "moai_count", "wood_count"):
            assert trace["breakdown"][key][g].tolist() == [b[key] for b in bd], f"{where}: {key}"
        assert trace["breakdown"]["kind_values"][g].tolist() == list(bd[0]["kind_values"].values())
        assert np.flatnonzero(trace["winners"][g]).tolist() == ref.winners(), f"{where}: winners"
        diff.check_final_position(R, trace, g, ref, where)
    return {"games": len(refs), "decisions": decisions}


def main() -> None:
    parts = [(f"{n} players", n, functools.partial(compare, n)) for n in (2, 3, 4)]
    diff.long_run((__doc__ or "").splitlines()[0], parts)


if __name__ == "__main__":
    main()
