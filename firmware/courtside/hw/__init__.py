"""The hardware layer: the only code that touches the board.

Two implementations share one interface: ``courtside.hw.pico`` (the real unit; with its
capture back-end, the only code that imports ``machine`` and ``rp2``) and
``courtside_sim.board`` (the simulated board, on CPython or the MicroPython unix port,
never deployed). ``main.py`` picks the start-up by ``sys.platform``: ``courtside.run`` on
a board, ``courtside_sim.start`` (which hands ``courtside.run`` the simulated board)
anywhere else; the driver loop
(``courtside.driver``) applies the core's effects to it and never asks which it has.

Interface (duck-typed):

    pins                 Pins in use (courtside.pins)
    ring                 capture Ring, filled at interrupt time with (stamp, levels)
    capture              the capture back-end (has ``name``: "irq", "pio" or "sim")
    unsent               event lines dropped so far because the laptop was not reading
    ticks_us()           now, on the 2**30 tick circle (see courtside.clock)
    levels()             the live level word (bit n = GPIO n, 0 = pressed)
    await wait(ms)       sleep until input arrives or ``ms`` pass; False means stop
    show(frame)          draw a 64*3 bytearray of RGB (already within the power cap)
    finish               optional: a frame finisher for the core with the results of
                         ``courtside.power.finish`` (the Pico's is machine code); None
                         or absent: the core uses that one
    led(box, on)         a box LED
    tone(freq, ms)       a buzzer tone, non-blocking (freq 0 = silence)
    service(now)         per-pass housekeeping: end tones, feed the watchdog
    read_line()          one command line from the laptop, or None
    write_line(text)     one event line to the laptop (bytes where the layer says
                         bytes_out, else str)
    take_event(kind, t, fields)   optional, instead of write_line: the event itself, not
                         its line (a replay's board reads events, not text)
    save_settings(d)     write the settings to flash; returns why not, or None
    random_bytes(n)      n bytes from the hardware random source (the Pico's)
    main_held()          True while the main-unit button is held (safe mode at boot)
    release()            stop capture, blank the matrix, silence, watchdog off
"""
