"""Plays given episodes through an intercode server with IntercodeClient and writes what happened.

    python3 play_episodes.py --url URL [--token T] --transport ws|http EPISODES.json RESULTS.json

EPISODES.json is a list of ``{"dataset", "task_id"?, "seed"?, "actions": [code, ...]}``; every episode is
played on one client (one session) in order. RESULTS.json gets, per episode, the reset's task id, the
reward of every step and the final flags. The integration test compares these with a local run.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from intercode_client import IntercodeClient


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--token", default=None)
    parser.add_argument("--transport", choices=["ws", "http"], required=True)
    parser.add_argument("episodes")
    parser.add_argument("results")
    args = parser.parse_args()
    with open(args.episodes, encoding="utf-8") as handle:
        episodes = json.load(handle)
    results = []
    started = time.monotonic()
    with IntercodeClient(args.url, token=args.token, transport=args.transport) as client:
        for episode in episodes:
            choice = {key: episode[key] for key in ("dataset", "task_id", "seed") if key in episode}
            observation, info = client.reset(**choice)
            rewards = []
            terminated = truncated = False
            for code in episode["actions"]:
                observation, reward, terminated, truncated, step_info = client.step(code)
                rewards.append(reward)
                if terminated or truncated:
                    break
            state = client.state()
            results.append(
                {
                    "task_id": info["task_id"],
                    "index": info.get("index"),
                    "instruction": observation.get("instruction") if not rewards else None,
                    "rewards": rewards,
                    "terminated": terminated,
                    "truncated": truncated,
                    "step_count": state["step_count"],
                    "state_done": state["done"],
                }
            )
        transport_connections = client._http.connections if args.transport == "http" else client._ws.connections
    with open(args.results, "w", encoding="utf-8") as handle:
        json.dump(
            {
                "episodes": results,
                "seconds": time.monotonic() - started,
                "connections": transport_connections,
            },
            handle,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
