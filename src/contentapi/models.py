"""The models a configuration names: its models folder (either layout) and the custom fields
they may use — the known public plugins', ``CONTENTAPI_CUSTOM_FIELDS``'s and those the
extensions declare. ``Runtime.build`` and ``contentapi check`` load models only through here,
so both see the same ones.
"""

from __future__ import annotations

from contentapi.config import Settings
from contentapi.schema import Registry, load_registry
from contentapi.schema.custom_fields import CustomFields, parse_custom_fields_setting

__all__ = ["configured_custom_fields", "load_models"]


def configured_custom_fields(settings: Settings) -> CustomFields:
    """Known fields, then ``CONTENTAPI_CUSTOM_FIELDS``, then each extension module's
    ``register_custom_fields(fields)``. Raises ``CustomFieldError`` on a wrong declaration and
    ``ExtensionError`` on a module that cannot be imported."""
    fields = CustomFields.known()
    for field in parse_custom_fields_setting(settings.custom_fields):
        fields.register(field.uid, field.type, source=field.source)
    if settings.extensions:
        # imported only when extensions are configured: the extensions package brings
        # graphql-core with it
        from contentapi.extensions import declare_custom_fields

        declare_custom_fields(settings, fields)
    return fields


def load_models(settings: Settings) -> Registry:
    """The validated registry of ``settings.content_types_dir`` (raises ``ModelErrors``)."""
    return load_registry(settings.content_types_dir, configured_custom_fields(settings))
