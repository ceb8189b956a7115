"""The games of tabletop-gym: one package per game."""
