"""``python -m opt_sched.gang`` (until the ``opt-sched`` front door mounts it)."""

import sys

from ..cli.gang import main

sys.exit(main())
