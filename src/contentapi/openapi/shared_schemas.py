"""The schemas every model's shapes refer to (``components.schemas``): an entry id, the relation
write forms (ids, ``{id}``, ``connect``/``disconnect``/``set`` with positions), file
references, a relation's count, pagination and Strapi's error shape; ``ref_to`` names any
schema.

Apart from ``models.py`` because these are fixed (no model reads into them) and every route
module refers to them, the plugins' included.
"""

from __future__ import annotations

from contentapi.openapi.attributes import Schema

__all__ = ["ID", "SHARED", "one_property", "ref_to"]


def ref_to(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def one_property(name: str, schema: Schema) -> Schema:
    """An object that must hold ``name`` (and may hold more): the wrapper of many plugin
    answers (``{ok: true}``, ``{roles: [...]}``) and of a dynamic zone's ``__component``."""
    return {"type": "object", "required": [name], "properties": {name: schema}}


ID = {"type": "integer", "minimum": 1, "example": 1}

SHARED: dict[str, Schema] = {
    "Error": {
        "type": "object",
        "description": "Every error, on every route: Strapi's shape.",
        "required": ["data", "error"],
        "properties": {
            "data": {"type": "null"},
            "error": {
                "type": "object",
                "required": ["status", "name", "message", "details"],
                "properties": {
                    "status": {"type": "integer", "example": 400},
                    "name": {"type": "string", "example": "ValidationError"},
                    "message": {"type": "string", "example": "title must be defined."},
                    "details": {
                        "type": "object",
                        "properties": {
                            "errors": {
                                "type": "array",
                                "items": {
                                    "type": "object",
                                    "properties": {
                                        "path": {"type": "array", "items": {"type": "string"}},
                                        "message": {"type": "string"},
                                        "name": {"type": "string"},
                                    },
                                },
                            }
                        },
                    },
                },
            },
        },
    },
    "EntryId": {
        "description": "an entry id, as a number or its decimal digits",
        "oneOf": [ID, {"type": "string", "pattern": "^[1-9][0-9]{0,9}$", "example": "1"}],
    },
    "EntryIdObject": {
        "type": "object",
        "required": ["id"],
        "properties": {"id": ref_to("EntryId")},
        "additionalProperties": False,
    },
    "RelationPosition": {
        "description": "where a connected entry goes in the ordered list",
        "oneOf": [
            {
                "type": "object",
                "required": ["before"],
                "properties": {"before": ref_to("EntryId")},
                "additionalProperties": False,
            },
            {
                "type": "object",
                "required": ["after"],
                "properties": {"after": ref_to("EntryId")},
                "additionalProperties": False,
            },
            {
                "type": "object",
                "required": ["start"],
                "properties": {"start": {"const": True}},
                "additionalProperties": False,
            },
            {
                "type": "object",
                "required": ["end"],
                "properties": {"end": {"const": True}},
                "additionalProperties": False,
            },
        ],
    },
    "RelationInput": {
        "description": (
            "a related entry's id (or `{id}`), an array of ids (replaces the relation), "
            "`null` (empties it), or `connect` / `disconnect` / `set` (not `set` with the "
            "others); a to-one relation keeps the last id given"
        ),
        "anyOf": [
            {"type": "null"},
            ref_to("EntryId"),
            ref_to("EntryIdObject"),
            {"type": "array", "items": {"anyOf": [ref_to("EntryId"), ref_to("EntryIdObject")]}},
            {
                "type": "object",
                "minProperties": 1,
                "properties": {
                    "connect": {
                        "type": "array",
                        "items": {
                            "anyOf": [
                                ref_to("EntryId"),
                                {
                                    "type": "object",
                                    "required": ["id"],
                                    "properties": {
                                        "id": ref_to("EntryId"),
                                        "position": ref_to("RelationPosition"),
                                    },
                                    "additionalProperties": False,
                                },
                            ]
                        },
                    },
                    "disconnect": {
                        "type": "array",
                        "items": {"anyOf": [ref_to("EntryId"), ref_to("EntryIdObject")]},
                    },
                    "set": {
                        "type": "array",
                        "items": {"anyOf": [ref_to("EntryId"), ref_to("EntryIdObject")]},
                    },
                },
                "additionalProperties": False,
            },
        ],
        "examples": [3, [1, 2], {"connect": [{"id": 4, "position": {"before": 1}}]}],
    },
    "FileReference": {
        "description": "an uploaded file's id (`POST /api/upload`)",
        "anyOf": [ref_to("EntryId"), ref_to("EntryIdObject")],
    },
    "RelationCountData": {
        "type": "object",
        "description": "`populate[x][count]=true`: the number of related entries",
        "properties": {
            "attributes": one_property("count", {"type": "integer", "minimum": 0}),
        },
    },
    "Pagination": {
        "anyOf": [
            {
                "type": "object",
                "required": ["page", "pageSize"],
                "properties": {
                    "page": {"type": "integer"},
                    "pageSize": {"type": "integer"},
                    "pageCount": {"type": "integer"},
                    "total": {"type": "integer"},
                },
            },
            {
                "type": "object",
                "required": ["start", "limit"],
                "properties": {
                    "start": {"type": "integer"},
                    "limit": {"type": "integer"},
                    "total": {"type": "integer"},
                },
            },
        ],
        "example": {"page": 1, "pageSize": 25, "pageCount": 1, "total": 3},
    },
}
