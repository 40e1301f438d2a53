"""Seed 000 (IJHPCA 2023, LS and pack scheduling on Mira): one experiment
point per strategy and the down-scaled copies' certificates
(:mod:`.experiment`), the ``ijhpca2023`` report (:mod:`.report`, figures,
claims)."""
