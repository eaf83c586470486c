"""The workflow layer: one public function per step, each exactly what one command does.

Every function takes in-memory tables (the contract's items and long labels) and paths only
where the thing is a folder (an export, a campaign, an output) or a server, checks its keyword
parameters by their Python names, and returns a :class:`~wordplay_audit.workflow.results.Result`
(``to_dict``, ``tables``/``to_frame``, ``summary``, ``section``, ``write``). The names are
imported from :mod:`wordplay_audit` (``import wordplay_audit as wa``; the table ``API`` there
maps each to its module here).
"""

__all__: list[str] = []  # the workflow's public names are the root's (wordplay_audit.API), not this package's
