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


def transforms_of(game: Game) -> tuple[str | None, ...]:
    """The transforms a record of ``game`` (untransformed) may name.

    The turn-based transforms take simultaneous nodes one seat at a time, so only a game with
    simultaneous nodes uses them (``"turn_based_split"`` only where it splits its simultaneous
    actions); its engine alone (``None``) is always allowed.
    """
    if not game.supports("simultaneous_action_range"):
        return (None,)
    if not game.supports("split_simultaneous_action"):
        return (None, "turn_based")
    return TRANSFORMS


def make_game(
    name: str, config: dict[str, Any] | None = None, transform: str | None = None
) -> Game:
    """Build a game by name, with an optional turn-based transform.

    Raises:
        ValueError: On an unknown game name, or a transform unknown or not used by the game
            (the turn-based ones on a game without simultaneous nodes).
    """
    if name not in game_names():
        raise ValueError(f"unknown game {name!r}; known games: {sorted(game_names())}")
    if transform not in TRANSFORMS:
        raise ValueError(f"unknown transform {transform!r}; allowed: {TRANSFORMS}")
    game: Game = game_spec(name).game_class()(config or {})
    allowed = transforms_of(game)
    if transform not in allowed:
        raise ValueError(f"{name} does not use the transform {transform!r} (it has no "
                         f"simultaneous actions to take in turns); allowed: {allowed}")
    if transform is not None:
        game = TurnBasedGame(game, split=transform == "turn_based_split")
    return game


_INT = "an integer"
_STR = "a string"
_NUMBER = "a number"
_OBJECT = "an object"
_LIST = "a list"
_BOOL = "true or false"
_NULL = "null"


def _kind(value: Any) -> str:
    """What JSON ``value`` is, in the words of the field tables below."""
    if value is None:
        return _NULL
    if isinstance(value, bool):
        return _BOOL
    if isinstance(value, int):
        return _INT
    if isinstance(value, float):
        return _NUMBER
    kinds: dict[type, str] = {str: _STR, dict: _OBJECT, list: _LIST}
    return kinds.get(type(value), type(value).__name__)


_LOG_FIELDS: dict[str, tuple[str, ...]] = {
    "header": (_OBJECT,), "agent": (_STR,), "seat": (_INT, _NULL), "decisions": (_LIST,)}
_DECISION_FIELDS: dict[str, tuple[str, ...]] = {
    "index": (_INT,), "seat": (_INT, _NULL), "agent": (_STR,), "prompt": (_STR,),
    "attempts": (_LIST,), "action": (_INT,), "move": (_STR,), "fallback": (_BOOL,),
    "forced": (_BOOL,), "probes": (_LIST,)}
_ATTEMPT_FIELDS: dict[str, tuple[str, ...]] = {
    "sent": (_STR,), "answer": (_STR, _NULL), "class": (_STR,), "match": (_STR, _NULL),
    "reason": (_STR, _NULL), "latency_s": (_NUMBER, _INT, _NULL),
    "prompt_tokens": (_INT, _NULL), "completion_tokens": (_INT, _NULL),
    "reasoning": (_STR, _NULL), "reasoning_tokens": (_INT, _NULL)}
_PROBE_FIELDS: dict[str, tuple[str, ...]] = {
    "probe": (_STR,), "target": (_INT,), "question": (_STR,), "answer": (_STR, _NULL),
    "class": (_STR,), "log_loss": (_NUMBER, _INT), "brier": (_NUMBER, _INT),
    "uniform_log_loss": (_NUMBER, _INT), "posterior_log_loss": (_NUMBER, _INT)}
"""What the readers of ``agent_logs`` (``replay``, the web replay) read: each key's allowed
JSON kinds, checked where present. Other keys are kept unread."""


def _check_fields(value: Any, fields: dict[str, tuple[str, ...]], where: str,
                  required: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"record {where} must be an object, got {shown(value)}")
    for key in required:
        if key not in value:
            raise ValueError(f"record {where} lacks {key!r}")
    for key, kinds in fields.items():
        if key in value and _kind(value[key]) not in kinds:
            # an integer is a number too: say "a number" alone where both are allowed
            words = [k for k in kinds if not (k == _INT and _NUMBER in kinds)]
            raise ValueError(f"record {where}[{key!r}] must be {' or '.join(words)}, got "
                             f"{shown(value[key])}")
    return value


def check_agent_logs(logs: Any, num_actions: int, num_players: int) -> None:
    """Refuse ``agent_logs`` unless every level has the shape its readers expect.

    A log is an object with a ``decisions`` list and optional ``header`` (object), ``agent`` and
    ``seat``; a decision an object with the ``index`` of its action in ``actions`` and optional
    ``attempts`` (a list of objects), ``prompt``, ``fallback``, ...; see the field tables above.

    Raises:
        ValueError: Naming the first entry that is wrong, where it is, and what is allowed.
    """
    if not isinstance(logs, list):
        raise ValueError(f"record 'agent_logs' must be a list of objects, each with a "
                         f"'decisions' list, got {shown(logs)}")
    for i, log in enumerate(logs):
        where = f"'agent_logs'[{i}]"
        _check_fields(log, _LOG_FIELDS, where, ("decisions",))
        seat = log.get("seat")
        if seat is not None and not 0 <= seat < num_players:
            raise ValueError(f"record {where}['seat'] must be a seat 0..{num_players - 1} or "
                             f"null, got {seat}")
        for j, decision in enumerate(log["decisions"]):
            at = f"{where}['decisions'][{j}]"
            _check_fields(decision, _DECISION_FIELDS, at, ("index",))
            if not 0 <= decision["index"] < num_actions:
                raise ValueError(f"record {at}['index'] must be the index of one of the "
                                 f"record's {num_actions} actions, got {decision['index']}")
            for k, attempt in enumerate(decision.get("attempts", [])):
                _check_fields(attempt, _ATTEMPT_FIELDS, f"{at}['attempts'][{k}]", ())
            for k, probe in enumerate(decision.get("probes", [])):
                _check_fields(probe, _PROBE_FIELDS, f"{at}['probes'][{k}]", ())


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
        """Check every field; it changes nothing.

        Game, config, transform (one the game uses), seed, actions, seats, env id, provenance
        and agent logs (at every level: logs, decisions, attempts, header).

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
            raise ValueError(f"record 'transform' {shown(self.transform)} is not one of "
                             f"{TRANSFORMS}")
        try:
            game = make_game(self.game, self.config)
        except ConfigError as exc:
            raise ValueError(f"record 'config' is invalid: {exc}") from None
        if self.transform not in transforms_of(game):
            raise ValueError(f"record 'transform' {self.transform!r} is not used by "
                             f"{self.game} (it has no simultaneous actions to take in turns); "
                             f"allowed: {transforms_of(game)}")
        game = self.make_game()
        seed = as_int(self.seed)
        if seed is None or not 0 <= seed < 2**64:
            raise ValueError(f"record 'seed' must be an integer in 0..2**64-1, got {self.seed!r}")
        if not isinstance(self.actions, list) or any(as_int(a) is None for a in self.actions):
            raise ValueError(f"record 'actions' must be integers (a list of action ids), got "
                             f"{shown(self.actions)}")
        if self.env_id is not None and not isinstance(self.env_id, str):
            raise ValueError(f"record 'env_id' must be a string (e.g. 'rapa_nui_v0') or null, "
                             f"got {shown(self.env_id)}")
        if self.provenance is not None and not isinstance(self.provenance, dict):
            raise ValueError(f"record 'provenance' must be an object (package version, commit, "
                             f"library versions) or null, got {shown(self.provenance)}")
        if self.agent_logs is not None:
            check_agent_logs(self.agent_logs, len(self.actions), game.num_players)
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
            from tabletop_gym.version import __version__

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
