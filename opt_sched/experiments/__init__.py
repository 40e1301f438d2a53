"""Experiments: comparisons, gap tables and reproductions of the seeds.

- :mod:`.compare` -- every heuristic x every I/O policy on one instance.
- :mod:`.gap` -- heuristics against the best proven bound, many instances.
- :mod:`.ics2020` -- the evaluation of seed 003 (Figs. 5-8, 10-12, 14, 15).
- :mod:`.workflow_share` -- one point of seed 002's WoAS sweep
  (:func:`~.workflow_share.run_share_point`).
- :mod:`.rows_file` -- a CSV that always holds whole rows (written as rows
  finish).

The methods are spec strings of :mod:`opt_sched.methods`. Import the
submodules directly; this package imports nothing heavy.
"""
