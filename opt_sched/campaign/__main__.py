"""``python -m opt_sched.campaign SPEC.toml --out DIR ...`` (= ``opt-sched sweep``)."""

import sys

from ..cli.campaign import main

if __name__ == "__main__":
    sys.exit(main())
