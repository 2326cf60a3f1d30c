"""Tests of the client against a real ``intercode serve`` (no mocks): the WebSocket framing, the close
handshake, size limits, request/reply correlation, the HTTP sessions and the CLI.

The server is started by the integration test (test/clients/python-client.test.ts), which sets
INTERCODE_TEST_URL and INTERCODE_TEST_TOKEN; run by hand:

    INTERCODE_TEST_URL=http://127.0.0.1:8000 INTERCODE_TEST_TOKEN=t PYTHONPATH=clients/python \\
        /usr/bin/python3 -m unittest discover -s clients/python/tests -p 'test_*.py'

The reply-timeout test plays demo/bash (bubblewrap sandboxes on the server).
"""

from __future__ import annotations

import http.client
import io
import json
import os
import re
import ssl
import time
import unittest
from urllib.parse import urlsplit

import intercode_client
from intercode_client import (
    AuthError,
    CapacityReached,
    ConnectionClosed,
    EpisodeDone,
    ForkUnsupported,
    IntercodeClient,
    MessageTooLarge,
    NotReset,
    ReplyTimeout,
    SessionNotFound,
    ValidationError,
    websocket,
)
from intercode_client.__main__ import main as cli_main
from intercode_client.errors import TransportError

from tls_proxy import TlsProxy

URL = os.environ.get("INTERCODE_TEST_URL", "")
TOKEN = os.environ.get("INTERCODE_TEST_TOKEN") or None
MAX_MESSAGE_BYTES = int(os.environ.get("INTERCODE_TEST_MAX_MESSAGE_BYTES", str(1024 * 1024)))
WS_URL = URL.replace("http://", "ws://", 1) + "/ws"
AUTH = {"Authorization": f"Bearer {TOKEN}"} if TOKEN else {}


def setUpModule() -> None:
    if not URL:
        raise RuntimeError("INTERCODE_TEST_URL is not set: these tests need a running intercode serve")


def request(ws: websocket.WebSocket, frame: dict, timeout: float = 60.0) -> dict:
    ws.send(json.dumps(frame))
    return json.loads(ws.recv(timeout))


class WebSocketFramingTest(unittest.TestCase):
    def connect(self, **kwargs) -> websocket.WebSocket:
        ws = websocket.connect(WS_URL, headers=AUTH, **kwargs)
        self.addCleanup(ws.close)
        return ws

    def test_handshake_then_a_state_reply_that_echoes_the_request_id(self) -> None:
        ws = self.connect()
        reply = request(ws, {"type": "state", "request_id": "state-1"})
        self.assertEqual(reply["type"], "state")
        self.assertEqual(reply["request_id"], "state-1")
        self.assertEqual(reply["data"]["step_count"], 0)
        self.assertIsNone(reply["data"]["episode_id"])

    def test_a_fragmented_message_with_a_ping_between_its_fragments(self) -> None:
        ws = self.connect()
        payload = json.dumps({"type": "reset", "data": {"seed": 4}, "request_id": 7}).encode()
        chunks = [payload[i : i + 5] for i in range(0, len(payload), 5)]
        self.assertGreater(len(chunks), 4)
        for index, chunk in enumerate(chunks):
            opcode = websocket.OP_TEXT if index == 0 else websocket.OP_CONTINUATION
            ws.send_frame(opcode, chunk, fin=index == len(chunks) - 1)
            if index == 2:
                ws.ping(b"between-fragments")
        reply = json.loads(ws.recv(60))
        self.assertEqual(reply["type"], "observation", reply)
        self.assertEqual(reply["request_id"], 7)
        self.assertIsInstance(reply["data"]["observation"]["instruction"], str)
        self.assertEqual(reply["data"]["info"]["index"], 4)
        self.assertIn(b"between-fragments", ws.pongs)

    def test_the_client_splits_a_large_message_in_frames(self) -> None:
        ws = self.connect()
        request(ws, {"type": "reset", "data": {"seed": 0}, "request_id": "r"})
        literal = "a" * (MAX_MESSAGE_BYTES // 2)
        ws.send(json.dumps({"type": "step", "data": {"code": f"SELECT '{literal}'"}, "request_id": "big"}), fragment_bytes=65536)
        reply = json.loads(ws.recv(60))
        self.assertEqual(reply["request_id"], "big")
        self.assertEqual(reply["type"], "observation", reply)
        self.assertIn("aaaa", reply["data"]["observation"]["output"])

    def test_a_message_over_the_server_limit_closes_with_1009(self) -> None:
        ws = self.connect()
        ws.send("x" * (MAX_MESSAGE_BYTES + 1))
        with self.assertRaises(ConnectionClosed) as caught:
            ws.recv(30)
        self.assertEqual(caught.exception.close_code, 1009)
        self.assertTrue(ws.closed)

    def test_a_reply_over_the_client_limit_fails_the_connection(self) -> None:
        ws = self.connect(max_message_bytes=64)
        ws.send(json.dumps({"type": "reset", "data": {"seed": 1}, "request_id": "r"}))
        with self.assertRaises(MessageTooLarge):
            ws.recv(60)
        self.assertTrue(ws.closed)

    def test_the_close_handshake(self) -> None:
        ws = self.connect()
        request(ws, {"type": "reset", "data": {}, "request_id": 1})
        ws.close(1000, "done")
        self.assertTrue(ws.closed)
        self.assertEqual(ws.close_code, 1000)

    @unittest.skipUnless(TOKEN, "the server runs without a token")
    def test_an_upgrade_without_the_token_is_refused_with_401(self) -> None:
        with self.assertRaises(AuthError) as caught:
            websocket.connect(WS_URL)
        self.assertEqual(caught.exception.status, 401)
        ws = websocket.connect(f"{WS_URL}?token={TOKEN}")
        self.addCleanup(ws.close)
        self.assertEqual(request(ws, {"type": "state", "request_id": "q"})["type"], "state")


class ClientTest(unittest.TestCase):
    def client(self, **kwargs) -> IntercodeClient:
        client = IntercodeClient(URL, token=TOKEN, **kwargs)
        self.addCleanup(client.close)
        return client

    def test_an_episode_as_gymnasium_tuples_and_typed_errors(self) -> None:
        for transport in ("ws", "http"):
            with self.subTest(transport=transport):
                client = self.client(transport=transport)
                with self.assertRaises(NotReset):
                    client.step("SELECT 1")
                observation, info = client.reset(dataset="demo/sql", seed=2)
                self.assertEqual(info["dataset"], "demo/sql")
                self.assertEqual(info["index"], 2)
                self.assertEqual(observation["turn"], 0)
                self.assertEqual(client.state()["task_id"], info["task_id"])
                observation, reward, terminated, truncated, step_info = client.step("SELECT 1")
                self.assertEqual((observation["turn"], terminated, truncated), (1, False, False))
                self.assertIsInstance(reward, float)
                self.assertTrue(step_info["admissible"])
                observation, reward, terminated, truncated, _ = client.step("submit")
                self.assertEqual((terminated, truncated), (True, False))
                self.assertTrue(0.0 <= reward < 1.0)  # SELECT 1 answers no task of demo/sql
                with self.assertRaises(EpisodeDone) as caught:
                    client.step("SELECT 1")
                self.assertEqual(caught.exception.code, "EPISODE_DONE")
                self.assertTrue(client.state()["done"])

    def test_bad_reset_parameters_are_a_validation_error(self) -> None:
        for transport in ("ws", "http"):
            with self.subTest(transport=transport):
                with self.assertRaises(ValidationError) as caught:
                    self.client(transport=transport).reset(seed=-1)
                self.assertEqual(caught.exception.code, "VALIDATION_ERROR")
                self.assertTrue(caught.exception.errors)

    def test_a_late_reply_is_never_taken_for_the_next_call(self) -> None:
        client = self.client()
        client.reset(dataset="demo/bash", seed=0)  # the first demo/bash reset may open the dataset: slow
        client.timeout = 2
        with self.assertRaises(ReplyTimeout):
            client.step("sleep 5; echo late-reply")
        with self.assertRaises(NotReset):  # a new connection is a new session
            client.step("echo next")
        client.reset(dataset="demo/bash", seed=0)
        observation, *_ = client.step("echo next-reply")
        self.assertIn("next-reply", observation["output"])
        self.assertNotIn("late-reply", observation["output"])
        self.assertEqual(client._ws.connections, 2)

    def test_fork_gives_independent_http_sessions_mid_episode(self) -> None:
        client = self.client(transport="http")
        with self.assertRaises(NotReset):
            client.fork(2)
        client.reset(dataset="demo/sql", task_id="count-ships")
        client.step("DELETE FROM ships WHERE ship_id > 3")
        copies = client.fork(2)
        for copy in copies:
            self.addCleanup(copy.close)
        self.assertEqual(len({client.session_id, *(copy.session_id for copy in copies)}), 3)
        copies[0].step("DELETE FROM ships")
        counts = [c.step("SELECT COUNT(*) FROM ships")[0]["output"] for c in (client, *copies)]
        self.assertEqual(counts[0], counts[2])
        self.assertNotEqual(counts[0], counts[1])
        self.assertEqual(copies[1].state()["step_count"], 2)
        ws = self.client()
        ws.reset(dataset="demo/sql", task_id="count-ships")
        ws.step("DELETE FROM ships")
        (ws_copy,) = ws.fork(1)
        self.addCleanup(ws_copy.close)
        self.assertEqual(ws_copy.transport, "http")
        self.assertEqual(ws_copy.step("SELECT COUNT(*) FROM ships")[0]["output"], ws.step("SELECT COUNT(*) FROM ships")[0]["output"])
        ctf = self.client(transport="http")
        ctf.reset(dataset="demo/ctf", seed=0)
        with self.assertRaises(ForkUnsupported) as caught:
            ctf.fork(1)
        self.assertEqual(caught.exception.code, "FORK_UNSUPPORTED")

    def test_http_sessions_reuse_one_connection_and_are_deleted_on_close(self) -> None:
        client = IntercodeClient(URL, token=TOKEN, transport="http")
        client.reset(seed=1)
        for _ in range(3):
            client.step("SELECT 1")
        client.state()
        self.assertEqual(client._http.connections, 1)
        session_id = client.session_id
        self.assertTrue(session_id)
        client.close()
        other = self.client(transport="http")
        with self.assertRaises(SessionNotFound):
            other._http.get("/state", headers={"X-Session-Id": session_id})

    def test_an_http_connection_the_server_closed_while_idle_is_replaced_before_sending(self) -> None:
        probe = http.client.HTTPConnection(urlsplit(URL).hostname, urlsplit(URL).port, timeout=10)
        probe.request("GET", "/health")
        response = probe.getresponse()
        response.read()
        keep_alive = re.search(r"timeout=(\d+)", response.getheader("Keep-Alive") or "")
        probe.close()
        if keep_alive is None or int(keep_alive.group(1)) > 15:
            self.skipTest("the server keeps idle connections open for long: nothing to replace")
        client = self.client(transport="http")
        client.reset(seed=5)
        time.sleep(int(keep_alive.group(1)) + 1.5)
        observation, *_ = client.step("SELECT 2 + 3")
        self.assertIn("5", observation["output"])
        self.assertEqual(client._http.connections, 2)

    def test_a_full_server_is_a_typed_capacity_error_and_frees_the_slots_on_close(self) -> None:
        clients = []
        try:
            with self.assertRaises(CapacityReached) as caught:
                for _ in range(256):
                    clients.append(IntercodeClient(URL, token=TOKEN))
                    clients[-1].reset()
            error = caught.exception
            self.assertEqual(error.code, "CAPACITY_REACHED")
            self.assertGreater(error.max_sessions, 0)
            self.assertEqual(error.active_sessions, error.max_sessions)
        finally:
            for client in clients:
                client.close()
        client = self.client()
        for attempt in range(50):  # the server frees a slot once it has seen the close
            try:
                client.reset(seed=1)
                break
            except CapacityReached:
                time.sleep(0.1)
        self.assertEqual(client.state()["step_count"], 0)

    def test_server_listing_health_and_metadata(self) -> None:
        client = self.client()
        self.assertEqual(client.health(), {"status": "healthy"})
        self.assertEqual(client.metadata()["version"], intercode_client.__version__)
        ids = [dataset["id"] for dataset in client.list_datasets()]
        self.assertIn("demo/sql", ids)
        page = client.list_tasks("demo/sql", offset=1, limit=3)
        self.assertEqual((page["dataset"], page["offset"], len(page["tasks"])), ("demo/sql", 1, 3))
        self.assertEqual([task["index"] for task in page["tasks"]], [1, 2, 3])

    @unittest.skipUnless(TOKEN, "the server runs without a token")
    def test_a_missing_token_is_an_auth_error(self) -> None:
        client = IntercodeClient(URL)
        self.addCleanup(client.close)
        self.assertEqual(client.health(), {"status": "healthy"})
        with self.assertRaises(AuthError):
            client.list_datasets()
        with self.assertRaises(AuthError):
            client.reset()


class TlsTest(unittest.TestCase):
    """https:// and wss:// through a TLS-terminating proxy in front of the server (its certificate is
    self-signed: trusted through ``ssl_context``, refused without it)."""

    def setUp(self) -> None:
        backend = urlsplit(URL)
        self.proxy = TlsProxy((backend.hostname, backend.port))
        self.addCleanup(self.proxy.close)
        self.url = f"https://127.0.0.1:{self.proxy.port}"
        self.context = ssl.create_default_context(cafile=self.proxy.cert)

    def test_an_episode_over_wss_and_over_https(self) -> None:
        for transport in ("ws", "http"):
            with self.subTest(transport=transport):
                client = IntercodeClient(self.url, token=TOKEN, transport=transport, ssl_context=self.context)
                self.addCleanup(client.close)
                self.assertTrue(client.ws_url.startswith("wss://"))
                observation, info = client.reset(seed=3)
                self.assertEqual(info["index"], 3)
                observation, *_ = client.step("SELECT 6 * 7")
                self.assertIn("42", observation["output"])
                self.assertIn("demo/sql", [dataset["id"] for dataset in client.list_datasets()])

    def test_an_untrusted_certificate_is_a_transport_error(self) -> None:
        for transport in ("ws", "http"):
            with self.subTest(transport=transport):
                client = IntercodeClient(self.url, token=TOKEN, transport=transport)
                self.addCleanup(client.close)
                with self.assertRaises(TransportError) as caught:
                    client.reset()
                self.assertIn("certificate", str(caught.exception).lower())


class CliTest(unittest.TestCase):
    def run_cli(self, *args: str, stdin: str = "") -> str:
        out = io.StringIO()
        options = ["--url", URL] + (["--token", TOKEN] if TOKEN else [])
        self.assertEqual(cli_main(options + list(args), stdin=io.StringIO(stdin), out=out), 0)
        return out.getvalue()

    def test_datasets_and_tasks(self) -> None:
        self.assertIn("demo/sql", self.run_cli("datasets"))
        listing = self.run_cli("tasks", "demo/sql", "--limit", "2")
        self.assertRegex(listing, r"0-2 of \d+ tasks of demo/sql")

    def test_play_reads_actions_until_the_episode_ends(self) -> None:
        transcript = self.run_cli("play", "demo/sql", "--task", "0", stdin="SELECT 41 + 1\nsubmit\n")
        self.assertIn("42", transcript)
        self.assertIn("episode terminated: reward", transcript)

    def test_play_joins_a_line_ending_with_a_backslash_to_the_next(self) -> None:
        transcript = self.run_cli("play", "demo/sql", stdin="SELECT 6 \\\n * 7 AS answer\nsubmit\n")
        self.assertIn("42", transcript)


if __name__ == "__main__":
    unittest.main()
