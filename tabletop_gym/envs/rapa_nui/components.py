"""Rapa Nui's components and bounds: card ids and counts, the supplies, the phases (rules §1, §2).

Pure standard library. The rules engine, its JSON state loader, the observer, the bots and the
JAX engine read these constants; :mod:`.rules` re-exports them.
"""

from __future__ import annotations

# --- components ---------------------------------------------------------------------------------

WOODCUTTER = 0
PRIEST = 1
MOAI = 2
HG = 3
"""Card id of the H&G of kind 0 (Fish); kind *k* is ``HG + k``."""
NUM_CARD_TYPES = 7
NUM_KINDS = 4
FISH, GRAIN, PAPER_MULBERRY, SWEET_POTATO = range(NUM_KINDS)
KIND_NAMES = ("Fish", "Grain", "Paper mulberry", "Sweet potato")
CARD_NAMES = ("Woodcutter", "Priest", "Moai", *(f"H&G {k}" for k in KIND_NAMES))
DECK_COUNTS = (12, 9, 9, 5, 5, 5, 5)
"""Cards per id in the 50-card Rapa Nui deck (§1.2), start cards excluded."""

NUM_COLUMNS = 4
COLUMN_SIZE = 4
HAND_SIZE = 3
OFFERING_STACK_SIZE = 25
MOAI_COST = 7
BUY_BASE_COST = 5
MOAI_END_VP = 4
WOOD_PER_VP = 5
START_WOOD = (2, 3, 4, 5)
START_PILE = sum(DECK_COUNTS) - NUM_COLUMNS * COLUMN_SIZE
"""Cards in the draw pile after setup (34)."""

# --- bounds (proofs in comments; the JSON loader enforces them so observations stay in range) ---

# Every draw takes one card out of the columns, and the columns only ever receive the 16 setup
# cards plus 4 per refill; the 34-card pile allows 8 refills, so a game has at most 48 draws. A
# turn draws at least once, so at most 48 turns; the last turn always ends the game without
# scoring, so at most 47 turn scorings.
MAX_DRAWS = NUM_COLUMNS * COLUMN_SIZE + COLUMN_SIZE * (START_PILE // COLUMN_SIZE)
MAX_TURNS = MAX_DRAWS
MAX_SCORINGS = MAX_TURNS - 1
# A display holds at most 9 Moai (all of them), so a Moai scoring gives at most 9 + 1 units.
MAX_MOAI_UNITS = DECK_COUNTS[MOAI] + 1
# A display holds at most 12 + 1 Woodcutters: a Woodcutter scoring gives at most 14 wood, and wood
# starts at most at 5; a Priest or Moai scoring gives at most 10 VP.
MAX_WOOD = START_WOOD[-1] + MAX_SCORINGS * (DECK_COUNTS[WOODCUTTER] + 1 + 1)
MAX_VP = MAX_SCORINGS * MAX_MOAI_UNITS
# At most one face-down card per offering round and one round per Moai built.
MAX_FACE_DOWN = DECK_COUNTS[MOAI]
# Unlimited supply: 1 start card + one purchase per turn + 2 cards per H&G scoring.
MAX_HELD_UNLIMITED = 1 + MAX_TURNS + 2 * MAX_SCORINGS
# Unlimited supply: an offering round puts at most N face-up cards on the stone (N − 1 + 1).
MAX_FACE_UP_UNLIMITED = DECK_COUNTS[MOAI] * 4

PHASES = ("buy", "play", "draw", "offer", "supply_offer", "moai_split", "terminal")
"""Phase names in the fixed order used by the observer's one-hot."""
_BUY, _PLAY, _DRAW, _OFFER, _SUPPLY, _SPLIT, _TERMINAL = range(len(PHASES))


def card_totals(num_players: int) -> list[int]:
    """How many Rapa Nui cards of each id a game with ``num_players`` seats holds."""
    totals = list(DECK_COUNTS)
    totals[WOODCUTTER] += num_players
    for seat in range(num_players):
        for kind in range(NUM_KINDS):
            if kind != seat % NUM_KINDS:
                totals[HG + kind] += 1
    return totals
