"""Game records: config + engine seed + actions, which replay a game exactly.

A record is what a bug report, a published result or a golden test needs: the game's name and
config, the seed of the ``random.Random`` the engine was dealt from, whether the turn-based
transform was used, the seat of each agent, and every action in order. Replaying deals the same
game and applies the same actions, in any process.

Example:
    >>> rec = GameRecord.from_json(
    ...     '{"game": "rapa_nui", "config": {"num_players": 2}, "seed": 7, "actions": []}')
    >>> rec.replay().current_player()
    0
"""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

from tabletop_gym.core.game import ConfigError, Game, IllegalActionError, State, as_int, shown
from tabletop_gym.core.turn_based import TurnBasedGame
from tabletop_gym.registry import game_names, game_spec

RECORD_VERSION = 3
"""Format of the records :meth:`GameRecord.to_json` writes (2 added ``env_id`` and
``provenance``, 3 ``agent_logs``; format 1 and 2 records still load)."""

READABLE_VERSIONS = (1, 2, 3)

TRANSFORMS = (None, "turn_based", "turn_based_split")


def make_game(
    name: str, config: dict[str, Any] | None = None, transform: str | None = None
) -> Game:
    """Build a game by name, with an optional turn-based transform.

    Raises:
        ValueError: On an unknown game name or transform.
    """
    if name not in game_names():
        raise ValueError(f"unknown game {name!r}; known games: {sorted(game_names())}")
    if transform not in TRANSFORMS:
        raise ValueError(f"unknown transform {transform!r}; allowed: {TRANSFORMS}")
    game: Game = game_spec(name).game_class()(config or {})
    if transform is not None:
        game = TurnBasedGame(game, split=transform == "turn_based_split")
    return game


@dataclasses.dataclass
class GameRecord:
    """One game, replayable.

    Attributes:
        game: Game name (``"rapa_nui"``, ``"positano"``).
        config: The game's config as a dict.
        seed: Seed of the ``random.Random`` the initial state was dealt from.
        actions: Every action in order (sequential actions of the game that was played, i.e.
            after the turn-based transform when ``transform`` is set).
        transform: ``None``, ``"turn_based"`` or ``"turn_based_split"``.
        seats: Engine seat of ``player_0, player_1, …`` (``None``: identity).
        env_id: The env that played it, with its version (e.g. ``"positano_v0"``).
        provenance: Package version, commit and library versions of the code that played it
            (:func:`tabletop_gym.provenance.metadata`).
        agent_logs: What agents that log their decisions wrote (language-model agents,
            ``tabletop_gym.agents.llm``): one ``{"header": ..., "decisions": [...]}`` per such
            agent, each decision with its ``index`` in ``actions``, the prompt, every answer,
            its class, the retries, latency and token counts. Never an API key.
    """

    game: str
    config: dict[str, Any]
    seed: int
    actions: list[int]
    transform: str | None = None
    seats: list[int] | None = None
    env_id: str | None = None
    provenance: dict[str, Any] | None = None
    agent_logs: list[dict[str, Any]] | None = None

    def make_game(self) -> Game:
        """The game this record was played in."""
        return make_game(self.game, self.config, self.transform)

    def replay(self, upto: int | None = None) -> State:
        """Deal the game from ``seed`` and apply the first ``upto`` actions (default all)."""
        state = self.make_game().new_initial_state(random.Random(self.seed))
        for i, a in enumerate(self.actions[:upto]):
            try:
                state.apply_action(a)
            except IllegalActionError as err:
                raise ValueError(f"record action {i} ({a!r}) cannot be replayed: {err}") from None
        return state

    def validate(self) -> None:
        """Check every field: game, config, transform, seed, actions and seats.

        Raises:
            ValueError: Naming the field and what is allowed.
        """
        if not isinstance(self.game, str) or self.game not in game_names():
            raise ValueError(
                f"record 'game' {self.game!r} is unknown; known: {sorted(game_names())}"
            )
        if not isinstance(self.config, dict):
            raise ValueError(f"record 'config' must be an object, got {self.config!r}")
        if self.transform not in TRANSFORMS:
            raise ValueError(f"record 'transform' {self.transform!r} is not one of {TRANSFORMS}")
        try:
            game = self.make_game()
        except ConfigError as exc:
            raise ValueError(f"record 'config' is invalid: {exc}") from None
        seed = as_int(self.seed)
        if seed is None or not 0 <= seed < 2**64:
            raise ValueError(f"record 'seed' must be an integer in 0..2**64-1, got {self.seed!r}")
        if not isinstance(self.actions, list) or any(as_int(a) is None for a in self.actions):
            raise ValueError(f"record 'actions' must be integers (a list of action ids), got "
                             f"{shown(self.actions)}")
        if self.agent_logs is not None and (
                not isinstance(self.agent_logs, list)
                or not all(isinstance(x, dict) and isinstance(x.get("decisions"), list)
                           for x in self.agent_logs)):
            raise ValueError("record 'agent_logs' must be a list of objects, each with a "
                             "'decisions' list")
        if self.seats is not None:
            n = game.num_players
            seats = [as_int(x) for x in self.seats] if isinstance(self.seats, list) else None
            if seats is None or None in seats or sorted(seats) != list(range(n)):  # type: ignore[type-var]
                raise ValueError(
                    f"record 'seats' must be a permutation of 0..{n - 1} (the seat of player_0, "
                    f"player_1, ...), got {self.seats!r}"
                )

    def to_json(self, indent: int | None = None) -> str:
        """The record as JSON (with a format version)."""
        return json.dumps({"record": RECORD_VERSION, **dataclasses.asdict(self)}, indent=indent)

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        """Load a record written by :meth:`to_json` (the ``record`` version may be omitted).

        Raises:
            ValueError: On malformed JSON, missing/extra fields or a field that is not allowed
                (see :meth:`validate`).
        """
        try:
            doc = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise ValueError(f"record is not valid JSON: {exc}") from None
        if not isinstance(doc, dict):
            raise ValueError("a game record must be a JSON object")
        version = doc.pop("record", RECORD_VERSION)
        if version not in READABLE_VERSIONS:
            from tabletop_gym import __version__

            made_by = doc.get("provenance")
            by = made_by.get("package_version") if isinstance(made_by, dict) else None
            raise ValueError(
                f"this game record uses record format {version!r}"
                + (f" (written by tabletop-gym {by})" if by else "")
                + f"; tabletop-gym {__version__} reads record formats "
                f"{', '.join(map(str, READABLE_VERSIONS))}"
            )
        names = {f.name for f in dataclasses.fields(cls)}
        extra = sorted(set(doc) - names)
        if extra:
            raise ValueError(f"unknown record field(s) {extra}; allowed: {sorted(names)}")
        try:
            rec = cls(**doc)
        except TypeError as exc:
            raise ValueError(f"malformed record: {exc}") from None
        rec.validate()
        return rec
