"""A small real SMTP server on 127.0.0.1 for tests: it speaks enough of RFC 5321 (EHLO/HELO,
MAIL, RCPT, DATA, RSET, NOOP, QUIT) for Django's SMTP backend and keeps each message received."""

from __future__ import annotations

import contextlib
import socketserver
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage


@dataclass
class Mailbox:
    host: str = "127.0.0.1"
    port: int = 0
    messages: list[tuple[str, list[str], EmailMessage]] = field(default_factory=list)
    received: threading.Event = field(default_factory=threading.Event)


class _Handler(socketserver.StreamRequestHandler):
    mailbox: Mailbox

    def reply(self, line: str) -> None:
        self.wfile.write(line.encode() + b"\r\n")

    def handle(self) -> None:
        self.reply("220 127.0.0.1 test SMTP ready")
        sender, recipients = "", []
        while line := self.rfile.readline(4096):
            verb = line.decode(errors="replace").strip()
            upper = verb.upper()
            if upper.startswith("EHLO"):
                self.reply("250-127.0.0.1")
                self.reply("250 8BITMIME")
            elif upper.startswith("HELO"):
                self.reply("250 127.0.0.1")
            elif upper.startswith("MAIL FROM:"):
                sender, recipients = verb[10:].strip().split()[0].strip("<>"), []
                self.reply("250 OK")
            elif upper.startswith("RCPT TO:"):
                recipients.append(verb[8:].strip().split()[0].strip("<>"))
                self.reply("250 OK")
            elif upper == "DATA":
                self.reply("354 End data with <CR><LF>.<CR><LF>")
                data = []
                while (chunk := self.rfile.readline(65536)) not in (b".\r\n", b".\n", b""):
                    data.append(chunk[1:] if chunk.startswith(b"..") else chunk)
                message = message_from_bytes(b"".join(data), policy=policy.default)
                self.mailbox.messages.append((sender, recipients, message))
                self.mailbox.received.set()
                self.reply("250 OK: queued")
            elif upper in ("RSET", "NOOP"):
                self.reply("250 OK")
            elif upper == "QUIT":
                self.reply("221 Bye")
                return
            else:
                self.reply("502 Command not implemented")


@contextlib.contextmanager
def smtp_server() -> Iterator[Mailbox]:
    mailbox = Mailbox()
    handler = type("Handler", (_Handler,), {"mailbox": mailbox})
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    mailbox.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield mailbox
    finally:
        server.shutdown()
        server.server_close()
