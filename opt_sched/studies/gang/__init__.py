"""Seed 004 (gang scheduling with serverless I/O): the ``gang`` report
(:mod:`.report`)."""
