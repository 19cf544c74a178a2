"""The REST query language: parse, validate against a content type, compile to SQL."""
