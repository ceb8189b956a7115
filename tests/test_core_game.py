"""The engine contract's shared pieces: config validation, returns, errors, records."""

from __future__ import annotations

import dataclasses
import random

import pytest

from tabletop_gym.core.game import (
    ConfigError,
    GameConfig,
    IllegalActionError,
    compute_returns,
    shuffle,
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
        ({"colour": "red"}, "got an unexpected config key 'colour'"),
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


# --- the optional contract -------------------------------------------------------------------


def _bare_game():
    """A sequential game that implements only the required members of the contract."""

    from tabletop_gym.core.game import Game, State

    class BareState(State):
        def __init__(self, game):
            self.game = game

        def current_player(self):
            return 0

        def phase(self):
            return "only"

        def _legal_actions(self):
            return [0]

        def _apply_action(self, action):
            pass

        def action_to_string(self, action, player=None):
            return str(action)

        def scores(self):
            return [0.0]

        def score_breakdown(self):
            return [{}]

        def winners(self):
            return [0]

        def clone(self):
            return BareState(self.game)

        def to_dict(self):
            return {}

    class BareGame(Game):
        name = "bare"
        num_distinct_actions = 1
        max_game_length = 1
        score_bounds = (0.0, 0.0)

        def new_initial_state(self, rng: random.Random) -> State:
            return BareState(self)

        def _state_from_dict(self, data):
            return BareState(self)

    return BareGame(num_players=1)


def test_optional_members_raise_naming_the_game_and_the_member():
    import random

    game = _bare_game()
    state = game.new_initial_state(random.Random(0))
    with pytest.raises(NotImplementedError, match=r"BareGame \(game 'bare'\).*'resample_hidden'"):
        state.resample_hidden(0, random.Random(0))
    with pytest.raises(NotImplementedError, match="'check_invariants'"):
        state.check_invariants()
    with pytest.raises(NotImplementedError, match="'split_simultaneous_action'"):
        game.split_simultaneous_action(0)
    with pytest.raises(NotImplementedError, match="'simultaneous_action_range'"):
        game.simultaneous_action_range  # noqa: B018
    # A purely sequential game declares no no-op: the parallel view appends one id.
    assert game.noop_action is None


def test_supports_tells_which_optional_members_a_game_has():
    from tabletop_gym.envs.positano.rules import PositanoGame
    from tabletop_gym.envs.rapa_nui.rules import RapaNuiGame

    assert PositanoGame().supports("split_simultaneous_action")
    assert PositanoGame().supports("simultaneous_action_range")
    assert not RapaNuiGame().supports("split_simultaneous_action")
    assert not _bare_game().supports("simultaneous_action_range")
    with pytest.raises(ValueError, match="not an optional member of Game"):
        PositanoGame().supports("apply_action")


def test_split_transform_refuses_a_game_without_split_actions():
    from tabletop_gym.core.turn_based import TurnBasedGame
    from tabletop_gym.envs.rapa_nui.rules import RapaNuiGame

    with pytest.raises(ValueError, match="split_simultaneous_action"):
        TurnBasedGame(RapaNuiGame(), split=True)


def test_turn_based_sequential_move_is_checked_once_by_the_inner_game():
    """A sequential action goes through the inner state's public apply_action (its checks)."""
    import random

    from tabletop_gym.core.game import IllegalActionError
    from tabletop_gym.core.turn_based import TurnBasedGame
    from tabletop_gym.envs.rapa_nui.rules import RapaNuiGame

    game = TurnBasedGame(RapaNuiGame())
    state = game.new_initial_state(random.Random(3))
    before = state.to_dict()
    with pytest.raises(IllegalActionError):
        state.apply_action(game.num_distinct_actions + 5)
    assert state.to_dict() == before
    action = state.legal_actions()[0]
    twin = RapaNuiGame().new_initial_state(random.Random(3))
    twin.apply_action(action)
    state.apply_action(action)
    assert state.inner.to_dict() == twin.to_dict()


def test_trusted_apply_defaults_to_the_checked_path():
    """A game that does not override the trusted path still has every action checked."""
    import random

    from tests.toy.nim import NimGame

    state = NimGame().new_initial_state(random.Random(0))
    before = state.to_dict()
    with pytest.raises(IllegalActionError):
        state.apply_trusted_action(99)
    assert state.to_dict() == before
    twin = state.clone()
    action = state.legal_actions()[-1]
    state.apply_trusted_action(action)
    twin.apply_action(action)
    assert state.to_dict() == twin.to_dict()


def test_envs_send_only_mask_legal_actions_down_the_trusted_path(monkeypatch):
    """The AEC and parallel envs trust an action only when the mask they built allows it.

    An illegal id goes to the checked ``apply_action`` and ends the game as before; a legal one
    goes to ``apply_trusted_action`` (Rapa Nui skips its own check there).
    """
    from tabletop_gym.envs import rapa_nui_v0
    from tabletop_gym.envs.rapa_nui.rules import RapaNuiState

    calls: list[str] = []
    trusted = RapaNuiState.apply_trusted_action
    checked = RapaNuiState.apply_action

    def spy_trusted(self, action):
        calls.append("trusted")
        trusted(self, action)

    def spy_checked(self, action):
        calls.append("checked")
        checked(self, action)

    monkeypatch.setattr(RapaNuiState, "apply_trusted_action", spy_trusted)
    monkeypatch.setattr(RapaNuiState, "apply_action", spy_checked)
    env = rapa_nui_v0.env(illegal_action="raise")
    env.reset(seed=1)
    # Seat 0 starts in the buy phase: 4 (no purchase) is legal, 21 (draw column 1) is not.
    env.step(4)
    assert calls == ["trusted"]
    with pytest.raises(IllegalActionError):
        env.step(4)  # now the play phase: no purchase is not an action here
    assert calls == ["trusted", "checked"]

    par = rapa_nui_v0.parallel_env(illegal_action="raise")
    par.reset(seed=1)
    calls.clear()
    par.step({"player_0": 4, "player_1": 45})
    assert calls == ["trusted"]
    with pytest.raises(IllegalActionError):
        par.step({"player_0": 4, "player_1": 45})
    assert calls == ["trusted", "checked"]


def test_shuffle_deals_exactly_what_random_shuffle_deals():
    # Every deck of every deal goes through core.game.shuffle: the same seed must give the same
    # order and leave the generator in the same place as random.Random.shuffle, for every length
    # the engines use (0 to Rapa Nui's 50 cards) and beyond a power of two.
    for n in (0, 1, 2, 3, 7, 8, 9, 16, 25, 50, 65):
        for seed in range(40):
            ours, theirs = list(range(n)), list(range(n))
            a, b = random.Random(seed), random.Random(seed)
            shuffle(a, ours)
            b.shuffle(theirs)
            assert ours == theirs, (n, seed)
            assert a.getrandbits(64) == b.getrandbits(64), (n, seed)


def test_shuffle_keeps_a_generator_subclass_own_shuffle():
    class Reversing(random.Random):
        def shuffle(self, x):  # type: ignore[override]
            x.reverse()

    items = [1, 2, 3]
    shuffle(Reversing(0), items)
    assert items == [3, 2, 1]
