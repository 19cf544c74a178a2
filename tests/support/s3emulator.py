"""A local S3 for the tests: moto's server mode on a free port of 127.0.0.1, in a thread.

moto's own WSGI application (``DomainDispatcherApplication``, what ``moto_server`` runs) is
served by werkzeug as ``moto.server.ThreadedMotoServer`` serves it, behind one switch the tests
need and moto has not: ``fail(method, pattern)`` refuses every request of that method whose
path matches, with S3's ``AccessDenied`` (not retried by the SDK), so a test can make the
storage fail in the middle of an upload or a delete (``heal`` ends it). Objects live in
moto's memory, in buckets each test names anew.

    emulator = S3Emulator()
    emulator.start()
    emulator.endpoint  # "http://127.0.0.1:<port>"
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["S3Emulator"]

_DENIED = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code>'
    b"<Message>Access Denied (failure injected by the test)</Message></Error>"
)


class S3Emulator:
    def __init__(self) -> None:
        self.port = 0
        self._fail: tuple[str, re.Pattern[str]] | None = None
        #: the paths of the requests refused
        self.refused: list[str] = []
        self._server: Any = None
        self._thread: threading.Thread | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        from moto.moto_server.werkzeug_app import (
            DomainDispatcherApplication,
            MotoRequestHandler,
            create_backend_app,
        )
        from werkzeug.serving import make_server

        moto_app = DomainDispatcherApplication(create_backend_app)

        def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
            path = environ.get("PATH_INFO", "")
            fail = self._fail
            if (
                fail is not None
                and environ.get("REQUEST_METHOD") == fail[0]
                and fail[1].search(path)
            ):
                self.refused.append(path)
                start_response("403 Forbidden", [("Content-Type", "application/xml")])
                return [_DENIED]
            return moto_app(environ, start_response)

        self._server = make_server(
            "127.0.0.1", 0, app, threaded=True, request_handler=MotoRequestHandler
        )
        self.port = self._server.server_port
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def fail(self, method: str, pattern: str) -> None:
        """Refuse every ``method`` request whose path ``pattern`` finds (``heal`` ends it)."""
        self._fail = (method, re.compile(pattern))

    def heal(self) -> None:
        self._fail = None
        self.refused.clear()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def client(self) -> Any:
        """A boto3 client of the emulator (any credentials are accepted)."""
        import boto3

        return boto3.session.Session().client(
            "s3",
            endpoint_url=self.endpoint,
            region_name="us-east-1",
            aws_access_key_id="test",
            aws_secret_access_key="test",
        )

    def keys(self, bucket: str) -> set[str]:
        listed = self.client().list_objects_v2(Bucket=bucket)
        return {item["Key"] for item in listed.get("Contents", [])}
