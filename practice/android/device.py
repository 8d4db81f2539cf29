"""The emulated phone's side of the adb transport protocol, over TCP (what `adb connect HOST:PORT`
connects to; an adb server then serves it to clients like any device).

Every message is a 24-byte little-endian header (command, arg0, arg1, payload length, payload
checksum, command ^ 0xffffffff) followed by the payload:

- `CNXN(version, max_payload, "host::...")` from the server; the phone answers with its own CNXN
  and a banner (`device::ro.product.name=...;features=...`). No AUTH is asked (a device with
  authentication off), so the server marks it `device` at once.
- `OPEN(remote_id, 0, "service\\0")` opens a stream; the phone answers `OKAY(local_id, remote_id)`
  and runs the service, or `CLSE(0, remote_id)` for a service it does not offer.
- `WRTE(local_id, remote_id, data)` carries output, one at a time: the next goes once the other
  side has answered `OKAY`. Data from the server is acknowledged with OKAY. `CLSE` ends a stream.

Services: `shell:COMMAND` and `exec:COMMAND` (raw output; see `practice.android.shell`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import struct
from dataclasses import dataclass, field

from practice.android.shell import PROPS, Shell

log = logging.getLogger(__name__)

A_CNXN, A_OPEN, A_OKAY, A_CLSE, A_WRTE, A_AUTH = (
    int.from_bytes(name, "little") for name in (b"CNXN", b"OPEN", b"OKAY", b"CLSE", b"WRTE", b"AUTH"))
VERSION = 0x01000001  # skips payload checksums (both sides still send one)
MAX_PAYLOAD = 1024 * 1024
HEADER = struct.Struct("<6I")
FEATURES = "cmd,stat_v2"


def _banner() -> bytes:
    props = ";".join(f"{k}={PROPS[k]}" for k in ("ro.product.name", "ro.product.model", "ro.product.device"))
    return f"device::{props};features={FEATURES}".encode()


@dataclass
class _Stream:
    local_id: int
    remote_id: int
    acked: asyncio.Event = field(default_factory=asyncio.Event)
    closed: bool = False


class AdbConnection:
    """One adb server's transport to this phone."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, shell: Shell) -> None:
        self.reader, self.writer, self.shell = reader, writer, shell
        self.max_payload = MAX_PAYLOAD
        self.streams: dict[int, _Stream] = {}
        self.ids = itertools.count(1)
        self.write_lock = asyncio.Lock()
        self.tasks: set[asyncio.Task] = set()

    async def send(self, command: int, arg0: int, arg1: int, payload: bytes = b"") -> None:
        header = HEADER.pack(command, arg0, arg1, len(payload), sum(payload) & 0xFFFFFFFF, command ^ 0xFFFFFFFF)
        async with self.write_lock:
            self.writer.write(header + payload)
            await self.writer.drain()

    async def serve(self) -> None:
        try:
            while True:
                head = await self.reader.readexactly(HEADER.size)
                command, arg0, arg1, length, _, magic = HEADER.unpack(head)
                if magic != command ^ 0xFFFFFFFF:
                    log.warning("bad adb message magic; closing the transport")
                    return
                payload = await self.reader.readexactly(length) if length else b""
                await self.handle(command, arg0, arg1, payload)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            for task in self.tasks:
                task.cancel()
            self.writer.close()
            with contextlib.suppress(Exception):
                await self.writer.wait_closed()

    async def handle(self, command: int, arg0: int, arg1: int, payload: bytes) -> None:
        if command == A_CNXN:
            self.max_payload = min(arg1 or MAX_PAYLOAD, MAX_PAYLOAD)
            await self.send(A_CNXN, VERSION, MAX_PAYLOAD, _banner())
        elif command == A_OPEN:
            await self.open(arg0, payload.rstrip(b"\0").decode("utf-8", "replace"))
        elif command == A_OKAY:
            stream = self.streams.get(arg1)
            if stream is not None:
                stream.acked.set()
        elif command == A_WRTE:  # input for a stream (none of ours reads stdin): acknowledged
            if arg1 in self.streams:
                await self.send(A_OKAY, arg1, arg0)
        elif command == A_CLSE:
            stream = self.streams.pop(arg1, None)
            if stream is not None:
                stream.closed = True
                stream.acked.set()

    async def open(self, remote_id: int, service: str) -> None:
        kind, _, command = service.partition(":")
        if kind not in ("shell", "exec") or not command.strip():
            await self.send(A_CLSE, 0, remote_id)  # a service this phone does not offer
            return
        stream = _Stream(next(self.ids), remote_id)
        self.streams[stream.local_id] = stream
        await self.send(A_OKAY, stream.local_id, remote_id)
        task = asyncio.create_task(self.run(stream, command))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def run(self, stream: _Stream, command: str) -> None:
        try:
            output = await self.shell.run(command)
        except Exception as exc:  # a bug in a command: the caller sees it as the command's output
            log.exception("shell command %r failed", command)
            output = f"error: {exc}\n".encode()
        try:
            for start in range(0, len(output), self.max_payload):
                if stream.closed:
                    return
                stream.acked.clear()
                await self.send(A_WRTE, stream.local_id, stream.remote_id, output[start:start + self.max_payload])
                await stream.acked.wait()
            if not stream.closed:
                self.streams.pop(stream.local_id, None)
                await self.send(A_CLSE, stream.local_id, stream.remote_id)
        except ConnectionError:
            pass


class EmulatedDevice:
    """A phone listening for adb servers on `host:port`."""

    def __init__(self, shell: Shell, *, host: str = "127.0.0.1", port: int = 5560) -> None:
        self.shell, self.host, self.port = shell, host, port
        self.server: asyncio.Server | None = None
        self.connections: set[AdbConnection] = set()

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._accept, self.host, self.port)
        self.port = self.server.sockets[0].getsockname()[1]

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connection = AdbConnection(reader, writer, self.shell)
        self.connections.add(connection)
        try:
            await connection.serve()
        finally:
            self.connections.discard(connection)

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            for connection in list(self.connections):
                connection.writer.close()
            await self.server.wait_closed()
