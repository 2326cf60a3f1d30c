"""The HTTP transport: JSON requests over one keep-alive connection (http.client), and the server's stateful
sessions (``POST /intercode/sessions``, then ``X-Session-Id`` on ``/reset``, ``/step`` and ``/state``)."""

from __future__ import annotations

import http.client
import json
import select
import socket
import ssl
from typing import Any, Dict, Optional, Tuple
from urllib.parse import quote, urlsplit

from .errors import IntercodeError, ProtocolError, ReplyTimeout, TransportError, error_from_body


class HttpTransport:
    """JSON over HTTP/1.1 to one server, reusing one connection while the server keeps it open."""

    def __init__(
        self,
        base_url: str,
        headers: Dict[str, str],
        timeout: float,
        ssl_context: Optional[ssl.SSLContext],
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {base_url}")
        self._secure = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port or (443 if self._secure else 80)
        self._prefix = parts.path.rstrip("/")
        self._headers = headers
        self.timeout = timeout
        self._ssl_context = ssl_context
        self._conn: Optional[http.client.HTTPConnection] = None
        #: How many TCP connections were opened (keep-alive reuse keeps this at 1 for a busy client).
        self.connections = 0

    def _connection(self) -> http.client.HTTPConnection:
        conn = self._conn
        if conn is not None and conn.sock is not None and _dropped(conn.sock):
            # The server closed the idle keep-alive connection: open a new one before sending.
            conn.close()
            conn = None
        if conn is None:
            if self._secure:
                conn = http.client.HTTPSConnection(
                    self._host, self._port, timeout=self.timeout, context=self._ssl_context
                )
            else:
                conn = http.client.HTTPConnection(self._host, self._port, timeout=self.timeout)
            self._conn = conn
        if conn.sock is None:
            self.connections += 1
        return conn

    def request(
        self,
        method: str,
        path: str,
        body: Optional[Dict[str, Any]] = None,
        headers: Optional[Dict[str, str]] = None,
        timeout: Optional[float] = None,
    ) -> Tuple[int, Any]:
        """Sends one request and returns ``(status, parsed JSON)``; raises the typed error of a 4xx/5xx."""
        conn = self._connection()
        all_headers = dict(self._headers)
        all_headers["Accept"] = "application/json"
        payload = None
        if body is not None:
            payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
            all_headers["Content-Type"] = "application/json"
        all_headers.update(headers or {})
        wait = self.timeout if timeout is None else timeout
        try:
            conn.timeout = wait
            if conn.sock is not None:
                conn.sock.settimeout(wait)
            conn.request(method, self._prefix + path, body=payload, headers=all_headers)
            response = conn.getresponse()
            raw = response.read()
            status = response.status
            if response.will_close:
                conn.close()
        except socket.timeout:
            self.close()
            raise ReplyTimeout(f"no reply to {method} {path} within {wait:g} s") from None
        except (OSError, http.client.HTTPException) as error:
            self.close()
            raise TransportError(f"{method} {path} to {self._host}:{self._port} failed: {error}") from error
        try:
            parsed = json.loads(raw.decode("utf-8")) if raw else None
        except ValueError:
            if status >= 400:
                raise IntercodeError(
                    f"{method} {path}: HTTP {status}: {raw[:200].decode('utf-8', 'replace')}", status=status
                ) from None
            raise ProtocolError(f"{method} {path}: reply is not JSON") from None
        if status >= 400:
            raise error_from_body(parsed, status)
        return status, parsed

    def get(self, path: str, **kwargs: Any) -> Any:
        return self.request("GET", path, **kwargs)[1]

    def post(self, path: str, body: Dict[str, Any], **kwargs: Any) -> Any:
        return self.request("POST", path, body=body, **kwargs)[1]

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def _dropped(sock: socket.socket) -> bool:
    """True when an idle connection is readable: the server closed it (or sent something unasked)."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


class HttpSession:
    """One server session over HTTP: made on first use, named by ``X-Session-Id``, deleted on close."""

    def __init__(self, transport: HttpTransport) -> None:
        self._http = transport
        self.session_id: Optional[str] = None
        self._counter = 0

    def ensure(self) -> str:
        """The session's id, the session made first when there is none yet."""
        if self.session_id is None:
            self.session_id = self._http.post("/intercode/sessions", {})["session_id"]
        return str(self.session_id)

    def _headers(self) -> Dict[str, str]:
        return {"X-Session-Id": self.ensure()}

    def _request_id(self) -> str:
        self._counter += 1
        return f"{self.session_id}-{self._counter}"

    def _checked(self, reply: Any, request_id: str) -> Dict[str, Any]:
        if not isinstance(reply, dict):
            raise ProtocolError("the server's reply is not a JSON object")
        if reply.get("request_id") != request_id:
            raise ProtocolError(f"reply for request {reply.get('request_id')!r} while waiting for {request_id!r}")
        return reply

    def reset(self, params: Dict[str, Any], timeout: Optional[float] = None) -> Dict[str, Any]:
        headers = self._headers()
        request_id = self._request_id()
        headers["X-Request-Id"] = request_id
        return self._checked(self._http.post("/reset", params, headers=headers, timeout=timeout), request_id)

    def step(self, code: str, timeout: Optional[float] = None) -> Dict[str, Any]:
        headers = self._headers()
        request_id = self._request_id()
        body = {"action": {"code": code}, "request_id": request_id}
        return self._checked(self._http.post("/step", body, headers=headers, timeout=timeout), request_id)

    def state(self) -> Dict[str, Any]:
        return self._http.get("/state", headers=self._headers())

    def close(self) -> None:
        """Deletes the server session (a session the server already reaped is not an error)."""
        session_id, self.session_id = self.session_id, None
        if session_id is None:
            return
        try:
            self._http.request("DELETE", f"/intercode/sessions/{quote(str(session_id), safe='')}")
        except IntercodeError as error:
            if error.code not in ("SESSION_NOT_FOUND", "NOT_FOUND"):
                raise
