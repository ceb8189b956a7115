"""The engine contract's shared pieces: config validation, returns, errors, records."""

from __future__ import annotations

import dataclasses

import pytest

from tabletop_gym.core.game import (
    ConfigError,
    GameConfig,
    IllegalActionError,
    compute_returns,
)
from tabletop_gym.core.records import GameRecord, make_game


@dataclasses.dataclass(frozen=True)
class _Cfg(GameConfig):
    num_players: int = dataclasses.field(default=2, metadata={"range": (2, 4)})
    flavour: str = dataclasses.field(default="a", metadata={"choices": ("a", "b")})
    strict: bool = False


def test_config_defaults_and_values():
    cfg = _Cfg.from_kwargs({"num_players": 3}, flavour="b")
    assert (cfg.num_players, cfg.flavour, cfg.strict, cfg.reward_type) == (3, "b", False, "win_loss")
    assert cfg.to_dict() == {"num_players": 3, "reward_type": "win_loss", "flavour": "b",
                             "strict": False}


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"colour": "red"}, "unknown config key(s) ['colour']"),
        ({"num_players": 5}, "num_players=5 is out of range; allowed: 2..4"),
        ({"num_players": "2"}, "num_players must be an integer"),
        ({"num_players": True}, "num_players must be an integer"),
        ({"flavour": "c"}, "flavour='c' is not allowed; choose one of ('a', 'b')"),
        ({"strict": 1}, "strict must be True or False"),
        ({"reward_type": "elo"}, "reward_type='elo' is not allowed"),
    ],
)
def test_config_errors_name_the_problem(kwargs, fragment):
    with pytest.raises(ConfigError) as err:
        _Cfg.from_kwargs(kwargs)
    assert fragment in str(err.value)


def test_win_loss_returns():
    # A sole winner gets +1 and everyone else -1; a shared win gives +1 to each winner;
    # when every seat wins nobody gained anything.
    assert compute_returns("win_loss", [10, 7, 7], [0]) == [1.0, -1.0, -1.0]
    assert compute_returns("win_loss", [10, 10, 7], [0, 1]) == [1.0, 1.0, -1.0]
    assert compute_returns("win_loss", [5, 5], [0, 1]) == [0.0, 0.0]


def test_score_diff_is_own_minus_mean_of_others_and_sums_to_zero():
    # seat 0: 12 - (6 + 3) / 2 = 7.5; seat 1: 6 - (12 + 3) / 2 = -1.5; seat 2: 3 - 9 = -6
    r = compute_returns("score_diff", [12, 6, 3], [0])
    assert r == [7.5, -1.5, -6.0]
    assert sum(r) == 0.0
    assert compute_returns("score", [12, 6, 3], [0]) == [12.0, 6.0, 3.0]


def test_illegal_action_error_message_names_action_phase_and_legal_set():
    err = IllegalActionError(9, "draw", [0, 1, 2], "column is empty")
    assert isinstance(err, ValueError)
    assert str(err) == "illegal action 9 in phase 'draw' (column is empty); legal actions: [0, 1, 2]"


def test_make_game_rejects_unknown_names():
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        make_game("chess")
    with pytest.raises(ValueError, match="unknown transform"):
        make_game("rapa_nui", {}, "sideways")


def test_record_json_errors():
    with pytest.raises(ValueError, match="not valid JSON"):
        GameRecord.from_json("{")
    with pytest.raises(ValueError, match="unknown record field"):
        GameRecord.from_json('{"game": "rapa_nui", "config": {}, "seed": 1, "actions": [], "x": 1}')
    with pytest.raises(ValueError, match="must be integers"):
        GameRecord.from_json('{"game": "rapa_nui", "config": {}, "seed": 1, "actions": ["a"]}')
    rec = GameRecord("rapa_nui", {"num_players": 2}, 5, [1, 2], None, [1, 0])
    assert GameRecord.from_json(rec.to_json()) == rec
