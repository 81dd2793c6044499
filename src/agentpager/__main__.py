from agentpager.cli import main

raise SystemExit(main())
