"""A standard-library Python client for ``intercode serve``: InterCode episodes over WebSocket or HTTP.

    from intercode_client import IntercodeClient

    with IntercodeClient("http://127.0.0.1:8000") as client:
        observation, info = client.reset(dataset="demo/sql", seed=3)
        observation, reward, terminated, truncated, info = client.step("SELECT COUNT(*) FROM ships")
"""

from .client import IntercodeClient
from .errors import (
    AuthError,
    CapacityReached,
    ConnectionClosed,
    EpisodeDone,
    ExecutionError,
    ForkUnsupported,
    IntercodeError,
    MessageTooLarge,
    NotReset,
    ProtocolError,
    ReplyTimeout,
    SessionBusy,
    SessionNotFound,
    StepTimeout,
    TransportError,
    ValidationError,
)

__version__ = "0.1.0"

__all__ = [
    "AuthError",
    "CapacityReached",
    "ConnectionClosed",
    "EpisodeDone",
    "ExecutionError",
    "ForkUnsupported",
    "IntercodeClient",
    "IntercodeError",
    "MessageTooLarge",
    "NotReset",
    "ProtocolError",
    "ReplyTimeout",
    "SessionBusy",
    "SessionNotFound",
    "StepTimeout",
    "TransportError",
    "ValidationError",
    "__version__",
]
