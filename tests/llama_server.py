"""A real llama_cpp.server with the embedded GGUF on 127.0.0.1, started and stopped by a test.

Requests are counted from the server's own access log, so "zero requests"
is what the server saw, not what our client believes it sent.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from benchmorph.models.gguf import local_model_path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LlamaServer:
    def __init__(self, log: Path, embedding: bool = False) -> None:
        self.port = free_port()
        self.log = log
        command = [sys.executable, "-m", "llama_cpp.server", "--model", str(local_model_path())]
        command += ["--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", "4096"]
        if embedding:
            command += ["--embedding", "true"]
        self.handle = log.open("w")
        self.process = subprocess.Popen(command, stdout=self.handle, stderr=subprocess.STDOUT)
        deadline = time.time() + 180
        while time.time() < deadline:
            assert self.process.poll() is None, log.read_text()[-2000:]
            try:
                if httpx.get(f"{self.base_url}/models", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.5)
        raise AssertionError("llama_cpp.server did not start: " + log.read_text()[-2000:])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def posts(self) -> int:
        return sum(1 for line in self.log.read_text().splitlines() if '"POST /v1/' in line)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.handle.close()
