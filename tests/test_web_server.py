"""``courtside web``: the runtime fetched from the npm registry and checked, the page's HTTP
server, the WebSocket protocol spoken by a raw-socket client written here, and the relay
to the firmware on a virtual Pico.

The runtime is downloaded once per session, by the command itself
(``courtside web --fetch-runtime --wasm DIR``). Tampered and cut-off downloads come from
a local HTTP server. Where the relay's board side must be driven byte by byte (split
lines, oversize lines, exactly what reached the board) the board is a TCP socket this
file listens on, reached through pyserial's ``socket://`` URL; the game itself is played
against the real firmware on a virtual Pico. Nothing waits a fixed time and then checks:
every wait is for a condition, with a generous limit.
"""

import base64
import contextlib
import hashlib
import http.server
import io
import json
import os
import re
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tarfile
import threading
import time

import pytest
from conftest import ROOT, interruptible
from courtside_host import paths
from courtside_host.vpico.runner import VirtualPico
from courtside_host.web import runtime as webruntime
from courtside_host.web import server as webserver

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
WAIT = 60.0


def until(condition, what, timeout=WAIT):
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            pytest.fail("timed out waiting for %s" % what)
        time.sleep(0.01)


def cli(*args, env=None, timeout=120):
    return subprocess.run([sys.executable, "-m", "courtside_host.cli", "web", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, check=False,
                          env=dict(os.environ, **(env or {})))


# the runtime --------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def runtime(tmp_path_factory):
    """The real runtime, fetched once from the npm registry by the command itself."""
    folder = tmp_path_factory.mktemp("wasm") / "runtime"
    out = cli("--fetch-runtime", "--wasm", folder, timeout=300)
    assert out.returncode == 0, out.stderr
    assert str(folder) in out.stdout and webruntime.VERSION in out.stdout
    return folder


def test_the_runtime_comes_from_npm_checked_and_whole(runtime):
    assert sorted(p.name for p in runtime.iterdir()) == sorted(webruntime.KEPT)
    assert webruntime.KEPT == ("micropython.mjs", "micropython.wasm", "package.json")
    assert (runtime / "micropython.wasm").read_bytes()[:4] == b"\0asm"
    assert "micropython.wasm" in (runtime / "micropython.mjs").read_text()
    meta = json.loads((runtime / "package.json").read_text())
    assert (meta["name"], meta["version"], meta["license"]) == (webruntime.PACKAGE, "1.27.0", "MIT")
    assert webruntime.version_of(runtime) == "1.27.0"
    assert [p.name for p in runtime.parent.iterdir()] == ["runtime"]      # no temporary folder left
    assert webruntime.find(runtime) == runtime


def test_find_looks_at_the_option_then_the_environment_then_the_cache(runtime, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv(webruntime.ENV, raising=False)
    with pytest.raises(webruntime.RuntimeMissing, match="courtside web --fetch-runtime"):
        webruntime.find()
    with pytest.raises(webruntime.RuntimeMissing, match=r"--wasm .*nowhere.*courtside web --fetch-runtime"):
        webruntime.find(tmp_path / "nowhere")
    monkeypatch.setenv(webruntime.ENV, str(runtime))
    assert webruntime.find() == runtime
    with pytest.raises(webruntime.RuntimeMissing, match="nowhere"):
        webruntime.find(tmp_path / "nowhere")              # the option comes first
    monkeypatch.setenv(webruntime.ENV, str(tmp_path / "empty"))
    with pytest.raises(webruntime.RuntimeMissing, match=r"\$COURTSIDE_WASM"):
        webruntime.find()
    monkeypatch.delenv(webruntime.ENV)
    cache = tmp_path / "cache" / "courtside" / "micropython-webassembly-1.27.0"
    assert webruntime.cache_folder() == cache
    shutil.copytree(runtime, cache)
    assert webruntime.find() == cache
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert webruntime.cache_folder() == tmp_path / "home" / ".cache" / "courtside" / cache.name


def npm_tarball(version="1.27.0", wasm=b"\0asm\1\0\0\0", name=webruntime.PACKAGE):
    """A tarball laid out as npm packs one, with our own contents."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        meta = json.dumps({"name": name, "version": version}).encode()
        for member, data in (("package/package.json", meta), ("package/README.md", b"# not the real one\n"),
                             ("package/micropython.mjs", b"export default 1;\n"),
                             ("package/micropython.wasm", wasm)):
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def integrity(data):
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


@contextlib.contextmanager
def registry(files):
    """A local HTTP server: ``files`` maps a path to (bytes, bytes actually sent)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path not in files:
                self.send_error(404)
                return
            data, sent = files[self.path]
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[:sent])
            self.wfile.flush()
            self.close_connection = True

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield "http://127.0.0.1:%d" % server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def test_a_tampered_or_cut_off_tarball_is_refused_and_leaves_nothing(tmp_path):
    good = npm_tarball()
    tampered = npm_tarball(wasm=b"\0asm\1\0\0\0 and something else")
    other = npm_tarball(version="9.9.9")
    files = {"/good.tgz": (good, len(good)), "/tampered.tgz": (tampered, len(tampered)),
             "/cut.tgz": (good, len(good) // 2), "/other.tgz": (other, len(other)),
             "/garbage.tgz": (b"not a tarball", 13)}
    dest = tmp_path / "cache" / "runtime"
    dest.parent.mkdir()
    with registry(files) as url:
        # npm's integrity for the real package: our tarball is not it
        with pytest.raises(webruntime.FetchError, match="does not match its integrity"):
            webruntime.fetch(dest, url=url + "/good.tgz")
        assert not dest.exists() and list(dest.parent.iterdir()) == []
        # the same layout, fetched with its own integrity: kept whole
        assert webruntime.fetch(dest, url=url + "/good.tgz", integrity=integrity(good)) == dest
        assert (dest / "micropython.wasm").read_bytes() == b"\0asm\1\0\0\0"
        assert sorted(p.name for p in dest.iterdir()) == sorted(webruntime.KEPT)
        before = {p.name: p.read_bytes() for p in dest.iterdir()}
        refusals = [("/tampered.tgz", integrity(good), "does not match its integrity"),
                    ("/cut.tgz", integrity(good), "cut off"),
                    ("/other.tgz", integrity(other), "holds .* 9.9.9, not"),
                    ("/garbage.tgz", integrity(b"not a tarball"), "cannot be read"),
                    ("/missing.tgz", integrity(good), "cannot download")]
        for path, expected, message in refusals:
            with pytest.raises(webruntime.FetchError, match=message):
                webruntime.fetch(dest, url=url + path, integrity=expected)
            # what was there stays, and no temporary folder is left beside it
            assert {p.name: p.read_bytes() for p in dest.iterdir()} == before, path
            assert [p.name for p in dest.parent.iterdir()] == ["runtime"], path


# the HTTP server ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """A page folder of our own (the real page is another part of the work)."""
    folder = tmp_path_factory.mktemp("page")
    (folder / "index.html").write_text("<!doctype html><title>Courtside</title><script src=x.js></script>")
    (folder / "courtside.js").write_text("console.log('courtside');\n")
    (folder / "style.css").write_text("body { margin: 0 }\n")
    (folder / "board.mjs").write_text("export const x = 1;\n")
    (folder / "face.json").write_text("{}")
    (folder / "logo.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    (folder / "dot.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (folder / ".hidden").write_text("secret")
    (folder / "sub").mkdir()
    (folder / "sub" / "inner.js").write_text("nope")
    (folder / "outside.js").symlink_to(ROOT / "pyproject.toml")
    return folder


@pytest.fixture(scope="module")
def server(runtime, page):
    with webserver.serving(runtime=runtime, page=page, port=0, log=lambda m: None) as s:
        yield s


def exchange(port, data, timeout=WAIT):
    """Send raw bytes, read the whole answer: (status, headers, body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, body


def get(server, path, method="GET", extra=""):
    return exchange(server.port, ("%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n%s\r\n"
                                  % (method, path, server.port, extra)).encode("latin-1"))


def test_the_page_and_its_files(server, page):
    status, headers, body = get(server, "/")
    assert status == 200 and headers["content-type"] == "text/html; charset=utf-8"
    assert body == (page / "index.html").read_bytes()
    assert headers["cache-control"] == "no-cache" and headers["content-length"] == str(len(body))
    types = {"courtside.js": "text/javascript", "board.mjs": "text/javascript", "style.css": "text/css",
             "face.json": "application/json", "logo.svg": "image/svg+xml", "dot.png": "image/png",
             "index.html": "text/html"}
    for name, kind in types.items():
        status, headers, body = get(server, "/" + name)
        assert status == 200 and headers["content-type"].split(";")[0] == kind, name
        assert body == (page / name).read_bytes() and headers["cache-control"] == "no-cache"
    status, headers, body = get(server, "/courtside.js", "HEAD")
    assert status == 200 and body == b""
    assert headers["content-length"] == str((page / "courtside.js").stat().st_size)
    for missing in ("/nothing.js", "/sub/inner.js", "/sub", "/.hidden", "/outside.js", "/index.html/",
                    "/runtime/package.json", "/runtime/", "/relay"):
        status, headers, _ = get(server, missing)
        assert status == 404 and headers["cache-control"] == "no-cache", missing
    status, _, body = get(server, "/?x=1")
    assert status == 200 and body == (page / "index.html").read_bytes()


def test_the_runtime_files(server, runtime):
    status, headers, body = get(server, "/runtime/micropython.wasm")
    assert status == 200 and headers["content-type"] == "application/wasm"
    assert body == (runtime / "micropython.wasm").read_bytes() and headers["cache-control"] == "no-cache"
    status, headers, body = get(server, "/runtime/micropython.mjs")
    assert status == 200 and headers["content-type"].startswith("text/javascript")
    assert body == (runtime / "micropython.mjs").read_bytes()


def test_the_bundle_holds_the_firmware_the_renderer_and_the_pin_map(server):
    import courtside
    status, headers, body = get(server, "/bundle.json")
    assert status == 200 and headers["content-type"] == "application/json"
    assert headers["cache-control"] == "no-cache"
    made = json.loads(body)
    assert sorted(made) == ["files", "stream", "version"]
    assert (made["version"], made["stream"]) == (courtside.VERSION, courtside.STREAM)
    files = made["files"]
    assert files["lib/courtside/core.py"] == (paths.FIRMWARE / "courtside" / "core.py").read_text()
    trees = [paths.FIRMWARE / "courtside", paths.COMMON / "courtside_sim", paths.COMMON / "courtside_follow"]
    expected = {"lib/" + p.relative_to(t.parent).as_posix() for t in trees for p in t.rglob("*.py")}
    expected.add("hardware/pinmap.json")
    assert set(files) == expected         # nothing of the laptop-only package
    assert "lib/courtside/deathball/engine.py" in files and "lib/courtside_sim/board.py" in files
    page = paths.COMMON / "courtside_follow" / "page.py"
    assert files["lib/courtside_follow/page.py"] == page.read_text()
    assert files["hardware/pinmap.json"] == paths.PINMAP.read_text()


def test_a_bundle_of_another_firmware_and_map_and_ones_refused(runtime, tmp_path):
    firmware = tmp_path / "firmware"
    shutil.copytree(paths.FIRMWARE, firmware, ignore=shutil.ignore_patterns("__pycache__"))
    init = firmware / "courtside" / "__init__.py"
    init.write_text(init.read_text().replace('VERSION = "', 'VERSION = "9.9.9" and "'))
    (firmware / "courtside" / "extra.py").write_text("X = 1\n")
    pins = paths.HARDWARE / "variants" / "two_boxes.json"
    made = webserver.bundle(firmware, pins)
    assert made["version"] == "9.9.9" and made["files"]["lib/courtside/extra.py"] == "X = 1\n"
    assert made["files"]["hardware/pinmap.json"] == pins.read_text()
    with webserver.serving(runtime=runtime, firmware=firmware, pins=pins, port=0) as s:
        assert json.loads(get(s, "/config.json")[2])["version"] == "9.9.9"
    with pytest.raises(webserver.BundleError, match="package 'courtside', not found in .*--firmware takes"):
        webserver.bundle(tmp_path / "empty", pins)
    bad = tmp_path / "bad.json"
    data = json.loads(paths.PINMAP.read_text())
    data["buzzer"] = data["matrix"]["pin"]
    bad.write_text(json.dumps(data))
    with pytest.raises(webserver.BundleError, match="refused"):
        webserver.bundle(firmware, bad)
    with pytest.raises(webserver.BundleError):
        webserver.serve_in_thread(runtime=runtime, pins=bad, port=0)


def test_the_bundle_is_what_the_pages_manifest_names(tmp_path):
    """A module added to the page's manifest is in the bundle, one taken out is not, and
    the bundle holds nothing the manifest does not name."""
    page = webserver.MANIFEST.read_text()
    assert 'package("courtside_sim", base_path="$(COMMON)")' in page
    (tmp_path / "extra").mkdir()
    (tmp_path / "extra" / "spare.py").write_text("SPARE = 1\n")
    changed = tmp_path / "manifest.py"
    changed.write_text(page.replace('package("courtside_sim", base_path="$(COMMON)")\n', "")
                       + 'module("spare.py", base_path="extra")\n'
                       + 'module("courtside_host/views/render.py", base_path="$(HOST)")\n')
    made = webserver.bundle(manifest=changed)["files"]
    assert made["lib/spare.py"] == "SPARE = 1\n"
    assert "lib/courtside_sim/board.py" not in made
    assert "lib/courtside_host/views/render.py" in made and "lib/courtside_follow/page.py" in made
    changed.write_text('package("courtside", files=["__init__.py", "core.py"], base_path="$(FIRMWARE)")\n')
    made = webserver.bundle(manifest=changed)["files"]
    assert sorted(made) == ["hardware/pinmap.json", "lib/courtside/__init__.py", "lib/courtside/core.py"]
    changed.write_text('package("courtside_sim", base_path="$(COMMON)")\n')
    with pytest.raises(webserver.BundleError, match="names no courtside package"):
        webserver.bundle(manifest=changed)
    changed.write_text('module("courtside_host/views/gone.py", base_path="$(HOST)")\n')
    with pytest.raises(webserver.BundleError, match="gone.py"):
        webserver.bundle(manifest=changed)


def test_config_says_whether_there_is_a_relay(server):
    import courtside
    status, headers, body = get(server, "/config.json")
    assert status == 200 and headers["content-type"] == "application/json"
    assert json.loads(body) == {"relay": False, "port": None, "version": courtside.VERSION}


def test_bad_requests_get_their_status(server):
    for path in ("/../pyproject.toml", "/%2e%2e/", "/%2e%2e/pyproject.toml", "/..%2fpyproject.toml",
                 "/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd", "/runtime/../../pyproject.toml", "/..", "/%00",
                 "/index.html%00.js", "/%ff", "/%5c..%5cpyproject.toml", "//etc/passwd"):
        assert get(server, path)[0] == 404, path
    status, headers, _ = get(server, "/", "POST", "Content-Length: 0\r\n")
    assert status == 405 and headers["allow"] == "GET, HEAD"
    assert get(server, "/", "DELETE")[0] == 405
    for garbage in (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", b"hello\r\n\r\n",
                    b"GET /\r\n\r\n", b"GET / HTTP/1.1 extra\r\n\r\n", b"GET / FTP/1.0\r\n\r\n",
                    b"GET / HTTP/1.1\r\nno colon here\r\n\r\n", b"GET / HTTP/1.1\r\n bad: fold\r\n\r\n",
                    b"GET  / HTTP/1.1\r\n\r\n"):
        status, headers, _ = exchange(server.port, garbage)
        assert status == 400 and headers["cache-control"] == "no-cache", garbage
    assert exchange(server.port, b"GET / HTTP/2.0\r\nHost: 127.0.0.1\r\n\r\n")[0] == 505
    assert exchange(server.port, b"GET / HTTP/1.1\r\n\r\n")[0] == 400          # no Host
    assert exchange(server.port, b"GET / HTTP/1.0\r\n\r\n")[0] == 200
    big = "".join("X-Filler-%d: %s\r\n" % (i, "x" * 100) for i in range(200))
    assert get(server, "/", extra=big)[0] == 431
    assert get(server, "/" + "a" * 20000)[0] == 431
    for host in ("evil.example", "evil.example:%d" % server.port, "192.168.1.2", "127.0.0.1.evil.example"):
        status, _, body = exchange(server.port, ("GET / HTTP/1.1\r\nHost: %s\r\n\r\n" % host).encode())
        assert status == 403 and b"loopback" in body, host
    for host in ("localhost:%d" % server.port, "[::1]:%d" % server.port, "127.0.0.1"):
        assert exchange(server.port, ("GET / HTTP/1.1\r\nHost: %s\r\n\r\n" % host).encode())[0] == 200, host


def test_a_request_that_comes_too_slowly_is_answered_408(server, monkeypatch):
    monkeypatch.setattr(webserver, "HEAD_TIMEOUT", 0.5)
    with socket.create_connection(("127.0.0.1", server.port), timeout=WAIT) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")      # and never the empty line
        started = time.monotonic()
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 408 ") and b"no-cache" in answer
    assert 0.4 < time.monotonic() - started < WAIT


def test_only_loopback_addresses_are_served(runtime):
    with pytest.raises(ValueError, match="loopback"):
        webserver.serve_in_thread(runtime=runtime, host="0.0.0.0", port=0)
    assert webserver.is_loopback("127.0.0.1") and webserver.is_loopback("::1")
    assert webserver.is_loopback("[::1]") and webserver.is_loopback("localhost")
    assert webserver.is_loopback("127.1.2.3")
    assert not webserver.is_loopback("0.0.0.0") and not webserver.is_loopback("192.168.1.2")
    assert not webserver.is_loopback("example.com")


# a board on a TCP socket, and a WebSocket client --------------------------------------------

class SocketBoard:
    """The board's end of the serial line, as a TCP socket the relay reaches as
    ``socket://127.0.0.1:N``: what it received, and lines to send back."""

    def __init__(self):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = "socket://127.0.0.1:%d" % self.listener.getsockname()[1]
        self.received = bytearray()
        self.connections = 0
        self.conn = None
        self.lock = threading.Lock()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                self.conn = conn
                self.connections += 1
            with contextlib.suppress(OSError):
                while data := conn.recv(65536):
                    with self.lock:
                        self.received += data
            with self.lock:
                if self.conn is conn:
                    self.conn = None
            conn.close()

    def lines(self):
        with self.lock:
            return bytes(self.received).split(b"\n")[:-1]

    def commands(self):
        """What clients sent, less the relay's own ``ping`` and ``get``."""
        return [line for line in self.lines() if line not in (b"ping", b"get")]

    def send(self, data):
        until(lambda: self.conn is not None, "the relay to connect")
        self.conn.sendall(data)

    def drop(self):
        with self.lock:
            conn, self.conn = self.conn, None
        conn.shutdown(socket.SHUT_RDWR)

    def close(self):
        self.listener.close()
        if self.conn is not None:
            with contextlib.suppress(OSError):
                self.conn.shutdown(socket.SHUT_RDWR)


class Closed(Exception):
    def __init__(self, code, reason):
        super().__init__("closed %s %s" % (code, reason))
        self.code = code
        self.reason = reason


class Client:
    """A WebSocket client on a raw socket: frames built and read here, not by the server's library."""

    made: list = []       # every client, closed after each test (see ``clients_closed``)

    def __init__(self, port, origin=None, rcvbuf=None, host=None):
        host = host or "127.0.0.1:%d" % port
        origin = "http://" + host if origin is None else origin          # as the page's browser sends it
        self.sock = socket.socket()
        Client.made.append(self)
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(WAIT)
        self.sock.connect(("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        request = ("GET /relay HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\n"
                   "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n"
                   % (host, key))
        if origin:
            request += "Origin: %s\r\n" % origin
        self.sock.sendall((request + "\r\n").encode())
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            chunk = self.sock.recv(4096)
            assert chunk, "the server closed during the handshake"
            self.buf += chunk
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode().split("\r\n")
        assert lines[0] == "HTTP/1.1 101 Switching Protocols", lines
        headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        expected = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
        assert headers["sec-websocket-accept"] == expected
        assert headers["upgrade"].lower() == "websocket"

    @staticmethod
    def frame(opcode, payload, fin=True, masked=True, rsv=0):
        head = bytes([(0x80 if fin else 0) | rsv | opcode])
        bit = 0x80 if masked else 0
        n = len(payload)
        if n < 126:
            head += bytes([bit | n])
        elif n < 65536:
            head += bytes([bit | 126]) + struct.pack("!H", n)
        else:
            head += bytes([bit | 127]) + struct.pack("!Q", n)
        if not masked:
            return head + payload
        mask = os.urandom(4)
        return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))

    def send_frame(self, opcode, payload, **kw):
        self.sock.sendall(self.frame(opcode, payload, **kw))

    def send(self, text):
        self.send_frame(0x1, text.encode())

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("the server closed the connection")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n:]
        return data

    def next_frame(self):
        b0, b1 = self._read(2)
        assert not b1 & 0x80, "a server's frames are never masked"
        n = b1 & 0x7F
        if n == 126:
            (n,) = struct.unpack("!H", self._read(2))
        elif n == 127:
            (n,) = struct.unpack("!Q", self._read(8))
        return bool(b0 & 0x80), b0 & 0x0F, self._read(n)

    def ready(self, timeout):
        """Whether something has come to be read within ``timeout`` seconds."""
        return bool(self.buf) or bool(select.select([self.sock], [], [], timeout)[0])

    def recv(self):
        """The next text message; raises Closed at a close frame."""
        fin, opcode, payload = self.next_frame()
        if opcode == 0x8:
            code = struct.unpack("!H", payload[:2])[0] if payload else None
            raise Closed(code, payload[2:].decode())
        assert (fin, opcode) == (True, 0x1), (fin, opcode)
        return payload.decode()

    def until(self, condition, what):
        """Messages up to and including the first for which ``condition`` holds."""
        seen = []
        end = time.monotonic() + WAIT
        while time.monotonic() < end:
            seen.append(self.recv())
            if condition(seen[-1]):
                return seen
        pytest.fail("no %s among %r" % (what, seen[-20:]))
        return seen

    def closed_with(self):
        """Read on to the close frame; its code."""
        try:
            while True:
                self.recv()
        except Closed as e:
            return e.code

    def at_eof(self):
        with contextlib.suppress(ConnectionError):
            return self.sock.recv(1) == b"" and not self.buf
        return True

    def close(self):
        self.sock.close()


@pytest.fixture(autouse=True)
def clients_closed():
    yield
    while Client.made:
        Client.made.pop().close()


def event(text):
    with contextlib.suppress(ValueError):
        value = json.loads(text)
        return value if isinstance(value, dict) else None
    return None


def is_event(kind):
    return lambda text: (event(text) or {}).get("ev") == kind


@pytest.fixture
def board():
    b = SocketBoard()
    yield b
    b.close()


@pytest.fixture
def relay(runtime, board):
    notes = []
    with webserver.serving(runtime=runtime, port=0, board=board.url, log=notes.append) as s:
        s.notes = notes
        until(lambda: board.connections == 1, "the relay to open the board's port")
        yield s


def opened(client):
    """The first message a client gets while the board is there."""
    state = json.loads(client.recv())
    assert state["relay"] == "open"
    return state


def test_the_handshake_and_what_is_refused_before_it(relay, board):
    base = ("GET /relay HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
            "Connection: keep-alive, Upgrade\r\nSec-WebSocket-Key: %s\r\n"
            % (relay.port, base64.b64encode(b"0123456789abcdef").decode()))
    # no Origin: not a page's handshake (any program on this machine could send one)
    status, _, _ = exchange(relay.port, (base + "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    assert status == 403 and any("no Origin" in n for n in relay.notes)
    base += "Origin: http://127.0.0.1:%d\r\n" % relay.port
    status, headers, _ = exchange(relay.port, (base + "Sec-WebSocket-Version: 8\r\n\r\n").encode())
    assert status == 426 and headers["sec-websocket-version"] == "13"
    assert exchange(relay.port, base.replace("Sec-WebSocket-Key: MDEyMzQ1Njc4OWFiY2RlZg==",
                                             "Sec-WebSocket-Key: c2hvcnQ=").encode()
                    + b"Sec-WebSocket-Version: 13\r\n\r\n")[0] == 400
    assert get(relay, "/relay")[0] == 426                      # a plain GET
    assert get(relay, "/relay", "POST")[0] == 405
    status, _, _ = exchange(relay.port, (base.replace("Origin: http://127.0.0.1:%d" % relay.port,
                                                      "Origin: https://evil.example")
                                         + "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    assert status == 403 and any("evil.example" in n for n in relay.notes)
    client = Client(relay.port, origin="http://127.0.0.1:%d" % relay.port)
    assert opened(client)["port"] == board.url
    client = Client(relay.port, origin="http://localhost:%d" % relay.port, host="localhost:%d" % relay.port)
    opened(client)


def upgrade_status(port, origin, host=None):
    """The status of a WebSocket handshake to the relay with this Origin (and Host)."""
    request = ("GET /relay HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nOrigin: %s\r\n\r\n"
               % (host or "127.0.0.1:%d" % port, base64.b64encode(os.urandom(16)).decode(), origin))
    return exchange(port, request.encode())[0]


def test_a_message_sent_with_the_handshake_is_not_lost(relay, board):
    key = base64.b64encode(os.urandom(16)).decode()
    request = ("GET /relay HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nOrigin: http://127.0.0.1:%d\r\n\r\n"
               % (relay.port, key, relay.port))
    with socket.create_connection(("127.0.0.1", relay.port), timeout=WAIT) as sock:
        sock.sendall(request.encode() + Client.frame(0x1, b"mode die"))      # one write, one segment
        until(lambda: board.commands() == [b"mode die"], "the command that came with the handshake")
        assert sock.recv(12).startswith(b"HTTP/1.1 101")


def test_the_relay_takes_only_the_pages_own_origin(relay):
    port = relay.port
    for origin, host in [
            ("http://127.0.0.1:3000", None), ("http://evil.localhost", None),
            ("http://evil.localhost:%d" % port, None), ("https://127.0.0.1:%d" % port, None),
            ("http://127.0.0.1", None), ("http://127.0.0.1:%d/page" % port, None), ("null", None),
            ("http://localhost:%d" % port, None), ("http://[::1]:%d" % port, None),
            ("http://127.0.0.1:%d" % (port + 1), "127.0.0.1:%d" % (port + 1)),   # the server's port only
            ("http://127.0.0.1:x", None), ("http://user@127.0.0.1:%d" % port, None), ("", None),
            ("http://evil.localhost:%d" % port, "evil.localhost:%d" % port),
            ("ws://127.0.0.1:%d" % port, None)]:
        assert upgrade_status(port, origin, host) == 403, (origin, host)
    assert sum("was refused" in n for n in relay.notes) == 15
    assert upgrade_status(port, "http://127.0.0.1:%d" % port) == 101
    assert upgrade_status(port, "http://localhost:%d" % port, "localhost:%d" % port) == 101


def test_every_answer_says_the_page_may_not_be_framed_and_runs_only_its_own_script(server, page):
    for path in ("/", "/courtside.js", "/config.json", "/bundle.json", "/no-such-file"):
        status, headers, _ = get(server, path)
        csp = headers["content-security-policy"]
        directives = dict((d.split(" ", 1) + [""])[:2] for d in csp.split("; "))
        assert directives["frame-ancestors"] == "'none'" and headers["x-frame-options"] == "DENY", path
        assert directives["default-src"] == "'none'"
        assert directives["script-src"] == "'self' 'wasm-unsafe-eval'"          # no inline script
        assert "unsafe-inline" not in csp and "unsafe-eval'" not in csp.replace("wasm-unsafe-eval'", "")
        assert headers["x-content-type-options"] == "nosniff"
    html = (webserver.PAGE / "index.html").read_text()
    scripts = re.findall(r"<script\b[^>]*>", html)
    assert scripts and all(" src=" in tag for tag in scripts)                 # the policy lets them run
    assert not re.search(r"\son[a-z]+\s*=|\sstyle\s*=|<style\b|javascript:", html)


def test_frames_masked_fragmented_pinged_and_closed(relay, board):
    client = Client(relay.port)
    opened(client)
    client.send("ping")
    client.send("  sim 1 THROW \r\n")
    client.send_frame(0x1, b"sim 2 ", fin=False)
    client.send_frame(0x9, b"are you there")                 # a ping between the fragments
    fin, opcode, payload = client.next_frame()
    assert (fin, opcode, payload) == (True, 0xA, b"are you there")
    client.send_frame(0x0, b"CATCH \xc3", fin=False)
    client.send_frame(0x0, b"\xa9", fin=True)                  # a character split between frames
    client.send("mode die")
    until(lambda: b"mode die" in board.commands(), "the last command at the board")
    assert board.commands() == [b"sim 1 THROW", "sim 2 CATCH \u00e9".encode(), b"mode die"]
    assert board.lines()[:3] == [b"ping", b"get", b"ping"]   # hello on connecting, then the client's
    client.send_frame(0x8, struct.pack("!H", 1000) + b"bye")
    assert client.closed_with() == 1000
    assert client.at_eof()


@pytest.mark.parametrize(("frames", "code"), [
    ([Client.frame(0x1, b"get", masked=False)], 1002),                     # a client frame unmasked
    ([Client.frame(0x1, b"get", rsv=0x40)], 1002),                         # a reserved bit
    ([Client.frame(0x3, b"get")], 1002),                                   # an unknown opcode
    ([Client.frame(0x0, b"get")], 1002),                                   # a continuation, nothing begun
    ([Client.frame(0x1, b"ge", fin=False), Client.frame(0x1, b"t")], 1002),  # a new message mid-way
    ([Client.frame(0x9, b"x" * 126)], 1002),                               # an overlong ping
    ([Client.frame(0x9, b"x", fin=False)], 1002),                          # a fragmented ping
    ([Client.frame(0x8, b"\x03")], 1002),                                  # a close frame of 1 byte
    ([Client.frame(0x2, b"get")], 1003),                                   # binary
    ([Client.frame(0x1, b"get \xff")], 1007),                              # not UTF-8
    ([bytes([0x81, 0xFF]) + struct.pack("!Q", 70000)], 1009),              # one frame over 64 KiB
    ([Client.frame(0x1, b"x" * 40000, fin=False), Client.frame(0x0, b"x" * 40000)], 1009),
], ids=["unmasked", "reserved", "opcode", "continuation", "interleaved", "long-ping", "fragmented-ping",
        "short-close", "binary", "utf8", "oversize", "oversize-fragments"])
def test_a_broken_rule_closes_with_its_code_and_sends_nothing(relay, board, frames, code):
    client = Client(relay.port)
    opened(client)
    for data in frames:
        client.sock.sendall(data)
    assert client.closed_with() == code
    assert client.at_eof()
    other = Client(relay.port)          # the relay goes on for everyone else
    opened(other)
    other.send("ping")
    until(lambda: board.commands() == [] and board.lines().count(b"ping") >= 3, "the next client's ping")
    assert board.commands() == []


def test_board_lines_go_to_every_client_and_only_good_commands_go_back(relay, board):
    first, second = Client(relay.port), Client(relay.port)
    opened(first)
    opened(second)
    board.send(b'{"ev":"pong","t":1}\r\nplain line\n')
    board.send(b"split ")
    board.send(b"in two\n" + b"y" * 70000 + b"\nafter the long one\n")
    board.send(b"z" * 70000)
    board.send(b"z" * 70000 + b"\nbad \xff byte\n")
    expected = ['{"ev":"pong","t":1}', "plain line", "split in two", "after the long one", "bad \ufffd byte"]
    for client in (first, second):
        assert client.until(lambda m: m.startswith("bad "), "the last line") == expected
    assert sum("dropped" in n for n in relay.notes) == 2
    for bad in ("", "   ", "get\x07", "get\nget", "ping\x00", "x" * 201, "\u00e9" * 101, "\x1b[A"):
        first.send(bad)
    first.send("  set tie_us=800  ")
    until(lambda: board.commands() == [b"set tie_us=800"], "the good command")
    refused = [n for n in relay.notes if "not passed to the board" in n]
    assert len(refused) == 8
    assert {n.split(" sent ")[1].split(": not passed")[0] for n in refused} == {
        "an empty line", "a line with control characters", "a line over 200 characters"}


def is_limited(text):
    return text.startswith('{"relay"') and json.loads(text)["relay"] == "limited"


def test_pages_sending_thousands_of_commands_are_held_to_the_boards_rate_and_told(relay, board, monkeypatch):
    """The rate is the board's: a page flooding it, or many connections flooding it
    together, get BURST lines through, then RATE a second among them all."""
    now = [1000.0]
    monkeypatch.setattr(webserver, "_clock", lambda: now[0])
    flooders = [Client(relay.port) for _ in range(5)]
    for flooder in flooders:
        opened(flooder)
    other = Client(relay.port)
    opened(other)
    for i in range(600):
        for k, flooder in enumerate(flooders):
            flooder.send("get %d" % (i * 5 + k))
    notice = json.loads(flooders[0].until(is_limited, "the notice")[-1])
    assert notice["refused"] >= 1
    assert "20 commands a second" in notice["why"] and "all its pages" in notice["why"]
    until(lambda: sum(c.refused for c in relay.clients) == 3000 - webserver.BURST, "the whole flood read")
    assert sum(c.startswith(b"get ") for c in board.commands()) == webserver.BURST   # five pages: one rate
    other.send("sim 1 THROW")                               # the board's rate is spent: this page is held too
    assert is_limited(other.until(is_limited, "the other page's notice")[-1])
    now[0] += 1.0                                           # a second later: RATE more, for anyone
    other.send("sim 1 THROW")
    until(lambda: b"sim 1 THROW" in board.commands(), "the other page's command a second later")
    assert sum(c.startswith(b"get ") for c in board.commands()) == webserver.BURST
    assert sum("client 1 sends" in n for n in relay.notes) == 1          # told once a second, not 599 times


def test_a_client_that_does_not_read_is_dropped_and_the_others_go_on(runtime, board, monkeypatch):
    monkeypatch.setattr(webserver, "CLOSE_WAIT", 120.0)           # let it read the backlog to its close frame
    notes = []
    with webserver.serving(runtime=runtime, port=0, board=board.url, log=notes.append, queue_limit=32) as s:
        slow = Client(s.port, rcvbuf=4096)
        fast = Client(s.port)
        opened(fast)
        line = "x" * 30000
        sent = 0
        while not any("dropped" in n for n in notes):
            assert sent < 4000, "the slow client was never dropped"
            batch = ["%d %s" % (sent + i, line) for i in range(16)]
            board.send("".join(m + "\n" for m in batch).encode())
            assert fast.until(lambda m, last=batch[-1]: m == last, "the batch") == batch
            sent += 16
        board.send(b"still here\n")
        assert fast.until(lambda m: m == "still here", "the line after the drop")[-1] == "still here"
        assert slow.closed_with() == 1008


# the relay and the real firmware -------------------------------------------------------------

def test_a_game_through_the_relay_on_the_virtual_pico(runtime, pico):
    notes = []
    with webserver.serving(runtime=runtime, port=0, board=pico.port, log=notes.append) as s:
        config = json.loads(get(s, "/config.json")[2])
        assert config["relay"] is True and config["port"] == pico.port
        first = Client(s.port)
        seen = first.until(is_event("settings"), "the settings")
        assert json.loads(seen[0]) == {"relay": "open", "port": pico.port}
        assert any(is_event("pong")(m) for m in seen)
        second = Client(s.port)
        joined = second.until(is_event("settings"), "the settings for the second client")
        assert any(is_event("pong")(m) for m in joined)
        first.send("set contest_ms=6000")
        # Player 1 joins with another button than the one it presses next: a join is a tap,
        # let go 80 ms on, and the same button pressed before then is that tap's bounce
        # (a press lost, the game silent), which a quick round trip through the relay allows.
        for line in ("sim 1 PASS", "sim 2 THROW", "start"):
            first.send(line)
        lines = first.until(is_event("start"), "the game's start")
        first.send("sim 1 THROW down")
        lines += first.until(lambda m: is_event("press")(m) and event(m)["p"] == 1, "player 1's press")
        time.sleep(0.3)                                        # the second answer comes later
        first.send("sim 2 CATCH down")
        first.send("sim 1 THROW up")
        first.send("sim 2 CATCH up")
        lines += first.until(is_event("verdict"), "the verdict")
        verdict = event(lines[-1])
        assert [(o["p"], o["b"], o["rank"], o["tie"]) for o in verdict["order"]] == [
            (1, "THROW", 1, False), (2, "CATCH", 2, False)]
        assert 250_000 <= verdict["order"][1]["lag"] < 6_000_000
        assert [event(m)["p"] for m in lines if is_event("join")(m)] == [1, 2]
        # the second client heard the same lines, in the same order, from the game's first command
        heard = second.until(is_event("verdict"), "the verdict for the second client")

        def from_set(stream):
            return stream[next(i for i, m in enumerate(stream) if is_event("cmd")(m)
                               and event(m)["line"] == "set contest_ms=6000"):]
        assert from_set(heard) == from_set(lines) and heard[-1] == lines[-1]
        # a bad line reaches nothing: the board records every line it reads as a `cmd`
        first.send("get\x07")
        first.send("x" * 201)
        first.send("ping")
        after = first.until(is_event("pong"), "the pong")
        assert [event(m)["line"] for m in after if is_event("cmd")(m)] == ["ping"]
        assert not any(is_event("settings")(m) or is_event("error")(m) for m in after)
        assert sum("not passed to the board" in n for n in notes) == 2


def test_a_flood_through_the_relay_leaves_the_virtual_pico_answering(runtime, pico):
    with webserver.serving(runtime=runtime, port=0, board=pico.port, log=lambda note: None) as s:
        client = Client(s.port)
        client.until(is_event("pong"), "the board's first pong")
        start = time.monotonic()
        for _ in range(3000):
            client.send("get")
        seen = []
        end = time.monotonic() + 60
        while time.monotonic() < end and not any(is_event("pong")(m) for m in seen):
            # A ping while the page is still over its rate is refused like the flood: it is
            # sent again until one is let through.
            client.send("ping")
            while client.ready(0.5) and not is_event("pong")(seen[-1] if seen else ""):
                seen.append(client.recv())
        elapsed = time.monotonic() - start
        assert any(is_event("pong")(m) for m in seen)
        gets = sum(1 for m in seen if is_event("cmd")(m) and event(m)["line"] == "get")
        assert gets <= webserver.BURST + webserver.RATE * elapsed + 1     # the rest never reached it
        assert any(is_limited(m) for m in seen)


def test_the_board_is_restarted_only_when_asked(runtime, pico):
    def settings_seen(**options):
        with webserver.serving(runtime=runtime, port=0, board=pico.port, log=lambda m: None, **options) as s:
            client = Client(s.port)
            got = client.until(is_event("settings"), "the settings")
            if not options:
                client.send("set contest_ms=5000")
                got += client.until(is_event("settings"), "the settings after set")
            return [event(m) for m in got if "ev" in (event(m) or {})]
    kept = settings_seen()
    assert kept[-1]["contest_ms"] == 5000 and not any(e["ev"] == "hello" for e in kept)
    again = settings_seen()
    assert again[-1]["contest_ms"] == 5000                    # a new page: the same running game
    fresh = settings_seen(start=True)
    assert fresh[-1]["contest_ms"] == 1500                    # the firmware started afresh


@pytest.mark.vpico
def test_the_board_going_away_is_told_and_its_return_too(runtime, board, tmp_path):
    notes = []
    pico = VirtualPico(tmp_path / "flash").start()
    running = True
    try:
        with webserver.serving(runtime=runtime, port=0, board=pico.port, log=notes.append) as s:
            client = Client(s.port)
            assert opened(client) == {"relay": "open", "port": pico.port}
            pico.stop()
            running = False
            closed = json.loads(client.until(lambda m: m.startswith('{"relay"'), "the relay's news")[-1])
            assert closed["relay"] == "closed" and "went away" in closed["why"]
            assert "Errno" not in closed["why"] and "plug it back in" in closed["why"]   # words for players
            assert any(pico.port in n for n in notes)             # the error itself in the server's log
            assert get(s, "/config.json")[0] == 200               # the page is still served
            late = Client(s.port)
            assert json.loads(late.recv()) == closed              # a client arriving now is told at once
            late.send("ping")
            until(lambda: any("the board is away" in n for n in notes), "the note of a line not sent")
    finally:
        if running:
            pico.stop()
    with webserver.serving(runtime=runtime, port=0, board=board.url, log=notes.append) as s:
        client = Client(s.port)
        opened(client)
        until(lambda: board.lines().count(b"get") == 1, "the hello")
        board.drop()
        closed = json.loads(client.recv())
        assert closed["relay"] == "closed" and "went away" in closed["why"]
        assert json.loads(client.recv()) == {"relay": "open", "port": board.url}   # tried again, and back
        until(lambda: board.lines().count(b"get") == 2, "a new hello once the board is back")
        assert board.connections == 2
        client.send("ping")
        until(lambda: board.lines()[-1:] == [b"ping"], "a line through the reopened port")


# the command ----------------------------------------------------------------------------------

def test_the_command_serves_until_interrupted(runtime, board):
    with interruptible():
        proc = subprocess.Popen([sys.executable, "-m", "courtside_host.cli", "web", "--http-port", "0",
                                 "--wasm", str(runtime), "--port", board.url],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/"), proc.stderr.read()
        port = int(url.rsplit(":", 1)[1].rstrip("/"))
        config = json.loads(exchange(port, b"GET /config.json HTTP/1.0\r\n\r\n")[2])
        assert config["relay"] is True and config["port"] == board.url
        client = Client(port)
        opened(client)
        busy = cli("--http-port", port, "--wasm", runtime)
        assert busy.returncode == 1 and "cannot listen" in busy.stderr and "--http-port" in busy.stderr
        proc.send_signal(signal.SIGINT)
        assert proc.wait(WAIT) == 0
        assert client.closed_with() == 1001
        assert "Traceback" not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()


def test_the_command_refuses_what_it_cannot_serve(runtime, tmp_path):
    missing = cli("--http-port", 0, env={"XDG_CACHE_HOME": str(tmp_path / "cache"), "COURTSIDE_WASM": ""})
    assert missing.returncode == 2
    assert missing.stderr.startswith("courtside web: ") and "courtside web --fetch-runtime" in missing.stderr
    public = cli("--host", "0.0.0.0", "--wasm", runtime)
    assert public.returncode == 2 and "loopback" in public.stderr
    start = cli("--start", "--wasm", runtime)
    assert start.returncode == 2 and "--port" in start.stderr
    firmware = cli("--http-port", 0, "--wasm", runtime, "--firmware", tmp_path)
    assert firmware.returncode == 2 and "package 'courtside', not found" in firmware.stderr
    for out in (missing, public, start, firmware):
        assert "Traceback" not in out.stderr


def test_the_cli_loads_no_server_code_until_web_is_asked_for():
    code = ("import sys, courtside_host.cli as c; c.main(['--version']); "
            "print(sorted(m for m in sys.modules if m.startswith(('asyncio', 'courtside_host.web', 'h11', "
            "'websockets'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.splitlines()[-1] == "[]"
    helped = cli("--help")
    assert helped.returncode == 0 and "--fetch-runtime" in helped.stdout and "--port" in helped.stdout


def test_a_board_that_is_not_there_is_told_in_plain_words(runtime, tmp_path):
    """A port with no board behind it (never plugged in, or a typo): the page is told so in
    a sentence for players, and the system's error goes to the server's log only."""
    notes = []
    missing = str(tmp_path / "ttyACM9")
    with webserver.serving(runtime=runtime, port=0, board=missing, log=notes.append) as s:
        client = Client(s.port)
        closed = json.loads(client.recv())
        assert closed["relay"] == "closed", closed
        assert closed["why"].startswith("no board answers on %s: is it plugged in?" % missing)
        assert "Errno" not in closed["why"]
        until(lambda: any("Errno" in n or "No such file" in n for n in notes), "the error in the log")
