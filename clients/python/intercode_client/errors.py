"""Typed errors: one class per error code the server sends, plus the client's own transport errors."""

from __future__ import annotations

from typing import Any, Dict, Optional


class IntercodeError(Exception):
    """An error from the server or the client.

    ``code`` is the server's stable error code (``NOT_RESET``, ``EPISODE_DONE``, ...) or one of the
    client's own (``TRANSPORT_ERROR``, ``REPLY_TIMEOUT``, ``PROTOCOL_ERROR``, ``CONNECTION_CLOSED``).
    ``status`` is the HTTP status when the error came over HTTP, ``details`` the rest of the error body.
    """

    default_code = "INTERCODE_ERROR"

    def __init__(
        self,
        message: str,
        code: Optional[str] = None,
        status: Optional[int] = None,
        details: Optional[Dict[str, Any]] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code
        self.status = status
        self.details = dict(details or {})

    def __str__(self) -> str:
        return f"{self.message} ({self.code})"


class AuthError(IntercodeError):
    """The token is missing or wrong (HTTP 401, or the WebSocket upgrade refused with 401)."""

    default_code = "UNAUTHORIZED"


class CapacityReached(IntercodeError):
    """The server runs its maximum number of sessions; ``active_sessions``/``max_sessions`` say how many."""

    default_code = "CAPACITY_REACHED"

    @property
    def active_sessions(self) -> Optional[int]:
        return self.details.get("active_sessions")

    @property
    def max_sessions(self) -> Optional[int]:
        return self.details.get("max_sessions")


class ValidationError(IntercodeError):
    """A request the server's schemas refuse; ``errors`` lists ``{type, loc, msg, input}`` items."""

    default_code = "VALIDATION_ERROR"

    @property
    def errors(self) -> list:
        return list(self.details.get("errors") or [])


class NotReset(IntercodeError):
    """A step before the first reset of the session."""

    default_code = "NOT_RESET"


class EpisodeDone(IntercodeError):
    """A step after the episode ended: reset first."""

    default_code = "EPISODE_DONE"


class SessionNotFound(IntercodeError):
    """An HTTP session id the server does not know (closed, reaped for idleness, or never made)."""

    default_code = "SESSION_NOT_FOUND"


class SessionBusy(IntercodeError):
    """A request on an HTTP session while another one runs on it."""

    default_code = "SESSION_BUSY"


class StepTimeout(IntercodeError):
    """The server's per-step deadline passed; the env was replaced, reset before stepping again."""

    default_code = "STEP_TIMEOUT"


class MessageTooLarge(IntercodeError):
    """A message over the size limit (the server's: 413 or close 1009; or the client's ``max_message_bytes``)."""

    default_code = "MESSAGE_TOO_LARGE"


class ExecutionError(IntercodeError):
    """The environment failed on the server (not a failing command: that is an observation)."""

    default_code = "EXECUTION_ERROR"


class ForkUnsupported(IntercodeError):
    """The session's environment cannot copy its episode (SQL on SQLite, Bash on bwrap and Python can)."""

    default_code = "FORK_UNSUPPORTED"


class TransportError(IntercodeError):
    """The connection could not be made or broke (refused, reset, TLS failure, bad handshake)."""

    default_code = "TRANSPORT_ERROR"


class ConnectionClosed(TransportError):
    """The WebSocket closed; ``close_code``/``close_reason`` are the peer's, when it sent a close frame."""

    default_code = "CONNECTION_CLOSED"

    @property
    def close_code(self) -> Optional[int]:
        return self.details.get("close_code")

    @property
    def close_reason(self) -> str:
        return self.details.get("close_reason") or ""


class ProtocolError(TransportError):
    """The peer broke RFC 6455 or the wire spec (unmasked-frame rules, bad opcode, a reply to another request)."""

    default_code = "PROTOCOL_ERROR"


class ReplyTimeout(TransportError):
    """No reply within the client's timeout. Over WebSocket the connection is dropped (a late reply is never
    taken for a later call's), so the session and its episode are gone: reset again."""

    default_code = "REPLY_TIMEOUT"


_BY_CODE = {
    "UNAUTHORIZED": AuthError,
    "CAPACITY_REACHED": CapacityReached,
    "VALIDATION_ERROR": ValidationError,
    "NOT_RESET": NotReset,
    "EPISODE_DONE": EpisodeDone,
    "SESSION_NOT_FOUND": SessionNotFound,
    "SESSION_BUSY": SessionBusy,
    "STEP_TIMEOUT": StepTimeout,
    "MESSAGE_TOO_LARGE": MessageTooLarge,
    "PAYLOAD_TOO_LARGE": MessageTooLarge,
    "EXECUTION_ERROR": ExecutionError,
    "FORK_UNSUPPORTED": ForkUnsupported,
}


def error_from_body(body: Any, status: Optional[int] = None) -> IntercodeError:
    """The typed error of a server error body: a WS error frame's ``data`` or an HTTP error reply."""
    if not isinstance(body, dict):
        return IntercodeError(f"server error: {str(body)[:200]}", code=None, status=status)
    detail = body.get("detail")
    code = body.get("code")
    if isinstance(detail, list):
        # A 422 reply: FastAPI-style list of validation errors.
        details = dict(body)
        details["errors"] = detail
        first = detail[0] if detail and isinstance(detail[0], dict) else {}
        where = ".".join(str(part) for part in first.get("loc", []))
        message = f"invalid request: {first.get('msg', 'validation failed')}" + (f" at {where}" if where else "")
        return ValidationError(message, code=code or "VALIDATION_ERROR", status=status, details=details)
    message = body.get("message") if isinstance(body.get("message"), str) else detail
    if not isinstance(message, str):
        message = f"server error (HTTP {status})" if status else "server error"
    cls = _BY_CODE.get(code or "", IntercodeError)
    if code is None and status == 401:
        cls, code = AuthError, "UNAUTHORIZED"
    details = {key: value for key, value in body.items() if key not in ("message", "detail", "code")}
    return cls(message, code=code, status=status, details=details)
