from mcpgen.cli import main

raise SystemExit(main())
