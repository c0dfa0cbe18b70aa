# Runs at every reset, soft ones included: switch off a watchdog left running by a
# previous start, so an mpremote session or a REPL is never reset under the user.
try:
    from courtside.hw.pico import watchdog_off
    watchdog_off()
except Exception:  # noqa: BLE001 - not a board, or firmware half deployed: carry on
    pass
