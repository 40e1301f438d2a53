"""``python -m opt_sched`` is the ``opt-sched`` command."""

import sys

if __name__ == "__main__":
    try:
        from .cli import main
    except KeyboardInterrupt:  # Ctrl-C while the libraries load
        print("opt-sched: interrupted", file=sys.stderr)
        sys.exit(130)
    sys.exit(main())
