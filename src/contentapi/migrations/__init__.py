"""Alembic migrations for the system tables (tokens, settings; users and roles later)."""
