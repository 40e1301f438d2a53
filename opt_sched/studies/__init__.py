"""The seed papers' studies: plug-ins of the framework.

Each folder is one paper's reproduction -- its experiment points, its
campaign report and its claims -- written against the framework's public
seams exactly as a user's own study would be: a study imports
:mod:`opt_sched`, and nothing in the framework imports a study (the
import-linter contract of ``pyproject.toml`` checks it). The framework
reaches a study only through the entry points ``pyproject.toml`` declares
(groups ``opt_sched.reports`` and ``opt_sched.experiments``).

- :mod:`.ics2020` -- seed 003 (Tucan et al., ICS 2020): the synthetic and
  Tucan campaigns, their derived tables and figures, the ``ics2020`` report.
- :mod:`.ijhpca2023` -- seed 000: one experiment point per strategy, the
  down-scaled copies' certificates, the ``ijhpca2023`` report and claims.
- :mod:`.goponenko` -- seed 001: the ``goponenko`` report.
- :mod:`.rodrigo2017` -- seed 002: the ``workflow-share`` experiment (one
  WoAS point) and the ``rodrigo2017`` report.
- :mod:`.gang` -- seed 004: the ``gang`` report.
"""
