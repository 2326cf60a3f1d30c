"""The WebSocket transport: one connection to ``/ws`` = one server session, one reply per request.

A reader thread reads the socket all the time, so the server's pings are answered while the caller is busy
elsewhere (a model generating for minutes). Each request carries a fresh ``request_id`` and its reply must echo
it: a reply that arrives after the client gave up waiting is never taken for a later call's reply, because the
connection is dropped on a timeout and the next call opens a new one.
"""

from __future__ import annotations

import json
import os
import queue
import ssl
import threading
from typing import Any, Dict, Optional

from . import websocket
from .errors import ConnectionClosed, IntercodeError, ProtocolError, ReplyTimeout, error_from_body

# Error frames the server sends on its own (without a request) before closing the connection.
_CONNECTION_ERRORS = ("CAPACITY_REACHED", "FACTORY_ERROR", "SESSION_ERROR")


class WsTransport:
    """Requests over one WebSocket, reconnecting (a new session) after the connection was lost."""

    def __init__(
        self,
        url: str,
        headers: Dict[str, str],
        timeout: float,
        connect_timeout: float,
        max_message_bytes: int,
        ssl_context: Optional[ssl.SSLContext],
    ) -> None:
        self.url = url
        self._headers = headers
        self.timeout = timeout
        self._connect_timeout = connect_timeout
        self._max_message_bytes = max_message_bytes
        self._ssl_context = ssl_context
        self._ws: Optional[websocket.WebSocket] = None
        self._replies: "queue.Queue[tuple]" = queue.Queue()
        self._reader: Optional[threading.Thread] = None
        self._prefix = os.urandom(4).hex()
        self._counter = 0
        #: How many connections this transport opened (a reconnect means a new server session).
        self.connections = 0

    @property
    def connected(self) -> bool:
        return self._ws is not None and not self._ws.closed

    @property
    def socket(self) -> Optional[websocket.WebSocket]:
        """The live WebSocket, for tests and tools that need frames the client does not send itself."""
        return self._ws

    def _connect(self) -> None:
        self._ws = websocket.connect(
            self.url,
            headers=self._headers,
            timeout=self._connect_timeout,
            max_message_bytes=self._max_message_bytes,
            ssl_context=self._ssl_context,
        )
        self.connections += 1
        self._replies = queue.Queue()
        self._reader = threading.Thread(
            target=self._read_loop, args=(self._ws, self._replies), name="intercode-ws-reader", daemon=True
        )
        self._reader.start()

    @staticmethod
    def _read_loop(ws: websocket.WebSocket, replies: "queue.Queue[tuple]") -> None:
        while True:
            try:
                message = ws.recv(None)
            except BaseException as error:  # noqa: BLE001 - every end of the connection goes to the caller
                replies.put(("error", error))
                return
            replies.put(("message", message))

    def _drop(self) -> None:
        if self._ws is not None:
            self._ws.abort()
        self._ws = None
        self._reader = None

    def next_request_id(self) -> str:
        self._counter += 1
        return f"{self._prefix}-{self._counter}"

    def request(self, frame: Dict[str, Any], timeout: Optional[float] = None) -> Dict[str, Any]:
        """Sends ``frame`` with a new ``request_id`` and returns the reply frame that echoes it; raises the
        typed error of an error frame."""
        if not self.connected:
            lost = self._lost_connection()
            self._drop()
            if lost is not None and frame.get("type") != "reset":
                # The episode lived in the lost session: say so instead of a puzzling NOT_RESET.
                raise lost
            self._connect()
        request_id = self.next_request_id()
        message = dict(frame)
        message["request_id"] = request_id
        assert self._ws is not None
        replies = self._replies
        try:
            self._ws.send(json.dumps(message, ensure_ascii=False))
        except IntercodeError:
            # The connection may have been closed by the server with a reason queued (capacity, idle).
            self._raise_queued(replies)
            self._drop()
            raise
        wait = self.timeout if timeout is None else timeout
        try:
            kind, value = replies.get(timeout=wait)
        except queue.Empty:
            self._drop()
            raise ReplyTimeout(
                f"no reply to {frame.get('type')!r} within {wait:g} s; the connection was dropped "
                "(its session is gone: reset again)"
            ) from None
        if kind == "error":
            self._drop()
            raise value
        return self._reply(value, request_id)

    def _raise_queued(self, replies: "queue.Queue[tuple]") -> None:
        try:
            while True:
                kind, value = replies.get(timeout=0.5)
                if kind == "message":
                    self._reply(value, None)
                else:
                    return
        except queue.Empty:
            return

    def _reply(self, message: Any, request_id: Optional[str]) -> Dict[str, Any]:
        if not isinstance(message, str):
            self._drop()
            raise ProtocolError("the server sent a binary frame; the protocol uses JSON text frames")
        try:
            reply = json.loads(message)
        except ValueError:
            self._drop()
            raise ProtocolError(f"the server sent a frame that is not JSON: {message[:80]!r}") from None
        if not isinstance(reply, dict):
            self._drop()
            raise ProtocolError("the server sent a JSON frame that is not an object")
        data = reply.get("data")
        if reply.get("type") == "error" and "request_id" not in reply:
            code = data.get("code") if isinstance(data, dict) else None
            if code in _CONNECTION_ERRORS:
                self._drop()
                raise error_from_body(data)
        if request_id is not None and reply.get("request_id") != request_id:
            self._drop()
            raise ProtocolError(
                f"reply for request {reply.get('request_id')!r} while waiting for {request_id!r}; "
                "the connection was dropped"
            )
        if reply.get("type") == "error":
            raise error_from_body(data if isinstance(data, dict) else {"message": str(data)})
        return reply

    def close(self, timeout: float = 5.0) -> None:
        """Sends the ``close`` frame and the WebSocket close handshake; idempotent."""
        ws, reader = self._ws, self._reader
        self._ws = None
        self._reader = None
        if ws is None or ws.closed:
            return
        try:
            ws.send(json.dumps({"type": "close"}))
            ws.send_close()
        except (IntercodeError, OSError):
            ws.abort()
            return
        if reader is not None:
            reader.join(timeout)
        ws.abort()

    def _lost_connection(self) -> Optional[ConnectionClosed]:
        """Why the previous connection ended while no request was waiting (idle timeout, shutdown)."""
        if self._ws is None:
            return None
        try:
            while True:
                kind, value = self._replies.get_nowait()
                if kind == "error" and isinstance(value, ConnectionClosed):
                    return ConnectionClosed(
                        f"{value.message}; its session and episode are gone: reset to start a new one",
                        details=value.details,
                    )
        except queue.Empty:
            return ConnectionClosed("the WebSocket connection was lost; reset to start a new session")
