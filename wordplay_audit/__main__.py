from wordplay_audit.cli import run

raise SystemExit(run())
