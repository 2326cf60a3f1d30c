"""A TLS-terminating TCP proxy for the tests: https:// and wss:// to a plain-HTTP server, as a reverse proxy
in front of ``intercode serve`` would be. The certificate is a fresh self-signed one made with openssl."""

from __future__ import annotations

import os
import socket
import ssl
import subprocess
import tempfile
import threading
from typing import Tuple


def self_signed_certificate(directory: str) -> Tuple[str, str]:
    """A certificate for 127.0.0.1 and localhost and its key (files in ``directory``)."""
    cert, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True,
        capture_output=True,
    )
    return cert, key


class TlsProxy:
    """Listens on 127.0.0.1 with TLS and forwards each connection's bytes to ``backend``."""

    def __init__(self, backend: Tuple[str, int]) -> None:
        self._dir = tempfile.mkdtemp(prefix="intercode-tls-")
        self.cert, key = self_signed_certificate(self._dir)
        self._context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self._context.load_cert_chain(self.cert, key)
        self._backend = backend
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                raw, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(raw,), daemon=True).start()

    def _serve(self, raw: socket.socket) -> None:
        try:
            client = self._context.wrap_socket(raw, server_side=True)
        except (ssl.SSLError, OSError):
            raw.close()  # e.g. a client that refused the self-signed certificate
            return
        backend = socket.create_connection(self._backend)
        threading.Thread(target=_pump, args=(backend, client), daemon=True).start()
        _pump(client, backend)

    def close(self) -> None:
        self._closed = True
        self._listener.close()
        for name in os.listdir(self._dir):
            os.remove(os.path.join(self._dir, name))
        os.rmdir(self._dir)


def _pump(source: socket.socket, target: socket.socket) -> None:
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            target.sendall(data)
    except OSError:
        pass
    for sock in (source, target):
        try:
            sock.close()
        except OSError:
            pass
