"""A small server side of the WebSocket protocol (RFC 6455) on asyncio streams, stdlib only.

What ``courtside web``'s relay needs and no more: the opening handshake
(``Sec-WebSocket-Accept``), text messages in both directions, a client's fragmented
messages put back together, ping answered with pong, and the close handshake. No
extensions and no subprotocols are offered, so a frame with a reserved bit set is an error.

The rules a client breaks are answered as the RFC says, with a close frame and then the
end of the connection:

- 1002 (protocol error): a frame that is not masked (every client frame must be), a
  reserved bit or an unknown opcode, a fragmented or overlong (over 125 bytes) control
  frame, a continuation with no message begun or a new message inside a fragmented one, a
  64-bit length with its top bit set, a malformed close frame;
- 1003 (unsupported data): a binary message (the relay speaks text only);
- 1007 (invalid data): a text message that is not UTF-8;
- 1009 (too big): a message, all its fragments together, over ``max_message`` bytes
  (64 KiB by default), refused from its header before its payload is read.

    ws = WebSocket(reader, writer)        # after handshake() and the 101 answer
    while (text := await ws.recv()) is not None:
        await ws.send(text.upper())
    ws.close_code                          # how it ended (1000, 1001, 1006 if cut off)
"""

import asyncio
import base64
import binascii
import contextlib
import hashlib
import struct

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
MAX_MESSAGE = 64 * 1024
CLOSE_WAIT = 5.0        # seconds to wait for the other side's close frame
DISCARD = 1 << 20       # bytes read and dropped after a broken rule, at most

CONT, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
DATA = (CONT, TEXT, BINARY)
CONTROL = (CLOSE, PING, PONG)

NORMAL = 1000
GOING_AWAY = 1001
PROTOCOL_ERROR = 1002
UNSUPPORTED = 1003
NO_STATUS = 1005
ABNORMAL = 1006
INVALID_DATA = 1007
POLICY = 1008
TOO_BIG = 1009
SERVER_ERROR = 1011


class HandshakeError(Exception):
    """An upgrade request the server refuses: ``status`` is the HTTP status to answer with,
    ``headers`` any extra headers for that answer."""

    def __init__(self, status, why, headers=()):
        super().__init__(why)
        self.status = status
        self.headers = list(headers)


def accept_key(key):
    """``Sec-WebSocket-Accept`` for a client's ``Sec-WebSocket-Key``."""
    return base64.b64encode(hashlib.sha1((key + GUID).encode("ascii")).digest()).decode("ascii")


def _tokens(value):
    return {t.strip().lower() for t in (value or "").split(",") if t.strip()}


def handshake(method, version, headers):
    """Check an upgrade request (``headers``: lower-case names to values); returns the
    headers of the ``101 Switching Protocols`` answer, or raises HandshakeError."""
    if method != "GET" or version != "HTTP/1.1":
        raise HandshakeError(400, "a WebSocket upgrade is a GET over HTTP/1.1")
    if "websocket" not in _tokens(headers.get("upgrade")) \
            or "upgrade" not in _tokens(headers.get("connection")):
        raise HandshakeError(426, "this address is a WebSocket: it needs Upgrade: websocket",
                             [("Upgrade", "websocket"), ("Connection", "Upgrade")])
    if headers.get("sec-websocket-version", "").strip() != "13":
        raise HandshakeError(426, "only WebSocket version 13 is spoken", [("Sec-WebSocket-Version", "13")])
    key = headers.get("sec-websocket-key", "").strip()
    try:
        raw = base64.b64decode(key.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raw = b""
    if len(raw) != 16:
        raise HandshakeError(400, "Sec-WebSocket-Key is not 16 bytes in base64")
    return [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", accept_key(key))]


def frame(opcode, payload=b"", fin=True):
    """One frame as a server sends it (unmasked)."""
    head = bytearray([(0x80 if fin else 0) | opcode])
    n = len(payload)
    if n < 126:
        head.append(n)
    elif n < 1 << 16:
        head.append(126)
        head += struct.pack("!H", n)
    else:
        head.append(127)
        head += struct.pack("!Q", n)
    return bytes(head) + payload


def unmask(data, mask):
    """XOR ``data`` with the 4-byte ``mask`` repeated (masking and unmasking are one)."""
    n = len(data)
    if not n:
        return b""
    key = (mask * (n // 4 + 1))[:n]
    return (int.from_bytes(data, "big") ^ int.from_bytes(key, "big")).to_bytes(n, "big")


def close_payload(code, reason=""):
    return struct.pack("!H", code) + reason.encode("utf-8")[:123] if code else b""


def _valid_close_code(code):
    return (1000 <= code <= 1003 or 1007 <= code <= 1014) or 3000 <= code <= 4999


class _Refused(Exception):
    def __init__(self, code, why):
        super().__init__(why)
        self.code = code


class WebSocket:
    """One accepted connection. ``recv()`` runs in one task at a time; ``send()`` and
    ``close()`` may be called from others."""

    def __init__(self, reader, writer, max_message=MAX_MESSAGE):
        self.reader = reader
        self.writer = writer
        self.max_message = max_message
        self.close_code = None        # set once the connection is over
        self.close_reason = ""
        self._closing = False         # this side's close frame has gone out
        self._reading = False
        self._lock = asyncio.Lock()
        self._done = asyncio.Event()

    @property
    def closed(self):
        return self.close_code is not None

    async def _write(self, data):
        async with self._lock:
            self.writer.write(data)
            await self.writer.drain()

    async def send(self, text):
        """Send one text message. Raises ConnectionError once the connection is closing."""
        if self._closing or self.closed:
            raise ConnectionResetError("the WebSocket is closed")
        await self._write(frame(TEXT, text.encode("utf-8")))

    async def _read_frame(self, pending):
        head = await self.reader.readexactly(2)
        fin, opcode = head[0] & 0x80, head[0] & 0x0F
        if head[0] & 0x70:
            raise _Refused(PROTOCOL_ERROR, "reserved bits set")
        if opcode not in DATA and opcode not in CONTROL:
            raise _Refused(PROTOCOL_ERROR, "unknown opcode %d" % opcode)
        if not head[1] & 0x80:
            raise _Refused(PROTOCOL_ERROR, "client frames must be masked")
        n = head[1] & 0x7F
        if opcode in CONTROL and (not fin or n > 125):
            raise _Refused(PROTOCOL_ERROR, "control frames are whole and at most 125 bytes")
        if n == 126:
            (n,) = struct.unpack("!H", await self.reader.readexactly(2))
        elif n == 127:
            (n,) = struct.unpack("!Q", await self.reader.readexactly(8))
            if n >> 63:
                raise _Refused(PROTOCOL_ERROR, "a length with its top bit set")
        if opcode in DATA and pending + n > self.max_message:
            raise _Refused(TOO_BIG, "a message over %d bytes" % self.max_message)
        mask = await self.reader.readexactly(4)
        payload = unmask(await self.reader.readexactly(n), mask)
        return bool(fin), opcode, payload

    async def recv(self):
        """The next text message (str), or None once the connection is over: the close
        handshake done, a broken rule answered with a close frame, or the link cut."""
        if self.closed:
            return None
        self._reading = True
        try:
            return await self._recv()
        except _Refused as e:
            await self._fail(e.code, str(e))
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            self._gone(ABNORMAL)
        finally:
            self._reading = False
        return None

    async def _recv(self):
        parts, kind, size = [], None, 0
        while not self.closed:
            fin, opcode, payload = await self._read_frame(size)
            if opcode == CLOSE:
                await self._peer_closed(payload)
                return None
            if opcode == PING:
                if not self._closing:
                    with contextlib.suppress(ConnectionError, OSError):
                        await self._write(frame(PONG, payload))
                continue
            if opcode == PONG:
                continue
            if opcode == CONT and kind is None:
                raise _Refused(PROTOCOL_ERROR, "a continuation with no message begun")
            if opcode != CONT and kind is not None:
                raise _Refused(PROTOCOL_ERROR, "a new message inside a fragmented one")
            if opcode != CONT:
                kind = opcode
            parts.append(payload)
            size += len(payload)
            if not fin:
                continue
            data, message_kind = b"".join(parts), kind
            parts, kind, size = [], None, 0
            if message_kind == BINARY:
                raise _Refused(UNSUPPORTED, "binary messages are not spoken here")
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                raise _Refused(INVALID_DATA, "a text message that is not UTF-8") from None
            if not self._closing:       # once closing, what still comes is dropped
                return text
        return None

    async def _send_close(self, code, reason=""):
        if self._closing:
            return
        self._closing = True
        with contextlib.suppress(ConnectionError, OSError, asyncio.TimeoutError):
            await asyncio.wait_for(self._write(frame(CLOSE, close_payload(code, reason))), CLOSE_WAIT)

    async def _peer_closed(self, payload):
        code, reply, reason = NO_STATUS, NORMAL, ""
        if len(payload) == 1:
            code = reply = PROTOCOL_ERROR
        elif payload:
            (code,) = struct.unpack("!H", payload[:2])
            try:
                reason = payload[2:].decode("utf-8")
                reply = code if _valid_close_code(code) else PROTOCOL_ERROR
            except UnicodeDecodeError:
                reply = PROTOCOL_ERROR
        await self._send_close(reply)
        self.close_reason = reason
        self._gone(code)

    async def _fail(self, code, why):
        """Answer a broken rule: the close frame and the end of this side's stream, then
        what the client still sends is read and dropped until it closes (or CLOSE_WAIT s, or
        DISCARD bytes), so that unread bytes do not turn the end of the connection into a
        reset that loses the close frame."""
        await self._send_close(code, why)
        self.close_reason = why
        if self.close_code is None:
            self.close_code = code
        with contextlib.suppress(asyncio.TimeoutError, ConnectionError, OSError):
            if self.writer.can_write_eof():
                self.writer.write_eof()
            await asyncio.wait_for(self._discard(), CLOSE_WAIT)
        self._gone(code)

    async def _discard(self):
        left = DISCARD
        while left > 0:
            data = await self.reader.read(min(left, 65536))
            if not data:
                return
            left -= len(data)

    async def close(self, code=NORMAL, reason=""):
        """The close handshake from this side: a close frame, then up to CLOSE_WAIT seconds
        for the other side's, then the end of the connection."""
        if self.closed:
            return
        await self._send_close(code, reason)
        with contextlib.suppress(asyncio.TimeoutError):
            if self._reading:           # the task in recv() sees the answer
                await asyncio.wait_for(self._done.wait(), CLOSE_WAIT)
            else:
                await asyncio.wait_for(self._until_close_frame(), CLOSE_WAIT)
        self.close_reason = self.close_reason or reason
        self._gone(code)

    async def _until_close_frame(self):
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError, OSError, _Refused):
            while True:
                _, opcode, _ = await self._read_frame(0)
                if opcode == CLOSE:
                    return

    def abort(self, code, reason=""):
        """End the connection without waiting: for a client too slow to read what is sent
        to it. A close frame is queued behind what it has not read yet, the connection
        closes once that is sent, and is cut after CLOSE_WAIT seconds if it is not."""
        if self.closed:
            return
        if not self._closing:
            self._closing = True
            with contextlib.suppress(Exception):
                self.writer.write(frame(CLOSE, close_payload(code, reason)))
        self.close_reason = reason
        self._gone(code)
        transport = self.writer.transport
        asyncio.get_running_loop().call_later(CLOSE_WAIT, transport.abort)

    def _gone(self, code):
        if self.close_code is None:
            self.close_code = code
        self._done.set()
        self.writer.transport.close()
