from wordplay_audit.cli import main

raise SystemExit(main())
