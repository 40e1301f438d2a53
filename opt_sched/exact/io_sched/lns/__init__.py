"""Large-neighbourhood search over I/O orders (``models/lns.md``).

- :mod:`.repair` -- :class:`WindowRepair`, the CP-SAT model that re-orders
  one window of an order with the rest fixed.
- :mod:`.search` -- :func:`improve_order`, the search loop on one node.
- :mod:`.front` -- :func:`solve_lns`, the method: seeds, then search.
- :mod:`.backend` -- the ``lns`` backend of ``opt_sched.solve``.
"""

from .front import lns_orders, solve_lns
from .repair import RepairResult, WindowRepair, repair_window
from .search import LnsStats, improve_order, pick_window

__all__ = ["LnsStats", "RepairResult", "WindowRepair", "improve_order",
           "lns_orders", "pick_window", "repair_window", "solve_lns"]
