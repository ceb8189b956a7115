"""Rapa Nui's JSON ``"state"`` object: its schema, its loader and the consistency checks.

Pure standard library. :func:`load_state` turns the ``"state"`` object of a document into a
:class:`~tabletop_gym.envs.rapa_nui.rules.RapaNuiState` (types and ranges per field first, then
the state as a whole); :func:`check_state` is the whole-state check shared by loading and
:meth:`~tabletop_gym.envs.rapa_nui.rules.RapaNuiState.check_invariants`.

JSON schema of the ``"state"`` object (every field required; ``N`` = number of players; per-seat
lists are in seat order):

* ``phase`` (str): one of :data:`PHASES`.
* ``active`` (int): the seat whose turn it is.
* ``decider`` (int or null): the seat to decide now; null only when ``phase`` is ``"terminal"``.
* ``draws_left`` (int 0..3): cards the active player still has to draw this turn (1 during the
  offering round, 0 outside the offering round and the draw phase).
* ``hands`` (N lists of card ids): hand cards, any order (written sorted).
* ``displays`` (N lists of 7 ints): personal display, count per card id.
* ``wood``, ``vp`` (N ints each): wood stock and VP tiles.
* ``holdings`` (N lists of 4 ints): offering cards held, count per kind.
* ``stone_face_up`` (4 ints): face-up cards on the offering stone per kind (in all at most N
  per Moai in the displays: one offering round per Moai built).
* ``stone_face_down`` (N lists of 4 ints): face-down cards on the stone per kind, by the seat
  that placed them (per seat at most the Moai in its display).
* ``supply`` (4 ints): cards left in each supply stack; always
  ``max(0, 25 − held − on the stone)`` for that kind (limited supply: that sum never exceeds 25).
* ``columns`` (4 lists of card ids): the general display, front (takeable) card first.
* ``draw_pile`` (list of card ids): top card first.
* ``removed_moai`` (int): Moai cards removed from the game by the stuck-hand rule.
* ``moai_units`` (N ints): Moai units each seat still has to split (phase ``"moai_split"``),
  else 0.

Every Rapa Nui card is in exactly one place (hands, displays, columns, draw pile, removed), so
the counts per card id must equal the table above.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

from tabletop_gym.core.game import TERMINAL, StateFormatError, shown
from tabletop_gym.envs.rapa_nui.components import (
    _BUY,
    _DRAW,
    _OFFER,
    _PLAY,
    _SPLIT,
    _SUPPLY,
    _TERMINAL,
    CARD_NAMES,
    COLUMN_SIZE,
    DECK_COUNTS,
    HAND_SIZE,
    KIND_NAMES,
    MAX_FACE_DOWN,
    MAX_MOAI_UNITS,
    MAX_VP,
    MAX_WOOD,
    MOAI,
    NUM_CARD_TYPES,
    NUM_COLUMNS,
    NUM_KINDS,
    OFFERING_STACK_SIZE,
    PHASES,
    START_PILE,
    WOODCUTTER,
    card_totals,
)

if TYPE_CHECKING:  # the rules import this module; it needs their classes for annotations only
    from tabletop_gym.envs.rapa_nui.rules import RapaNuiGame, RapaNuiState

_KEYS = (
    "phase",
    "active",
    "decider",
    "draws_left",
    "hands",
    "displays",
    "wood",
    "vp",
    "holdings",
    "stone_face_up",
    "stone_face_down",
    "supply",
    "columns",
    "draw_pile",
    "removed_moai",
    "moai_units",
)


def _fail(msg: str) -> StateFormatError:
    return StateFormatError(msg)


def _int(value: Any, name: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(f"{name} must be an integer in {lo}..{hi}, got {shown(value)}")
    if not lo <= value <= hi:
        raise _fail(f"{name}={value} is out of range; allowed: {lo}..{hi}")
    return value


def _ints(value: Any, name: str, length: int | None, lo: int, hi: int) -> list[int]:
    if not isinstance(value, list):
        raise _fail(f"{name} must be a list, got {type(value).__name__}")
    if length is not None and len(value) != length:
        raise _fail(f"{name} must have {length} entries, got {len(value)}")
    return [_int(v, f"{name}[{i}]", lo, hi) for i, v in enumerate(value)]


def _per_seat(value: Any, name: str, n: int) -> list[Any]:
    if not isinstance(value, list) or len(value) != n:
        raise _fail(f"{name} must be a list of {n} entries (one per seat), got {shown(value)}")
    return value


def load_state(
    game: RapaNuiGame, data: dict[str, Any], state_type: type[RapaNuiState]
) -> RapaNuiState:
    """Parse the ``"state"`` object (types and ranges per field), then check it as a whole.

    Args:
        game: The game the state belongs to.
        data: The ``"state"`` object.
        state_type: The state class to fill (the rules pass theirs; this module does not
            import them).
    """
    missing = [k for k in _KEYS if k not in data]
    if missing:
        raise _fail(f"state lacks key(s) {missing}; required: {list(_KEYS)}")
    unknown = sorted(set(data) - set(_KEYS))
    if unknown:
        raise _fail(f"state has unknown key(s) {unknown}; allowed: {list(_KEYS)}")
    n = game.config.num_players
    last = NUM_CARD_TYPES - 1
    s = state_type(game)

    phase = data["phase"]
    if phase not in PHASES:
        raise _fail(f"phase={shown(phase)} is not allowed; choose one of {PHASES}")
    s._phase = PHASES.index(phase)
    s._active = _int(data["active"], "active", 0, n - 1)
    decider = data["decider"]
    if s._phase == _TERMINAL:
        if decider is not None:
            raise _fail(f"decider must be null when the game is over, got {shown(decider)}")
        s._cur = TERMINAL
    else:
        s._cur = _int(decider, "decider", 0, n - 1)
    s._draws_left = _int(data["draws_left"], "draws_left", 0, HAND_SIZE)
    for p, hand in enumerate(_per_seat(data["hands"], "hands", n)):
        for c in _ints(hand, f"hands[{p}]", None, 0, last):
            s._hands[p * NUM_CARD_TYPES + c] += 1
    for p, d in enumerate(_per_seat(data["displays"], "displays", n)):
        s._displays[p * NUM_CARD_TYPES : (p + 1) * NUM_CARD_TYPES] = _ints(
            d, f"displays[{p}]", NUM_CARD_TYPES, 0, sum(DECK_COUNTS) + n
        )
    s._wood = _ints(data["wood"], "wood", n, 0, MAX_WOOD)
    s._vp = _ints(data["vp"], "vp", n, 0, MAX_VP)
    for p, held in enumerate(_per_seat(data["holdings"], "holdings", n)):
        s._holdings[p * NUM_KINDS : (p + 1) * NUM_KINDS] = _ints(
            held, f"holdings[{p}]", NUM_KINDS, 0, game.max_held_per_kind
        )
    s._stone_up = _ints(
        data["stone_face_up"], "stone_face_up", NUM_KINDS, 0, game.max_face_up_per_kind
    )
    for p, fd in enumerate(_per_seat(data["stone_face_down"], "stone_face_down", n)):
        s._face_down[p * NUM_KINDS : (p + 1) * NUM_KINDS] = _ints(
            fd, f"stone_face_down[{p}]", NUM_KINDS, 0, MAX_FACE_DOWN
        )
    s._supply = _ints(data["supply"], "supply", NUM_KINDS, 0, OFFERING_STACK_SIZE)
    cols = data["columns"]
    if not isinstance(cols, list) or len(cols) != NUM_COLUMNS:
        raise _fail(f"columns must be a list of {NUM_COLUMNS} lists, got {shown(cols)}")
    s._columns = [_ints(c, f"columns[{i}]", None, 0, last) for i, c in enumerate(cols)]
    s._pile = _ints(data["draw_pile"], "draw_pile", None, 0, last)
    s._removed = _int(data["removed_moai"], "removed_moai", 0, DECK_COUNTS[MOAI])
    s._units = _ints(data["moai_units"], "moai_units", n, 0, MAX_MOAI_UNITS)
    check_state(s, StateFormatError)
    return s


def check_state(s: RapaNuiState, error: type[Exception]) -> None:
    """Check a state as a whole: bounds, conservation, and a consistent phase.

    Args:
        s: The state.
        error: The exception to raise (``StateFormatError`` on load, ``AssertionError`` for
            :meth:`RapaNuiState.check_invariants`), with a message naming what is wrong.
    """
    game = s.game
    n = s._n
    ph = s._phase
    a = s._active
    name = PHASES[ph]

    def fail(msg: str) -> NoReturn:
        raise error(msg)

    if not 0 <= a < n or (ph == _TERMINAL) != (s._cur == TERMINAL):
        fail(f"active={a} / decider={s.decider()} do not fit {n} seats and phase {name!r}")
    if not 0 <= s._draws_left <= HAND_SIZE:
        fail(f"draws_left={s._draws_left} is out of range 0..{HAND_SIZE}")
    for p in range(n):
        hand = s.hand(p)
        display = s.display(p)
        if min(hand) < 0 or min(display) < 0:
            fail(f"seat {p} has a negative card count: hand {hand}, display {display}")
        if display[WOODCUTTER] < 1:
            fail(f"displays[{p}] lacks the seat's start Woodcutter (count must be ≥ 1)")
        if not 0 <= s._wood[p] <= MAX_WOOD or not 0 <= s._vp[p] <= MAX_VP:
            fail(f"seat {p}: wood {s._wood[p]} / vp {s._vp[p]} out of 0..{MAX_WOOD} / 0..{MAX_VP}")
        held = s.holdings(p)
        if min(held) < 0 or max(held) > game.max_held_per_kind:
            fail(f"holdings[{p}]={held}; each kind 0..{game.max_held_per_kind}")
        if sum(held) > game.max_held_total:
            fail(f"holdings[{p}] holds {sum(held)} cards; at most {game.max_held_total}")
        fd = s.face_down(p)
        if min(fd) < 0 or sum(fd) > MAX_FACE_DOWN:
            fail(
                f"stone_face_down[{p}]={fd}; at most {MAX_FACE_DOWN} cards in all (one per "
                "Moai built)"
            )
        # §3.1.2: a seat places a face-down card only in the offering round of a Moai it built,
        # and a built Moai stays in its display, so its face-down cards never outnumber them.
        if sum(fd) > display[MOAI]:
            fail(
                f"stone_face_down[{p}] holds {sum(fd)} cards, but seat {p} has built only "
                f"{display[MOAI]} Moai (at most one face-down card per own offering round)"
            )
        if not 0 <= s._units[p] <= MAX_MOAI_UNITS:
            fail(f"moai_units[{p}]={s._units[p]} is out of range 0..{MAX_MOAI_UNITS}")
    # §3.1: every offering round follows a Moai built (it stays in a display) and puts at most
    # N face-up cards on the stone (N − 1 from the other seats, one from the supply).
    built = sum(s._displays[p * NUM_CARD_TYPES + MOAI] for p in range(n))
    if sum(s._stone_up) > n * built:
        fail(
            f"stone_face_up holds {sum(s._stone_up)} cards, but only {built} Moai were built; "
            f"each offering round adds at most {n} face-up cards"
        )
    for k in range(NUM_KINDS):
        up = s._stone_up[k]
        if not 0 <= up <= game.max_face_up_per_kind:
            fail(f"stone_face_up[{k}]={up} is out of range 0..{game.max_face_up_per_kind}")
        used = up + sum(
            s._holdings[p * NUM_KINDS + k] + s._face_down[p * NUM_KINDS + k] for p in range(n)
        )
        if s._limited and used > OFFERING_STACK_SIZE:
            fail(
                f"{used} offering cards of kind {KIND_NAMES[k]} are held or on the stone; "
                f"only {OFFERING_STACK_SIZE} exist"
            )
        expected = max(0, OFFERING_STACK_SIZE - used)
        if s._supply[k] != expected:
            fail(
                f"supply[{k}] ({KIND_NAMES[k]}) is {s._supply[k]}, but {used} cards of that kind "
                f"are held or on the stone, so the stack holds {expected}"
            )
    for i, col in enumerate(s._columns):
        if len(col) > COLUMN_SIZE:
            fail(f"columns[{i}] has {len(col)} cards; at most {COLUMN_SIZE}")
    if len(s._pile) > START_PILE:
        fail(f"draw_pile has {len(s._pile)} cards; at most {START_PILE}")
    if not 0 <= s._removed <= DECK_COUNTS[MOAI]:
        fail(f"removed_moai={s._removed} is out of range 0..{DECK_COUNTS[MOAI]}")

    counts = [0] * NUM_CARD_TYPES
    for p in range(n):
        for t in range(NUM_CARD_TYPES):
            counts[t] += s._hands[p * NUM_CARD_TYPES + t] + s._displays[p * NUM_CARD_TYPES + t]
    for c in [*(x for col in s._columns for x in col), *s._pile]:
        counts[c] += 1
    counts[MOAI] += s._removed
    totals = card_totals(n)
    if counts != totals:
        bad = [
            f"{CARD_NAMES[t]}: {counts[t]} (expected {totals[t]})"
            for t in range(NUM_CARD_TYPES)
            if counts[t] != totals[t]
        ]
        fail(
            "Rapa Nui cards are not conserved (hands + displays + columns + draw pile + "
            f"removed Moai): {', '.join(bad)}"
        )
    _check_phase(s, fail)


def _check_phase(s: RapaNuiState, fail: Callable[[str], NoReturn]) -> None:
    """Check that the phase, decider, hand sizes, draws and columns fit together."""
    n = s._n
    ph = s._phase
    a = s._active
    name = PHASES[ph]
    sizes = [s.hand_size(p) for p in range(n)]
    for p in range(n):
        if p != a and sizes[p] != HAND_SIZE:
            fail(f"hands[{p}] has {sizes[p]} cards; a seat not on turn holds {HAND_SIZE}")
    if ph == _TERMINAL:
        if s._draws_left:
            fail("draws_left must be 0 when the game is over")
        if not 1 <= sizes[a] <= HAND_SIZE:
            fail(f"hands[{a}] has {sizes[a]} cards; the last turn leaves 1..{HAND_SIZE}")
        if all(s._columns) or len(s._pile) >= COLUMN_SIZE:
            fail(
                "phase 'terminal' needs an empty column that the draw pile could not refill "
                f"(fewer than {COLUMN_SIZE} cards)"
            )
        empty = sum(1 for col in s._columns if not col)
        if empty != 1:
            # §6: the game ends the moment the first column cannot be refilled.
            fail(f"phase 'terminal' has {empty} empty columns; the game ends at the first one")
    else:
        for i, col in enumerate(s._columns):
            if not col:
                fail(f"columns[{i}] is empty; during play an emptied column is refilled")
        want_draws = {_BUY: (0,), _PLAY: (0,), _OFFER: (1,), _SUPPLY: (1,), _SPLIT: (0,)}
        allowed = want_draws.get(ph, (1, 2, 3))
        if s._draws_left not in allowed:
            fail(f"draws_left={s._draws_left} does not fit phase {name!r}; allowed {allowed}")
        if sizes[a] + s._draws_left != HAND_SIZE and ph in (_BUY, _PLAY, _DRAW, _SPLIT):
            fail(
                f"hands[{a}] has {sizes[a]} cards and {s._draws_left} draws are left; in phase "
                f"{name!r} they add up to {HAND_SIZE}"
            )
        if ph in (_OFFER, _SUPPLY) and sizes[a] != HAND_SIZE - 1:
            fail(
                f"hands[{a}] has {sizes[a]} cards; during the offering round the active player "
                f"holds {HAND_SIZE - 1} (the Moai was just built)"
            )
        if ph != _OFFER and ph != _SPLIT and s._cur != a:
            fail(f"decider must be the active seat {a} in phase {name!r}, got {s._cur}")
        if ph == _OFFER and not s.holding_count(s._cur):
            fail(f"decider {s._cur} holds no offering card, so it cannot offer one")
        if ph in (_OFFER, _SUPPLY) and not s._displays[a * NUM_CARD_TYPES + MOAI]:
            fail(
                f"phase {name!r} is part of an offering round, which the active seat {a} starts "
                "by building a Moai, but its display holds none"
            )
    if ph == _SPLIT:
        expected = s._moai_units_due()
        # §4: the seats split clockwise from the active one, so the seats before the decider
        # are done (0 units) and the decider and every seat after it still hold their due units.
        done = True
        for i in range(n):
            q = (a + i) % n
            done = done and q != s._cur
            want = 0 if done else expected[q]
            if s._units[q] != want:
                when = "has split already" if done else "has not split yet"
                fail(
                    f"moai_units[{q}]={s._units[q]}; seat {q} scores {expected[q]} Moai units "
                    "(one per Moai in the display, +1 for the sole majority of ≥ 2) and "
                    f"{when} (splits go clockwise from seat {a}; decider {s._cur}), so {want}"
                )
        if not s._units[s._cur]:
            fail(
                "in phase 'moai_split' the decider must be the first seat clockwise from the "
                f"active one with units left, got {s._cur} with none"
            )
        if not any(col and col[0] == MOAI for col in s._columns):
            fail("phase 'moai_split' needs a Moai as the front card of a column (the scored card)")
    elif any(s._units):
        fail(f"moai_units must be all 0 outside phase 'moai_split', got {s._units}")
    if ph != _TERMINAL and not s._compute_legal():
        fail(f"the decider {s._cur} has no legal action in phase {name!r}")
