"""Seed 001 (workload-adaptive I/O-aware scheduling): the ``goponenko``
report (:mod:`.report`)."""
