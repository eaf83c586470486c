from wordplay_audit.cli.main import main

raise SystemExit(main())
