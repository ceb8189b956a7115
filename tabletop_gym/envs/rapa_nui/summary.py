"""The rules summary a language model is given for Rapa Nui (part of the system prompt).

Written from docs/rules/rapa_nui.md, the same text in every run; changing it changes what a model
is asked, so ``tabletop_gym.text.rules.PROMPT_VERSION`` goes up with it.
"""

from __future__ import annotations

SUMMARY = """\
Rapa Nui (2-4 players; docs/rules/rapa_nui.md).
Goal: the most points at the end (§7): VP tiles, 4 per Moai in your display, 1 per full 5 wood,
and each offering card you still hold times its kind's value.
Your turn has three phases (§3):
1. Buy (optional): at most one offering card of a kind (Fish, Grain, Paper mulberry, Sweet
   potato); it costs 5 wood minus your hunter-gatherers (H&G) of that kind in your display.
2. Play exactly one option from your hand of 3 into your display: a Woodcutter, a Priest, a
   Moai for 7 wood, or 1-3 H&G of one kind for 0/1/2 wood. Three Moai in hand and under 7 wood:
   remove one Moai from the game instead.
   A Moai starts an offering round (§3.1): each other player, from the left, places one own
   offering card face up on the stone; then you place one own card face down and one card of a
   kind of your choice from the supply face up. Face-down cards stay hidden until the end.
3. Draw back to 3 cards, one at a time, each from the front of any of the 4 columns. The card
   exposed by your last draw is scored for everyone (§4): Woodcutter: wood per Woodcutter in
   your display; Priest: VP per Priest; Moai: one unit per Moai, each 1 wood or 1 VP (you split
   them); an H&G kind: one offering card of that kind if you have one such H&G. The sole
   majority with at least 2 such cards gets one more.
End (§6): when a column must be refilled and the draw pile has fewer than 4 cards, the game
ends at once. Kind values (§7.4): count every card on the stone per kind (face up and face
down); the most common kind is worth 3 per card, the next 2, then 1, then 0 (ties share the
higher value, a kind with no card is worth 0). Ties for the win: most Moai, then most wood.
"""
