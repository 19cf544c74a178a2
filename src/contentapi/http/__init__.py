"""HTTP plumbing every protocol surface shares (REST, the plugins' routes, GraphQL, health)."""
