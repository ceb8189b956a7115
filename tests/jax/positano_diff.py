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

import functools

import jax
import numpy as np

from tabletop_gym.core.game import REWARD_TYPES
from tabletop_gym.envs.positano import batched as P, components as C
from tabletop_gym.envs.positano.observer import PositanoObserver
from tabletop_gym.envs.positano.rules import NUM_ACTIONS, PositanoConfig, PositanoGame
from tests.jax import diff

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


def _bids(s: P.State) -> dict[str, jax.Array]:
    # Every seat's mask (all seats bid at a bid node), the hidden bids and the seat to decide.
    return {
        "masks": jax.vmap(P.legal_action_masks)(s),
        "pending": s.pending,
        "player": jax.vmap(P.current_player)(s),
    }


def _check_breakdown(trace: diff.Trace, g: int, ref, where: str) -> None:
    bd = ref.score_breakdown()
    cols = bd[0]["colours"] if ref.game.solo else bd
    b = trace["breakdown"]
    for c, col in enumerate(cols):
        assert b["building_points"][g, c] == col["building_points"], f"{where}: buildings {c}"
        lots = {name: int(b["lot_points"][g, p]) for p in range(25)
                if (name := C.lot_name(p)) in col["buildings"]}
        assert lots == col["buildings"], f"{where}: per-building points of colour {c}"
        assert b["gelato_parts"][g, c].tolist() == list(col["gelato_parts"].values()), where
        assert b["gelato"][g, c] == col["gelato"], f"{where}: gelato {c}"
        assert b["goals"][g, c].tolist() == list(col["goals"].values()), f"{where}: goals {c}"
        assert b["total"][g, c] == col["total"], f"{where}: total {c}"
    assert b["result"][g].tolist() == [x["total"] for x in bd], f"{where}: result"
    assert np.flatnonzero(trace["winners"][g]).tolist() == ref.winners(), f"{where}: winners"


def _masks(trace: diff.Trace, t: int, g: int, ref) -> list[tuple[str, np.ndarray, np.ndarray]]:
    # A seat whose bid is in (pending) has nothing legal until the reveal.
    pending = trace["pending"][t, g]
    out = []
    for p in range(ref.game.num_players):
        legal = np.zeros(NUM_ACTIONS, bool)
        if not ref.is_terminal() and (ref.game.num_players == 1 or pending[p] < 0):
            legal[ref.legal_actions(p)] = True
        out.append((f" seat {p}", trace["masks"][t, g, p], legal))
    return out


def compare(num_players: int, size: int, games_per_config: int, seed: int) -> dict[str, int]:
    """Play and compare; raise AssertionError at the first difference. Returns counts."""
    configs = all_configs(num_players, size)
    refs = diff.deal_references(PositanoGame, configs, games_per_config, seed)
    game0 = refs[0].game
    # A bid node takes one step per seat here, one decision in the reference.
    steps = game0.max_game_length + game0.num_rounds * (num_players - 1)
    trace = jax.device_get(
        diff.random_rollout(P, diff.batch_of(P, refs), jax.random.PRNGKey(seed), steps, extra=_bids)
    )
    observers: dict[PositanoConfig, PositanoObserver] = {}
    decisions = 0
    for g, ref in enumerate(refs):
        observer = observers.setdefault(ref.game.config, PositanoObserver(ref.game))
        where = f"game {g} ({ref.game.config})"
        joint: list[int] = []

        def apply(ref, action: int, t: int, g: int = g, where: str = where,
                  joint: list[int] = joint) -> bool:
            if not ref.is_simultaneous_node():
                ref.apply_action(action)
                return True
            # The seats commit one per step in seat order; the reference takes them at once.
            assert int(trace["player"][t, g]) == len(joint), f"{where} step {t}: bid order"
            joint.append(action)
            if len(joint) < num_players:
                return False
            ref.apply_joint_action(joint)
            joint.clear()
            return True

        decisions += diff.replay(trace, g, ref, observer, steps, where, _masks, apply)
        _check_breakdown(trace, g, ref, where)
        diff.check_final_position(P, trace, g, ref, where)
    return {"configs": len(configs), "games": len(refs), "decisions": decisions}


def main() -> None:
    parts = [
        (f"{n} players {size}x{size}", 10 * n + size, functools.partial(compare, n, size))
        for n, size in SHAPES
    ]
    diff.long_run((__doc__ or "").splitlines()[0], parts)


if __name__ == "__main__":
    main()
