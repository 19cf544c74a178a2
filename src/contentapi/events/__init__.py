"""Events after the commit: webhooks from Strapi's ``strapi_webhooks`` table, delivered from
the change feed the writes record (``entries/events.py``).

``webhooks.py`` reads and writes the webhooks, ``request.py`` builds the request Strapi sends,
``dispatch.py`` turns events into deliveries and sends them, once across workers and
instances, with retries.
"""
