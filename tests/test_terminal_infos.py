"""The AEC and the parallel env say the same about a finished game (one builder in core/aec.py).

The infos of the last step carry every agent's final score by agent name, its own score
breakdown and the winners (``info_mode="full"``), or the stable arrays (``info_mode="stable"``);
both envs build them with ``core.aec.terminal_infos``. Here both play the same seeded game, every
seat choosing the lowest legal id, and the terminal infos are compared key by key.
"""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_gym.envs import positano_v0, rapa_nui_v0

GAMES = [(rapa_nui_v0, {"num_players": 2}), (rapa_nui_v0, {"num_players": 4}),
         (positano_v0, {"num_players": 2}), (positano_v0, {"num_players": 3})]
FINAL_KEYS = ("scores", "score_breakdown", "winners")


def _aec_final(module, config, seed):
    env = module.raw_env(**config)
    env.reset(seed=seed)
    while not all(env.terminations.values()):
        env.step(int(env.legal_actions()[0]))
    return env.infos, env.game_state


def _parallel_final(module, config, seed):
    env = module.parallel_env(**config)
    obs, infos = env.reset(seed=seed)
    while env.agents:
        actions = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in env.agents}
        obs, rewards, terms, truncs, infos = env.step(actions)
    return infos, env.game_state


@pytest.mark.parametrize(("module", "config"), GAMES, ids=lambda v: getattr(v, "__name__", str(v)))
@pytest.mark.parametrize("seed", [0, 7])
def test_aec_and_parallel_terminal_infos_agree(module, config, seed):
    aec, aec_state = _aec_final(module, config, seed)
    par, par_state = _parallel_final(module, config, seed)
    assert aec_state.scores() == par_state.scores()
    assert set(aec) == set(par) == {f"player_{i}" for i in range(config["num_players"])}
    scores = aec_state.scores()
    for agent in aec:
        assert {k: aec[agent][k] for k in FINAL_KEYS} == {k: par[agent][k] for k in FINAL_KEYS}
        assert aec[agent]["scores"] == {f"player_{s}": float(v) for s, v in enumerate(scores)}
        assert aec[agent]["winners"] == [f"player_{s}" for s in aec_state.winners()]
        assert aec[agent]["is_acting"] is par[agent]["is_acting"] is False
        assert not aec[agent]["action_mask"].any() and not par[agent]["action_mask"].any()
    # Each agent's scores dict is its own.
    assert aec["player_0"]["scores"] is not aec["player_1"]["scores"]
    assert par["player_0"]["scores"] is not par["player_1"]["scores"]


@pytest.mark.parametrize(("module", "config"), GAMES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_aec_and_parallel_stable_terminal_infos_are_equal(module, config):
    config = {**config, "info_mode": "stable"}
    aec, state = _aec_final(module, config, 3)
    par, _ = _parallel_final(module, config, 3)
    n = config["num_players"]
    won = np.zeros(n, dtype=np.int8)
    won[list(state.winners())] = 1
    for agent in aec:
        assert aec[agent].keys() == par[agent].keys()
        for key, value in aec[agent].items():
            np.testing.assert_array_equal(value, par[agent][key], err_msg=f"{agent} {key}")
        assert aec[agent]["game_over"] is True and aec[agent]["illegal_action"] == -1
        np.testing.assert_array_equal(aec[agent]["scores"],
                                      np.asarray(state.scores(), dtype=np.float32))
        np.testing.assert_array_equal(aec[agent]["winners"], won)


@pytest.mark.parametrize("module", [rapa_nui_v0, positano_v0], ids=lambda m: m.__name__)
def test_aec_and_parallel_describe_a_game_ending_illegal_action_alike(module):
    # player_0 opens both games (Positano's bid: it bids first in the AEC env) and plays an id
    # outside its legal set: the game ends, and both envs name the same agent, action, phase
    # and legal set. The message is the engine's: at Positano's simultaneous bid the parallel
    # env sends a joint action, whose error also names the seat.
    aec = module.raw_env(num_players=2)
    aec.reset(seed=5)
    legal = aec.legal_actions()
    bad = next(a for a in range(aec.action_space("player_0").n) if a not in legal)
    with pytest.warns(UserWarning, match="illegal action"):
        aec.step(bad)
    par = module.parallel_env(num_players=2)
    obs, _ = par.reset(seed=5)
    actions = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in par.agents}
    actions["player_0"] = bad
    with pytest.warns(UserWarning, match="illegal action"):
        _, _, terms, _, infos = par.step(actions)
    assert all(terms.values())
    detail = aec.infos["player_0"]["illegal_action"]
    assert detail["agent"] == "player_0" and detail["action"] == bad
    assert detail["legal_actions"] == legal
    joint = module is positano_v0
    for agent in ("player_0", "player_1"):
        mine, theirs = aec.infos[agent]["illegal_action"], dict(infos[agent]["illegal_action"])
        assert mine == detail
        if joint:
            assert theirs.pop("message") == detail["message"].replace(" in phase 'bid'",
                                                                      " in phase 'bid' (seat 0)")
            mine = {k: v for k, v in mine.items() if k != "message"}
        assert theirs == mine
