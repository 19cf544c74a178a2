"""TypeScript declarations of the REST API's shapes (``contentapi types``)."""

from contentapi.typescript.declarations import typescript_declarations

__all__ = ["typescript_declarations"]
