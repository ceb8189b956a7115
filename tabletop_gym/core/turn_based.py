"""Turn a game's simultaneous nodes into sequential turns with hidden commitments.

This is a ``Game -> Game`` transform in the manner of OpenSpiel's turn-based simultaneous game:
at a simultaneous node of the inner game, the players with a choice act one after another in
seat order; each commitment is stored and hidden; when the last one is in, the inner game's
``apply_trusted_joint_action`` runs with all of them (each was checked when it was made).
Nothing about a pending commitment reaches another player: the inner state does not change until
the reveal, the bidding order is fixed (seat order, independent of any choice), and the observer
below shows a seat only its own pending commitment.

With ``split=True`` every simultaneous action is entered as a sequence of sub-decisions (for
Positano: the bid card, then the booster), for agents that prefer small action heads. The inner
game describes the split with ``split_simultaneous_action(a) -> tuple[int, ...]``: the ids of the
sub-decisions that make up ``a``; every full action must have a distinct sequence.

Example:
    >>> import random
    >>> from tabletop_gym.envs.positano.rules import PositanoGame
    >>> game = TurnBasedGame(PositanoGame(num_players=2))
    >>> state = game.new_initial_state(random.Random(0))
    >>> state.current_player()  # seat 0 bids first, then seat 1; nobody sees the other's bid
    0
"""

from __future__ import annotations

import random
from typing import Any, cast

import numpy as np

from tabletop_gym.core.game import (
    SIMULTANEOUS,
    TERMINAL,
    Game,
    State,
    StateFormatError,
    as_int,
    parse_document,
    shown,
)
from tabletop_gym.core.observer import ObservationLayout, Observer, SharedObserver


class TurnBasedGame(Game):
    """A sequential view of a game with simultaneous nodes."""

    def __init__(self, inner: Game, split: bool = False):
        """Wrap ``inner``; with ``split`` each simultaneous action is entered in sub-decisions."""
        self.inner = inner
        self.split = bool(split)
        self.config = inner.config
        if self.split and not inner.supports("split_simultaneous_action"):
            raise ValueError(
                f"{type(inner).__name__} does not define split_simultaneous_action(); "
                "use split=False"
            )

    @property
    def name(self) -> str:  # type: ignore[override]
        """The inner game's name (a record says whether the transform was used)."""
        return self.inner.name

    @property
    def transform_name(self) -> str:
        """``"turn_based"`` or ``"turn_based_split"``, as stored in game records."""
        return "turn_based_split" if self.split else "turn_based"

    @property
    def phases(self) -> tuple[str, ...]:  # type: ignore[override]
        """The inner game's phase names."""
        return self.inner.phases

    @property
    def num_distinct_actions(self) -> int:
        """Same action ids as the inner game."""
        return self.inner.num_distinct_actions

    @property
    def max_game_length(self) -> int:
        """Each joint action becomes at most one decision per seat per sub-decision."""
        per_node = self.inner.num_players * (2 if self.split else 1)
        return self.inner.max_game_length * per_node

    @property
    def score_bounds(self) -> tuple[float, float]:
        """Same as the inner game."""
        return self.inner.score_bounds

    def return_bounds(self) -> tuple[float, float]:
        """Same as the inner game."""
        return self.inner.return_bounds()

    def new_initial_state(self, rng: random.Random) -> TurnBasedState:
        """Deal the inner game with ``rng``."""
        return TurnBasedState(self, self.inner.new_initial_state(rng))

    def wrap(self, inner_state: State) -> TurnBasedState:
        """A turn-based state over an existing inner state (no pending commitments)."""
        return TurnBasedState(self, inner_state)

    def _load_document(self, text: Any) -> State:
        """Load a document of the inner game (a turn-based state has no pending bids then).

        A document whose ``state`` holds ``{"inner": ..., "pending": [...], "prefix": [...]}``
        (as :meth:`TurnBasedState.to_dict` writes it) restores pending commitments too. They are
        checked as the transform makes them: only at a simultaneous node, entered in seat order
        by the seats with a choice (so never by all of them: the last one reveals the joint
        action), each an integer legal for its seat; ``prefix`` (split mode only) holds the
        current bidder's sub-decisions of an incomplete bid.

        Raises:
            StateFormatError: Naming what is wrong; nothing is replayed from a bad document.
        """
        doc = parse_document(text)
        body = doc.get("state")
        if isinstance(body, dict) and "inner" in body:
            unknown = sorted(str(k) for k in body if k not in ("inner", "pending", "prefix"))
            if unknown:
                raise StateFormatError(
                    f"turn-based state has unknown key(s) {unknown}; allowed: "
                    "['inner', 'pending', 'prefix']"
                )
            inner_doc = {**doc, "state": body["inner"]}
            st = TurnBasedState(self, self.inner.state_from_json(inner_doc))
            st._load_pending(body.get("pending"), body.get("prefix"))
            return st
        return TurnBasedState(self, self.inner.state_from_json(doc))

    def _state_from_dict(self, data: dict[str, Any]) -> State:
        raise NotImplementedError  # state_from_json is overridden

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, TurnBasedGame)
            and other.inner == self.inner
            and other.split == self.split
        )

    def __hash__(self) -> int:
        return hash((hash(self.inner), self.split))

    def __repr__(self) -> str:
        return f"TurnBasedGame({self.inner!r}, split={self.split})"


class TurnBasedState(State):
    """An inner state plus the hidden commitments of the current simultaneous node."""

    game: TurnBasedGame

    def __init__(self, game: TurnBasedGame, inner: State):
        self.game = game
        self.inner = inner
        n = game.inner.num_players
        self.pending: list[int | None] = [None] * n
        self.prefix: list[int] = []
        self._bidder = self._next_bidder()

    def _next_bidder(self) -> int:
        """The first seat with a choice and no commitment yet (seat order, never choice order)."""
        if self.inner.current_player() != SIMULTANEOUS:
            return -1
        for p in range(self.game.inner.num_players):
            if self.pending[p] is None and self.inner.legal_actions(p):
                return p
        return -1

    def _load_pending(self, pending: Any, prefix: Any) -> None:
        """Restore the commitments of a document onto this fresh state (see ``state_from_json``).

        Raises:
            StateFormatError: On anything the transform could not have produced.
        """
        n = self.game.inner.num_players
        if pending is not None:
            if not isinstance(pending, list) or len(pending) != n:
                raise StateFormatError(f"'pending' must be a list of {n} entries (int or null)")
            values = [None if a is None else as_int(a) for a in pending]
            for p, (a, v) in enumerate(zip(pending, values, strict=True)):
                if a is not None and v is None:
                    raise StateFormatError(f"pending[{p}]={shown(a)} must be an action id or null")
            self._set_pending(values)
        if prefix is None or prefix == []:
            return
        if not isinstance(prefix, list):
            raise StateFormatError(
                f"'prefix' must be a list of sub-decision ids, got {shown(prefix)}"
            )
        if not self.game.split or self._bidder < 0:
            raise StateFormatError(
                "'prefix' holds the sub-decisions of a split bid in progress; this state has "
                "none (split bids off, or no bid open)"
            )
        split = self.game.inner.split_simultaneous_action
        full = self.inner.legal_actions(self._bidder)
        for i, sub in enumerate(prefix):
            value = as_int(sub)
            if value is None or value not in self._legal_actions():
                raise StateFormatError(
                    f"prefix[{i}]={shown(sub)} is not a legal sub-decision of seat {self._bidder}; "
                    f"legal: {self._legal_actions()}"
                )
            self.prefix.append(value)
            if any(list(split(a)) == self.prefix for a in full):
                raise StateFormatError(
                    f"prefix {prefix} completes a bid of seat {self._bidder}; a complete bid "
                    "belongs in 'pending'"
                )

    def _set_pending(self, pending: list[int | None]) -> None:
        committed = [p for p, a in enumerate(pending) if a is not None]
        if not committed:
            return
        if self.inner.current_player() != SIMULTANEOUS:
            raise StateFormatError("'pending' commitments exist only at a simultaneous node")
        choosers = [p for p in range(len(pending)) if self.inner.legal_actions(p)]
        if committed != choosers[: len(committed)]:
            raise StateFormatError(
                f"pending commitments of seats {committed} do not follow the seat order of the "
                f"seats with a choice {choosers} (each commits after the seats before it)"
            )
        if len(committed) == len(choosers):
            raise StateFormatError(
                f"pending commitments for every seat with a choice {choosers}: the last one "
                "reveals the joint action, so a state never holds them all"
            )
        for p in committed:
            if pending[p] not in self.inner.legal_actions(p):
                raise StateFormatError(
                    f"pending[{p}]={shown(pending[p])} is not a legal action of seat {p}"
                )
        self.pending = list(pending)
        self._bidder = self._next_bidder()

    # --- contract -----------------------------------------------------------------------------

    def current_player(self) -> int:
        """The seat to act: the inner player, or the next bidder at a simultaneous node."""
        if self._bidder >= 0:
            return self._bidder
        return self.inner.current_player()

    def phase(self) -> str:
        """The inner phase."""
        return self.inner.phase()

    def apply_action(self, action: int) -> None:
        """Apply the action of the player to act (a commitment at a flattened simultaneous node).

        Raises:
            IllegalActionError: When the action is not legal; nothing changes.
        """
        if self._bidder < 0:
            # A sequential node of the inner game: its own apply_action checks legality once.
            self.inner.apply_action(action)
            self._bidder = self._next_bidder()
            return
        super().apply_action(action)

    def apply_trusted_action(self, action: int) -> None:
        """Apply an action already checked against this position (see :class:`State`)."""
        if self._bidder < 0:
            inner = self.inner
            inner.apply_trusted_action(action)
            # Most actions lead to another sequential node, where no bid is open.
            if inner.current_player() != SIMULTANEOUS:
                self._bidder = -1
            else:
                self._bidder = self._next_bidder()
            return
        self._apply_action(action)

    def _legal_actions(self) -> list[int]:
        if self._bidder < 0:
            # Only asked at a sequential node, which is then the inner game's own.
            return self.inner._legal_actions()
        full = self.inner.legal_actions(self._bidder)
        if not self.game.split:
            return full
        split = self.game.inner.split_simultaneous_action
        k = len(self.prefix)
        subs = {
            parts[k]
            for a in full
            if list((parts := split(a))[:k]) == self.prefix
        }
        return sorted(subs)

    def _apply_action(self, action: int) -> None:
        # Reached only at a flattened simultaneous node: apply_action hands the inner game's
        # sequential actions to the inner state.
        if self.game.split:
            self.prefix.append(action)
            split = self.game.inner.split_simultaneous_action
            matches = [
                a for a in self.inner.legal_actions(self._bidder)
                if list(split(a)) == self.prefix
            ]
            if not matches:
                return  # more sub-decisions to come
            action = matches[0]
            self.prefix = []
        self.pending[self._bidder] = action
        self._bidder = self._next_bidder()
        if self._bidder < 0:
            joint = list(self.pending)
            self.pending = [None] * len(joint)
            # Every commitment was checked against its seat's legal actions when it was made
            # (by apply_action, by the caller of apply_trusted_action, or by the state loader).
            self.inner.apply_trusted_joint_action(joint)
            self._bidder = self._next_bidder()

    def action_to_string(self, action: int, player: int | None = None) -> str:
        """The inner game's name of the action."""
        return self.inner.action_to_string(action, player)

    def public_action_string(
        self, action: int, viewer: int | None, actor: int | None = None
    ) -> str:
        """The inner game's public form; a commitment is the bidder's inner simultaneous action."""
        if actor is None:
            cur = self.current_player()
            actor = cur if cur >= 0 else None
        return self.inner.public_action_string(action, viewer, actor)

    def scores(self) -> list[float]:
        """The inner scores."""
        return self.inner.scores()

    def score_breakdown(self) -> list[dict[str, Any]]:
        """The inner breakdown."""
        return self.inner.score_breakdown()

    def winners(self) -> list[int]:
        """The inner winners."""
        return self.inner.winners()

    def returns(self) -> list[float]:
        """The inner returns."""
        return self.inner.returns()

    def is_terminal(self) -> bool:
        """Whether the inner game is over."""
        return self.inner.current_player() == TERMINAL

    def clone(self) -> TurnBasedState:
        """Copy with a cloned inner state."""
        new = TurnBasedState.__new__(TurnBasedState)
        new.game = self.game
        new.inner = self.inner.clone()
        new.pending = list(self.pending)
        new.prefix = list(self.prefix)
        new._bidder = self._bidder
        return new

    def to_dict(self) -> dict[str, Any]:
        """The inner state plus the pending commitments (hidden information included)."""
        return {"inner": self.inner.to_dict(), "pending": list(self.pending),
                "prefix": list(self.prefix)}

    def __str__(self) -> str:
        return str(self.inner)

    # --- information --------------------------------------------------------------------------

    def is_bid_round(self) -> bool:
        """Whether a flattened simultaneous node is in progress."""
        return self._bidder >= 0

    def own_pending(self, player: int) -> int | None:
        """``player``'s own committed action in this round (the only one it may see)."""
        return self.pending[player]

    def resample_hidden(self, player: int, rng: random.Random) -> TurnBasedState:
        """Re-draw what ``player`` cannot see: the inner hidden parts and others' commitments."""
        new = self.clone()
        new.inner = self.inner.resample_hidden(player, rng)
        for p, a in enumerate(self.pending):
            if p != player and a is not None:
                new.pending[p] = rng.choice(new.inner.legal_actions(p))
        if new.prefix and self._bidder != player:
            # The bidder's entered sub-decisions are hidden too: redraw them as the first parts
            # of a random legal full action of the resampled position.
            split = self.game.inner.split_simultaneous_action
            full = rng.choice(new.inner.legal_actions(self._bidder))
            new.prefix = list(split(full)[: len(self.prefix)])
        return new


class TurnBasedObserver(Observer):
    """The inner observer plus the seat's own pending commitment, never anyone else's.

    Extra slices: ``bid_round`` (1 while a flattened simultaneous node is open), ``own_pending``
    (one-hot over the inner game's simultaneous action ids of this seat's committed action) and,
    with ``split``, ``own_prefix`` (one-hot of the sub-decisions this seat has entered so far).
    """

    def __init__(self, game: TurnBasedGame, inner_observer: Observer):
        """Extend ``inner_observer``'s layout with the commitment slices."""
        super().__init__(game)
        self.inner = inner_observer
        lo, hi = game.inner.simultaneous_action_range
        self._lo, self._hi = lo, hi
        base = self.inner.layout
        parts = [s.part for s in base.slices.values()]
        parts.append(("bid_round", 1, 0, 1, "1 while a flattened simultaneous bid is open"))
        parts.append(("own_pending", hi - lo, 0, 1,
                      f"one-hot of this seat's own committed bid (action ids {lo}–{hi - 1})"))
        if game.split:
            parts.append(("own_prefix", hi - lo, 0, 1,
                          "sub-decisions this seat has entered in the current bid"))
        self.layout = ObservationLayout(parts)
        self._inner_size = base.size
        self._split = game.split
        self.dtype = inner_observer.dtype
        # An inner observer with a shared vector: a seat's whole vector is one gather from it
        # (padded to the commitment slices with its zero entry), and the few commitment
        # entries are written into that fresh array.
        self._gather: np.ndarray | None = None
        if isinstance(inner_observer, SharedObserver):
            g = inner_observer.gather
            pad = np.full((g.shape[0], self.layout.size - base.size), inner_observer.zero_index)
            self._gather = np.concatenate([g, pad.astype(g.dtype)], axis=1)

    def _init_args(self) -> tuple[Any, ...]:
        return (self.game, self.inner)

    def set_dtype(self, obs_dtype: Any) -> None:
        """Encode into ``obs_dtype`` (the inner observer too, whose part this vector holds)."""
        super().set_dtype(obs_dtype)
        self.inner.set_dtype(obs_dtype)

    def encode(self, state: State, player: int) -> np.ndarray:
        """A fresh vector of what ``player`` may know: the inner view and its own commitments."""
        if self._gather is None:
            return super().encode(state, player)
        state = cast(TurnBasedState, state)
        out = self._gathered(state, self._gather[player])
        if state._bidder >= 0:  # no bid open: no commitment to show (see _commitments)
            self._commitments(state, player, out)
        return out

    def encode_seats(self, state: State) -> np.ndarray:
        """Every seat's vector as the rows of one fresh array."""
        if self._gather is None:
            return super().encode_seats(state)
        state = cast(TurnBasedState, state)
        out = self._gathered(state, self._gather)
        for p in range(len(out)):
            self._commitments(state, p, out[p])
        return out

    def _gathered(self, state: TurnBasedState, index: np.ndarray) -> np.ndarray:
        """The inner shared vector taken at ``index`` (a seat's row or all rows), in our dtype.

        Only called where :attr:`_gather` exists, i.e. over a :class:`SharedObserver` inner.
        """
        inner = cast(SharedObserver, self.inner)
        out: np.ndarray = inner.shared_vector(state.inner).take(index)
        return out if out.dtype == self.dtype else out.astype(self.dtype)

    def _fill(self, state: State, player: int, out: np.ndarray) -> None:
        assert isinstance(state, TurnBasedState)
        self.inner._fill(state.inner, player, out[: self._inner_size])
        self._commitments(state, player, out)

    def _commitments(self, state: TurnBasedState, player: int, out: Any) -> None:
        """Set the slices after the inner vector (zero in ``out``) for ``player``.

        They are the bid round, the seat's own commitment and its own sub-decisions.
        """
        if state._bidder < 0:
            # No bid open: nothing is pending and no sub-decision entered (the last commitment
            # of a bid clears them), so every commitment entry stays 0.
            return
        written: list[int] = []
        k = self._inner_size
        if state.is_bid_round():
            written.append(k)
        k += 1
        own = state.pending[player]
        if own is not None:
            written.append(k + own - self._lo)
        k += self._hi - self._lo
        if self._split and state.current_player() == player:
            written.extend(k + sub - self._lo for sub in state.prefix)
        for i in written:
            out[i] = 1
