"""Change events: what an engine step changed, told to whoever listens.

Standard library only: the pure rules engines import this module.

Each game declares its events once, in one :class:`Vocabulary` (a Positano lot drafted, a bid
revealed, a building changed; a Rapa Nui card drawn from a column, a card offered face down).
An event is a small integer code with positional arguments, named and documented in the
vocabulary. The engine tells its events to an optional listener, and knows nothing of who
listens or why (the state is passed, not kept, so a listener holds no reference back to it);
with nobody listening (search, a clone, an engine stepped alone) it pays one ``None`` test per
change.

A listener is either a plain callable ``listener(state, code, *args)`` or :class:`Handlers`, one
callable per code, ``handler(state, *args)``. The engine calls the handler of the event's code
straight from a tuple (``on[code](state, *args)``), so a listener given as handlers costs one
call per event and no dispatch of its own; a plain callable is given a table of small adapters.
The incremental observer (:class:`~tabletop_gym.core.observer.SharedObserver`) is the listener
that keeps a position's observation vector current, and it gives handlers.

The contract every game's engine and every listener follow:

* **When.** An event is told *after* its change: when a handler runs, the state already shows
  what the event names (a card drawn is in the hand, the column refilled; a bid revealed is
  played). An event that ends or moves a turn is told after the turn moved too. Events made
  within one action are told in the order their changes were made (a Rapa Nui draw is told
  before the scoring it triggers, whose own event follows once the scoring is done).
* **What a handler reads.** The event's arguments, and the state through its public attributes
  and declared accessors (the methods a game's state documents for its views), never a private
  engine field (a name with a leading underscore). What an event cannot be read back from
  afterwards (a building's owner, height and roof before it changed) is in its arguments.
* **Where a listener keeps its data.** In the listener itself (an observer keeps its vectors in
  its own store, keyed by the state's identity, dropped when the state is), never on the state
  or the game: the engine holds nothing of a listener but the handler table
  :meth:`~tabletop_gym.core.game.State.listen` gave it.

A listener belongs to one state object: :meth:`~tabletop_gym.core.game.State.clone`, pickling
and deep copies never carry it (a copy has changes of its own).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any

__all__ = ["EventKind", "Handler", "Handlers", "Listener", "Vocabulary", "chain", "handlers_of"]

Listener = Callable[..., None]
"""``listener(state, code, *args)``: told every event of a state once the change is made."""

Handler = Callable[..., None]
"""``handler(state, *args)``: told every event of one code."""


@dataclasses.dataclass(frozen=True)
class EventKind:
    """One kind of change a game's engine reports.

    Attributes:
        code: The integer the engine passes (its index in the vocabulary).
        name: Upper-case identifier (``"LOT_TAKEN"``).
        args: Names of the positional arguments, in order.
        doc: What changed, and where the rules say so.
    """

    code: int
    name: str
    args: tuple[str, ...]
    doc: str


class Vocabulary:
    """A game's change events, declared once: code, name, arguments, meaning."""

    def __init__(self, game: str, kinds: Iterable[tuple[str, tuple[str, ...], str]]):
        """Number ``kinds`` (``(name, args, doc)`` each) from 0 in the order given.

        Raises:
            ValueError: On a duplicate or non-identifier name.
        """
        self.game = game
        self.kinds: tuple[EventKind, ...] = tuple(
            EventKind(code, name, tuple(args), doc)
            for code, (name, args, doc) in enumerate(kinds)
        )
        self._by_name: dict[str, EventKind] = {}
        for kind in self.kinds:
            if not kind.name.isidentifier() or kind.name.upper() != kind.name:
                raise ValueError(f"event name {kind.name!r} must be an upper-case identifier")
            if kind.name in self._by_name:
                raise ValueError(f"duplicate event name {kind.name!r} in {game}'s vocabulary")
            self._by_name[kind.name] = kind

    def __len__(self) -> int:
        return len(self.kinds)

    def __getitem__(self, name: str) -> EventKind:
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"{self.game} has no event {name!r}; its events: "
                           f"{list(self._by_name)}") from None

    def codes(self) -> dict[str, int]:
        """Name -> code of every event (what an engine module binds as constants)."""
        return {k.name: k.code for k in self.kinds}

    def describe(self, code: int, args: tuple[Any, ...]) -> str:
        """``NAME(arg=value, ...)`` of one event (logs and test failures).

        Raises:
            ValueError: On an unknown code or the wrong number of arguments.
        """
        if not 0 <= code < len(self.kinds):
            raise ValueError(f"unknown event code {code} for {self.game}; codes are "
                             f"0..{len(self.kinds) - 1}")
        kind = self.kinds[code]
        if len(args) != len(kind.args):
            raise ValueError(f"{kind.name} takes {len(kind.args)} arguments {kind.args}, "
                             f"got {len(args)}")
        body = ", ".join(f"{a}={v}" for a, v in zip(kind.args, args, strict=True))
        return f"{kind.name}({body})"

    def markdown_table(self) -> str:
        """The vocabulary as a Markdown table, for the docs."""
        rows = ["| code | event | arguments | what changed |", "|---|---|---|---|"]
        for k in self.kinds:
            rows.append(f"| {k.code} | `{k.name}` | {', '.join(k.args) or '–'} | {k.doc} |")
        return "\n".join(rows)


class Handlers:
    """A listener as one handler per event code of a vocabulary: what the engine calls.

    ``handlers[code](state, *args)`` is told each event of that code. The engine keeps
    :attr:`table`, a plain tuple, and indexes it by the event's code.
    """

    __slots__ = ("table", "vocabulary")

    def __init__(self, vocabulary: Vocabulary, handlers: Sequence[Handler]):
        """One handler per event of ``vocabulary``, by code.

        Raises:
            ValueError: When the count differs from the vocabulary's.
            TypeError: When a handler is not callable.
        """
        if len(handlers) != len(vocabulary):
            raise ValueError(f"{vocabulary.game} has {len(vocabulary)} events "
                             f"{[k.name for k in vocabulary.kinds]}; got {len(handlers)} handlers")
        for kind, handler in zip(vocabulary.kinds, handlers, strict=True):
            if not callable(handler):
                raise TypeError(f"the handler of {kind.name} must be callable, got "
                                f"{type(handler).__name__}")
        self.vocabulary = vocabulary
        self.table: tuple[Handler, ...] = tuple(handlers)


def _adapter(listener: Listener, code: int) -> Handler:
    def handler(state: Any, *args: Any) -> None:
        listener(state, code, *args)

    return handler


def handlers_of(listener: Listener | Handlers, vocabulary: Vocabulary) -> Handlers:
    """``listener`` as :class:`Handlers` of ``vocabulary`` (a plain callable is adapted).

    Raises:
        TypeError: When ``listener`` is neither callable nor :class:`Handlers`.
    """
    if isinstance(listener, Handlers):
        if listener.vocabulary is not vocabulary:
            raise ValueError(f"these handlers follow {listener.vocabulary.game}'s events, not "
                             f"{vocabulary.game}'s")
        return listener
    if not callable(listener):
        raise TypeError(f"a listener is a callable (state, code, *args) or Handlers, got "
                        f"{type(listener).__name__}")
    return Handlers(vocabulary, [_adapter(listener, code) for code in range(len(vocabulary))])


def _both(first: Handler, second: Handler) -> Handler:
    def handler(state: Any, *args: Any) -> None:
        first(state, *args)
        second(state, *args)

    return handler


def chain(first: Handlers, second: Handlers) -> Handlers:
    """Handlers that tell every event to ``first``'s handler, then to ``second``'s.

    Raises:
        ValueError: When the two follow different vocabularies.
    """
    if first.vocabulary is not second.vocabulary:
        raise ValueError(f"cannot chain handlers of {first.vocabulary.game}'s and "
                         f"{second.vocabulary.game}'s events")
    return Handlers(first.vocabulary,
                    [_both(a, b) for a, b in zip(first.table, second.table, strict=True)])
