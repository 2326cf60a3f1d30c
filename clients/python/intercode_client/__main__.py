"""``python -m intercode_client``: list a server's datasets and tasks, or play a task by hand.

    python -m intercode_client [--url URL] [--token T] [--transport ws|http] datasets
    python -m intercode_client tasks demo/sql [--offset N] [--limit N]
    python -m intercode_client play demo/sql --task 3

The URL defaults to $INTERCODE_URL or http://127.0.0.1:8000, the token to $INTERCODE_SERVER_TOKEN.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import List, Optional, TextIO

from .client import IntercodeClient
from .errors import IntercodeError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m intercode_client", description="intercode server client")
    parser.add_argument("--url", default=os.environ.get("INTERCODE_URL") or "http://127.0.0.1:8000")
    parser.add_argument("--token", default=os.environ.get("INTERCODE_SERVER_TOKEN") or None)
    parser.add_argument("--transport", choices=["ws", "http"], default="ws")
    parser.add_argument("--timeout", type=float, default=60.0, help="reply timeout in seconds (default 60)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("datasets", help="list the server's datasets")
    tasks = commands.add_parser("tasks", help="list a dataset's tasks")
    tasks.add_argument("dataset")
    tasks.add_argument("--offset", type=int, default=0)
    tasks.add_argument("--limit", type=int, default=100)
    play = commands.add_parser("play", help="play one task: one action per line (end a line with \\ to continue it), `submit` to score, Ctrl-D to quit")
    play.add_argument("dataset")
    play.add_argument("--task", type=int, default=0, help="task index (default 0)")
    play.add_argument("--max-turns", type=int, default=None)
    return parser


def _one_line(text: object, width: int = 70) -> str:
    line = " ".join(str(text or "").split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _play(client: IntercodeClient, args: argparse.Namespace, stdin: TextIO, out: TextIO) -> int:
    observation, info = client.reset(dataset=args.dataset, index=args.task, max_turns=args.max_turns)
    out.write(f"task {info.get('task_id')} of {info.get('dataset')}\n{observation.get('instruction') or ''}\n")
    while True:
        out.write("> ")
        out.flush()
        line = stdin.readline()
        if not line:
            out.write("\n")
            return 0
        code = line.rstrip("\n")
        # A line ending with a backslash continues on the next one (multi-line code, e.g. Python).
        while code.endswith("\\"):
            out.write("… ")
            out.flush()
            more = stdin.readline()
            code = code[:-1] + "\n" + more.rstrip("\n")
            if not more:
                break
        if not code.strip():
            continue
        observation, reward, terminated, truncated, _info = client.step(code)
        text = observation.get("output", observation.get("stdout", ""))
        if text:
            out.write(text if text.endswith("\n") else text + "\n")
        if terminated or truncated:
            why = "terminated" if terminated else "truncated (turn limit)"
            out.write(f"episode {why}: reward {reward:g}\n")
            return 0


def main(argv: Optional[List[str]] = None, stdin: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    args = _parser().parse_args(argv)
    try:
        with IntercodeClient(args.url, token=args.token, transport=args.transport, timeout=args.timeout) as client:
            if args.command == "datasets":
                datasets = client.list_datasets()
                if args.json:
                    out.write(json.dumps(datasets) + "\n")
                for item in [] if args.json else datasets:
                    tasks = "?" if item.get("tasks") is None else item["tasks"]
                    out.write(f"{item['id']:<24} {item.get('env', ''):<7} {tasks:>6}  {_one_line(item.get('description'), 50)}\n")
                return 0
            if args.command == "tasks":
                page = client.list_tasks(args.dataset, args.offset, args.limit)
                if args.json:
                    out.write(json.dumps(page) + "\n")
                    return 0
                for task in page["tasks"]:
                    out.write(f"{task['index']:>5}  {task['task_id']:<16} {_one_line(task.get('instruction'))}\n")
                shown = len(page["tasks"])
                out.write(f"{page['offset']}-{page['offset'] + shown} of {page['total']} tasks of {page['dataset']}\n")
                return 0
            return _play(client, args, stdin, out)
    except (IntercodeError, ValueError) as error:
        sys.stderr.write(f"intercode_client: {error}\n")
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
