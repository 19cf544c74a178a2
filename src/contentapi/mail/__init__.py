"""Outgoing mail: Strapi's templates rendered safely, and a provider chosen by configuration."""
