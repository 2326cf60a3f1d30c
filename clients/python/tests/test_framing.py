"""The frame reader against frames written byte by byte from RFC 6455 over a real socket pair.

The server (Node's ``ws``) never fragments its replies and never breaks the protocol, so what only a peer
can send — a fragmented message with control frames between its fragments, masked or reserved-bit frames,
invalid UTF-8 — is written here as raw bytes. Everything the client sends is tested against the real
server in test_client.py.
"""

from __future__ import annotations

import socket
import struct
import unittest

from intercode_client import ConnectionClosed, MessageTooLarge, ProtocolError, websocket


def server_frame(opcode: int, payload: bytes, fin: bool = True, rsv: int = 0, mask: bytes = b"") -> bytes:
    """A frame as a server writes it (unmasked unless ``mask`` is given, which a server must not do)."""
    first = (0x80 if fin else 0) | rsv | opcode
    length = len(payload)
    mask_bit = 0x80 if mask else 0
    if length < 126:
        header = struct.pack("!BB", first, mask_bit | length)
    elif length < 1 << 16:
        header = struct.pack("!BBH", first, mask_bit | 126, length)
    else:
        header = struct.pack("!BBQ", first, mask_bit | 127, length)
    body = websocket.mask_payload(mask, payload) if mask else payload
    return header + mask + body


def client_frame(data: bytes) -> tuple:
    """Decodes one masked client frame: (fin, opcode, unmasked payload, rest)."""
    first, second = data[0], data[1]
    assert second & 0x80, "client frames must be masked"
    length, offset = second & 0x7F, 2
    if length == 126:
        (length,), offset = struct.unpack("!H", data[2:4]), 4
    elif length == 127:
        (length,), offset = struct.unpack("!Q", data[2:10]), 10
    mask = data[offset : offset + 4]
    payload = websocket.mask_payload(mask, data[offset + 4 : offset + 4 + length])
    return bool(first & 0x80), first & 0x0F, payload, data[offset + 4 + length :]


class RawPeerFramingTest(unittest.TestCase):
    def pair(self, max_message_bytes: int = 1 << 20):
        client_sock, peer = socket.socketpair()
        self.addCleanup(peer.close)
        ws = websocket.WebSocket(client_sock, b"", max_message_bytes)
        self.addCleanup(ws.abort)
        return ws, peer

    def read_client_frames(self, peer: socket.socket) -> list:
        peer.settimeout(5)
        data = peer.recv(65536)
        frames = []
        while data:
            fin, opcode, payload, data = client_frame(data)
            frames.append((fin, opcode, payload))
        return frames

    def test_the_rfc_examples(self) -> None:
        self.assertEqual(websocket.accept_key("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        masked = websocket.encode_frame(websocket.OP_TEXT, b"Hello", mask=b"\x37\xfa\x21\x3d")
        self.assertEqual(masked, bytes.fromhex("818537fa213d7f9f4d5158"))

    def test_fragments_with_a_ping_between_are_one_message_and_the_ping_is_answered(self) -> None:
        ws, peer = self.pair()
        text = "héllo, fragmented wörld " * 20
        data = text.encode("utf-8")
        peer.sendall(
            server_frame(websocket.OP_TEXT, data[:7], fin=False)
            + server_frame(websocket.OP_PING, b"p1")
            + server_frame(websocket.OP_CONTINUATION, data[7:300], fin=False)
            + server_frame(websocket.OP_CONTINUATION, data[300:])
        )
        self.assertEqual(ws.recv(5), text)
        self.assertEqual(self.read_client_frames(peer), [(True, websocket.OP_PONG, b"p1")])

    def test_lengths_of_16_and_64_bits_and_binary_messages(self) -> None:
        ws, peer = self.pair(max_message_bytes=1 << 17)
        for size in (125, 126, 65535, 65536, 70000):
            peer.sendall(server_frame(websocket.OP_BINARY, bytes(size)))
            self.assertEqual(ws.recv(5), bytes(size))

    def test_a_message_over_the_limit_across_fragments_closes_with_1009(self) -> None:
        ws, peer = self.pair(max_message_bytes=100)
        peer.sendall(server_frame(websocket.OP_TEXT, b"a" * 60, fin=False))
        peer.sendall(server_frame(websocket.OP_CONTINUATION, b"a" * 60))
        with self.assertRaises(MessageTooLarge):
            ws.recv(5)
        (fin, opcode, payload), *_ = self.read_client_frames(peer)
        self.assertEqual((opcode, struct.unpack("!H", payload[:2])[0]), (websocket.OP_CLOSE, 1009))

    def test_protocol_violations_fail_the_connection_with_1002_or_1007(self) -> None:
        cases = [
            (server_frame(websocket.OP_TEXT, b"x", mask=b"abcd"), 1002),
            (server_frame(websocket.OP_TEXT, b"x", rsv=0x40), 1002),
            (server_frame(websocket.OP_CONTINUATION, b"x"), 1002),
            (server_frame(0x3, b"x"), 1002),
            (server_frame(websocket.OP_PING, b"x", fin=False), 1002),
            (server_frame(websocket.OP_TEXT, b"\xff\xfe"), 1007),
        ]
        for frame, code in cases:
            with self.subTest(frame=frame.hex()):
                ws, peer = self.pair()
                peer.sendall(frame)
                with self.assertRaises(ProtocolError):
                    ws.recv(5)
                self.assertTrue(ws.closed)
                (_, opcode, payload), *_ = self.read_client_frames(peer)
                self.assertEqual((opcode, struct.unpack("!H", payload[:2])[0]), (websocket.OP_CLOSE, code))

    def test_the_peer_close_is_answered_and_reported(self) -> None:
        ws, peer = self.pair()
        peer.sendall(server_frame(websocket.OP_CLOSE, struct.pack("!H", 1001) + b"going away"))
        with self.assertRaises(ConnectionClosed) as caught:
            ws.recv(5)
        self.assertEqual((caught.exception.close_code, caught.exception.close_reason), (1001, "going away"))
        (_, opcode, payload), *_ = self.read_client_frames(peer)
        self.assertEqual((opcode, struct.unpack("!H", payload[:2])[0]), (websocket.OP_CLOSE, 1001))

    def test_client_fragments_are_masked_and_continue_the_first_opcode(self) -> None:
        ws, peer = self.pair()
        ws.send("abcdefghij", fragment_bytes=4)
        frames = self.read_client_frames(peer)
        self.assertEqual(
            frames,
            [
                (False, websocket.OP_TEXT, b"abcd"),
                (False, websocket.OP_CONTINUATION, b"efgh"),
                (True, websocket.OP_CONTINUATION, b"ij"),
            ],
        )


if __name__ == "__main__":
    unittest.main()
