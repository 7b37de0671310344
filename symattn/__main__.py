from symattn.cli import main

raise SystemExit(main())
