"""contentapi: a headless-CMS content API that speaks the Strapi v4 Content API."""

__version__ = "0.1.0"
