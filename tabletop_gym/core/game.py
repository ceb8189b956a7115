"""The engine contract every game implements.

A game is split in two objects, as in OpenSpiel:

* :class:`Game` holds a frozen, validated configuration and the facts a researcher needs
  (number of players, number of distinct actions, maximum game length, score bounds). It creates
  initial states from a ``random.Random`` and loads states from JSON.
* :class:`State` is one position. It says who acts (a seat, :data:`SIMULTANEOUS` or
  :data:`TERMINAL`), lists legal actions, applies actions, and reports scores and returns.

Rules engines built on this module use the standard library only. Every chance event happens in
``new_initial_state(rng)``: the state then carries every deck order, so the rest of the game is a
pure function of the actions. States are mutable for speed; ``clone()`` returns a state that
shares no mutable object with the original.
"""

from __future__ import annotations

import abc
import dataclasses
import difflib
import json
import random
import reprlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, TypeVar

from tabletop_gym.core.events import Handler, Handlers, Listener, Vocabulary, chain, handlers_of

SIMULTANEOUS = -2
"""``current_player()`` of a node where every player with legal actions acts at once."""

TERMINAL = -4
"""``current_player()`` of a finished game."""

SCHEMA_VERSION = 1
"""Version of the JSON state schema written by :meth:`State.to_json`."""

REWARD_TYPES = ("win_loss", "score_diff", "score")
"""Values of the ``reward_type`` switch shared by every game (see :func:`compute_returns`)."""


class IllegalActionError(ValueError):
    """An action that is not legal in the current state; raised before anything changes.

    Attributes:
        action: The offending action.
        phase: The name of the phase the state was in.
        legal: The legal actions of that state for the acting player.
        reason: Why the action was refused, in words.
    """

    def __init__(self, action: Any, phase: str, legal: Sequence[int], reason: str = "") -> None:
        self.action = action
        self.phase = phase
        self.legal = list(legal)
        self.reason = reason
        listed = self.legal if len(self.legal) <= 40 else [*self.legal[:40], "..."]
        why = f" ({reason})" if reason else ""
        super().__init__(
            f"illegal action {shown(action)} in phase {phase!r}{why}; legal actions: {listed}"
        )


class ConfigError(ValueError):
    """A game configuration with an unknown key or a value that is not allowed."""


class UnknownArgumentError(ConfigError, TypeError):
    """An unknown keyword argument or option name.

    A :class:`TypeError`, as Python raises for an unexpected keyword argument, and a
    :class:`ConfigError` for code that catches configuration errors; the message names the
    closest allowed name.
    """


class StateFormatError(ValueError):
    """A JSON state that does not follow the documented schema."""


def check_names(
    given: Iterable[str], allowed: Sequence[str], where: str, kind: str = "keyword argument"
) -> None:
    """Reject names that are not in ``allowed``, suggesting the closest allowed one.

    Args:
        given: The names passed (keyword arguments, config keys, option keys).
        allowed: Every name that is accepted.
        where: What the names were passed to, for the message (e.g. ``"RapaNuiConfig"``).
        kind: What a name is, for the message (``"config key"``, ``"reset option"``).

    Raises:
        UnknownArgumentError: Naming each unknown name, the closest allowed name and the
            allowed names.
    """
    unknown = [name for name in given if name not in allowed]
    if not unknown:
        return
    hints = []
    for name in unknown:
        close = difflib.get_close_matches(str(name), [str(a) for a in allowed], n=1, cutoff=0.6)
        if close:
            hints.append(f"{close[0]!r}" + (f" for {name!r}" if len(unknown) > 1 else ""))
    hint = f" (did you mean {', '.join(hints)}?)" if hints else ""
    # Python's own wording ("unexpected keyword argument 'x'") for each name: libraries that
    # probe keywords (TorchRL's GymEnv passing ``frameskip``) retry only on that text.
    names = ", ".join(f"an unexpected {kind} {shown(u)}" for u in unknown)
    raise UnknownArgumentError(
        f"{where} got {names}{hint}; allowed: {sorted(set(allowed))}"
    )


_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxlist, _SHORT.maxdict, _SHORT.maxstring, _SHORT.maxother = 3, 8, 6, 40, 40


def shuffle(rng: random.Random, items: list[Any]) -> None:
    """Shuffle ``items`` in place exactly as ``rng.shuffle(items)`` does, in about half the time.

    The engines shuffle every deck of every deal through this. For a plain ``random.Random`` it
    is CPython's own Fisher–Yates (each index drawn by rejection from ``getrandbits``) with the
    method lookups hoisted out of the loop, so a seed deals the same game either way
    (``tests/test_core_game.py`` compares them); a subclass keeps its own ``shuffle``.
    """
    if type(rng) is not random.Random:
        rng.shuffle(items)
        return
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]


def shown(value: Any) -> str:
    """A short repr of a value from outside, for error messages.

    Bounded in depth and length, so that a deeply nested list or a 5000-digit integer in a
    document gives a readable message instead of a ``RecursionError`` or ``ValueError``.
    """
    try:
        return _SHORT.repr(value)
    except (ValueError, RecursionError):
        return f"<{type(value).__name__} too large to show>"


_S = TypeVar("_S", bound="State")


def state_of(state: Any, cls: type[_S], what: str) -> _S:
    """``state`` if it is a ``cls``, else a ``TypeError`` saying what ``what`` needs.

    The guard of functions a user may call with another game's state (a renderer, a
    narrator): a real exception, which ``python -O`` keeps, unlike ``assert``.
    """
    if not isinstance(state, cls):
        raise TypeError(f"{what} needs a {cls.__name__}, got {type(state).__name__}")
    return state


def as_int(value: Any) -> int | None:
    """``value`` as a Python int if it is an integer, else ``None``.

    Integers are Python ints, numpy integer scalars and 0-d numpy integer arrays (recognised by
    their ``dtype`` without importing numpy); bools, floats (even integral ones) and strings are
    not integers.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return int(value)
    dtype = getattr(value, "dtype", None)
    if getattr(dtype, "kind", "") in ("i", "u") and getattr(value, "ndim", None) == 0:
        return int(value)
    return None


def parse_document(text: Any, what: str = "state") -> dict[str, Any]:
    """Parse a JSON text (or take a mapping) into a dict; anything malformed is a StateFormatError.

    Deeply nested arrays, integers too long to convert and undecodable bytes are malformed
    documents like any other, never a ``RecursionError`` or ``ValueError`` of the parser.
    """
    if isinstance(text, Mapping):
        return dict(text)
    if not isinstance(text, str | bytes | bytearray):
        raise StateFormatError(
            f"a {what} must be a JSON text or a dict, got {type(text).__name__}"
        )
    try:
        doc = json.loads(text)
    except RecursionError:
        raise StateFormatError(f"{what} is nested too deeply to be a {what} document") from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, too many digits
        raise StateFormatError(f"{what} is not valid JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise StateFormatError(f"a {what} document must be a JSON object, got {type(doc).__name__}")
    return doc


_C = TypeVar("_C", bound="GameConfig")


@dataclasses.dataclass(frozen=True)
class GameConfig:
    """Base of every game configuration: fields shared by all games.

    Subclasses add their switches as dataclass fields with defaults. A field may declare the values
    it allows with ``metadata={"choices": (...)}``; integer fields may declare
    ``metadata={"range": (lo, hi)}``. :meth:`validate` checks both, and games add their own
    cross-field checks by overriding :meth:`check`.

    Attributes:
        num_players: Number of players.
        reward_type: How ``State.returns()`` turns final scores into rewards: ``"win_loss"``
            (+1 for each winner, -1 for each other player, 0 for all when everyone ties),
            ``"score_diff"`` (own score minus the mean of the other players' scores) or
            ``"score"`` (own final score).
    """

    num_players: int = 2
    reward_type: str = dataclasses.field(default="win_loss", metadata={"choices": REWARD_TYPES})

    @classmethod
    def from_kwargs(cls: type[_C], config: Mapping[str, Any] | None = None, **kwargs: Any) -> _C:
        """Build and validate a config from a mapping and/or keyword arguments.

        Raises:
            ConfigError: On an unknown key or a value that is not allowed; the message names the
                key, the value and what is allowed.
        """
        if config is not None and not isinstance(config, Mapping):
            raise ConfigError(f"a config must be a mapping of switches, got {shown(config)}")
        merged: dict[str, Any] = dict(config or {})
        merged.update(kwargs)
        names = [f.name for f in dataclasses.fields(cls)]
        check_names(merged, names, cls.__name__, kind="config key")
        for f in dataclasses.fields(cls):
            if f.name not in merged:
                continue
            value = merged[f.name]
            default = f.default
            if isinstance(default, bool):
                if not isinstance(value, bool):
                    raise ConfigError(f"{f.name} must be True or False, got {shown(value)}")
            elif isinstance(default, int):
                if as_int(value) is None:
                    raise ConfigError(f"{f.name} must be an integer, got {shown(value)}")
                merged[f.name] = value = as_int(value)
            elif isinstance(default, str) and not isinstance(value, str):
                raise ConfigError(f"{f.name} must be a string, got {shown(value)}")
            if isinstance(value, list):
                merged[f.name] = tuple(value)
        obj = cls(**merged)
        obj.validate()
        return obj

    def validate(self) -> None:
        """Check every field against its declared choices and range, then :meth:`check`."""
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            choices = f.metadata.get("choices")
            if choices is not None and value not in choices:
                raise ConfigError(
                    f"{f.name}={shown(value)} is not allowed; choose one of {choices}"
                )
            bounds = f.metadata.get("range")
            if bounds is not None and not bounds[0] <= value <= bounds[1]:
                raise ConfigError(
                    f"{f.name}={shown(value)} is out of range; allowed: {bounds[0]}..{bounds[1]}"
                )
        self.check()

    def check(self) -> None:
        """Cross-field checks of a game; raise :class:`ConfigError` on failure."""

    def to_dict(self) -> dict[str, Any]:
        """Return the config as a JSON-ready dict."""
        return {
            f.name: list(v) if isinstance(v := getattr(self, f.name), tuple) else v
            for f in dataclasses.fields(self)
        }


def compute_returns(
    reward_type: str, scores: Sequence[float], winners: Sequence[int]
) -> list[float]:
    """Turn final scores and winners into per-player returns.

    Args:
        reward_type: One of :data:`REWARD_TYPES`.
        scores: Final score of each seat.
        winners: Seats that won after the game's tie-breaks (several on a shared win).

    Returns:
        One float per seat. ``win_loss`` and ``score_diff`` sum to zero for two players;
        ``score_diff`` sums to zero for any number of players.
    """
    n = len(scores)
    if reward_type == "win_loss":
        if len(winners) == n:
            return [0.0] * n
        won = set(winners)
        return [1.0 if p in won else -1.0 for p in range(n)]
    if reward_type == "score_diff":
        if n == 1:
            return [float(scores[0])]
        total = float(sum(scores))
        return [float(s) - (total - s) / (n - 1) for s in scores]
    if reward_type == "score":
        return [float(s) for s in scores]
    raise ConfigError(f"reward_type={reward_type!r} is not allowed; choose one of {REWARD_TYPES}")


class Game(abc.ABC):
    """A configured game: the factory of its states and the facts about it.

    Subclasses set :attr:`name` and :attr:`config_class` and implement the abstract members.
    """

    name: ClassVar[str] = ""
    config_class: ClassVar[type[GameConfig]] = GameConfig
    phases: ClassVar[tuple[str, ...]] = ()
    """Every name :meth:`State.phase` can return, in a fixed order (envs report the index)."""

    def __init__(self, config: Mapping[str, Any] | GameConfig | None = None, **kwargs: Any):
        """Validate ``config``/``kwargs`` into a frozen config.

        Raises:
            ConfigError: On an unknown key or a value that is not allowed.
        """
        if isinstance(config, GameConfig):
            if kwargs:
                config = config.to_dict()
            else:
                config.validate()
                self.config = config
                return
        self.config = self.config_class.from_kwargs(config, **kwargs)

    @property
    def num_players(self) -> int:
        """Number of seats."""
        return self.config.num_players

    @property
    @abc.abstractmethod
    def num_distinct_actions(self) -> int:
        """Size of the action-id space; every id has one meaning in every phase."""

    @property
    @abc.abstractmethod
    def max_game_length(self) -> int:
        """Upper bound on the number of decisions (sequential actions plus joint actions)."""

    @property
    @abc.abstractmethod
    def score_bounds(self) -> tuple[float, float]:
        """Lower and upper bound of any seat's final score."""

    def return_bounds(self) -> tuple[float, float]:
        """Lower and upper bound of any seat's return under the configured reward type."""
        lo, hi = self.score_bounds
        rt = self.config.reward_type
        if rt == "win_loss":
            return (-1.0, 1.0)
        if rt == "score_diff":
            return (lo - hi, hi - lo) if self.num_players > 1 else (lo, hi)
        return (lo, hi)

    @abc.abstractmethod
    def new_initial_state(self, rng: random.Random) -> State:
        """Deal a new game; every chance event is drawn from ``rng`` and only from it."""

    def state_from_json(self, text: str | Mapping[str, Any]) -> State:
        """Load a state written by :meth:`State.to_json` (or written by hand to that schema).

        The document is ``{"schema": 1, "game": <name>, "config": {...}, "state": {...}}``;
        ``config`` may be left out (this game's config is used), and where present it must equal
        this game's config.

        Raises:
            StateFormatError: When the document is not valid JSON or breaks the schema; the
                message says which field and what is expected.
        """
        try:
            return self._load_document(text)
        except StateFormatError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, RecursionError) as exc:
            # Whatever slipped past the field checks (a value too deep or too long to even
            # describe) is still a malformed document.
            raise StateFormatError(
                f"malformed state: {type(exc).__name__}: {shown(str(exc))}"
            ) from None

    def _load_document(self, text: Any) -> State:
        """Parse and check a whole document (see :meth:`state_from_json`)."""
        doc = parse_document(text)
        missing = [k for k in ("schema", "game", "state") if k not in doc]
        if missing:
            raise StateFormatError(f"state document lacks key(s) {missing}")
        check_document_keys(doc)
        if as_int(doc["schema"]) != SCHEMA_VERSION:
            raise StateFormatError(
                f"state schema {shown(doc['schema'])} is not supported; this version reads "
                f"{SCHEMA_VERSION}"
            )
        if doc["game"] != self.name:
            raise StateFormatError(f"state is for game {shown(doc['game'])}, not {self.name!r}")
        if "config" in doc:
            try:
                other = self.config_class.from_kwargs(doc["config"])
            except ConfigError as exc:
                raise StateFormatError(f"state config is invalid: {exc}") from None
            if other != self.config:
                raise StateFormatError(
                    f"state config {other.to_dict()} differs from this game's config "
                    f"{self.config.to_dict()}"
                )
        if not isinstance(doc["state"], dict):
            raise StateFormatError("'state' must be a JSON object")
        return self._state_from_dict(doc["state"])

    @abc.abstractmethod
    def _state_from_dict(self, data: dict[str, Any]) -> State:
        """Build and validate a state from the ``"state"`` object of a JSON document."""

    # --- optional contract ------------------------------------------------------------------
    # Members only some games have. Each default says clearly which game lacks what; callers that
    # work with any game ask first (``noop_action is None``, :meth:`supports`).

    noop_action: ClassVar[int | None] = None
    """An id never legal in the engine that the parallel view gives to seats with nothing to do;
    ``None``: the adapter appends one extra id after the game's own."""

    @property
    def simultaneous_action_range(self) -> tuple[int, int]:
        """``(lo, hi)``: the ids of simultaneous actions and of their split parts.

        Every such id lies in ``lo..hi-1``; the turn-based observer one-hots a seat's own
        commitment over that range.

        Raises:
            NotImplementedError: For a game without simultaneous nodes.
        """
        raise missing_member(self, "simultaneous_action_range")

    def split_simultaneous_action(self, action: int) -> tuple[int, ...]:
        """The sub-decision ids that make up simultaneous action ``action``.

        Used by the turn-based transform's ``split=True``; every action must give a distinct
        sequence.

        Raises:
            NotImplementedError: For a game that does not split its simultaneous actions.
        """
        raise missing_member(self, "split_simultaneous_action")

    def supports(self, member: str) -> bool:
        """Whether this game implements the optional :class:`Game` member ``member``.

        Raises:
            ValueError: If ``member`` is not an optional member of :class:`Game`.
        """
        if member not in _OPTIONAL_GAME_MEMBERS:
            raise ValueError(
                f"{member!r} is not an optional member of Game; optional: "
                f"{list(_OPTIONAL_GAME_MEMBERS)}"
            )
        return getattr(type(self), member) is not getattr(Game, member)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and type(other) is type(self) and other.config == self.config

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.config))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.config.to_dict()})"


def check_document_keys(doc: Mapping[str, Any]) -> None:
    """Reject top-level keys of a state document other than schema, game, config and state."""
    unknown = sorted(str(k) for k in doc if k not in DOCUMENT_KEYS)
    if unknown:
        raise StateFormatError(
            f"state document has unknown key(s) {unknown}; allowed: {list(DOCUMENT_KEYS)}"
        )


DOCUMENT_KEYS = ("schema", "game", "config", "state")
"""Top-level keys of a state document."""


class State(abc.ABC):
    """One position of a game.

    Subclasses implement the underscored hooks; the public methods here enforce the contract
    (legality checked before any change, clear errors, returns by reward type).
    """

    game: Game

    # --- whose turn -------------------------------------------------------------------------

    @abc.abstractmethod
    def current_player(self) -> int:
        """The seat to act, :data:`SIMULTANEOUS` or :data:`TERMINAL`."""

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.current_player() == TERMINAL

    def is_simultaneous_node(self) -> bool:
        """Whether several players act at once here."""
        return self.current_player() == SIMULTANEOUS

    @abc.abstractmethod
    def phase(self) -> str:
        """Name of the current decision (used in errors, observations and renders)."""

    # --- actions ------------------------------------------------------------------------------

    def legal_actions(self, player: int | None = None) -> list[int]:
        """Sorted legal action ids of ``player`` (default: the player to act).

        At a sequential node only the player to act has legal actions; at a simultaneous node
        every player with a choice has them; at the end nobody has.
        """
        cur = self.current_player()
        if player is None:
            if cur == SIMULTANEOUS:
                raise ValueError("at a simultaneous node, legal_actions() needs a player")
            player = cur
        if cur == TERMINAL:
            return []
        if cur == SIMULTANEOUS:
            return self._legal_simultaneous(player)
        return self._legal_actions() if player == cur else []

    @abc.abstractmethod
    def _legal_actions(self) -> list[int]:
        """Sorted legal actions of the player to act at a sequential node."""

    def _legal_simultaneous(self, player: int) -> list[int]:
        """Sorted legal actions of ``player`` at a simultaneous node (empty: not a chooser)."""
        return []

    def apply_action(self, action: int) -> None:
        """Apply the action of the player to act at a sequential node.

        Raises:
            IllegalActionError: When the action is not legal; nothing changes.
        """
        cur = self.current_player()
        if cur == SIMULTANEOUS:
            raise IllegalActionError(
                action, self.phase(), [], "simultaneous node: use apply_joint_action"
            )
        if cur == TERMINAL:
            raise IllegalActionError(action, self.phase(), [], "the game is over")
        legal = self._legal_actions()
        value = as_int(action)
        if value is None or value not in legal:
            raise IllegalActionError(action, self.phase(), legal)
        self._apply_action(value)

    @abc.abstractmethod
    def _apply_action(self, action: int) -> None:
        """Apply a legal sequential action."""

    def apply_joint_action(self, actions: Sequence[int | None]) -> None:
        """Apply one action per seat at a simultaneous node (``None`` for seats with no choice).

        Raises:
            IllegalActionError: When the node is not simultaneous or any action is illegal;
                nothing changes.
        """
        if self.current_player() != SIMULTANEOUS:
            raise IllegalActionError(
                actions, self.phase(), [], "not a simultaneous node: use apply_action"
            )
        if len(actions) != self.game.num_players:
            raise IllegalActionError(
                actions, self.phase(), [], f"need one entry per seat ({self.game.num_players})"
            )
        for p, a in enumerate(actions):
            legal = self._legal_simultaneous(p)
            if not legal:
                if a is not None:
                    raise IllegalActionError(a, self.phase(), [], f"seat {p} has no choice here")
            elif as_int(a) not in legal:
                raise IllegalActionError(a, self.phase(), legal, f"seat {p}")
        self._apply_joint_action([None if a is None else as_int(a) for a in actions])

    def _apply_joint_action(self, actions: list[int | None]) -> None:
        raise NotImplementedError("this game has no simultaneous nodes")

    # --- trusted path: actions the caller has already checked -------------------------------

    def apply_trusted_action(self, action: int) -> None:
        """Apply ``action``, which the caller has checked against this very position.

        For callers that have just checked a Python int against ``legal_actions()`` of this
        position (the envs check it against the mask they built from it): a game may then skip
        its own check. The default checks anyway (:meth:`apply_action`), so every game keeps
        working without overriding it. Anything else (an id that is not legal here, a stale
        check) is the caller's error and may leave the state inconsistent; when in doubt, call
        :meth:`apply_action`.
        """
        self.apply_action(action)

    def apply_trusted_joint_action(self, actions: Sequence[int | None]) -> None:
        """Apply a joint action whose every entry the caller has checked (see above).

        Entries are Python ints or ``None`` for seats without a choice, each checked against
        ``legal_actions(seat)`` of this position. The default checks anyway
        (:meth:`apply_joint_action`).
        """
        self.apply_joint_action(actions)

    @abc.abstractmethod
    def action_to_string(self, action: int, player: int | None = None) -> str:
        """Human-readable name of an action id (the full action: for the actor's eyes only)."""

    def public_action_string(
        self, action: int, viewer: int | None, actor: int | None = None
    ) -> str:
        """What ``viewer`` may know of ``actor`` taking ``action`` in this state.

        Everything shown to a person or written to a shared log uses this form: a choice that is
        hidden from ``viewer`` (a sealed bid, a card placed face down) is named without its
        content, so the string is the same for every choice ``viewer`` cannot tell apart. Games
        with such choices override it; the default is for games whose every action is public.

        Args:
            action: An action id legal (or about to be applied) in this state.
            viewer: The seat that reads the string; ``None`` for a spectator (public only).
            actor: The seat taking the action (default: the player to act; needed at a
                simultaneous node).
        """
        if actor is None:
            cur = self.current_player()
            actor = cur if cur >= 0 else None
        return self.action_to_string(action, actor)

    # --- results ------------------------------------------------------------------------------

    @abc.abstractmethod
    def scores(self) -> list[float]:
        """Final points of each seat (points so far while the game runs)."""

    @abc.abstractmethod
    def score_breakdown(self) -> list[dict[str, Any]]:
        """Per seat, the parts the score is made of (the rule's breakdown)."""

    @abc.abstractmethod
    def winners(self) -> list[int]:
        """Seats that win after the game's tie-breaks (several on a shared win)."""

    def returns(self) -> list[float]:
        """Per-seat returns under the configured ``reward_type``; zeros until the end."""
        if not self.is_terminal():
            return [0.0] * self.game.num_players
        return compute_returns(self.game.config.reward_type, self.scores(), self.winners())

    # --- copies and serialisation ------------------------------------------------------------

    _unpickled_empty: tuple[str, ...] = ()
    """Attributes that are caches of the position (rebuilt on first use from ``None``): a
    pickle or deep copy carries ``None`` in their place."""

    def __getstate__(self) -> dict[str, Any]:
        # A pickle carries the game, not the listener (a copy's changes are its own), nor the
        # caches a subclass names.
        state = self.__dict__.copy()
        state.pop("_on", None)
        for name in self._unpickled_empty:
            if name in state:
                state[name] = None
        return state

    @abc.abstractmethod
    def clone(self) -> State:
        """A deep copy that shares no mutable object with this state."""

    @abc.abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """The full state, hidden parts included, as the ``"state"`` object of the JSON schema."""

    def to_json(self, indent: int | None = None) -> str:
        """Serialise the full state (hidden parts included) to the versioned JSON schema."""
        doc = {
            "schema": SCHEMA_VERSION,
            "game": self.game.name,
            "config": self.game.config.to_dict(),
            "state": self.to_dict(),
        }
        return json.dumps(doc, indent=indent, sort_keys=False)

    # --- optional contract ------------------------------------------------------------------

    def resample_hidden(self, player: int, rng: random.Random) -> State:
        """A copy in which everything ``player`` cannot see is re-drawn from ``rng``.

        Used by information-set search; the copy is a function of ``player``'s view and ``rng``
        only.

        Raises:
            NotImplementedError: For a game that does not implement it.
        """
        raise missing_member(self.game, "resample_hidden")

    def check_invariants(self) -> None:
        """Check conservation and consistency of the whole state (tests and fuzzing).

        Raises:
            AssertionError: Naming the first broken invariant.
            NotImplementedError: For a game that does not implement it.
        """
        raise missing_member(self.game, "check_invariants")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State) or type(other) is not type(self):
            return NotImplemented
        return self.game == other.game and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __deepcopy__(self, memo: dict[int, Any]) -> State:
        return self.clone()

    # --- what changed ---------------------------------------------------------------------------

    EVENTS: ClassVar[Vocabulary | None] = None
    """The game's change events (:mod:`tabletop_gym.core.events`); ``None``: the engine reports
    none, and observers encode every position from scratch."""

    _on: tuple[Handler, ...] | None = None
    """The handler of each event code (:attr:`Handlers.table`), told every change of this
    state; ``None`` (the class default): nobody listens."""

    def listen(self, listener: Listener | Handlers) -> None:
        """Tell ``listener`` every change this state's engine makes from now on.

        Args:
            listener: ``listener(state, code, *args)``, or :class:`~tabletop_gym.core.events.
                Handlers` of this game's vocabulary (``handlers[code](state, *args)``, which the
                engine calls without an adapter).

        Several listeners are told in the order they subscribed. A clone, a pickle or a deep
        copy starts with none: its changes are its own.

        Raises:
            TypeError: When the game reports no events (:attr:`EVENTS` is ``None``), or
                ``listener`` is neither callable nor handlers.
            ValueError: When handlers do not have one handler per event of the vocabulary.
        """
        if self.EVENTS is None:
            raise TypeError(f"{type(self).__name__} reports no change events; observers encode "
                            "its positions from scratch")
        table = handlers_of(listener, self.EVENTS)
        current = self.__dict__.get("_on")
        if current is not None:
            table = chain(Handlers(self.EVENTS, current), table)
        self._on = table.table


def missing_member(game: Game, member: str) -> NotImplementedError:
    """The error for an optional member of the contract that ``game`` does not implement."""
    return NotImplementedError(
        f"{type(game).__name__} (game {game.name!r}) does not implement the optional "
        f"{member!r} of the game contract"
    )


_OPTIONAL_GAME_MEMBERS = ("simultaneous_action_range", "split_simultaneous_action")
"""The optional members of :class:`Game` (see :meth:`Game.supports`)."""
