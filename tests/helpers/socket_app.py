"""A page drawn over a websocket, as Streamlit, Phoenix LiveView or Blazor Server draw theirs: the
document holds a placeholder, the content arrives as frames after the load, and each button sends
a frame the server answers a second later (`ANSWER_S`), after the step evaluator's late reads have
given up. A plain ASGI app (no Django) served by daphne on a free loopback port (`socket_app()`).

Buttons: "Ask" (the answer draws a new line), "Ask for nothing" (answered with a frame that draws
nothing), "Check" (answered with an error message in a `role=alert` element).
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from tests.helpers.servers import free_port, stop_process, wait_http

ANSWER_S = 1.0
DRAW_S = 0.8

PAGE = b"""<!doctype html><html><head><title>Socket desk</title></head><body>
<main id="app">Connecting...</main>
<button id="ask">Ask</button> <button id="nothing">Ask for nothing</button> <button id="check">Check</button>
<p id="out"></p>
<script>
const socket = new WebSocket(`ws://${location.host}/ws`);
socket.onopen = () => socket.send("hello");
socket.onmessage = (m) => {
  const [kind, text] = m.data.split("|");
  if (kind === "draw") document.getElementById("app").textContent = text;
  if (kind === "out") document.getElementById("out").textContent = text;
  if (kind === "error") { const e = document.createElement("div"); e.setAttribute("role", "alert");
                          e.textContent = text; document.body.append(e); }
};
for (const id of ["ask", "nothing", "check"]) document.getElementById(id).onclick = () => socket.send(id);
</script></body></html>"""


async def app(scope, receive, send):
    if scope["type"] == "http":
        await receive()
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/html; charset=utf-8")]})
        await send({"type": "http.response.body", "body": PAGE})
    elif scope["type"] == "websocket":
        asked = 0
        while True:
            event = await receive()
            if event["type"] == "websocket.connect":
                await send({"type": "websocket.accept"})
            elif event["type"] == "websocket.disconnect":
                return
            elif event["type"] == "websocket.receive":
                said = event.get("text") or ""
                if said == "hello":
                    await asyncio.sleep(DRAW_S)
                    await send({"type": "websocket.send", "text": "draw|Orders: 3 open"})
                    continue
                await asyncio.sleep(ANSWER_S)
                if said == "ask":
                    asked += 1
                    await send({"type": "websocket.send", "text": f"out|Answer number {asked}"})
                elif said == "check":
                    await send({"type": "websocket.send", "text": "error|The customer name is required."})
                else:
                    await send({"type": "websocket.send", "text": "noop|"})


@contextlib.contextmanager
def socket_app() -> Iterator[str]:
    """Serve `app` with daphne; yield its base URL."""
    port = free_port()
    proc = subprocess.Popen([str(Path(sys.executable).with_name("daphne")), "-b", "127.0.0.1", "-p", str(port),
                             "tests.helpers.socket_app:app"], cwd=Path(__file__).resolve().parents[2],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_http(url + "/", proc=proc)
        yield url
    finally:
        stop_process(proc)
