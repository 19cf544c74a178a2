"""Content-type models: load JSON, validate, and expose an immutable registry.

The package names what loads models; the model classes themselves are imported from
``contentapi.schema.model``, their one home."""

from contentapi.schema.loader import load_registry
from contentapi.schema.model_errors import ModelError, ModelErrors
from contentapi.schema.registry import Registry

__all__ = [
    "ModelError",
    "ModelErrors",
    "Registry",
    "load_registry",
]
