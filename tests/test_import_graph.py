"""The module import graph of ``opt_sched`` has no cycle (issue 25).

grimp (installed by ``import-linter``, the ``test`` extra) reads every
``import`` of the package, those inside functions and under
``TYPE_CHECKING`` included, and gives the graph module -> modules it
imports directly. A strongly connected component of more than one module is
a set of modules that import each other in a circle; the test prints every
such circle with the import lines that close it.

A package's ``__init__`` is a module like the others: a submodule that
imports its own package while the package imports it is a circle too.
Names a package exports lazily (PEP 562, :mod:`opt_sched.lazy`) are no
import of the package, so they do not count.
"""

from __future__ import annotations

import grimp  # installed by import-linter (the test extra)
import networkx as nx


def _graph() -> tuple[object, nx.DiGraph]:
    graph = grimp.build_graph("opt_sched")
    edges = [(module, imported) for module in graph.modules
             for imported in graph.find_modules_directly_imported_by(module)]
    return graph, nx.DiGraph(edges)


def _describe(graph, digraph: nx.DiGraph, circle: set[str]) -> str:
    """The modules of one circle and the import lines between them."""
    lines = [" <-> ".join(sorted(circle))]
    for module in sorted(circle):
        for imported in sorted(digraph.successors(module)):
            if imported in circle:
                for detail in graph.get_import_details(importer=module,
                                                       imported=imported):
                    lines.append(f"    {module}:{detail['line_number']} -> "
                                 f"{imported}  ({detail['line_contents']})")
    return "\n".join(lines)


def test_the_graph_sees_the_package() -> None:
    """A graph without the package's modules would make the next test pass
    vacuously: the front door, the schedulers and the validator are in it,
    with imports."""
    graph, digraph = _graph()
    for module in ("opt_sched", "opt_sched.scheduling.replay",
                   "opt_sched.validation.table", "opt_sched.priority.strict"):
        assert module in graph.modules
    assert digraph.number_of_edges() > len(graph.modules)
    # an import inside a function counts (scheduling.queue_order builds the
    # priority orders on demand)
    assert digraph.has_edge("opt_sched.scheduling.queue_order",
                            "opt_sched.priority.fairshare")


def test_no_import_cycle_between_modules() -> None:
    graph, digraph = _graph()
    circles = [c for c in nx.strongly_connected_components(digraph) if len(c) > 1]
    report = "\n\n".join(_describe(graph, digraph, c)
                         for c in sorted(circles, key=sorted))
    assert not circles, f"{len(circles)} import circle(s):\n\n{report}"
