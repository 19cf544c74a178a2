"""The OpenAPI 3.1 document of the REST API, generated from the Registry, and its page."""

from contentapi.openapi.document import build_openapi, openapi_bytes
from contentapi.openapi.routes import build_documentation_router

__all__ = ["build_documentation_router", "build_openapi", "openapi_bytes"]
