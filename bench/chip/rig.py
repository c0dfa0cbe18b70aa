"""The emulated RP2040 as a bench: its control socket, and its process when we start it.

The rig (an RP2040 emulator running the stock MicroPython rp2 image, docs/firmware.md,
"The chip tier") listens on a Unix socket for one JSON object a line and answers one a
line. This is the little of it the chip tier uses; times are emulated nanoseconds since
power-on.

    rig = Rig.start(folder, workdir)      # a fresh emulator, paused at power-on
    rig = Rig.attach(socket_path)         # one already running
    rig.sets([(gpio, level, at_ns), ...]) # button edges at exact emulated times
    rig.run_to(ns)                        # run, then pause again
    rig.serial()                          # [(ns, line), ...] written on USB since the last call
"""

import json
import os
import socket
import subprocess
import time


class RigError(RuntimeError):
    pass


class Rig:
    def __init__(self, path, process=None, pty=None):
        self.path = path
        self.process = process
        self.pty = pty
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(900)
        self._sock.connect(path)
        self._buf = b""

    @classmethod
    def attach(cls, path, pty=None):
        return cls(path, pty=pty)

    @classmethod
    def start(cls, folder, workdir, uf2=None, paused=True, symbols=None):
        """Start ``node rp2emu.mjs`` from ``folder`` with its flash, socket and serial
        link in ``workdir``; returns once the socket answers."""
        os.makedirs(workdir, exist_ok=True)
        ctl = os.path.join(workdir, "ctl.sock")
        pty = os.path.join(workdir, "ttyPico")
        if os.path.exists(ctl):
            os.unlink(ctl)
        cmd = ["node", os.path.join(folder, "rp2emu.mjs"), "--flash", os.path.join(workdir, "flash.bin"),
               "--ctl", ctl, "--pty", pty, "--quiet"]
        if uf2:
            cmd += ["--uf2", uf2]
        if symbols:
            cmd += ["--symbols", symbols]
        if paused:
            cmd += ["--paused", "1"]
        log = open(os.path.join(workdir, "rig.log"), "ab")
        proc = subprocess.Popen(cmd, stdout=log, stderr=log)
        for _ in range(300):
            if proc.poll() is not None:
                raise RigError("the rig stopped at start (see %s)" % os.path.join(workdir, "rig.log"))
            if os.path.exists(ctl) and os.path.exists(pty):
                try:
                    return cls(ctl, process=proc, pty=pty)
                except OSError:
                    pass
            time.sleep(0.1)
        proc.kill()
        raise RigError("the rig did not open its control socket in 30 s")

    def call(self, op, **kw):
        kw["op"] = op
        self._sock.sendall(json.dumps(kw).encode() + b"\n")
        while b"\n" not in self._buf:
            got = self._sock.recv(1 << 20)
            if not got:
                raise RigError("the rig closed its control socket")
            self._buf += got
        line, self._buf = self._buf.split(b"\n", 1)
        out = json.loads(line)
        if "error" in out:
            raise RigError(out["error"])
        return out

    def ns(self):
        return self.call("now")["ns"]

    def pause(self):
        return self.call("pause")["ns"]

    def resume(self):
        return self.call("resume")["ns"]

    def run_to(self, ns):
        return self.call("run", until_ns=int(ns))["ns"]

    def sets(self, edges):
        if edges:
            self.call("sets", events=[[g, v, int(at)] for g, v, at in edges])

    def send(self, text):
        self.call("send", data=text)

    def serial(self):
        return [(ns, text) for ns, text in self.call("serial")["lines"]]

    def passes(self):
        return self.call("passes")["passes"]

    def alloc(self):
        return self.call("alloc")

    def heap(self):
        return self.call("heap")

    def record(self, pins):
        self.call("record", pins=list(pins))

    def edges(self):
        return self.call("edges")["edges"]

    def stop(self):
        """Stop a rig this object started (its flash is saved)."""
        if self.process is None:
            return
        try:
            self.call("quit")
        except (OSError, RigError):
            pass
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._sock.close()
        self.process = None
