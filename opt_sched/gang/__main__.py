"""``python -m opt_sched.gang`` (until the ``opt-sched`` front door mounts it)."""

import sys

from .cli_entry import main

sys.exit(main())
