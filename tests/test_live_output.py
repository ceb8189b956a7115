"""Every command's lines reach a log or a pipe as they are printed (issue 39 item 9).

Python block-buffers stdout into a file or a pipe: before the fix ``make train > train.log``
showed nothing for 16 minutes, then 16 KB at once. Each test reads a child's stdout while the
child is held after its first line (tests/live_output.py), so no timing is involved.
"""

from __future__ import annotations

from tests.live_output import first_line_while_running


def test_a_plain_print_inside_any_command_reaches_the_pipe_at_once():
    # `tabletop-gym eval` whose evaluation first prints a plain line (no flush), as library code
    # and third-party callbacks do, then waits: the CLI line-buffers stdout for every command.
    first, rest = first_line_while_running("""
import tabletop_gym.arena.evaluation as ev
real = ev.evaluate
def evaluate(*args, **kwargs):
    print("playing the games")
    hold()
    return real(*args, **kwargs)
ev.evaluate = evaluate
from tabletop_gym.cli import main
raise SystemExit(main(["eval", "--game", "rapa_nui", "--players", "2", "--candidate", "random",
                       "--opponent", "heuristic", "--games", "2"]))
""")
    assert first == "playing the games\n"
    assert "heuristic" in rest  # then the table, once the games are played
