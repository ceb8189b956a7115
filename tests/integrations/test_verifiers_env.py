"""The text env as a ``verifiers`` environment (docs/llm.md, "verifiers"), run with verifiers'
own API (``env.run_rollout``, ``env.evaluate_sync``) in the test process against the scripted
OpenAI-compatible server on 127.0.0.1:

* a row's seed deals the same game every time, and a rollout plays exactly the game that the
  single-agent env plays with the same seed and the same moves (its reward is that game's return);
* an answer that is not a legal move is told why and asked again, then a seeded random move is
  played; a rollout cut short keeps what it earned so far;
* every message the model gets is its seat's view: it does not change when what the seat cannot
  see is resampled.
"""

from __future__ import annotations

import asyncio
import random
import signal

import numpy as np
import pytest
from openai import AsyncOpenAI

from tabletop_gym.arena.scripted_server import Reply, ScriptedServer, listed_moves
from tabletop_gym.integrations.verifiers_env import load_environment
from tabletop_gym.text import view as text_view
from tabletop_gym.text.rules import rethink_prompt, system_prompt
from tabletop_gym.wrappers.single_agent import make_registered

FIRST = Reply(content="Move: 1")


@pytest.fixture(autouse=True)
def keep_signal_handlers():
    """verifiers' Environment installs SIGINT and SIGTERM handlers; give pytest its own back."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    yield
    for s, handler in saved.items():
        signal.signal(s, handler)


def _rollout(env, row, script=lambda m, k: FIRST):
    """One scored rollout of ``row`` (verifiers' ``run_rollout``) and the requests it made."""
    with ScriptedServer(script) as server:
        client = AsyncOpenAI(base_url=server.base_url, api_key="none", max_retries=0)
        out = asyncio.run(env.run_rollout(row, client, "scripted", {}, state_columns=[
            "actions", "game_return", "finished", "decisions"]))
        return out, server.requests


def _first_move_game(game, seed, **table):
    """The single-agent env's game of ``seed`` with the seat always playing its first listed
    move (the lowest legal action id: the list is in action order); its actions, return and the
    decisions with more than one legal move (those put to the model) and all the seat's moves."""
    env = make_registered(game, **table)
    _, info = env.reset(seed=seed)
    total, asked, moves, done = 0.0, 0, 0, False
    while not done:
        legal = np.flatnonzero(info["action_mask"])
        asked += len(legal) > 1
        moves += 1
        _, reward, done, _, info = env.step(int(legal[0]))
        total += reward
    return [int(a) for a in env.aec.episode_actions()], total, asked, moves


def test_a_rollout_plays_the_seeded_game_and_earns_its_return():
    env = load_environment("rapa_nui", num_players=2, opponents="heuristic", seed=3,
                           num_examples=2)
    rows = env.get_dataset().to_list()
    assert [r["info"] for r in rows] == [{"seed": 3, "seat": 0}, {"seed": 4, "seat": 0}]
    assert rows[0]["prompt"][0] == {"role": "system", "content": system_prompt("rapa_nui")}
    assert rows[0]["prompt"][1]["content"].startswith("You are player_0 (seat 0).")
    assert rows[0]["prompt"] != rows[1]["prompt"]  # another seed, another deal
    again = load_environment("rapa_nui", num_players=2, opponents="heuristic", seed=3,
                             num_examples=2)
    assert again.get_dataset().to_list() == rows  # the same seeds, the same rows

    state, requests = _rollout(env, rows[0])
    actions, total, asked, moves = _first_move_game("rapa_nui", 3, num_players=2,
                                                    opponents="heuristic")
    assert state["error"] is None and state["stop_condition"] == "has_final_env_response"
    assert state["actions"] == actions  # every seat's every move, as the env plays them
    assert state["reward"] == state["game_return"] == total
    assert total in (-1.0, 0.0, 1.0)  # win_loss: the game's reward
    assert state["finished"] and len(requests) == state["decisions"] == asked
    assert state["metrics"]["not_accepted"] == state["metrics"]["fallbacks"] == 0
    # each request holds the whole conversation so far: the row's prompt first
    assert requests[0]["messages"] == rows[0]["prompt"]
    assert len(requests[-1]["messages"]) == 2 + 2 * (asked - 1)
    assert state["completion"][-1]["content"].endswith(
        f"The game is over: your return is {total:g}.")
    replay, _ = _rollout(env, rows[0])
    assert replay["completion"] == state["completion"]  # the same row, the same rollout
    # ask_forced: the seat's one-move decisions are put to the model too
    asking = load_environment("rapa_nui", num_players=2, opponents="heuristic", seed=3,
                              num_examples=1, ask_forced=True)
    every, requests = _rollout(asking, asking.get_dataset()[0])
    assert every["actions"] == actions and len(requests) == every["decisions"] == moves > asked


def test_evaluate_plays_every_row_with_its_seat():
    env = load_environment("positano", num_players=3, seat=0, seat_mode="rotate", seed=4,
                           num_examples=2)
    rows = env.get_dataset().to_list()
    assert [r["info"] for r in rows] == [{"seed": 4, "seat": 1}, {"seed": 5, "seat": 2}]
    with ScriptedServer(lambda m, k: FIRST) as server:
        client = AsyncOpenAI(base_url=server.base_url, api_key="none", max_retries=0)
        out = env.evaluate_sync(client=client, model="scripted", max_concurrent=1)
    results = sorted(out["outputs"], key=lambda o: o["info"]["seed"])
    for result in results:
        seed = result["info"]["seed"]
        _, total, asked, _ = _first_move_game("positano", seed, num_players=3, learner_seat=0,
                                           seat_mode="rotate")
        assert result["reward"] == total
        assert result["metrics"]["finished"] == 1.0 and result["metrics"]["decisions"] == asked
    # win_loss (docs/envs/positano.md, Rewards): +1 each winner, -1 everyone else
    assert all(r["reward"] in (-1.0, 1.0) for r in results)


def test_an_answer_that_is_no_move_is_asked_again_then_a_seeded_move_is_played():
    # rethinks=1: answer 1 is told why and asked again, answer 2 gets the fallback and the next
    # view; the same for answers 3 and 4, and 5; max_turns=6 stops after answer 6, unread.
    env = load_environment("rapa_nui", num_players=2, seed=7, num_examples=1, rethinks=1,
                           max_turns=6)
    row = env.get_dataset()[0]
    castle = Reply(content="Move: build a castle")
    state, requests = _rollout(env, row, lambda m, k: castle)
    assert len(requests) == 6 and state["stop_condition"] == "max_turns_reached"
    assert state["decisions"] == 3 and not state["finished"]
    assert state["metrics"]["not_accepted"] == 5 and state["metrics"]["fallbacks"] == 2
    told = requests[1]["messages"][-1]["content"]
    k = len(listed_moves(requests[0]["messages"]))  # the first view's numbered moves
    reason = (f"the answer names no legal move; give a move number (1 to {k}) or the exact "
              "text of one move")
    assert told == rethink_prompt(reason, 1)  # the llm: agent's words, one try left
    nxt = requests[2]["messages"][-1]["content"]
    assert nxt.startswith(f"That answer was not accepted: {reason}. A random legal move was "
                          "played for you: ")
    assert nxt.split("\n\n", 1)[1].startswith("You are player_0 (seat 0).")  # the next view
    again, _ = _rollout(env, row, lambda m, k: castle)
    assert again["actions"] == state["actions"]  # the fallback's moves are seeded


def test_the_grammar_mode_and_a_rollout_cut_short():
    env = load_environment("rapa_nui", num_players=2, seed=0, num_examples=1, mode="grammar",
                           rethinks=0, max_turns=2)
    row = env.get_dataset()[0]
    assert row["prompt"][0]["content"] == system_prompt("rapa_nui", "grammar")
    assert "\n1. " not in row["prompt"][1]["content"]  # no numbered list in this mode
    state, requests = _rollout(env, row)  # "Move: 1": a number names no move without a list
    assert state["stop_condition"] == "max_turns_reached" and len(requests) == 2
    assert state["metrics"]["not_accepted"] == state["metrics"]["fallbacks"] == 1
    assert not state["finished"] and state["reward"] == 0.0  # nothing earned before the end


@pytest.mark.parametrize(("game", "players"), [("rapa_nui", 3), ("positano", 3)])
def test_no_message_to_the_model_changes_when_hidden_things_are_resampled(game, players,
                                                                         monkeypatch):
    views = []
    real = text_view.seat_view

    def recorded(state, seat, renderer, history=(), **kwargs):
        out = real(state, seat, renderer, history, **kwargs)
        views.append((state.clone(), seat, renderer, list(history), kwargs, out.text))
        return out

    monkeypatch.setattr(text_view, "seat_view", recorded)
    env = load_environment(game, num_players=players, seed=2, num_examples=1)
    state, requests = _rollout(env, env.get_dataset()[0])
    assert state["finished"]
    sent = {m["content"] for r in requests for m in r["messages"] if m["role"] == "user"}
    shown = {v[-1] for v in views}
    assert sent <= shown  # every message the model got is a view, nothing else
    rng = random.Random(5)
    checked = changed = 0
    for full, seat, renderer, history, kwargs, text in views:
        if text not in sent:
            continue  # a view the model was not shown (a forced move's, the last)
        sent.discard(text)  # the first view is written twice: for the row, for the rollout
        for _ in range(2):
            other = full.resample_hidden(seat, rng)
            assert real(other, seat, renderer, history, **kwargs).text == text
            changed += other.to_dict() != full.to_dict()
            checked += 1
    assert checked == 2 * len(requests) and not sent  # every decision's view, once each
    assert changed > checked // 4  # and the resampler did move hidden things


def test_bad_arguments_are_refused_and_a_changed_row_is_an_error():
    with pytest.raises(ValueError, match=r"num_examples must be an int >= 1, got 0"):
        load_environment("rapa_nui", num_examples=0)
    with pytest.raises(ValueError, match=r"seat_mode='random' is not allowed; choose 'fixed' or "
                                         r"'rotate'"):
        load_environment("rapa_nui", seat_mode="random")
    with pytest.raises(ValueError, match=r"mode"):
        load_environment("rapa_nui", mode="menu")
    with pytest.raises(TypeError, match=r"num_player"):
        load_environment("rapa_nui", num_player=2)
    env = load_environment("rapa_nui", num_players=2, seed=1, num_examples=1)
    row = env.get_dataset()[0]
    row["prompt"][1]["content"] += " and a hint"
    state, requests = _rollout(env, row)
    assert state["stop_condition"] == "has_error" and requests == []
    assert state["error"]["error_chain_repr"] == ('Error("the row\'s prompt is not the first view '
                                                  'of the deal of seed 1 (the dataset was '
                                                  'changed)")')
