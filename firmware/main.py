# Courtside starts here at power-up. Hold the main-unit button while plugging in for
# safe mode (nothing starts). If the firmware cannot load (say a deploy was cut off half
# way) this file reports why and leaves the REPL free, so the board can be redeployed.
try:
    from courtside import start
except Exception as e:
    try:
        from courtside.events import line
        print(line("error", 0, {"msg": "courtside cannot load: %r" % e, "line": ""}))
    except Exception:
        print("courtside cannot load: %r" % e)
else:
    start.main()
