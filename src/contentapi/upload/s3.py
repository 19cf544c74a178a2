"""The S3-compatible storage provider (AWS S3, MinIO, Cloudflare R2, Ceph…): Strapi's ``aws-s3``.

Objects are stored as ``@strapi/provider-upload-aws-s3`` stores them: the key is
``<root path>/<hash><ext>`` in the configured bucket, with the configured canned ACL, and the
file's URL is absolute: ``<base URL>/<key>`` when a base URL (a CDN) is configured, else the
object's own location as the AWS SDK reports it — ``https://<bucket>.s3.<region>.amazonaws.com/
<key>`` on AWS, ``<endpoint>/<bucket>/<key>`` with path-style addressing (MinIO, the emulator).
The row's ``provider`` is ``aws-s3``, as Strapi writes it, so a Strapi database's S3 files and
contentapi's are the same.

Each object is stored with the type the local provider would serve it as (from the key's
extension, which the server chose from the bytes: ``upload/sniff.py``); anything a browser could
run (HTML-like text, XML, archives…) is stored with ``Content-Disposition: attachment`` — and it
is served from the bucket's origin, not the API's.

boto3 (AWS's own SDK), each call in a worker thread, rather than aiobotocore/aioboto3: boto3 is
the SDK AWS maintains and releases in step with S3's API, its transfer manager streams a large
file in parts (never whole in memory) and aborts the parts on failure, and a client is
thread-safe; aiobotocore pins exact botocore versions, so it can hold back security releases of
botocore and conflicts with other packages needing boto3. An upload request makes a handful of
calls, so a thread per call costs nothing that matters.

Any failure of the storage (unreachable, refused, throttled) becomes ``ServiceUnavailableError``
(503 with ``Retry-After``); the error's code, never the credentials, is logged.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from typing import Any, BinaryIO, TypeVar
from urllib.parse import quote, urlsplit

from contentapi.config import Settings
from contentapi.errors import PayloadTooLargeError, ServiceUnavailableError
from contentapi.upload.sniff import is_passive, stored_mime

__all__ = ["S3Storage"]

log = logging.getLogger("contentapi.upload")

_KEY = re.compile(r"^[A-Za-z0-9_\-]+(\.[a-z0-9]{1,10})?$")
_T = TypeVar("_T")


def _root_prefix(root_path: str) -> str:
    """Strapi's ``rootPath`` as a key prefix: ``media/`` for ``/media/`` (none for empty)."""
    parts = [part for part in root_path.split("/") if part and part not in (".", "..")]
    return "".join(f"{part}/" for part in parts)


class S3Storage:
    """Files as objects of one bucket; see the module docstring."""

    name = "aws-s3"

    def __init__(self, settings: Settings, client: Any = None) -> None:
        assert settings.s3_bucket is not None
        self.bucket = settings.s3_bucket
        self.region = settings.s3_region
        self.endpoint = (settings.s3_endpoint or "").rstrip("/") or None
        self.force_path_style = settings.s3_force_path_style
        self.base_url = (settings.s3_base_url or "").rstrip("/") or None
        self.prefix = _root_prefix(settings.s3_root_path)
        self.acl = settings.s3_acl or None
        self.client = client if client is not None else _client(settings)

    def object_key(self, key: str) -> str:
        """The object's key in the bucket for a server-generated file key."""
        if not _KEY.match(key):
            raise ValueError(f"invalid storage key {key!r}")
        return f"{self.prefix}{key}"

    def _extra(self, key: str) -> dict[str, str]:
        ext = key[key.rfind(".") :] if "." in key else ""
        mime = stored_mime(ext)
        extra = {"ContentType": f"{mime}; charset=utf-8" if mime == "text/plain" else mime}
        if not is_passive(mime) and mime != "image/svg+xml":
            extra["ContentDisposition"] = "attachment"
        if self.acl:
            extra["ACL"] = self.acl
        return extra

    async def _call(self, action: str, function: Callable[[], _T]) -> _T:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            return await asyncio.to_thread(function)
        except ClientError as error:
            code = error.response.get("Error", {}).get("Code", "unknown")
            log.warning("S3 %s failed: %s", action, code)
            raise ServiceUnavailableError("The file storage is unavailable") from error
        except (BotoCoreError, OSError) as error:
            log.warning("S3 %s failed: %s", action, type(error).__name__)
            raise ServiceUnavailableError("The file storage is unavailable") from error

    async def save(self, key: str, source: BinaryIO, limit: int) -> int:
        """Stream ``source`` to the object of ``key`` (in parts past 8 MB); its size in bytes."""
        object_key = self.object_key(key)
        size = source.seek(0, 2)
        if size > limit:
            raise PayloadTooLargeError()
        source.seek(0)
        extra = self._extra(key)
        await self._call(
            "upload",
            lambda: self.client.upload_fileobj(source, self.bucket, object_key, ExtraArgs=extra),
        )
        return size

    async def save_bytes(self, key: str, data: bytes) -> None:
        object_key = self.object_key(key)
        extra = self._extra(key)
        await self._call(
            "put",
            lambda: self.client.put_object(Bucket=self.bucket, Key=object_key, Body=data, **extra),
        )

    async def load(self, key: str) -> bytes | None:
        """The object's bytes; ``None`` when the bucket has no such object."""
        from botocore.exceptions import ClientError

        object_key = self.object_key(key)

        def get() -> bytes | None:
            try:
                response = self.client.get_object(Bucket=self.bucket, Key=object_key)
            except ClientError as error:
                if error.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                    return None
                raise
            return bytes(response["Body"].read())

        return await self._call("get", get)

    async def delete(self, key: str) -> None:
        """Remove the object of ``key`` (none there is no error, as in S3)."""
        object_key = self.object_key(key)
        await self._call(
            "delete", lambda: self.client.delete_object(Bucket=self.bucket, Key=object_key)
        )

    def url(self, key: str) -> str:
        object_key = self.object_key(key)
        if self.base_url:
            return f"{self.base_url}/{object_key}"
        return self._location(quote(object_key, safe="/"))

    def _location(self, path: str) -> str:
        """Where the AWS SDK's upload says the object is (``@aws-sdk/lib-storage``'s
        ``Location``): path-style, or the bucket as the endpoint's first label."""
        endpoint = urlsplit(self.endpoint or f"https://s3.{self.region}.amazonaws.com")
        host = endpoint.netloc
        bucket = quote(self.bucket, safe="")
        if self.force_path_style:
            return f"{endpoint.scheme}://{host}/{bucket}/{path}"
        if host.startswith(f"{bucket}."):
            return f"{endpoint.scheme}://{host}/{path}"
        return f"{endpoint.scheme}://{bucket}.{host}/{path}"


def _client(settings: Settings) -> Any:
    """A boto3 S3 client for the settings (no I/O until the first call)."""
    import boto3
    from botocore.config import Config

    config = Config(
        region_name=settings.s3_region,
        s3={"addressing_style": "path" if settings.s3_force_path_style else "auto"},
        retries={"mode": "standard", "max_attempts": 3},
        # the transfer manager sends a large file's parts on up to 10 threads at once
        max_pool_connections=20,
        connect_timeout=5,
        read_timeout=60,
        # checksums only where S3 requires them: several S3-compatible services reject the
        # CRC trailers newer botocore adds to every upload by default
        request_checksum_calculation="when_required",
        response_checksum_validation="when_required",
    )
    secret = settings.s3_secret_access_key
    return boto3.session.Session().client(
        "s3",
        endpoint_url=settings.s3_endpoint or None,
        aws_access_key_id=settings.s3_access_key_id or None,
        aws_secret_access_key=secret.get_secret_value() if secret else None,
        config=config,
    )
