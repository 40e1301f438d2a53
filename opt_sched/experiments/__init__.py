"""Experiments: comparisons and gap tables (the seeds' reproductions are
plug-ins in :mod:`opt_sched.studies`).

- :mod:`.compare` -- every heuristic x every I/O policy on one instance.
- :mod:`.gap` -- heuristics against the best proven bound, many instances.

The methods are spec strings of :mod:`opt_sched.methods`. Import the
submodules directly; this package imports nothing heavy.
"""
