from sudokustudio.app import main

raise SystemExit(main())
