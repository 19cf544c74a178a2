"""Defines ``Query.open`` again: loaded after ``library``, start-up must fail."""

from contentapi.extensions import App


def register(app: App) -> None:
    app.graphql.extension_service.use({"type_defs": "extend type Query { open: String }"})
