"""A small blocking WebSocket client (RFC 6455) on the standard library: ws:// and wss://, text and binary
messages, fragmentation both ways, ping/pong, the close handshake and a maximum message size.

No extensions (permessage-deflate is not offered) and no subprotocols. One thread reads at a time; sending is
guarded by a lock so a reader can answer pings while another thread sends.
"""

from __future__ import annotations

import base64
import hashlib
import os
import socket
import ssl
import struct
import threading
from typing import Dict, Optional, Tuple, Union
from urllib.parse import urlsplit

from .errors import AuthError, ConnectionClosed, MessageTooLarge, ProtocolError, TransportError, error_from_body

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

OP_CONTINUATION = 0x0
OP_TEXT = 0x1
OP_BINARY = 0x2
OP_CLOSE = 0x8
OP_PING = 0x9
OP_PONG = 0xA

CLOSE_NORMAL = 1000
CLOSE_PROTOCOL_ERROR = 1002
CLOSE_INVALID_DATA = 1007
CLOSE_TOO_BIG = 1009

_MAX_HEADER_BYTES = 64 * 1024


def accept_key(key: str) -> str:
    """The Sec-WebSocket-Accept value a server must answer to ``key`` (RFC 6455 §4.2.2)."""
    return base64.b64encode(hashlib.sha1(key.encode("ascii") + _GUID).digest()).decode("ascii")


def mask_payload(mask: bytes, payload: bytes) -> bytes:
    """XORs ``payload`` with the 4-byte ``mask`` repeated (RFC 6455 §5.3), as one big-integer XOR."""
    if not payload:
        return b""
    length = len(payload)
    repeated = (mask * (length // 4 + 1))[:length]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(length, "big")


def encode_frame(opcode: int, payload: bytes, fin: bool = True, mask: Optional[bytes] = None) -> bytes:
    """One client frame: masked with ``mask`` (4 random bytes when not given)."""
    mask = os.urandom(4) if mask is None else mask
    first = (0x80 if fin else 0) | opcode
    length = len(payload)
    if length < 126:
        header = struct.pack("!BB", first, 0x80 | length)
    elif length < 1 << 16:
        header = struct.pack("!BBH", first, 0x80 | 126, length)
    else:
        header = struct.pack("!BBQ", first, 0x80 | 127, length)
    return header + mask + mask_payload(mask, payload)


class WebSocket:
    """A connected client WebSocket. Make one with :func:`connect`."""

    def __init__(self, sock: socket.socket, buffered: bytes, max_message_bytes: int) -> None:
        self._sock = sock
        self._buffer = bytearray(buffered)
        self.max_message_bytes = max_message_bytes
        self._send_lock = threading.Lock()
        self.closed = False
        self._close_sent = False
        #: The peer's close code and reason, once it sent a close frame.
        self.close_code: Optional[int] = None
        self.close_reason = ""
        #: Payloads of the pongs received, most recent last (kept short).
        self.pongs: list = []

    # -- sending -------------------------------------------------------------------------------------

    def _send_raw(self, data: bytes) -> None:
        with self._send_lock:
            try:
                self._sock.sendall(data)
            except OSError as error:
                self.abort()
                raise TransportError(f"WebSocket send failed: {error}") from error

    def send(self, message: Union[str, bytes], fragment_bytes: Optional[int] = None) -> None:
        """Sends a text (``str``) or binary (``bytes``) message, split in frames of ``fragment_bytes`` if set."""
        if self.closed or self._close_sent:
            raise ConnectionClosed("WebSocket is closed", details=self._close_details())
        opcode = OP_TEXT if isinstance(message, str) else OP_BINARY
        payload = message.encode("utf-8") if isinstance(message, str) else bytes(message)
        if not fragment_bytes or len(payload) <= fragment_bytes:
            self._send_raw(encode_frame(opcode, payload))
            return
        chunks = [payload[i : i + fragment_bytes] for i in range(0, len(payload), fragment_bytes)]
        frames = [
            encode_frame(opcode if index == 0 else OP_CONTINUATION, chunk, fin=index == len(chunks) - 1)
            for index, chunk in enumerate(chunks)
        ]
        self._send_raw(b"".join(frames))

    def send_frame(self, opcode: int, payload: bytes, fin: bool = True) -> None:
        """Sends one raw frame (for callers that interleave control frames within a fragmented message)."""
        self._send_raw(encode_frame(opcode, payload, fin=fin))

    def ping(self, payload: bytes = b"") -> None:
        """Sends a ping; the pong's payload lands in :attr:`pongs` when a later :meth:`recv` reads it."""
        if len(payload) > 125:
            raise ValueError("a ping payload is at most 125 bytes")
        self._send_raw(encode_frame(OP_PING, payload))

    # -- receiving -----------------------------------------------------------------------------------

    def _read_exact(self, count: int) -> bytes:
        while len(self._buffer) < count:
            try:
                chunk = self._sock.recv(max(65536, count - len(self._buffer)))
            except socket.timeout:
                raise
            except OSError as error:
                self.abort()
                raise TransportError(f"WebSocket receive failed: {error}") from error
            if not chunk:
                self.abort()
                raise ConnectionClosed(
                    "the server closed the connection without a close frame", details=self._close_details()
                )
            self._buffer += chunk
        data = bytes(self._buffer[:count])
        del self._buffer[:count]
        return data

    def _fail(self, code: int, message: str, error_class=ProtocolError):
        """Closes with ``code`` (RFC 6455 §7.1.7 'fail the connection') and raises."""
        try:
            self._send_close(code, message[:100])
        except TransportError:
            pass
        self.abort()
        raise error_class(message, details={"close_code": code})

    def _read_frame(self) -> Tuple[bool, int, bytes]:
        first, second = self._read_exact(2)
        fin, rsv, opcode = bool(first & 0x80), first & 0x70, first & 0x0F
        if rsv:
            self._fail(CLOSE_PROTOCOL_ERROR, "frame with reserved bits set (no extension was negotiated)")
        if second & 0x80:
            self._fail(CLOSE_PROTOCOL_ERROR, "the server sent a masked frame")
        length = second & 0x7F
        if length == 126:
            (length,) = struct.unpack("!H", self._read_exact(2))
        elif length == 127:
            (length,) = struct.unpack("!Q", self._read_exact(8))
        if opcode >= 0x8:
            if not fin or length > 125:
                self._fail(CLOSE_PROTOCOL_ERROR, "fragmented or oversized control frame")
        elif opcode not in (OP_CONTINUATION, OP_TEXT, OP_BINARY):
            self._fail(CLOSE_PROTOCOL_ERROR, f"unknown opcode {opcode}")
        if opcode < 0x8 and length > self.max_message_bytes:
            self._fail(CLOSE_TOO_BIG, f"message over {self.max_message_bytes} bytes", MessageTooLarge)
        return fin, opcode, self._read_exact(length)

    def recv(self, timeout: Optional[float] = None) -> Union[str, bytes]:
        """The next data message (``str`` for text, ``bytes`` for binary). Answers pings, records pongs.

        Raises :class:`ConnectionClosed` after the peer's close frame (answered first), ``socket.timeout``
        when ``timeout`` seconds pass without a complete frame (the connection is then unusable mid-frame:
        callers drop it), :class:`MessageTooLarge` over :attr:`max_message_bytes` (closed with 1009).
        """
        if self.closed:
            raise ConnectionClosed("WebSocket is closed", details=self._close_details())
        self._sock.settimeout(timeout)
        message_opcode: Optional[int] = None
        parts: list = []
        size = 0
        while True:
            fin, opcode, payload = self._read_frame()
            if opcode == OP_PING:
                if not self._close_sent:
                    self._send_raw(encode_frame(OP_PONG, payload))
                continue
            if opcode == OP_PONG:
                self.pongs = (self.pongs + [payload])[-16:]
                continue
            if opcode == OP_CLOSE:
                self._on_close(payload)
            if opcode == OP_CONTINUATION:
                if message_opcode is None:
                    self._fail(CLOSE_PROTOCOL_ERROR, "continuation frame without a message to continue")
            else:
                if message_opcode is not None:
                    self._fail(CLOSE_PROTOCOL_ERROR, "new message before the previous one's final fragment")
                message_opcode = opcode
            size += len(payload)
            if size > self.max_message_bytes:
                self._fail(CLOSE_TOO_BIG, f"message over {self.max_message_bytes} bytes", MessageTooLarge)
            parts.append(payload)
            if fin:
                data = b"".join(parts)
                if message_opcode == OP_BINARY:
                    return data
                try:
                    return data.decode("utf-8")
                except UnicodeDecodeError:
                    self._fail(CLOSE_INVALID_DATA, "text message is not valid UTF-8")

    def _on_close(self, payload: bytes) -> None:
        if len(payload) == 1:
            self._fail(CLOSE_PROTOCOL_ERROR, "close frame with a 1-byte payload")
        if len(payload) >= 2:
            (self.close_code,) = struct.unpack("!H", payload[:2])
            self.close_reason = payload[2:].decode("utf-8", "replace")
        else:
            self.close_code = 1005
        if not self._close_sent:
            try:
                self._send_close(self.close_code if len(payload) >= 2 else None, "")
            except TransportError:
                pass
        self.abort()
        reason = f": {self.close_reason}" if self.close_reason else ""
        raise ConnectionClosed(
            f"the server closed the WebSocket ({self.close_code}{reason})", details=self._close_details()
        )

    # -- closing -------------------------------------------------------------------------------------

    def _send_close(self, code: Optional[int], reason: str) -> None:
        payload = b"" if code is None else struct.pack("!H", code) + reason.encode("utf-8")[:123]
        self._close_sent = True
        self._send_raw(encode_frame(OP_CLOSE, payload))

    def send_close(self, code: int = CLOSE_NORMAL, reason: str = "") -> None:
        """Starts the close handshake without reading (for a caller whose reader thread sees the reply)."""
        if not self._close_sent and not self.closed:
            self._send_close(code, reason)

    def close(self, code: int = CLOSE_NORMAL, reason: str = "", timeout: float = 5.0) -> None:
        """The close handshake: sends a close frame and waits up to ``timeout`` for the server's, then shuts
        the socket. Idempotent."""
        if self.closed:
            return
        try:
            if not self._close_sent:
                self._send_close(code, reason)
            while True:
                self.recv(timeout)
        except (ConnectionClosed, TransportError, socket.timeout, OSError, ProtocolError):
            pass
        finally:
            self.abort()

    def abort(self) -> None:
        """Shuts the socket without a close handshake."""
        if self.closed:
            return
        self.closed = True
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()

    def _close_details(self) -> Dict[str, object]:
        return {"close_code": self.close_code, "close_reason": self.close_reason}


def _read_handshake_response(sock: socket.socket) -> Tuple[int, str, Dict[str, str], bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            raise TransportError("the server closed the connection during the WebSocket handshake")
        data += chunk
        if len(data) > _MAX_HEADER_BYTES:
            raise ProtocolError("WebSocket handshake response headers over 64 KiB")
    head, rest = data.split(b"\r\n\r\n", 1)
    lines = head.decode("iso-8859-1").split("\r\n")
    status_parts = lines[0].split(" ", 2)
    if len(status_parts) < 2 or not status_parts[0].startswith("HTTP/") or not status_parts[1].isdigit():
        raise ProtocolError(f"not an HTTP response to the WebSocket handshake: {lines[0][:80]!r}")
    headers: Dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        key = name.strip().lower()
        headers[key] = f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
    return int(status_parts[1]), status_parts[2] if len(status_parts) > 2 else "", headers, rest


def _refusal(sock: socket.socket, status: int, reason: str, headers: Dict[str, str], rest: bytes):
    """The error of a handshake answered without upgrading (401, 404, 503, ...), with the body's detail."""
    length = int(headers.get("content-length", "0") or 0)
    body = rest
    try:
        while len(body) < min(length, 65536):
            chunk = sock.recv(65536)
            if not chunk:
                break
            body += chunk
    except OSError:
        pass
    import json

    try:
        parsed = json.loads(body.decode("utf-8")) if body else {}
    except ValueError:
        parsed = {"detail": body.decode("utf-8", "replace")[:200]}
    if not isinstance(parsed, dict) or not (parsed.get("detail") or parsed.get("message")):
        parsed = {"detail": f"WebSocket upgrade refused: HTTP {status} {reason}".strip()}
    error = error_from_body(parsed, status)
    if status == 401 and not isinstance(error, AuthError):
        return AuthError(error.message, status=status, details=error.details)
    return error


def connect(
    url: str,
    headers: Optional[Dict[str, str]] = None,
    timeout: float = 10.0,
    max_message_bytes: int = 100 * 1024 * 1024,
    ssl_context: Optional[ssl.SSLContext] = None,
) -> WebSocket:
    """Opens a WebSocket to ``url`` (``ws://`` or ``wss://``) within ``timeout`` seconds and checks the
    server's handshake answer (status 101, Upgrade, Connection, Sec-WebSocket-Accept)."""
    parts = urlsplit(url)
    if parts.scheme not in ("ws", "wss"):
        raise ValueError(f"not a WebSocket URL (ws:// or wss://): {url}")
    if not parts.hostname:
        raise ValueError(f"WebSocket URL without a host: {url}")
    secure = parts.scheme == "wss"
    port = parts.port or (443 if secure else 80)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        sock = socket.create_connection((parts.hostname, port), timeout=timeout)
    except OSError as error:
        raise TransportError(f"cannot connect to {parts.hostname}:{port}: {error}") from error
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if secure:
            context = ssl_context or ssl.create_default_context()
            sock = context.wrap_socket(sock, server_hostname=parts.hostname)
        key = base64.b64encode(os.urandom(16)).decode("ascii")
        host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
        default_port = port == (443 if secure else 80)
        lines = [
            f"GET {path} HTTP/1.1",
            f"Host: {host}" + ("" if default_port else f":{port}"),
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
        ]
        for name, value in (headers or {}).items():
            if "\r" in name + value or "\n" in name + value:
                raise ValueError(f"header {name!r} contains a line break")
            lines.append(f"{name}: {value}")
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("utf-8"))
        status, reason, response, rest = _read_handshake_response(sock)
        if status != 101:
            raise _refusal(sock, status, reason, response, rest)
        if response.get("upgrade", "").lower() != "websocket":
            raise ProtocolError("WebSocket handshake: the response lacks 'Upgrade: websocket'")
        if "upgrade" not in [token.strip().lower() for token in response.get("connection", "").split(",")]:
            raise ProtocolError("WebSocket handshake: the response lacks 'Connection: Upgrade'")
        if response.get("sec-websocket-accept") != accept_key(key):
            raise ProtocolError("WebSocket handshake: wrong Sec-WebSocket-Accept")
        if response.get("sec-websocket-extensions"):
            raise ProtocolError("WebSocket handshake: the server chose an extension the client did not offer")
        sock.settimeout(None)
        return WebSocket(sock, rest, max_message_bytes)
    except socket.timeout as error:
        sock.close()
        raise TransportError(f"WebSocket handshake with {parts.hostname}:{port} timed out") from error
    except ssl.SSLError as error:
        sock.close()
        raise TransportError(f"TLS handshake with {parts.hostname}:{port} failed: {error}") from error
    except (ConnectionError, BrokenPipeError) as error:
        sock.close()
        raise TransportError(f"WebSocket handshake with {parts.hostname}:{port} failed: {error}") from error
    except BaseException:
        sock.close()
        raise
