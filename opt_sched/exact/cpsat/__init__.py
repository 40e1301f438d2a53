"""CP-SAT (OR-Tools) models: IO-SCHED, HPC-IO and its pack variant.

Each model is a class split into variables, constraints (one named method
per constraint group) and objective; ``models/*-cpsat.md`` documents them.
Use them through :func:`opt_sched.solve` (``solver="cpsat"``).
"""

from .common import CpsatSettings, ModelData, Structure, TimeGrid, choose_grid

__all__ = ["CpsatSettings", "ModelData", "Structure", "TimeGrid", "choose_grid"]
