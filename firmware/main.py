# Courtside starts here at power-up. Hold the main-unit button while plugging in for
# safe mode (nothing starts). If the firmware cannot load (say a deploy was cut off half
# way) this file reports why and leaves the REPL free, so the board can be redeployed.
try:
    from courtside import start
except Exception as e:  # noqa: BLE001 - anything at all must leave a usable REPL
    try:
        from courtside.events import line
        print(line("error", 0, {"msg": "courtside cannot load: %r" % e, "line": ""}))
    except Exception:  # noqa: BLE001 - not even the event module: say it in plain words
        print("courtside cannot load: %r" % e)
else:
    start.main()
