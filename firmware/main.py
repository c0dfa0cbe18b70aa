# Courtside starts here at power-up. Hold the main-unit button while plugging in for
# safe mode (nothing starts). If the firmware cannot load (say a deploy was cut off half
# way) this file reports why and leaves the REPL free, so the board can be redeployed.
try:
    from courtside import start
except Exception as e:  # noqa: BLE001 - anything at all must leave a usable REPL
    print('{"ev":"error","t":0,"msg":"courtside cannot load: %s","line":""}' % repr(e).replace('"', "'"))
else:
    start.main()
