"""The text env (moves by string or number, clear errors that change nothing) and TextArena.

A whole game of each game is played through TextArena's own API (``textarena.make``, its
observation wrapper, ``get_observation`` / ``step`` / ``close``) by ``textarena.Agent``s that read
only the text they are given.
"""

from __future__ import annotations

import random
import re
import types

import numpy as np
import pytest
import textarena as ta

from tabletop_gym.text.env import InvalidMoveError, TextEnv
from tabletop_gym.text.textarena import TabletopTextArenaEnv, register_envs
from tests.configs import raw_env


def test_observe_gives_text_and_the_legal_moves_of_the_agent_to_act():
    env = TextEnv("rapa_nui", num_players=2)
    env.reset(seed=0)
    obs = env.observe("player_0")
    assert set(obs) == {"text", "legal_moves"}
    # docs/rules/rapa_nui.md §3: the first decision of a turn is the optional purchase
    assert obs["legal_moves"][0] == "no purchase"
    assert "1. no purchase" in obs["text"]
    assert env.observe("player_1")["legal_moves"] == []


@pytest.mark.parametrize(("game", "cfg"), [("rapa_nui", {"num_players": 3}),
                                           ("positano", {"num_players": 2}),
                                           ("positano", {"num_players": 3, "split_bids": True}),
                                           ("positano", {"num_players": 1})])
def test_moves_by_string_and_by_number_play_the_same_game_as_the_aec_env(game, cfg):
    text = TextEnv(game, **cfg)
    aec = raw_env(game, **cfg)
    text.reset(seed=5)
    aec.reset(seed=5)
    rng = random.Random(0)
    steps = 0
    while not aec.game_state.is_terminal():
        moves = text.observe(text.agent_selection)["legal_moves"]
        i = rng.randrange(len(moves))
        action = aec.legal_actions()[i]
        assert aec.action_to_string(action) == moves[i].split(" (move id ")[0]
        text.step(moves[i] if steps % 2 else i + 1)
        aec.step(action)
        steps += 1
    assert text.record().actions == aec.record().actions
    obs, reward, term, trunc, info = text.last()
    assert term and reward == aec.rewards[text.agent_selection]
    assert obs["legal_moves"] == []
    assert "Game over. Final scores" in obs["text"]
    for _ in text.possible_agents:
        text.step(None)  # the dead steps
    assert text.agents == []


@pytest.mark.parametrize("bad", [0, 2, "2", "no purchases", "NO PURCHASE", 1.0, None, True, [1]])
def test_a_bad_move_is_refused_with_what_is_allowed_and_changes_nothing(bad):
    env = TextEnv("rapa_nui", num_players=2)
    env.reset(seed=0)
    before = env.env.game_state.to_json()
    with pytest.raises(InvalidMoveError, match=r"player_0.*(1\.\.1|'no purchase')"):
        env.step(bad)
    assert env.env.game_state.to_json() == before
    assert env.agent_selection == "player_0"
    assert env.env.episode_actions() == ()
    env.step("no purchase")  # still playable
    assert len(env.env.episode_actions()) == 1


def test_a_near_miss_names_the_move_it_resembles():
    env = TextEnv("rapa_nui", num_players=2)
    env.reset(seed=0)
    with pytest.raises(InvalidMoveError, match="did you mean 'no purchase'"):
        env.step("No purchase.")


@pytest.mark.parametrize(("bad", "why"), [
    ("\u00b2", r"'\u00b2' is not a legal move of player_0"),  # str.isdigit() says yes
    ("9" * 5000, r"move number 999999999999\.\.\. \(5000 characters\) of player_0 is not "
                 "in the list"),
    ("\n" * 3000, r"'\\n\\n.*\.\.\. \(3000 characters\) is not a legal move of player_0"),
])
def test_superscripts_huge_numbers_and_long_answers_are_invalid_moves(bad, why):
    env = TextEnv("rapa_nui", num_players=2)
    env.reset(seed=0)
    with pytest.raises(InvalidMoveError, match=why) as err:
        env.step(bad)
    # one legal move (docs/rules/rapa_nui.md §3: the purchase is optional) is no range "1..1"
    assert str(err.value).endswith("give one of ['no purchase'] exactly or its number (the "
                                   "only move is number 1)")
    assert env.env.episode_actions() == ()
    env.step("0" * 5000 + "1")  # move 1, with more zeros than int() reads
    assert len(env.env.episode_actions()) == 1


def test_a_numpy_integer_is_a_move_number():
    env = TextEnv("rapa_nui", num_players=2)
    env.reset(seed=0)
    env.step(np.int64(1))  # what an array of choices hands out
    assert len(env.env.episode_actions()) == 1


@pytest.mark.parametrize("call", ["observe", "step", "last", "agent_selection", "agents",
                                  "rewards", "terminations", "infos", "action_of"])
def test_before_reset_every_call_says_to_call_reset_first(call):
    env = TextEnv("rapa_nui", num_players=2)
    calls = {"observe": lambda: env.observe("player_0"), "step": lambda: env.step(1),
             "last": env.last, "action_of": lambda: env.action_of(1)}
    with pytest.raises(RuntimeError, match=r"no game yet: call reset\(\) first"):
        calls[call]() if call in calls else getattr(env, call)


def test_after_the_last_dead_step_the_env_says_the_game_is_over():
    env = TextEnv("rapa_nui", num_players=2)
    env.reset(seed=0)
    while env.agents:
        moves = env.observe(env.agent_selection)["legal_moves"]
        if not moves:  # the game is over: no move names one, the dead steps take None
            with pytest.raises(InvalidMoveError, match="has no move to make now"):
                env.action_of(1)
        env.step(1 if moves else None)
    for call in (lambda: env.step(None), lambda: env.step(1), env.last):
        with pytest.raises(RuntimeError, match=r"the game is over: every agent has taken its "
                                               r"last step; call reset\(\) to play again"):
            call()
    env.reset(seed=0)  # and a new game can start
    assert env.observe("player_0")["legal_moves"] == ["no purchase"]


def test_unknown_agent_is_refused():
    env = TextEnv("rapa_nui", num_players=2)
    env.reset(seed=0)
    with pytest.raises(KeyError, match="unknown agent 'player_7'"):
        env.observe("player_7")


_MOVE_LINE = re.compile(r"^(\d+)\. ", re.MULTILINE)


class NumberAgent(ta.Agent):
    """A TextArena agent that answers a random number from the last numbered list it read."""

    def __init__(self, seed: int, garbage_first: int = 0):
        self.rng = random.Random(seed)
        self.garbage_first = garbage_first
        self.calls = 0

    def __call__(self, observation: str) -> str:
        self.calls += 1
        if self.calls <= self.garbage_first:
            return "I would rather not say."
        board = observation.rsplit("== Decision ==", 1)[1]
        numbers = [int(m) for m in _MOVE_LINE.findall(board)]
        return f"[{self.rng.choice(numbers)}]"


def _play(env_id: str, num_players: int, agents, seed: int = 0):
    register_envs()
    env = ta.make(f"{env_id}-raw")  # TextArena's convention: the id without its wrappers
    env = ta.wrappers.GameMessagesAndCurrentBoardObservationWrapper(env)
    env.reset(num_players=num_players, seed=seed)
    done, turns = False, 0
    first = None
    while not done:
        player_id, observation = env.get_observation()
        first = first or observation
        done, _info = env.step(action=agents[player_id](observation))
        turns += 1
    rewards, game_info = env.close()
    return env, rewards, game_info, turns, first


@pytest.mark.parametrize(("env_id", "n"), [("RapaNui-v0", 2), ("Positano-v0", 3)])
def test_a_whole_game_through_textarenas_api(env_id, n):
    agents = {p: NumberAgent(p) for p in range(n)}
    env, rewards, game_info, turns, first = _play(env_id, n, agents)
    inner = env.unwrapped_env if hasattr(env, "unwrapped_env") else env.env
    text_env = inner.text_env
    state = text_env.env.game_state
    assert state.is_terminal()
    assert turns == len(text_env.env.episode_actions())  # every answer was a legal move
    returns = state.returns()
    assert rewards == {p: float(returns[text_env.env.seat_of(f"player_{p}")]) for p in range(n)}
    assert all("game over" in game_info[p]["reason"] for p in range(n))
    assert first.startswith("You are playing the board game below as one seat.")


def test_textarena_invalid_answers_get_retries_then_end_the_game_as_a_loss():
    register_envs()
    # one wrong answer is within the allowance: the game goes on to its end
    agents = {0: NumberAgent(0, garbage_first=1), 1: NumberAgent(1)}
    _env, rewards, _info, turns, _ = _play("RapaNui-v0", 2, agents)
    assert sorted(rewards.values()) in ([-1.0, 1.0], [1.0, 1.0])
    # more wrong answers in a row than the allowance (2): player 0 loses at once
    agents = {0: NumberAgent(0, garbage_first=3), 1: NumberAgent(1)}
    env, rewards, info, turns, _ = _play("RapaNui-v0", 2, agents)
    assert rewards == {0: -1.0, 1: 0.0}
    assert turns == 3
    assert "Player 0 gave no legal move" in info[0]["reason"]


def test_textarena_env_refuses_num_players_in_its_config_and_unplayed_steps():
    with pytest.raises(ValueError, match="reset"):
        TabletopTextArenaEnv("rapa_nui", num_players=2)
    with pytest.raises(RuntimeError, match="reset"):
        TabletopTextArenaEnv("rapa_nui").step("1")
    assert register_envs() == register_envs()  # idempotent


def test_the_games_are_registered_with_the_wrappers_textarena_gives_its_own_board_games():
    from textarena.envs.registration import ENV_REGISTRY

    ids = register_envs()
    assert ids == ["RapaNui-v0", "Positano-v0", "RapaNui-v0-train", "Positano-v0-train",
                   "RapaNui-v0-raw", "Positano-v0-raw"]
    for ours in ("RapaNui-v0", "Positano-v0"):
        for suffix in ("", "-train", "-raw"):  # as TicTacToe-v0, Chess-v0 and the rest
            assert (ENV_REGISTRY[ours + suffix].default_wrappers
                    == ENV_REGISTRY["TicTacToe-v0" + suffix].default_wrappers)
    env = ta.make("RapaNui-v0")
    assert [type(env).__name__, type(env.env).__name__, type(env.env.env).__name__] == [
        "ActionFormattingWrapper", "LLMObservationWrapper", "TabletopTextArenaEnv"]
    assert type(ta.make("Positano-v0-raw")).__name__ == "TabletopTextArenaEnv"


@pytest.mark.parametrize(("env_id", "n"), [("RapaNui-v0", 2), ("Positano-v0", 3)])
def test_textarenas_readme_loop_runs_as_written_with_its_openai_agent(env_id, n, monkeypatch):
    from textarena.wrappers.RenderWrappers.SimpleRenderWrapper import render

    from tabletop_gym.arena.scripted_server import Reply, ScriptedServer, listed_moves

    # The render wrapper pauses 0.4 s a step to be watched; the test does not watch.
    monkeypatch.setattr(render, "time", types.SimpleNamespace(sleep=lambda s: None))

    def script(messages, k):
        # TextArena's agent sends its own system prompt and the whole conversation as one
        # string; the answer is our prompt's format, which ActionFormattingWrapper brackets
        return Reply(f"Move: {len(listed_moves(messages))}")  # the last listed move

    register_envs()
    with ScriptedServer(script) as server:
        # TextArena's README, with OpenAIAgent on the loopback server for OpenRouterAgent
        agents = {p: ta.agents.OpenAIAgent(model_name="scripted", api_key="local-test-key",
                                           base_url=server.base_url) for p in range(n)}

        # Initialize the environment
        env = ta.make(env_id=env_id)

        # wrap it for additional visualizations
        env = ta.wrappers.SimpleRenderWrapper(env=env)

        env.reset(num_players=len(agents))

        done = False
        while not done:
            player_id, observation = env.get_observation()
            action = agents[player_id](observation)
            done, step_info = env.step(action=action)

        rewards, game_info = env.close()
        served = len(server.requests)
    text_env = env.env.env.env.text_env
    raw = text_env.env
    assert raw.game_state.is_terminal()
    assert served == len(raw.episode_actions())  # every answer was read as a legal move
    returns = raw.game_state.returns()
    assert rewards == {p: float(returns[raw.seat_of(f"player_{p}")]) for p in range(n)}
    assert all("game over" in game_info[p]["reason"] for p in range(n))
    # the render wrapper's board is the public table: no seat's hand
    assert "Your hand" not in env.get_board_str()
