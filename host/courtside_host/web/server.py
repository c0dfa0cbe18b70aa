"""The local web server behind ``courtside web``: the page, its runtime, the firmware, a relay.

One asyncio server (``asyncio.start_server``) on a loopback address answers HTTP/1.1 GET
and HEAD, one request per connection, every answer with ``Cache-Control: no-cache``. Each
request head is read by h11 and the relay's WebSocket is spoken by the websockets library
(``ServerProtocol``), both without their own I/O (docs/web.md says why these)::

    /                    page/index.html (the page folder: courtside_host/web/page/)
    /NAME                any other file directly in the page folder
    /runtime/micropython.mjs, /runtime/micropython.wasm
                         MicroPython's WebAssembly port (courtside_host.web.runtime)
    /bundle.json         the Python the page runs:
                         {"version", "stream", "files": {"lib/courtside/core.py": text, ...}}
    /config.json         {"relay": bool, "port": PORT or null, "version"}
    /relay               with a board (--port): a WebSocket to it

The bundle holds every file the page's manifest (``page/manifest.py``, MicroPython's
format, read by the reader deploy uses) names, as ``lib/NAME``: the firmware tree's
``courtside`` package, and ``courtside_sim`` and ``courtside_follow`` from the code that runs
on any Python (``common/``; the page's view is ``courtside_follow.page``); and the pin map as
``hardware/pinmap.json`` (checked with the board's own rules, as deploy checks it); its
``version`` and ``stream`` are the tree's own
(``courtside.VERSION`` and ``STREAM`` for the installed one). It is built once, when the
server starts.

Nothing is served from outside the page folder: a name with a slash (after
percent-decoding), a dot first, a NUL or a backslash is not found. Requests must name a
loopback host (``Host: 127.0.0.1:8765``, ``localhost``, ``[::1]``), and a WebSocket's
``Origin``, which a browser always sends, must be there and be the page's own: ``http://``
and exactly the host and port it asked for (not another port of this machine, not another
name), so another web site open in the same browser cannot reach the board through the
relay (DNS rebinding, or a cross-site WebSocket); a handshake with no Origin is not a
page's, and is refused too.
Every answer has a strict Content-Security-Policy (``CSP``: only this server's own script,
its WebAssembly, no framing by anyone) and ``X-Frame-Options: DENY``.

The relay. A thread owns the serial port (``serial.serial_for_url``: a device such as
``/dev/ttyACM0`` or a URL such as ``socket://127.0.0.1:N``): every whole line the board
sends (``\\r`` stripped, UTF-8 with replacement, lines over 64 KiB dropped) goes to every
connected client as one text message; every text message from a client is one command
line for the board, stripped, and refused (with a note on stderr, nothing sent) when empty,
over 200 bytes or holding a control character. The board is sent at most RATE lines a
second (BURST at once), from all its pages together: more are refused and counted, and a
page whose line was refused is told, at most once a second, in a
``{"relay":"limited","why":...,"refused":N}`` message (not an event), so no number of pages
or connections sending thousands of messages can flood the board. Each client has a bounded queue: one that
does not read what it is sent is dropped with close code 1008 and the others go on. Each
time a client connects the board is sent ``ping`` and ``get``, so whatever the page saves
begins with the firmware's version and settings. When the board goes away, clients get
``{"relay":"closed","why":...}`` (a line that is not an event) and the port is tried again
every second; ``{"relay":"open","port":...}`` says it is back, and is the first thing a
client hears while the board is there.

    server, stop = serve_in_thread(runtime=webruntime.find(), board="/dev/pts/3")
    urllib.request.urlopen(server.url + "config.json")
    stop()
"""

import asyncio
import codecs
import contextlib
import json
import queue
import re
import sys
import threading
import time
import unicodedata
import urllib.parse
from http import HTTPStatus
from pathlib import Path

import h11
from websockets.frames import CloseCode, Opcode
from websockets.http11 import Request
from websockets.protocol import State
from websockets.server import ServerProtocol

from courtside_host import paths

_clock = time.monotonic          # when a command line comes (a test may set the time)
HERE = Path(__file__).resolve().parent
PAGE = HERE / "page"
MANIFEST = PAGE / "manifest.py"      # what the bundle holds (MicroPython's manifest format)
HOST = "127.0.0.1"
HTTP_PORT = 8765
HEAD_LIMIT = 16 * 1024          # bytes of request line and headers
HEAD_TIMEOUT = 30.0             # seconds for a client to send its request
COMMAND_MAX = 200               # bytes in a command line (the board refuses longer)
LINE_MAX = 64 * 1024            # bytes in a line from the board
QUEUE = 1024                    # messages waiting for one client before it is dropped
OUTGOING = 256                  # command lines waiting for the board before more are refused
RATE = 20                       # command lines a second the board is sent, from all pages...
BURST = 40                      # ...after a burst of this many; the rest are refused, counted
REOPEN = 1.0                    # seconds between tries to open the board's port
POLL = 0.02                     # seconds the serial thread waits for bytes before writing
WRITE_TIMEOUT = 2.0
LINGER = 2.0                    # seconds to wait for a client to close after its answer
CLOSE_WAIT = 5.0                # seconds a client has to answer the relay's close frame
MESSAGE_MAX = 64 * 1024         # bytes in one message from a page, all its fragments together

TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".wasm": "application/wasm",
    ".txt": "text/plain; charset=utf-8",
    ".ico": "image/x-icon",
}
PAGE_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*\Z")
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


class BundleError(Exception):
    """The firmware tree or pin map cannot make a bundle; the message says why."""


class _BadRequest(Exception):
    def __init__(self, status, why=""):
        super().__init__(why)
        self.status = status


def is_loopback(host):
    """Whether ``host`` (a name or an address, IPv6 with or without brackets) is this machine."""
    import ipaddress
    host = host.strip().lower().strip("[]")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _host_of(value):
    """The host part of a ``Host`` header value (``127.0.0.1:8765``, ``[::1]:80``, ``localhost``)."""
    value = value.strip()
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else ""
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def _origin_allowed(origin, host, port):
    """Whether a WebSocket's ``Origin`` is the page's own: ``http://`` and exactly the host
    and port the request was made to (its ``Host``), which must be this server's port and
    one of the names it is reached by (127.0.0.1, localhost, ::1). Another port of this
    machine (``http://127.0.0.1:3000``) or another name (``http://evil.localhost``) is
    another site."""
    if host is None:
        return False
    try:
        parsed = urllib.parse.urlsplit(origin.strip())
        served = urllib.parse.urlsplit("http://" + host.strip())
        if parsed.path or parsed.query or parsed.fragment or parsed.username or parsed.password:
            return False
        same = (parsed.scheme == "http" and parsed.hostname is not None
                and parsed.hostname == served.hostname and parsed.port == served.port == port)
    except ValueError:                  # a port that is not a number
        return False
    return same and parsed.hostname in PAGE_HOSTS


PAGE_HOSTS = ("127.0.0.1", "localhost", "::1")   # the names the page is opened by


# What every answer says about itself. The page runs only its own script (courtside.js and
# the runtime it imports, both from here), compiles MicroPython's WebAssembly, talks only to
# this server (its relay included), and may be framed by no page, this server's included.
CSP = ("default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; "
       "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
       "frame-ancestors 'none'")
SECURITY_HEADERS = (("Content-Security-Policy", CSP), ("X-Frame-Options", "DENY"),
                    ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"))


# the bundle -----------------------------------------------------------------------------

def bundle(firmware=None, pins=None, manifest=None):
    """The Python the page runs and the pin map, as the ``/bundle.json`` object: every file
    ``manifest`` (the page's, ``MANIFEST``) names, as ``lib/NAME``, with ``$(FIRMWARE)`` the
    firmware tree, ``$(COMMON)`` the folder of what runs on any Python and ``$(HOST)`` the
    folder holding this package."""
    from courtside_host.link import deploy
    from courtside_host.link import manifest as manifests
    firmware = Path(firmware or paths.FIRMWARE)
    pins = Path(pins or paths.PINMAP)
    try:
        named = manifests.read(manifest or MANIFEST, {"FIRMWARE": firmware, "COMMON": paths.COMMON,
                                                       "HOST": HERE.parents[1]})
    except manifests.ManifestError as e:
        hint = (": --firmware takes a folder like the installed one (main.py, boot.py, manifest.py, "
                "courtside/)" if str(firmware) in str(e) else "")
        raise BundleError(str(e) + hint) from None
    files = {"lib/" + name: _text(source) for source, name, _ in named}
    if "lib/courtside/__init__.py" not in files:
        raise BundleError("%s names no courtside package" % (manifest or MANIFEST))
    try:
        version = deploy.local_version(firmware)
        files["hardware/pinmap.json"] = deploy.pin_map(pins).decode("utf-8")
    except deploy.DeployError as e:
        raise BundleError(str(e)) from None
    except UnicodeDecodeError:
        raise BundleError("the pin map %s is not UTF-8" % pins) from None
    found = re.search(r"^STREAM\s*=\s*(\d+)", files["lib/courtside/__init__.py"], re.M)
    if found is None:
        raise BundleError("no STREAM in %s/courtside/__init__.py" % firmware)
    return {"version": version, "stream": int(found.group(1)), "files": files}


def _text(path):
    try:
        return path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise BundleError("cannot read %s (%s)" % (path, getattr(e, "strerror", None) or e)) from None


# the board's side of the relay ----------------------------------------------------------

def refusal(line):
    """Why a client's command line is not sent to the board, or None to send it."""
    if not line:
        return "an empty line"
    if len(line.encode("utf-8")) > COMMAND_MAX:
        return "a line over %d characters" % COMMAND_MAX
    if any(unicodedata.category(c) == "Cc" for c in line):
        return "a line with control characters"
    return None


class SerialLink:
    """The serial port, owned by one thread: it reads lines and writes queued command lines.

    ``on_line(text)`` and ``on_state(is_open, why)`` are called from that thread."""

    def __init__(self, port, on_line, on_state, log, start=False):
        self.port = port
        self.on_line = on_line
        self.on_state = on_state
        self.log = log
        self.start_firmware = start
        self.is_open = False
        self.device = None            # the device or URL last opened
        self.why = "not opened yet"
        self._out = queue.Queue(OUTGOING)
        self._stop = threading.Event()
        self._thread = None

    def begin(self):
        self._thread = threading.Thread(target=self._run, name="courtside-web-board", daemon=True)
        self._thread.start()

    def stop(self, wait=True):
        """Let go of the port; ``wait`` for the thread to have closed it."""
        self._stop.set()
        if wait and self._thread is not None:
            self._thread.join(5)

    def send(self, line):
        """Queue one command line (without its line end) for the board; False if
        OUTGOING lines are already waiting (the board is not reading them)."""
        try:
            self._out.put_nowait(line)
        except queue.Full:
            return False
        return True

    def _open(self):
        from courtside_host.link.port import find_port, open_stream
        device = find_port() if self.port == "auto" else self.port
        ser = open_stream(device, timeout=POLL, write_timeout=WRITE_TIMEOUT)
        self.device = device
        return ser

    def _run(self):
        import serial

        from courtside_host.link.port import BoardError
        reported = None
        started = False
        while not self._stop.is_set():
            try:
                ser = self._open()
            except (serial.SerialException, OSError, ValueError, BoardError) as e:
                # players read the plain sentence; the error itself goes to the server's log
                why = ("no board answers on %s: is it plugged in? The page shows it again as soon"
                       " as it is back" % self.port)
                if why != reported:
                    reported = why
                    self.log("cannot open %s: %s" % (self.port, e))
                    self._closed(why)
                self._stop.wait(REOPEN)
                continue
            reported = None
            try:
                if self.start_firmware and not started:
                    from courtside_host.link.port import start_firmware
                    start_firmware(ser)
                started = True
                self._drop_queued()
                self.is_open = True
                self.why = None
                self.on_state(True, None)
                self._pump(ser)
                why = None
            except (serial.SerialException, OSError) as e:
                self.log("%s: %s" % (self.port, e))
                why = "the board went away (unplugged?): plug it back in and the page picks it up again"
            except BoardError as e:
                self.log("%s: %s" % (self.port, e))
                why = str(e)
            finally:
                self.is_open = False
                with contextlib.suppress(Exception):
                    ser.close()
            if why is None:
                break                 # asked to stop
            reported = why
            self._closed(why)
            self._stop.wait(REOPEN)

    def _closed(self, why):
        self.why = why
        self.log(why)
        self.on_state(False, why)

    def _drop_queued(self):
        with contextlib.suppress(queue.Empty):
            while True:
                self._out.get_nowait()

    def _pump(self, ser):
        import serial
        buf = bytearray()
        skipping = False
        while not self._stop.is_set():
            while True:
                try:
                    line = self._out.get_nowait()
                except queue.Empty:
                    break
                try:
                    ser.write(line.encode("utf-8") + b"\n")
                except serial.SerialTimeoutException:
                    self.log("the board did not take %r within %g s; not sent" % (line, WRITE_TIMEOUT))
            chunk = ser.read(1)
            if not chunk:
                continue
            ser.timeout = 0
            try:
                chunk += ser.read(1 << 16)
            finally:
                ser.timeout = POLL
            buf += chunk
            while True:
                end = buf.find(b"\n")
                if end < 0:
                    break
                raw = bytes(buf[:end])
                del buf[:end + 1]
                if skipping:
                    skipping = False
                elif len(raw) > LINE_MAX:
                    self.log("a line of %d bytes from the board was dropped (over %d)" % (len(raw), LINE_MAX))
                else:
                    self.on_line(raw.rstrip(b"\r").decode("utf-8", "replace"))
            if len(buf) > LINE_MAX:
                if not skipping:
                    self.log("a line of over %d bytes from the board was dropped" % LINE_MAX)
                skipping = True
                buf.clear()


# the server -----------------------------------------------------------------------------

class _Client:
    def __init__(self, ws, number, limit):
        self.ws = ws
        self.name = "client %d" % number
        self.queue = asyncio.Queue(limit)
        self.feeder = None
        self.refused = 0              # its command lines refused for going over the rate
        self.told = None              # when it was last told so


class _Rate:
    """The board's command lines, from every page together: a token bucket."""

    def __init__(self):
        self.tokens = float(BURST)    # command lines the board may be sent now
        self.filled = None            # when the bucket was last topped up
        self.refused = 0              # command lines refused for going over the rate

    def may_send(self, now):
        """Whether one more command line to the board is within RATE (BURST at once)."""
        if self.filled is not None:
            self.tokens = min(float(BURST), self.tokens + (now - self.filled) * RATE)
        self.filled = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.refused += 1
        return False


def _default_log(message):
    sys.stderr.write("courtside web: %s\n" % message)
    sys.stderr.flush()


class WebServer:
    """The page's server; ``board`` (a port, a URL or ``"auto"``) adds the relay.

    ``runtime`` is the folder holding the WebAssembly port (``webruntime.find()``);
    ``page`` the folder of the page's files; ``firmware`` and ``pins`` what the bundle is
    made of (default: the installed or checked-out tree and the standard map). ``log``
    takes each note for stderr (a list's ``append`` in tests)."""

    def __init__(self, *, runtime, host=HOST, port=HTTP_PORT, page=PAGE, firmware=None, pins=None,
                 board=None, start=False, log=None, queue_limit=QUEUE):
        self.runtime = Path(runtime)
        self.host = host
        self.port = port
        self.page = Path(page)
        self.firmware = firmware
        self.pins = pins
        self.board_port = board
        self.start_firmware = start
        self.log = log or _default_log
        self.queue_limit = queue_limit
        self.url = None
        self.board = None
        self.clients = set()
        self.rate = _Rate()            # the board's command lines, from every page together
        self._bundle = None
        self._server = None
        self._loop = None
        self._numbers = 0
        self._state = None            # the last {"relay": ...} message, as text
        self._board_open = False      # as the loop last heard from the board thread
        self._version = None
        self._tasks = {}              # connections being served: task -> stream writer

    async def start(self):
        """Build the bundle and listen; raises BundleError or OSError (address in use)."""
        if not is_loopback(self.host):
            raise ValueError("only a loopback address is served (127.0.0.1, ::1, localhost), not %s"
                             % self.host)
        made = bundle(self.firmware, self.pins)
        self._version = made["version"]
        self._bundle = json.dumps(made, separators=(",", ":")).encode()
        self._loop = asyncio.get_running_loop()
        self._server = await asyncio.start_server(self._connection, self.host, self.port,
                                                  limit=HEAD_LIMIT + 1024)
        sockname = self._server.sockets[0].getsockname()
        self.port = sockname[1]
        shown = "[%s]" % sockname[0] if ":" in sockname[0] else sockname[0]
        self.url = "http://%s:%d/" % (shown, self.port)
        if self.board_port:
            self.board = SerialLink(self.board_port, self._from_board, self._board_state, self.log,
                               start=self.start_firmware)
            self.board.begin()
        return self

    def config(self):
        return {"relay": self.board is not None, "port": self.board_port, "version": self._version}

    def close(self):
        """Stop listening, close every client (1001) and every other connection, and tell the
        board thread to let go."""
        if self._server is not None:
            self._server.close()
        for client in list(self.clients):
            client.ws.abort(CloseCode.GOING_AWAY, "the server is stopping")
            if client.feeder is not None:
                client.feeder.cancel()
        for writer in list(self._tasks.values()):
            writer.close()
        if self.board is not None:
            self.board.stop(wait=False)

    async def aclose(self, timeout=5.0):
        """``close()``, then wait (up to ``timeout`` s) for the connections to end and the
        board's port to be closed."""
        self.close()
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout)
        if self._server is not None:
            await self._server.wait_closed()
        if self.board is not None:
            await asyncio.get_running_loop().run_in_executor(None, self.board.stop)

    # from the board thread ----------------------------------------------------------------

    def _from_board(self, text):
        with contextlib.suppress(RuntimeError):       # the loop has closed: shutting down
            self._loop.call_soon_threadsafe(self._broadcast, text)

    def _board_state(self, is_open, why):
        if is_open:
            message = json.dumps({"relay": "open", "port": self.board.device})
        else:
            message = json.dumps({"relay": "closed", "why": why})
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self._state_changed, message, is_open)

    def _state_changed(self, message, is_open):
        self._state = message
        self._board_open = is_open
        self._broadcast(message)
        if is_open and self.clients:
            self._hello()

    def _hello(self):
        self.board.send("ping")
        self.board.send("get")

    def _broadcast(self, text):
        for client in list(self.clients):
            try:
                client.queue.put_nowait(text)
            except asyncio.QueueFull:
                self.log("%s does not read what it is sent: dropped" % client.name)
                self._drop(client, CloseCode.POLICY_VIOLATION,
                           "too slow: %d messages waiting" % self.queue_limit)

    def _drop(self, client, code, why):
        self.clients.discard(client)
        client.ws.abort(code, why)
        if client.feeder is not None:
            client.feeder.cancel()

    # HTTP -----------------------------------------------------------------------------------

    async def _connection(self, reader, writer):
        task = asyncio.current_task()
        self._tasks[task] = writer
        try:
            await self._request(reader, writer)
            if writer.can_write_eof():
                writer.write_eof()
            await asyncio.wait_for(_discard(reader), LINGER)
        except (ConnectionError, OSError, asyncio.IncompleteReadError, asyncio.TimeoutError):
            pass
        finally:
            self._tasks.pop(task, None)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _request(self, reader, writer):
        try:
            request, head, rest = await asyncio.wait_for(_read_head(reader), HEAD_TIMEOUT)
        except asyncio.TimeoutError:
            return await self._answer(writer, HTTPStatus.REQUEST_TIMEOUT, "GET")
        except _BadRequest as e:
            return await self._answer(writer, e.status, "GET", (str(e) or e.status.phrase) + "\n")
        except EOFError:
            return None
        method = request.method.decode("ascii")
        target = request.target.decode("ascii")
        version = "HTTP/" + request.http_version.decode("ascii")
        headers = {}
        for raw_name, raw_value in request.headers:     # h11 gives the names in lower case
            name, value = raw_name.decode("ascii"), raw_value.decode("latin-1")
            headers[name] = headers[name] + ", " + value if name in headers else value
        if version not in ("HTTP/1.0", "HTTP/1.1"):
            return await self._answer(writer, HTTPStatus.HTTP_VERSION_NOT_SUPPORTED, method)
        if method not in ("GET", "HEAD"):
            return await self._answer(writer, HTTPStatus.METHOD_NOT_ALLOWED, "GET",
                                      "only GET and HEAD\n", [("Allow", "GET, HEAD")])
        host = headers.get("host")
        if host is None and version == "HTTP/1.1":
            return await self._answer(writer, HTTPStatus.BAD_REQUEST, method, "no Host header\n")
        if host is not None and not is_loopback(_host_of(host)):
            return await self._answer(writer, HTTPStatus.FORBIDDEN, method,
                                      "this server answers only as a loopback address (127.0.0.1)\n")
        path = _path(target)
        if path == "/relay" and self.board is not None:
            return await self._upgrade(reader, writer, method, headers, head, rest)
        found = self._resolve(path) if path is not None else None
        if found is None:
            return await self._answer(writer, HTTPStatus.NOT_FOUND, method, "not found\n")
        content_type, body = found
        return await self._answer(writer, HTTPStatus.OK, method, body, [("Content-Type", content_type)])

    def _resolve(self, path):
        """(content type, bytes) for a path, or None."""
        if path == "/bundle.json":
            return TYPES[".json"], self._bundle
        if path == "/config.json":
            return TYPES[".json"], json.dumps(self.config()).encode()
        if path in ("/runtime/micropython.mjs", "/runtime/micropython.wasm"):
            return self._file(self.runtime, path[len("/runtime/"):])
        if path == "/":
            return self._file(self.page, "index.html")
        name = path[1:]
        if "\x00" in name or not PAGE_NAME.match(name):
            return None
        return self._file(self.page, name)

    @staticmethod
    def _file(folder, name):
        path = folder / name
        try:
            if not path.is_file() or path.resolve().parent != folder.resolve():
                return None
            body = path.read_bytes()
        except OSError:
            return None
        return TYPES.get(path.suffix.lower(), "application/octet-stream"), body

    async def _answer(self, writer, status, method, body=b"", headers=()):
        status = HTTPStatus(status)
        if isinstance(body, str):
            body = body.encode("utf-8")
        lines = ["HTTP/1.1 %d %s" % (status.value, status.phrase)]
        names = {name.lower() for name, _ in headers}
        if "content-type" not in names:
            headers = [*headers, ("Content-Type", "text/plain; charset=utf-8")]
        for name, value in [*headers, ("Content-Length", str(len(body))), ("Cache-Control", "no-cache"),
                            *SECURITY_HEADERS, ("Connection", "close")]:
            lines.append("%s: %s" % (name, value))
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        if method != "HEAD":
            writer.write(body)
        await writer.drain()

    # WebSocket ------------------------------------------------------------------------------

    async def _upgrade(self, reader, writer, method, headers, head, rest):
        origin = headers.get("origin")
        if origin is None and "upgrade" in headers:
            self.log("a WebSocket with no Origin was refused (only the page this server serves may use "
                     "the relay)")
            return await self._answer(writer, HTTPStatus.FORBIDDEN, method,
                                      "the relay is for the page this server serves\n")
        if origin is not None and not _origin_allowed(origin, headers.get("host"), self.port):
            self.log("a WebSocket from %s was refused (only the page this server serves may use the "
                     "relay)" % origin)
            return await self._answer(writer, HTTPStatus.FORBIDDEN, method,
                                      "the relay is for the page this server serves\n")
        if "upgrade" in headers and headers.get("sec-websocket-version") != "13":
            return await self._answer(writer, HTTPStatus.UPGRADE_REQUIRED, method,
                                      "only WebSocket version 13\n", [("Sec-WebSocket-Version", "13")])
        protocol = ServerProtocol(max_size=MESSAGE_MAX)
        protocol.receive_data(head)                 # the library reads the handshake itself
        request = [event for event in protocol.events_received() if isinstance(event, Request)]
        if not request:
            return await self._answer(writer, HTTPStatus.BAD_REQUEST, method, "not a WebSocket handshake\n")
        answer = protocol.accept(request[0])
        if answer.status_code != 101:
            extra = [(name, value) for name, value in answer.headers.raw_items()
                     if name.lower() in ("upgrade", "allow")]
            return await self._answer(writer, answer.status_code, method, answer.body, extra)
        answer.headers["Cache-Control"] = "no-cache"
        protocol.send_response(answer)
        ws = _Socket(protocol, reader, writer)
        ws.flush()
        await writer.drain()
        if rest:
            ws.take(rest)
        await self._serve_client(ws)
        return None

    async def _serve_client(self, ws):
        self._numbers += 1
        client = _Client(ws, self._numbers, self.queue_limit)
        self.clients.add(client)
        client.feeder = asyncio.create_task(self._feed(client))
        if self._state is not None:
            client.queue.put_nowait(self._state)
        if self._board_open:
            self._hello()
        try:
            while True:
                text = await ws.recv()
                if text is None:
                    break
                if client in self.clients:
                    self._command(client, text)
        finally:
            self.clients.discard(client)
            client.feeder.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await client.feeder

    async def _feed(self, client):
        with contextlib.suppress(ConnectionError, OSError):
            while True:
                text = await client.queue.get()
                await client.ws.send(text)

    def _command(self, client, text):
        line = text.strip()
        why = refusal(line)
        if why is not None:
            self.log("%s sent %s: not passed to the board (%r)" % (client.name, why, line[:60]))
            return
        if not self.board.is_open:
            self.log("the board is away: %r from %s was not sent" % (line, client.name))
            return
        now = _clock()
        if not self.rate.may_send(now):
            client.refused += 1
            if client.told is None or now - client.told >= 1.0:
                client.told = now
                why = ("more than %d commands a second (%d at once) for the board, from all its pages: "
                       "%d of this page's not sent so far" % (RATE, BURST, client.refused))
                self.log("%s sends %s" % (client.name, why))
                with contextlib.suppress(asyncio.QueueFull):
                    client.queue.put_nowait(json.dumps({"relay": "limited", "why": why,
                                                        "refused": client.refused}))
            return
        if not self.board.send(line):
            self.log("%d lines wait for the board already: %r from %s was not sent"
                     % (OUTGOING, line, client.name))


def _path(target):
    """The percent-decoded path of a request target, or None if it is not a plain path."""
    if not target.startswith("/"):
        return None
    try:
        return urllib.parse.unquote(urllib.parse.urlsplit(target).path, errors="strict")
    except (UnicodeDecodeError, ValueError):
        return None


async def _discard(reader, limit=1 << 20):
    """Read and drop what the client still sends, until it closes (a lingering close: a
    socket closed with unread bytes is reset, and the answer could be lost with it)."""
    left = limit
    while left > 0:
        data = await reader.read(min(left, 65536))
        if not data:
            return
        left -= len(data)


async def _read_head(reader):
    """The request's head as h11 reads it (an ``h11.Request``), its bytes, and the bytes
    that came after it; raises _BadRequest or EOFError."""
    parser = h11.Connection(h11.SERVER, max_incomplete_event_size=HEAD_LIMIT)
    received = bytearray()              # the head and what follows, past HEAD_LIMIT not kept
    size = 0
    while True:
        data = await reader.read(65536)
        if size == 0 and data[:2] == b"\r\n":
            data = data[2:]             # a stray line end before the request: allowed
        size += len(data)
        received += data[:max(0, HEAD_LIMIT + 1 - len(received))]
        parser.receive_data(data)
        try:
            event = parser.next_event()
        except h11.RemoteProtocolError as e:
            status = HTTPStatus(e.error_status_hint)
            why = status.phrase if status != HTTPStatus.BAD_REQUEST else "not an HTTP request (%s)" % e
            raise _BadRequest(status, why.split(":", 1)[0]) from None
        if isinstance(event, h11.Request):
            rest = bytes(parser.trailing_data[0])
            if size - len(rest) > HEAD_LIMIT:
                raise _BadRequest(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE)
            return event, bytes(received[:size - len(rest)]), rest
        if not data:
            if size == 0:
                raise EOFError
            raise _BadRequest(HTTPStatus.BAD_REQUEST, "the request ended early")


class _Socket:
    """One page's WebSocket: the protocol (framing, masks, fragments, ping, the close
    handshake and the close codes of RFC 6455) is the ``websockets`` library's, used without
    its own I/O (``ServerProtocol``); this reads and writes it on the connection's streams and
    puts text messages together. A binary message is refused (1003), a text that is not
    UTF-8 too (1007); the library answers the other broken rules (1002, 1009)."""

    def __init__(self, protocol, reader, writer):
        self.protocol = protocol
        self.reader = reader
        self.writer = writer
        self._events = []
        self._parts = None            # the fragments of a text message, decoded so far
        self._decoder = None

    def flush(self):
        for data in self.protocol.data_to_send():
            if data:
                self.writer.write(data)
            elif self.writer.can_write_eof():
                self.writer.write_eof()         # the closing connection's lingering close follows

    def take(self, data):
        if data:
            self.protocol.receive_data(data)
        else:
            self.protocol.receive_eof()
        self._events.extend(self.protocol.events_received())
        self.flush()

    async def recv(self):
        """The next text message, or None once the connection is closing."""
        while True:
            while self._events:
                text = self._message(self._events.pop(0))
                if text is not None:
                    return text
            if self.protocol.state is not State.OPEN:
                return None
            try:
                data = await self.reader.read(65536)
            except (ConnectionError, OSError):
                data = b""
            self.take(data)
            with contextlib.suppress(ConnectionError, OSError):
                await self.writer.drain()

    def _message(self, frame):
        if self.protocol.state is not State.OPEN:
            return None                         # failed, or closing: nothing more is passed on
        if frame.opcode is Opcode.BINARY:
            return self._fail(CloseCode.UNSUPPORTED_DATA, "the relay takes text only")
        if frame.opcode is Opcode.TEXT:
            self._parts, self._decoder = [], codecs.getincrementaldecoder("utf-8")()
        elif frame.opcode is not Opcode.CONT or self._parts is None:
            return None                         # ping, pong, close: the protocol answered them
        try:
            self._parts.append(self._decoder.decode(frame.data, frame.fin))
        except UnicodeDecodeError:
            return self._fail(CloseCode.INVALID_DATA, "a text that is not UTF-8")
        if not frame.fin:
            return None
        text, self._parts = "".join(self._parts), None
        return text

    def _fail(self, code, why):
        self.protocol.fail(code, why)
        self._events.clear()
        self.flush()

    async def send(self, text):
        if self.protocol.state is not State.OPEN:
            raise ConnectionError("the WebSocket is closing")
        self.protocol.send_text(text.encode("utf-8"))
        self.flush()
        await self.writer.drain()

    def abort(self, code, reason=""):
        """Close from this side: a close frame after what is queued; the connection is cut
        if the client has not answered it within CLOSE_WAIT seconds."""
        if self.protocol.state is State.OPEN:
            self.protocol.send_close(code, reason)
            self.flush()
        asyncio.get_running_loop().call_later(CLOSE_WAIT, self.writer.transport.abort)


# running it from other code ---------------------------------------------------------------

def serve_in_thread(**options):
    """A WebServer (``options`` as for WebServer) running on its own event loop in a
    background thread; returns ``(server, stop)``. Raises what ``start()`` raises."""
    loop = asyncio.new_event_loop()
    server = WebServer(**options)
    ready = threading.Event()
    failed = []

    def run():
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(server.start())
        except BaseException as e:           # handed to the caller
            failed.append(e)
            ready.set()
            loop.close()
            return
        ready.set()
        try:
            loop.run_forever()
        finally:
            tasks = asyncio.all_tasks(loop)
            for task in tasks:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            loop.close()

    thread = threading.Thread(target=run, name="courtside-web", daemon=True)
    thread.start()
    ready.wait()
    if failed:
        thread.join()
        raise failed[0]

    def stop():
        if thread.is_alive():
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(server.aclose(), loop).result(10)
            loop.call_soon_threadsafe(loop.stop)
            thread.join(10)

    return server, stop


@contextlib.contextmanager
def serving(**options):
    """``with serving(runtime=...) as server:``: serve_in_thread as a context manager."""
    server, stop = serve_in_thread(**options)
    try:
        yield server
    finally:
        stop()
