"""python -m server.cli: the fracas command line."""

from server.cli.main import main

raise SystemExit(main())
