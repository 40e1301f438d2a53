"""``python -m opt_sched`` is the ``opt-sched`` command."""

import sys

from .cli import main

sys.exit(main())
