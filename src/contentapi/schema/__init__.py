"""Content-type models: load JSON, validate, and expose an immutable registry."""

from contentapi.schema.loader import load_registry
from contentapi.schema.model import (
    Attribute,
    Component,
    ComponentAttribute,
    ContentType,
    DynamicZoneAttribute,
    MediaAttribute,
    RelationAttribute,
    ScalarAttribute,
)
from contentapi.schema.model_errors import ModelError, ModelErrors
from contentapi.schema.registry import Registry

__all__ = [
    "Attribute",
    "Component",
    "ComponentAttribute",
    "ContentType",
    "DynamicZoneAttribute",
    "MediaAttribute",
    "ModelError",
    "ModelErrors",
    "Registry",
    "RelationAttribute",
    "ScalarAttribute",
    "load_registry",
]
