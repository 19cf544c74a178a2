"""REST: routers generated from the registry, envelopes, and the error renderer."""
