"""``python -m benchmarks.honesty``: see ``run.py``."""

from benchmarks.honesty.run import main

raise SystemExit(main())
