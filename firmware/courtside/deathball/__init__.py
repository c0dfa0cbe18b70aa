"""Deathball: the engine and the two modes (the bounce die, the referee), with the house
readings of the design text in ``rules`` (docs/deathball.md)."""

# The modes' laptop commands (``courtside.stage.Stage.commands``), here so that ``help``
# can list them without loading either mode.
DIE_COMMANDS = (("dice", "dice FACE ...", 0), ("die", "die corner|wall", 2), ("roll", "roll", 1))
REFEREE_COMMANDS = (("dice", "dice FACE ...", 0), ("roll", "roll", 0), ("state", "state", 0),
                    ("position", "position TEXT", 0), ("setup", "setup P SQUARE", 3),
                    ("move", "move P ARROW ARROW", 4))

# Its modules in the order they import each other, for loading one at a time.
MODULES = "rules notation die track view engine modes"   # the referee's (the die mode: diemode)
