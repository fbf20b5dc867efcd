"""``python -m sudokustudio.kernels --group G``: a background compile process."""
from sudokustudio.kernels.compile import main

raise SystemExit(main())
