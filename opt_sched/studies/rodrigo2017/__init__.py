"""Seed 002 (workflow-aware scheduling, WoAS): the ``workflow-share``
experiment (:mod:`.experiment`) and the ``rodrigo2017`` report
(:mod:`.report`)."""
