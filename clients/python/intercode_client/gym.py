"""``IntercodeGymEnv``: an ``intercode serve`` session as a ``gymnasium.Env`` with text spaces.

Defined only when gymnasium imports; without it, using ``IntercodeGymEnv`` raises an ImportError that says
what to install. Observations are the observation's text (the task's instruction at reset, the command's
output after a step); the full observation dict and the server's info are in ``info``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Dict, Optional, Tuple

from .client import IntercodeClient

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as _error:  # gymnasium is optional: the client itself needs only the standard library
    gymnasium = None
    _IMPORT_ERROR: Optional[ImportError] = _error
else:
    _IMPORT_ERROR = None

#: The longest observation or action text the spaces admit (the server's default message limit).
MAX_TEXT_CHARS = 1024 * 1024


@lru_cache(maxsize=1)
def _charset() -> frozenset:
    # Every Basic Multilingual Plane character but the surrogates: command output is arbitrary text.
    return frozenset(chr(code) for code in range(0x10000) if not 0xD800 <= code <= 0xDFFF)


def _text(observation: Dict[str, Any]) -> str:
    if observation.get("instruction"):
        return str(observation["instruction"])
    return str(observation.get("output", observation.get("stdout", "")))


if gymnasium is not None:

    class IntercodeGymEnv(gymnasium.Env):
        """A Gymnasium env whose episodes run on an ``intercode serve`` server.

        ``reset(seed=..., options={"task_id": ..., "dataset": ...})`` picks the task (the server maps a seed
        to a task deterministically); ``step(code)`` returns the Gymnasium 5-tuple.
        """

        metadata = {"render_modes": []}

        def __init__(self, base_url: str = "http://127.0.0.1:8000", dataset: Optional[str] = None, **client_options: Any):
            super().__init__()
            charset = _charset()
            self.observation_space = spaces.Text(max_length=MAX_TEXT_CHARS, min_length=0, charset=charset)
            self.action_space = spaces.Text(max_length=MAX_TEXT_CHARS, min_length=1, charset=charset)
            self.dataset = dataset
            self.client = IntercodeClient(base_url, **client_options)

        def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> Tuple[str, Dict[str, Any]]:
            super().reset(seed=seed)
            params = dict(options or {})
            params.setdefault("dataset", self.dataset)
            observation, info = self.client.reset(seed=seed, **params)
            return _text(observation), dict(info, observation=observation)

        def step(self, action: str) -> Tuple[str, float, bool, bool, Dict[str, Any]]:
            observation, reward, terminated, truncated, info = self.client.step(action)
            return _text(observation), reward, terminated, truncated, dict(info, observation=observation)

        def close(self) -> None:
            self.client.close()

else:

    class IntercodeGymEnv:  # type: ignore[no-redef]
        """Stands in for the Gymnasium env when gymnasium is not installed: raises on use."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            raise ImportError(
                "intercode_client.gym.IntercodeGymEnv needs gymnasium, which is not installed "
                "(pip install 'intercode-client[gym]' or pip install gymnasium); "
                "IntercodeClient works without it"
            ) from _IMPORT_ERROR


__all__ = ["IntercodeGymEnv", "MAX_TEXT_CHARS"]
