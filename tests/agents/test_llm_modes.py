"""Prompt modes (docs/llm.md, "Prompt modes"), forced moves and reasoning, end to end.

* the ``grammar`` mode sends no numbered list: the system prompt gives the game's move grammar,
  an answer is the move written out (or its short form), a number is unparsable, and another
  move of the game is illegal; whole games of both games finish over HTTP on loopback;
* the grammar covers every action of both games (each name matches exactly one form);
* a move that is the only legal one is played without a request unless ``forced=ask``;
* a ``<think>`` block at the front of an answer is reasoning, not the answer.
"""

from __future__ import annotations

import random
import re

import pytest

from tabletop_gym.agents.llm import (
    CallableBackend,
    LLMAgent,
    agent_from_spec,
    load_prices,
    parse_spec,
    record_with_logs,
    split_reasoning,
)
from tabletop_gym.arena.scripted_server import Reply, ScriptedServer
from tabletop_gym.text.moves import parse_move, short_form
from tabletop_gym.text.rules import GRAMMARS, grammar_patterns, system_prompt
from tabletop_gym.text.view import legal_moves
from tests.configs import raw_env

LIST_LINE = re.compile(r"^\d+\. ", re.MULTILINE)


@pytest.mark.parametrize("game", sorted(GRAMMARS))
def test_the_move_grammar_covers_every_action_of_the_game(game):
    patterns = grammar_patterns(game)
    seen = 0
    for n in (2, 3, 4):
        env = raw_env(game, num_players=n)
        rng = random.Random(n)
        env.reset(seed=n)
        for _ in range(60):
            state = env.game_state
            if state.is_terminal():
                break
            for a in range(env.game.num_distinct_actions):
                try:
                    name = state.action_to_string(a, state.current_player())
                except Exception:
                    continue
                fits = [p for p in patterns if p.fullmatch(name)]
                assert len(fits) == 1, (name, fits)
                seen += 1
            env.step(rng.choice(env.legal_actions()))
    assert seen > 500


LEGAL = ["draw column 1 (Woodcutter)", "draw column 2 (Moai)", "play 2× H&G Fish (1 wood)",
         "play Moai (7 wood)"]


@pytest.mark.parametrize(("answer", "index", "match"), [
    ("Move: draw column 2 (Moai)", 1, "exact"),
    ("move: DRAW COLUMN 2 (moai).", 1, "tolerant"),
    ("Move: draw column 2", 1, "short"),
    ("play 2x H&G Fish", 2, "short"),  # "×" may be written "x"
    ("Move: play Moai", 3, "short"),
    ("I think the best is to play moai now.", 3, "tolerant"),
])
def test_without_a_list_a_written_move_or_its_short_form_is_legal(answer, index, match):
    got = parse_move(answer, LEGAL, numbers=False)
    assert (got.kind, got.index, got.match) == ("legal", index, match)


@pytest.mark.parametrize(("answer", "kind", "why"), [
    ("Move: 2", "unparsable", "no moves were numbered"),
    ("Move: draw column 4", "illegal", "not legal now"),
    ("Move: buy Fish", "illegal", "not legal now"),
    ("draw column 1 or draw column 2", "unparsable", "more than one legal move"),
    ("Move: pass", "unparsable", "write one legal move in the move grammar"),
    ("  ", "unparsable", "the answer is empty; give a move in the move grammar"),
])
def test_without_a_list_numbers_other_moves_and_prose_are_classed(answer, kind, why):
    others = ["draw column 4 (Moai)", "buy Fish (5 wood)", "no purchase"]
    got = parse_move(answer, LEGAL, lambda: others, numbers=False)
    assert got.kind == kind and why in got.reason


def test_a_short_form_two_moves_share_must_be_written_whole():
    legal = ["bid #1 (60/50/10) +5", "bid #1 (60/50/10) +6"]
    assert short_form(legal[0]) == "bid #1 +5"
    got = parse_move("bid #1 +6", legal, numbers=False)
    assert (got.kind, got.index) == ("legal", 1)
    same = ["block tile 40 (2 blocks)", "block tile 40 (3X)"]  # not a real position
    got = parse_move("block tile 40", same, numbers=False)
    assert got.kind == "unparsable" and "fits more than one legal move" in got.reason


class GrammarScript:
    """An oracle model reading the env it plays in: per decision, in a cycle of three,

    0. the short form of the first legal move (legal, ``short``);
    1. ``Move: 1`` (unparsable without a list), then the move's whole name on the rethink;
    2. a move of the game that is not legal now (illegal), then the short form.
    """

    def __init__(self, env):
        self.env = env
        self.decision = -1
        self.intended = []

    def __call__(self, messages, k):
        if len(messages) == 2:
            self.decision += 1
        rethink = len(messages) > 2
        state = self.env.game_state
        seat = state.current_player()
        moves = [name for _, name in legal_moves(state, seat)]
        kind = self.decision % 3
        if kind == 0 or (kind == 2 and rethink):
            return self._say("legal", f"Move: {short_form(moves[0])}")
        if kind == 1:
            return self._say("legal", moves[0]) if rethink else self._say("unparsable", "Move: 1")
        legal = set(state.legal_actions())
        for a in range(self.env.game.num_distinct_actions):
            if a not in legal:
                try:
                    name = state.action_to_string(a, seat)
                except Exception:
                    continue
                if short_form(name) not in {short_form(m) for m in moves}:
                    return self._say("illegal", f"Move: {name}")
        return self._say("legal", f"Move: {moves[0]}")

    def _say(self, kind, text):
        self.intended.append(kind)
        return Reply(text)


@pytest.mark.parametrize("game", ["rapa_nui", "positano"])
def test_whole_games_in_the_grammar_mode_over_http(game):
    env = raw_env(game, num_players=2)
    script = GrammarScript(env)
    with ScriptedServer(script) as server:
        agent = agent_from_spec(f"llm:oracle@{server.base_url}?timeout=5&prompt=grammar",
                                game)
        bot = LLMAgent(CallableBackend(lambda m: "Move: 1", "listed"), game, rng=0)
        env.reset(seed=4)
        while not env.game_state.is_terminal():
            name = env.agent_selection
            env.step((agent if name == "player_0" else bot).act_env(env, name))
        requests = list(server.requests)
    assert agent.header()["prompt_mode"] == "grammar"
    sent = [body["messages"] for body in requests]
    assert {m[0]["content"] for m in sent} == {system_prompt(game, "grammar")}
    assert "Move grammar:\n- " in sent[0][0]["content"]
    for messages in sent:
        view = messages[1]["content"]
        assert "== Decision ==" in view and not LIST_LINE.search(view)
        assert "Legal moves:" not in view
    attempts = [a for d in agent.log if not d["forced"] for a in d["attempts"]]
    assert [a["class"] for a in attempts] == script.intended
    assert {"legal", "illegal", "unparsable"} <= set(script.intended)
    assert {a["match"] for a in attempts if a["class"] == "legal"} >= {"short", "exact"}
    assert agent.stats["fallbacks"] == 0 and agent.stats["decisions"] == script.decision + 1
    rethinks = [m[-1]["content"] for m in sent if len(m) > 2]
    assert all("Write a legal move in the move grammar" in r for r in rethinks)
    # the list-mode seat got numbered lists in the same game
    assert bot.header()["prompt_mode"] == "list"
    listed = [d for d in bot.log if not d["forced"]]
    assert listed and all(LIST_LINE.search(d["prompt"]) for d in listed)
    rec = record_with_logs(env, {"player_0": agent, "player_1": bot})
    assert rec.replay().is_terminal()


def test_forced_moves_are_played_without_asking_unless_asked_for():
    env = raw_env("rapa_nui", num_players=2)
    env.reset(seed=0)
    assert len(env.legal_actions()) == 1  # this deal opens with a forced move
    asked = []
    agent = LLMAgent(CallableBackend(lambda m: asked.append(m) or "Move: 1"), "rapa_nui", rng=0)
    action = agent.act_env(env, "player_0")
    assert action == env.legal_actions()[0] and asked == []
    assert agent.stats["forced"] == 1 and agent.stats["decisions"] == 0
    assert agent.log[-1]["forced"] and agent.log[-1]["attempts"] == []
    keen = LLMAgent(CallableBackend(lambda m: asked.append(m) or "Move: 1"), "rapa_nui", rng=0,
                    ask_forced=True)
    assert keen.act_env(env, "player_0") == action and len(asked) == 1
    assert keen.stats["forced"] == 0 and keen.stats["decisions"] == 1
    # the model's next view still tells it the forced move it did not choose
    env.step(action)
    while env.agent_selection != "player_0" or len(env.legal_actions()) == 1:
        env.step(env.legal_actions()[0])
    agent.act_env(env, "player_0")
    assert "you (seat 0): " in asked[-1][1]["content"].split("== Since your last decision ==")[1]


def test_a_think_block_is_reasoning_and_the_move_is_read_after_it():
    assert split_reasoning("<think>column 2 has the Moai\n</think>\nMove: 1") == (
        "\nMove: 1", "column 2 has the Moai")
    assert split_reasoning("Move: 1 <think>x</think>") == ("Move: 1 <think>x</think>", None)


@pytest.mark.parametrize(("spec", "message"), [
    ("llm:m@http://127.0.0.1:1/v1?prompt=menu", "prompt mode 'menu' is not offered"),
    ("llm:m@http://127.0.0.1:1/v1?forced=skip", "forced='skip' is not offered"),
])
def test_bad_mode_options_are_clear_errors(spec, message):
    with pytest.raises(ValueError, match=message):
        parse_spec(spec)


@pytest.mark.parametrize(("table", "message"), [
    ([], "a price table is a JSON object"),
    ({"m": {"prompt": 1}}, "must be"),
    ({"m": {"prompt": -1, "completion": 1}}, "non-negative number"),
    ({"m": {"prompt": "1", "completion": 1}}, "non-negative number"),
])
def test_a_bad_price_table_is_a_clear_error(table, message):
    with pytest.raises(ValueError, match=message):
        load_prices(table)
