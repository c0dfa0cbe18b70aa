"""The hardware pictures and documents made from a pin map: the pin table, wiring, box panel,
main-unit layout, enclosure and continuity checklist (``documents`` makes them all).
"""
