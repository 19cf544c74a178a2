"""REST: the content routes generated from the registry, their envelopes and parsed queries
(the HTTP plumbing they share with the other surfaces is ``contentapi.http``)."""
