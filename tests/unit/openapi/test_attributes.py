"""Attribute → JSON Schema, without a server: every scalar type has both directions, and the
rules a body must keep are the ones ``entries/input.py`` and ``entries/scalar_input.py`` enforce."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from contentapi.openapi.attributes import input_schema, nullable, output_schema
from contentapi.schema.model import SCALAR_TYPES, ScalarAttribute


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _scalar(kind: str, **options) -> ScalarAttribute:
    return ScalarAttribute(name="x", type=kind, column="x", **options)


@pytest.mark.parametrize("kind", sorted(SCALAR_TYPES))
def test_every_scalar_type_has_a_request_and_an_answer_schema(kind):
    attribute = _scalar(kind, enum=("a", "b") if kind == "enumeration" else ())
    schema = input_schema(attribute, _ref)
    assert schema is not None
    Draft202012Validator.check_schema(schema)
    answered = output_schema(attribute, _ref)
    if kind == "password":
        assert answered is None  # never answered
    else:
        assert answered is not None
        Draft202012Validator.check_schema(answered)
        assert Draft202012Validator(answered).is_valid(None)  # any stored value may be null


@pytest.mark.parametrize(
    ("attribute", "accepted", "refused"),
    [
        (_scalar("string", required=True, min_length=3), "abc", "ab"),
        (_scalar("string"), "x" * 255, "x" * 256),  # varchar(255)
        (_scalar("text", max_length=5), "12345", "123456"),
        (_scalar("string", regex="^[a-z]+$"), "abc", "ABC"),
        (_scalar("integer", min=1, max=600), 600, 601),
        (_scalar("integer"), 2**31 - 1, 2**31),
        (_scalar("decimal"), 99999999.99, 100000000),
        (_scalar("enumeration", enum=("news", "opinion")), "news", "other"),
        (_scalar("uid"), "a-b_c.d~", "a b"),
        (_scalar("time"), "20:28:00.125", "20:28"),
        (_scalar("biginteger"), "9007199254740993", "12a"),
    ],
)
def test_request_schemas_keep_the_models_rules(attribute, accepted, refused):
    validator = Draft202012Validator(input_schema(attribute, _ref))
    assert validator.is_valid(accepted)
    assert not validator.is_valid(refused)


def test_a_required_scalar_refuses_null_and_an_optional_one_accepts_it():
    assert not Draft202012Validator(input_schema(_scalar("string", required=True), _ref)).is_valid(
        None
    )
    assert Draft202012Validator(input_schema(_scalar("string"), _ref)).is_valid(None)


def test_private_attributes_are_never_answered():
    assert output_schema(_scalar("string", private=True), _ref) is None


def test_nullable_keeps_enums_and_references_valid():
    assert nullable({"type": "string", "enum": ["a"]}) == {
        "type": ["string", "null"],
        "enum": ["a", None],
    }
    assert nullable(_ref("X")) == {"anyOf": [_ref("X"), {"type": "null"}]}
    assert nullable({}) == {}
