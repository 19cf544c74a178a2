"""The users-permissions plugin: register, login, me, users, roles and permissions routes."""
