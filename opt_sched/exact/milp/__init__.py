"""MILP models (PuLP; CBC by default, HiGHS as an option)."""
