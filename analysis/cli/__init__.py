"""Sub-commands of this package; wordplay_audit.cli composes them."""
