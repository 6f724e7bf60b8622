from klondike_app.cli import main

raise SystemExit(main())
