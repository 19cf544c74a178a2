"""Storage: engine and connections, tables derived from the registry, start-up sync."""
