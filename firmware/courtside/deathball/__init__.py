"""Deathball: the engine and the two modes (the bounce die, the referee), with the house
readings of the design text in ``rules`` (docs/deathball.md)."""

# Its modules in the order they import each other, for loading one at a time.
MODULES = "rules notation die track view engine modes"   # the referee's (the die mode: diemode)
