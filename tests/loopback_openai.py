"""A scripted OpenAI-compatible HTTP server on 127.0.0.1 for fault and resume tests.

It speaks just enough of /v1/completions, /v1/chat/completions and
/v1/embeddings for the official SDK, records every request, and can answer
a given prompt with a scripted sequence of faults (429, 500, a slow reply,
a malformed body) before the real answer.  It is the peer under test's
stand-in only for plumbing; pipelines are tested against real servers.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = Callable[[str], str]


def request_text(body: dict[str, Any]) -> str:
    if "messages" in body:
        return "\n".join(str(message.get("content", "")) for message in body["messages"])
    return str(body.get("prompt", ""))


class ScriptedServer:
    """``answer(prompt_text) -> reply text``; ``faults[marker]`` is consumed one action per request."""

    def __init__(
        self,
        answer: Answer,
        faults: dict[str, list[str]] | None = None,
        delay: float = 0.0,
        slow_seconds: float = 3.0,
        answer_with_body: Callable[[dict[str, Any]], str] | None = None,
    ) -> None:
        self.answer = answer
        self.answer_with_body = answer_with_body
        self.faults = {marker: list(actions) for marker, actions in (faults or {}).items()}
        self.delay = delay
        self.slow_seconds = slow_seconds
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def next_action(self, text: str) -> str:
        with self.lock:
            for marker, actions in self.faults.items():
                if marker in text and actions:
                    return actions.pop(0)
        return "ok"

    def count(self, marker: str) -> int:
        with self.lock:
            return sum(1 for request in self.requests if marker in request_text(request["body"]))

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(body)))
                    if status == 429:
                        self.send_header("Retry-After", "0")
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with server.lock:
                    server.requests.append({"path": self.path, "body": body, "time": time.time()})
                if self.path.endswith("/embeddings"):
                    inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                    data = [
                        {
                            "object": "embedding",
                            "index": i,
                            "embedding": [float(len(t)), float(t.count("a")), 1.0],
                        }
                        for i, t in enumerate(inputs)
                    ]
                    self._send(
                        200, json.dumps({"object": "list", "data": data, "model": body["model"]}).encode()
                    )
                    return
                text = request_text(body)
                action = server.next_action(text)
                if action == "429":
                    self._send(429, b'{"error": {"message": "rate limited"}}')
                    return
                if action == "500":
                    self._send(500, b'{"error": {"message": "internal error"}}')
                    return
                if action == "slow":
                    time.sleep(server.slow_seconds)
                elif action == "malformed":
                    self._send(200, b"<html>this is not json", "text/html")
                    return
                elif action == "empty":
                    self._send(200, b"")
                    return
                elif action == "nochoices":
                    self._send(
                        200, json.dumps({"id": "x", "object": "text_completion", "choices": []}).encode()
                    )
                    return
                if server.delay:
                    time.sleep(server.delay)
                reply = server.answer_with_body(body) if server.answer_with_body else server.answer(text)
                if "messages" in body:
                    choice = {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": reply},
                    }
                    payload = {"id": "c", "object": "chat.completion", "created": 0, "model": body["model"]}
                else:
                    choice = {"index": 0, "finish_reason": "stop", "text": reply, "logprobs": None}
                    payload = {"id": "c", "object": "text_completion", "created": 0, "model": body["model"]}
                payload["choices"] = [choice]
                payload["usage"] = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
                self._send(200, json.dumps(payload).encode())

        return Handler
