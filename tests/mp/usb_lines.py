# Runs on the MicroPython unix port: command lines read from this process's real stdin and
# event lines written to its real stdout, through courtside.hw.lines with zero-timeout
# polls, as the Pico layer uses them. Prints each command line read as repr, then "done".
# argv: the firmware folder.
import select
import sys
import time

sys.path.insert(0, sys.argv[1])
from courtside.hw.lines import Receiver, Sender, poller

rx = Receiver(sys.stdin.buffer, poller(sys.stdin, select.POLLIN), limit=40, per_pass=16)
tx = Sender(sys.stdout.buffer, poller(sys.stdout, select.POLLOUT))
passes = 0
heard = time.ticks_ms()
while time.ticks_diff(time.ticks_ms(), heard) < 500:     # until stdin is quiet for 0.5 s
    passes += 1
    tx.pass_begin()
    line = rx.read_line()
    if line is None:
        time.sleep_ms(1)
        continue
    heard = time.ticks_ms()
    tx.write_line(repr(line))
while tx.queued():
    tx.pass_begin()
    tx.flush()
tx.write_line("overlong %d passes %d" % (rx.overlong, passes))
tx.flush()
