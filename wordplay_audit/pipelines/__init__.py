"""``annotate next``/``status``'s round logic, moving into :mod:`wordplay_audit.workflow`."""
