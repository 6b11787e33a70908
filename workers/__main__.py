"""``python -m workers``: run a worker (see workers/worker.py)."""

import sys

from workers.worker import main

sys.exit(main())
