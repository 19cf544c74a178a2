"""Strapi's data-transfer archives (``strapi export`` / ``strapi import``): read, write,
load, dump."""
