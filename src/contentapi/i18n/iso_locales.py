"""The ISO locale list of Strapi 4.25's i18n plugin (its ``iso-locales`` service), as data.

``iso-locales.json`` holds the plugin's 602 ``{code, name}`` entries in its order. Strapi's
``I18NLocaleCode`` GraphQL scalar accepts a literal only when it is ``all`` or one of these
codes (``graphql/scalars.py``); a well-formed code outside the list (``en-ZZ``) is refused.
"""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

__all__ = ["ISO_LOCALES", "ISO_LOCALE_CODES", "ISO_LOCALE_NAMES"]

#: ``[{"code": "af", "name": "Afrikaans (af)"}, …]``
ISO_LOCALES: tuple[dict[str, Any], ...] = tuple(
    json.loads(files("contentapi.i18n").joinpath("iso-locales.json").read_text("utf-8"))
)
ISO_LOCALE_CODES: frozenset[str] = frozenset(entry["code"] for entry in ISO_LOCALES)
#: code → the name Strapi's admin proposes for it (``French (fr)``)
ISO_LOCALE_NAMES: dict[str, str] = {entry["code"]: entry["name"] for entry in ISO_LOCALES}
