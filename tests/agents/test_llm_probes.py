"""Belief probes (docs/llm.md, "Belief probes"): the strict answer format, the scores worked
out by hand, the truth and the resampler's posterior, no hidden information in a question, and
every answer class end to end against the scripted server on loopback."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from tabletop_gym.agents.base import choose_action
from tabletop_gym.agents.kinds import make_agent
from tabletop_gym.agents.llm import agent_from_spec, report_markdown, report_rows
from tabletop_gym.arena.scripted_server import Reply, ScriptedServer
from tabletop_gym.text.probes import (
    FLOOR,
    PROBES,
    Belief,
    brier,
    log_loss,
    parse_belief,
    posterior,
    question,
    reference_table,
    targets,
)
from tabletop_gym.text.view import SeatTracker
from tests.configs import raw_env

KINDS = ("Fish", "Grain", "Paper mulberry", "Sweet potato")


@pytest.mark.parametrize(("answer", "p"), [
    ("Fish: 0.5\nGrain: 0.25\nPaper mulberry: 0.25\nSweet potato: 0", [0.5, 0.25, 0.25, 0]),
    ("- fish = 40%\n\n- GRAIN: 20%\n- Paper mulberry: 20%\n- sweet potato: 20%",
     [0.4, 0.2, 0.2, 0.2]),
    # within the tolerance of 0.02, rescaled to sum to 1
    ("Fish: 0.26\nGrain: 0.25\nPaper mulberry: 0.25\nSweet potato: 0.25",
     [0.26 / 1.01, 0.25 / 1.01, 0.25 / 1.01, 0.25 / 1.01]),
])
def test_a_belief_in_the_strict_format_is_valid(answer, p):
    got = parse_belief(answer, KINDS)
    assert got.kind == "valid" and got.p == pytest.approx(p)


@pytest.mark.parametrize(("answer", "kind", "why"), [
    ("I think Fish is likely.", "malformed", "is not 'outcome: probability'"),
    ("Fish: 0.5\nGrain: 0.5", "malformed", "no probability for Paper mulberry, Sweet potato"),
    ("Fish: 0.5\nFish: 0.2\nGrain: 0.3", "malformed", "Fish is given twice"),
    ("Wood: 1\nFish: 0", "malformed", "'Wood' is not an outcome"),
    ("Fish: half\nGrain: 0\nPaper mulberry: 0\nSweet potato: 0", "malformed", "not a number"),
    ("Fish: 0.5\nGrain: 0.1\nPaper mulberry: 0.1\nSweet potato: 0.1", "invalid", "sum to 0.800"),
    ("Fish: 1.5\nGrain: -0.5\nPaper mulberry: 0\nSweet potato: 0", "invalid", "in 0..1"),
])
def test_other_answers_are_classed_with_a_reason(answer, kind, why):
    got = parse_belief(answer, KINDS)
    assert got.kind == kind and why in got.reason and got.p is None


def test_log_loss_and_brier_by_hand():
    p = np.array([0.5, 0.25, 0.25, 0.0])
    fish = np.array([1.0, 0, 0, 0])
    assert log_loss(p, fish) == pytest.approx(math.log(2))
    assert brier(p, fish) == pytest.approx(0.25 + 0.0625 + 0.0625)
    # a zero on the truth costs the floor's log-loss, not infinity
    assert log_loss(p, np.array([0, 0, 0, 1.0])) == pytest.approx(-math.log(FLOOR))
    # a soft truth (two Fish, two Grain picked from): the expected log-loss of a random pick
    half = np.array([0.5, 0.5, 0, 0])
    assert log_loss(p, half) == pytest.approx(0.5 * math.log(2) + 0.5 * math.log(4))
    uniform = np.full(4, 0.25)
    assert brier(uniform, fish) == pytest.approx(0.75)


def _positano_second_commit():
    """A Positano 2p game played randomly until seat 0 has committed its second bid."""
    env = raw_env("positano", num_players=2)
    env.reset(seed=5)
    rng = random.Random(5)
    cards = []
    while True:
        state = env.game_state
        seat = state.current_player()
        action = rng.choice(env.legal_actions())
        env.step(action)
        after = env.game_state
        if seat == 0 and after.pending[0] is not None:
            cards.append(int(state.action_to_string(action, 0).split("#")[1][0]) - 1)
            if len(cards) == 2 and after.current_player() == 1:
                return after, cards


def test_the_bid_probe_truth_is_the_committed_card_and_the_posterior_knows_the_played_one():
    state, (first, second) = _positano_second_commit()
    probe = PROBES["bid"]
    assert targets(probe, state, 1) == [0]
    truth = probe.truth(state, 0)
    assert truth.tolist() == [1.0 if i == second else 0.0 for i in range(7)]
    post = posterior(probe, state, 1, 0, random.Random(0), worlds=300)
    # the card seat 0 bid in round 1 is face up in its played cards (not in its hand): only the
    # half-world smoothing is left on it; the six others share the rest about evenly
    assert post[first] == pytest.approx(0.5 / 7 / 300.5)
    assert all(abs(post[i] - 1 / 6) < 0.06 for i in range(7) if i != first)


def test_a_probes_question_and_targets_do_not_change_when_hidden_things_are_resampled():
    rng = random.Random(3)
    checked = 0
    for game, names in (("rapa_nui", ("offering", "hand")), ("positano", ("bid",))):
        env = raw_env(game, num_players=3)
        env.reset(seed=2)
        for _ in range(120):
            state = env.game_state
            if state.is_terminal():
                break
            seat = state.current_player()
            for name in names:
                found = targets(PROBES[name], state, seat)
                asked = [question(PROBES[name], q) for q in found]
                for _ in range(2):
                    other = state.resample_hidden(seat, rng)
                    assert targets(PROBES[name], other, seat) == found
                    assert [question(PROBES[name], q) for q in found] == asked
                    checked += bool(found)
            env.step(rng.choice(env.legal_actions()))
    assert checked > 50


def test_the_reference_posterior_beats_the_uniform_prior_where_the_seat_knows_something():
    rows = {r["probe"]: r for r in reference_table(games=2, worlds=40)}
    assert set(rows) == {"offering", "hand", "bid"}
    assert rows["hand"]["uniform_log_loss"] == pytest.approx(math.log(7))
    assert rows["bid"]["uniform_log_loss"] == pytest.approx(math.log(7))
    assert rows["offering"]["uniform_log_loss"] == pytest.approx(math.log(4))
    for name in ("hand", "bid"):
        assert rows[name]["points"] > 0
        assert rows[name]["posterior_log_loss"] < rows[name]["uniform_log_loss"]


class ProbeScript:
    """Moves: ``Move: 1``. Probes, in a cycle: a uniform belief (valid), prose (malformed),
    numbers summing to 0.5 (invalid), an HTTP 500 (no answer)."""

    def __init__(self):
        self.probes = 0
        self.intended = []

    def __call__(self, messages, k):
        if "== Belief probe ==" not in messages[-1]["content"]:
            return Reply("Move: 1")
        outcomes = messages[-1]["content"].split("For example:\n")[1].splitlines()
        names = [line.split(":")[0] for line in outcomes]
        kind = self.probes % 4
        self.probes += 1
        self.intended.append(("valid", "malformed", "invalid", "no_answer")[kind])
        if kind == 0:
            return Reply("\n".join(f"{n}: {1 / len(names)}" for n in names))
        if kind == 1:
            return Reply("Probably the first one.")
        if kind == 2:
            return Reply("\n".join(f"{n}: {0.5 / len(names)}" for n in names))
        return Reply(status=500)


@pytest.mark.parametrize(("game", "probes"), [("rapa_nui", {"offering", "hand"}),
                                               ("positano", {"bid"})])
def test_probes_end_to_end_over_http_every_class_counted_and_scored(game, probes):
    env = raw_env(game, num_players=2)
    script = ProbeScript()
    # seat 0 bids first in Positano (it never sees a committed bid): the prober is seat 1
    seat = {"rapa_nui": "player_0", "positano": "player_1"}[game]
    every = {"rapa_nui": 2, "positano": 1}[game]  # a Positano seat sees a bid once a round
    with ScriptedServer(script) as server:
        agent = agent_from_spec(f"llm:prober@{server.base_url}?timeout=5&probes={every}", game)
        bot = make_agent("heuristic", env.game, env.observer, np.random.default_rng(0))
        env.reset(seed=1)
        while not env.game_state.is_terminal():
            name = env.agent_selection
            env.step(agent.act_env(env, name) if name == seat else choose_action(bot, env, name))
        requests = server.requests
    asked = [p for d in agent.log for p in d.get("probes", [])]
    assert {p["probe"] for p in asked} == probes
    assert [p["class"] for p in asked] == script.intended
    assert {"valid", "malformed", "invalid", "no_answer"} <= set(script.intended)
    # probes come after every n-th decision put to the model
    probed = [i for i, d in enumerate(d for d in agent.log if not d["forced"]) if "probes" in d]
    assert probed and all((i + 1) % every == 0 for i in probed)
    for p in asked:
        # a uniform belief scores exactly the uniform prior's log-loss and Brier
        if p["class"] == "valid":
            assert p["log_loss"] == pytest.approx(p["uniform_log_loss"])
            assert p["brier"] == pytest.approx(p["uniform_brier"])
        else:
            assert "log_loss" not in p and p["reason"]
        assert sum(p["truth"]) == pytest.approx(1, abs=1e-5)
        assert sum(p["posterior"]) == pytest.approx(1, abs=1e-5)
    # nothing hidden went to the server: each probe's prompt is the seat's view and a question
    sent = [b["messages"][-1]["content"] for b in requests
            if "== Belief probe ==" in b["messages"][-1]["content"]]
    assert len(sent) == len(asked)
    (row,) = report_rows({"prober": agent.stats})
    by_probe = {r["probe"]: r for r in row["probes"]}
    for name, r in by_probe.items():
        mine = [p for p in asked if p["probe"] == name]
        assert r["asked"] == len(mine)
        assert r["valid"] == sum(p["class"] == "valid" for p in mine)
        valid = [p for p in mine if p["class"] == "valid"]
        if valid:
            assert r["log_loss"] == pytest.approx(np.mean([p["log_loss"] for p in valid]))
            assert r["posterior_log_loss"] == pytest.approx(
                np.mean([p["posterior_log_loss"] for p in valid]))
        assert r["posterior_log_loss_all"] == pytest.approx(
            np.mean([p["posterior_log_loss"] for p in mine]))
    assert "| LLM agent | probe | asked | valid | malformed | invalid | no answer |" in \
        report_markdown([row])


def test_a_probe_count_option_that_is_not_a_count_is_refused():
    with pytest.raises(ValueError, match="probes='often' is not a int"):
        agent_from_spec("llm:m@http://127.0.0.1:1/v1?probes=often", "rapa_nui")
    from tabletop_gym.agents.llm import CallableBackend, LLMAgent

    with pytest.raises(ValueError, match="probes must be an int >= 0"):
        LLMAgent(CallableBackend(lambda m: "1"), "rapa_nui", probes=-1)
    assert Belief("valid").reason == ""
    assert SeatTracker  # the views the probes are asked beside
