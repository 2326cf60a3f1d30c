"""``IntercodeClient``: an episode on an ``intercode serve`` server, Gymnasium-style, over WebSocket or HTTP."""

from __future__ import annotations

import ssl
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

from .http_transport import HttpSession, HttpTransport
from .ws_transport import WsTransport

TRANSPORTS = ("ws", "http")

#: The reply envelope's observation dict and info dict of a reset.
ResetResult = Tuple[Dict[str, Any], Dict[str, Any]]
#: ``(observation, reward, terminated, truncated, info)``, Gymnasium's step 5-tuple.
StepResult = Tuple[Dict[str, Any], float, bool, bool, Dict[str, Any]]


def _urls(base_url: str) -> Tuple[str, str]:
    """The HTTP base URL and the WebSocket ``/ws`` URL of a server, from either form."""
    parts = urlsplit(base_url.strip())
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https", "ws", "wss"):
        raise ValueError(f"base_url must start with http://, https://, ws:// or wss://: {base_url!r}")
    if not parts.hostname:
        raise ValueError(f"base_url has no host: {base_url!r}")
    secure = scheme in ("https", "wss")
    path = parts.path.rstrip("/")
    if scheme in ("ws", "wss") and path.endswith("/ws"):
        path = path[: -len("/ws")]
    http_url = urlunsplit(("https" if secure else "http", parts.netloc, path, "", ""))
    ws_url = urlunsplit(("wss" if secure else "ws", parts.netloc, path + "/ws", parts.query, ""))
    return http_url, ws_url


class IntercodeClient:
    """One session on an ``intercode serve`` server.

    ``transport="ws"`` (the default) holds one WebSocket (``/ws``): one connection is one server session.
    ``transport="http"`` makes a session with ``POST /intercode/sessions`` and names it with ``X-Session-Id``
    on one keep-alive connection. ``timeout`` is the reply timeout of a request in seconds (the server's step
    deadline is below the default 60 s). Not thread-safe: one client per thread.
    """

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000",
        token: Optional[str] = None,
        transport: str = "ws",
        timeout: float = 60.0,
        connect_timeout: float = 10.0,
        max_message_bytes: int = 100 * 1024 * 1024,
        ssl_context: Optional[ssl.SSLContext] = None,
    ) -> None:
        if transport not in TRANSPORTS:
            raise ValueError(f"transport must be 'ws' or 'http', not {transport!r}")
        if not timeout or timeout <= 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
        self.base_url, self.ws_url = _urls(base_url)
        self.transport = transport
        self._options: Dict[str, Any] = {
            "token": token,
            "timeout": timeout,
            "connect_timeout": connect_timeout,
            "max_message_bytes": max_message_bytes,
            "ssl_context": ssl_context,
        }
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._http = HttpTransport(self.base_url, headers, timeout, ssl_context)
        self._session = HttpSession(self._http) if transport == "http" else None
        self._ws = (
            WsTransport(self.ws_url, headers, timeout, connect_timeout, max_message_bytes, ssl_context)
            if transport == "ws"
            else None
        )

    # -- the episode ---------------------------------------------------------------------------------

    def reset(
        self,
        dataset: Optional[str] = None,
        task_id: Optional[str] = None,
        seed: Optional[int] = None,
        **options: Any,
    ) -> ResetResult:
        """Starts an episode: ``dataset`` (default the server's), ``task_id`` or ``seed`` (task index = seed
        modulo the dataset's size) or ``index``, and env options (``max_turns``, ``engine``, ``handicap``,
        ``backend``, ``image``, ``compat``, ``episode_id``). Returns ``(observation, info)``."""
        params: Dict[str, Any] = {key: value for key, value in options.items() if value is not None}
        for key, value in (("dataset", dataset), ("task_id", task_id), ("seed", seed)):
            if value is not None:
                params[key] = value
        if self._ws is not None:
            envelope = self._ws.request({"type": "reset", "data": params})["data"]
        else:
            assert self._session is not None
            envelope = self._session.reset(params)
        return envelope["observation"], dict(envelope.get("info") or {})

    def step(self, code: str) -> StepResult:
        """Runs one action (code, ``submit``, ``submit <answer>`` or ``skip``) and returns
        ``(observation, reward, terminated, truncated, info)``."""
        if not isinstance(code, str):
            raise TypeError(f"step() takes the action's code as a str, not {type(code).__name__}")
        if self._ws is not None:
            envelope = self._ws.request({"type": "step", "data": {"code": code}})["data"]
        else:
            assert self._session is not None
            envelope = self._session.step(code)
        done = bool(envelope.get("done"))
        # A server without the split (stock OpenEnv) sends `done` only: count it as terminated.
        terminated = bool(envelope.get("terminated", done))
        truncated = bool(envelope.get("truncated", False))
        reward = envelope.get("reward")
        return (
            envelope["observation"],
            float(reward) if reward is not None else 0.0,
            terminated,
            truncated,
            dict(envelope.get("info") or {}),
        )

    def fork(self, count: int) -> List["IntercodeClient"]:
        """``count`` new sessions continuing this session's episode, each on its own copy of the environment's
        state (``POST /intercode/sessions/<id>/fork``), with the turns taken so far: for group rollouts and tree
        search. Returns a client per copy, each an HTTP session (``transport="http"``; close each), whichever
        transport this client uses (over WebSocket a ``fork`` frame asks for them). Raises ``ForkUnsupported`` where the environment cannot copy its
        episode (SQL on SQLite, Bash on bwrap and Python can), ``NotReset`` before a reset, ``CapacityReached`` when
        the copies would not all fit."""
        if isinstance(count, bool) or not isinstance(count, int):
            raise TypeError(f"fork() takes the number of copies as an int, not {type(count).__name__}")
        if self._ws is not None:
            reply = self._ws.request({"type": "fork", "data": {"count": count}})["data"]
        else:
            assert self._session is not None
            session_id = self._session.ensure()
            reply = self._http.post(f"/intercode/sessions/{quote(session_id, safe='')}/fork", {"count": count})
        copies = []
        for copy_id in reply["session_ids"]:
            copy = IntercodeClient(self.base_url, transport="http", **self._options)
            assert copy._session is not None
            copy._session.session_id = str(copy_id)
            copies.append(copy)
        return copies

    def state(self) -> Dict[str, Any]:
        """The session's state: ``episode_id``, ``step_count``, ``dataset``, ``task_id``, ``done``, ``max_turns``."""
        if self._ws is not None:
            return self._ws.request({"type": "state"})["data"]
        assert self._session is not None
        return self._session.state()

    @property
    def timeout(self) -> float:
        """The reply timeout in seconds; may be changed between calls."""
        return self._http.timeout

    @timeout.setter
    def timeout(self, seconds: float) -> None:
        if not seconds or seconds <= 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {seconds!r}")
        self._http.timeout = seconds
        if self._ws is not None:
            self._ws.timeout = seconds

    @property
    def session_id(self) -> Optional[str]:
        """The HTTP session's id (None over WebSocket, where the connection is the session)."""
        return self._session.session_id if self._session is not None else None

    def close(self) -> None:
        """Ends the session (its env and sandboxes are closed on the server). Idempotent."""
        try:
            if self._ws is not None:
                self._ws.close()
            if self._session is not None:
                self._session.close()
        finally:
            self._http.close()

    def __enter__(self) -> "IntercodeClient":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # -- the server ----------------------------------------------------------------------------------

    def health(self) -> Dict[str, Any]:
        """``GET /health``: ``{"status": "healthy"}``."""
        return self._http.get("/health")

    def metadata(self) -> Dict[str, Any]:
        """``GET /metadata``: name, description, version, ..."""
        return self._http.get("/metadata")

    def list_datasets(self) -> List[Dict[str, Any]]:
        """The server's datasets: ``[{"id", "env", "tasks", "cached", "description"}]``."""
        return list(self._http.get("/intercode/datasets")["datasets"])

    def list_tasks(self, dataset: str, offset: int = 0, limit: int = 100) -> Dict[str, Any]:
        """One page of a dataset's tasks: ``{"dataset", "total", "offset", "tasks": [{"task_id", "index",
        "instruction", "group"?}]}``."""
        query = urlencode({"offset": int(offset), "limit": int(limit)})
        return self._http.get(f"/intercode/datasets/{quote(dataset, safe='/')}/tasks?{query}")
