"""The differential tester: the same data and queries sent to the reference Strapi and to
contentapi, answers compared and mismatches classified (``make diff``; not part of the tests)."""
