"""One module per ``opt-sched`` command (the list is in
:mod:`opt_sched.cli.registry`)."""
