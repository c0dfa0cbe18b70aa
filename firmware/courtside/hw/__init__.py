"""The hardware layer: the only code that touches the board.

Two implementations share one interface: ``courtside.hw.pico`` (the real unit; the only
module that imports ``machine`` and ``rp2``) and ``courtside.hw.sim`` (the simulator, on
CPython or the MicroPython unix port). The application is handed one of them and never
asks which.

Interface (duck-typed):

    pins                 PinMap in use
    ring                 capture Ring, filled at interrupt time with (stamp, levels)
    capture              the capture backend object (has ``name``: "irq" or "pio")
    ticks_us()           now, on the 2**30 tick circle (see courtside.clock)
    levels()             the live level word (bit n = GPIO n, 0 = pressed)
    await wait(ms)       sleep until input arrives or ``ms`` pass; False means stop
    show(frame)          draw a 64*3 bytearray of RGB (already within the power cap)
    led(box, on)         a box LED
    tone(freq, ms)       a buzzer tone, non-blocking (freq 0 = silence)
    service(now)         per-loop housekeeping: end tones, feed the watchdog
    read_line()          one command line from the laptop, or None
    write_line(text)     one event line to the laptop
    random_bytes(n)      n bytes from the hardware random source (seeded in the simulator)
    main_held()          True while the main-unit button is held (safe mode at boot)
    release()            stop capture, blank the matrix, silence, watchdog off
"""
