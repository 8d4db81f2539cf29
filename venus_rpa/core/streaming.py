"""Streaming a zip as it is written: the pipe zipfile writes into, and the sync generator of its
bytes served under WSGI and ASGI."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest


class ZipPipe:
    """A write-only, unseekable file: zipfile writes into it, the generator drains it."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []

    def write(self, data: bytes) -> int:
        self.chunks.append(bytes(data))
        return len(data)

    def flush(self) -> None:
        pass

    def drain(self) -> bytes:
        data, self.chunks = b"".join(self.chunks), []
        return data


async def async_chunks(chunks: Iterator[bytes]) -> AsyncIterator[bytes]:
    """Serve a sync generator under ASGI one chunk at a time (Django would buffer it whole). Each
    chunk is produced in the thread-sensitive sync thread, so the generator's queries share one
    database connection."""
    done = object()
    pull = sync_to_async(lambda: next(chunks, done), thread_sensitive=True)
    while (chunk := await pull()) is not done:
        yield chunk


def streamed(request, chunks: Iterator[bytes]) -> Iterable[bytes] | AsyncIterator[bytes]:
    """What to give StreamingHttpResponse for `request` (a Django or DRF request): the async
    iterator under ASGI, the generator itself under WSGI."""
    django_request = getattr(request, "_request", request)
    return async_chunks(chunks) if isinstance(django_request, ASGIRequest) else chunks
