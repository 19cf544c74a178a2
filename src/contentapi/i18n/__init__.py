"""i18n: the configured locales and the localizations routes."""
