"""The text env as an OpenEnv environment (docs/llm.md, "OpenEnv"): seeded resets deal the
same game, a refused move changes nothing, whole games end with the game's rewards, directly and
through OpenEnv's own client (``GenericEnvClient``) against its server in a thread of the test
process on 127.0.0.1."""

from __future__ import annotations

import socket
import threading
import time

import pytest
import uvicorn
from openenv import GenericEnvClient
from openenv.core.env_server.http_server import create_app

from tabletop_gym.text.openenv import (
    MoveAction,
    TabletopTextEnvironment,
    TextGameObservation,
)


def test_a_seeded_reset_deals_the_same_game_and_a_bad_move_changes_nothing():
    env = TabletopTextEnvironment("positano", num_players=3)
    first = env.reset(seed=7)
    again = TabletopTextEnvironment("positano", num_players=3).reset(seed=7)
    assert first == again
    assert env.reset(seed=8).text != first.text  # another seed, another deal
    env.reset(seed=7)
    refused = env.step(MoveAction(move="build a castle"))
    assert "is not a legal move of player_0" in refused.error
    assert refused.text == first.text and env.state.actions == [] and env.state.step_count == 0


@pytest.mark.parametrize("game", ["rapa_nui", "positano"])
def test_a_whole_game_ends_with_the_games_rewards(game):
    env = TabletopTextEnvironment(game, num_players=2)
    obs = env.reset(seed=1)
    steps = 0
    while not obs.done:
        obs = env.step(MoveAction(move="1"))
        assert obs.error == ""
        steps += 1
    # win_loss rewards (docs/llm.md, TextArena): +1 the winner, -1 the loser, 0 each on a tie
    rewards = obs.metadata["rewards"]
    assert sorted(rewards.values()) in ([-1.0, 1.0], [0.0, 0.0])
    assert env.state.step_count == steps == len(env.state.actions)
    assert "game is over" in env.step(MoveAction(move="1")).error


def _serve(app):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="critical"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the OpenEnv server did not start"
        time.sleep(0.02)
    return server, thread, f"http://127.0.0.1:{port}"


def test_openenvs_client_plays_seeded_games_that_match_the_env():
    app = create_app(lambda: TabletopTextEnvironment("rapa_nui", num_players=2), MoveAction,
                     TextGameObservation, env_name="tabletop_rapa_nui")
    server, thread, url = _serve(app)
    try:
        games = []
        for _ in range(2):
            with GenericEnvClient(base_url=url).sync() as client:
                result = client.reset(seed=3)
                seen = [result.observation["text"]]
                while not result.done:
                    result = client.step({"move": "1"})
                    seen.append(result.observation["text"])
                games.append((seen, result.reward))
    finally:
        server.should_exit = True
        thread.join(10)
    assert games[0] == games[1]  # the same seed, the same game, through two sessions
    direct = TabletopTextEnvironment("rapa_nui", num_players=2)
    assert games[0][0][0] == direct.reset(seed=3).text
    assert games[0][1] in (-1.0, 0.0, 1.0)
