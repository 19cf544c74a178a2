"""The operators the declarations offer per attribute type are the ones the server accepts:
every operator on one attribute of every type the models use answers 200 when declared and
400 when not."""

from __future__ import annotations

from contentapi.query.operators import OPERATORS
from contentapi.schema.model import ScalarAttribute
from contentapi.typescript.filters import accepted_operators

_SAMPLE = {
    "integer": "1",
    "biginteger": "1",
    "float": "1.5",
    "decimal": "1.5",
    "boolean": "true",
    "date": "2024-05-17",
    "time": "10:00:00",
    "datetime": "2024-05-17T08:30:00.000Z",
    "timestamp": "2024-05-17T08:30:00.000Z",
}


def _query(field: str, operator: str, value: str) -> str:
    shape = OPERATORS[operator].shape
    if shape == "boolean":
        return f"filters[{field}][{operator}]=true"
    if shape == "pair":
        return f"filters[{field}][{operator}][0]={value}&filters[{field}][{operator}][1]={value}"
    if shape == "list":
        return f"filters[{field}][{operator}][0]={value}"
    return f"filters[{field}][{operator}]={value}"


async def test_declared_operators_are_the_accepted_ones(app, client, admin):
    seen: dict[str, tuple[str, str]] = {}
    for content_type in app.runtime.registry.content_types.values():
        if content_type.is_builtin or content_type.is_single:
            continue
        for name, attribute in content_type.attributes.items():
            scalar = isinstance(attribute, ScalarAttribute) and attribute.type != "password"
            if scalar and not attribute.private:
                seen.setdefault(attribute.type, (content_type.plural_name, name))
    assert {"string", "integer", "json", "boolean", "datetime"} <= set(seen)
    wrong = []
    for kind, (plural, field) in sorted(seen.items()):
        value = _SAMPLE.get(kind, "a")
        if kind == "enumeration":
            value = next(
                iter(
                    a.enum
                    for ct in app.runtime.registry.content_types.values()
                    if ct.plural_name == plural
                    for a in [ct.attributes[field]]
                )
            )[0]
        accepted = set(accepted_operators(kind))
        for operator in OPERATORS:
            response = await client.get(
                f"/api/{plural}?{_query(field, operator, value)}", headers=admin
            )
            expected = 200 if operator in accepted else 400
            if response.status_code != expected:
                wrong.append(f"{kind} {operator}: {response.status_code} {response.text[:120]}")
    assert not wrong, "\n".join(wrong)
