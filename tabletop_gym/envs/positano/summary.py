"""The rules summary a language model is given for Positano (part of the system prompt).

Written from docs/rules/positano.md, the same text in every run; changing it changes what a model
is asked, so ``tabletop_gym.text.rules.PROMPT_VERSION`` goes up with it.
"""

from __future__ import annotations

SUMMARY = """\
Positano (1-6 players; docs/rules/positano.md).
Goal: the most points at the end (§5): blocks with a sea view, gelato icons on what you played
and drafted, and the goals in play.
Each round (§3): every player secretly bids one base bid card (three values: lot/block/build)
plus one booster from hand; bids are revealed together (§3.1) and each tile type is drafted in
descending order of that type's bid value. Draft a lot (where you build this round, §3.2), then
a block tile (that many blocks into your personal supply, §3.3), then a build tile and build at
once (§3.4): place at least 1 block on your lot, up to its row number plus the tile's bonus and
never above row + 2, topped by the tile's roof (Bronze, Silver, Gold). Add-On and Remodel tiles
give an optional extra action on one of your own buildings.
Scoring (§5.1): each block scores if nothing in the same column on a lower row reaches its
height: Bronze 1, Silver 2, Gold 3 per visible block. Competition goals give 6 and 3 (§5.3).
The game ends after the round in which the last lots are taken (§6). Solo (§7): you also decide
for Otto Amalfi; your result is the lower of your score and Otto's.
"""
