"""The laptop's commands are tables: the core's and each stage's verbs, each carried out
by its ``_cmd_VERB``; ``help`` answers with all of them, the Deathball modes' included,
and the terminal's help shows the same list."""

import pytest
from corerig import Rig
from courtside import core, deathball
from courtside.deathball.diemode import DieMode
from courtside.deathball.modes import RefereeMode
from courtside.lobby import Lobby
from courtside_host.views import terminal

TABLES = ((core.Core, core.COMMANDS), (Lobby, Lobby.commands), (DieMode, deathball.DIE_COMMANDS),
          (RefereeMode, deathball.REFEREE_COMMANDS))


@pytest.mark.parametrize(("owner", "table"), TABLES)
def test_every_verb_in_a_table_has_its_method(owner, table):
    assert table and all(callable(getattr(owner, "_cmd_" + verb, None)) for verb, _, _ in table)
    assert all(usage.split()[0] == verb for verb, usage, _ in table)


def test_stages_take_their_tables():
    assert DieMode.commands is deathball.DIE_COMMANDS and RefereeMode.commands is deathball.REFEREE_COMMANDS


def test_help_lists_every_command_and_the_terminal_shows_them():
    rig = Rig("dodgeball")
    rig.clear()
    rig.cmd("help")
    (kind, fields), = rig.events
    every = [usage for _, table in TABLES for _, usage, _ in table]
    assert kind == "help" and sorted(set(fields["commands"])) == sorted(set(every))
    assert "move P ARROW ARROW" in fields["commands"] and "die corner|wall" in fields["commands"]
    shown = " ".join(terminal.HELP)
    # the simulator's screen lists every command but those only a board answers (mem)
    assert all(usage in shown for usage in fields["commands"] if usage not in core.BOARD_ONLY)
    assert core.BOARD_ONLY == ("mem",) and "mem" in fields["commands"] and "mem" not in shown.split()


def test_a_verb_with_the_wrong_words_goes_on_to_the_stage():
    """``ping x`` is not the core's ping (one word): the stage does not know it either."""
    rig = Rig("dodgeball")
    rig.clear()
    assert rig.cmd("ping x") == "unknown command in the lobby: ping x"
    rig.cmd("mode die")
    assert rig.cmd("die sideways") == "unknown command for the die: die sideways"
    assert rig.cmd("die corner") is None


def test_vpico_says_a_problem_as_every_command_does(tmp_path):
    """A flash folder that cannot be one (a file is there): the one message form
    (``courtside vpico: ...``, exit 2), no traceback."""
    import subprocess
    import sys
    taken = tmp_path / "a-file"
    taken.write_text("")
    run = subprocess.run([sys.executable, "-m", "courtside_host.cli", "vpico", str(taken)],
                         capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.startswith("courtside vpico: cannot use %s as the board's flash" % taken)
