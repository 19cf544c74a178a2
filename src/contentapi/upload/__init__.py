"""The upload plugin: files stored behind a provider, image formats, attachment to entries."""
