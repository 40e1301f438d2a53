"""Seed 003 (ICS 2020, Make-Pack and the I/O policies): the synthetic and
Tucan campaigns (:mod:`.experiment`) and the ``ics2020`` report
(:mod:`.report`)."""
