"""Workflows as batch jobs (seed 002, Paper V): manifests, the three
submission methods, WoAS and metrics.

- :mod:`.manifest` -- :class:`Workflow` / :class:`Task`, the JSON manifest
  (:func:`read_manifest`, :func:`write_manifest`, one-line errors);
- :mod:`.geometry` -- critical path, width, work, pilot waste;
- :mod:`.catalog` -- the thesis's six workflows and Table 1's groups;
- :mod:`.submission` -- ``chained``, ``pilot``, ``woas`` jobs into an
  instance (:func:`workflow_instance`, :func:`build_workflow_workload`);
- :mod:`.woas` -- :class:`WorkflowAwareOrder`, the two queue views;
- :mod:`.metrics` -- workflow wait/runtime/turnaround, speed-up,
  (actual) utilisation, regular jobs' slowdown.

The sweep's experiment function (``run_share_point``) is seed 002's study,
:mod:`opt_sched.studies.rodrigo2017.experiment`, above both this package and
the workload generator that mixes workflows in (:mod:`opt_sched.workloads.nersc`).

Formats and the workflows: ``instances/workflows.md``.
"""

from __future__ import annotations

from ..lazy import lazy_exports

# ``geometry`` is both a submodule and the function exported here: imported
# now, so that importing the submodule later cannot replace the function.
from .geometry import Geometry, geometry

# The rest on first use (PEP 562): a replay that names no workflow imports
# neither the queue order (WoAS, the priority engine) nor the metrics.
__getattr__, __dir__ = lazy_exports(__name__, globals(), {
    **dict.fromkeys(("WORKFLOW_NAMES", "catalog_workflow", "group_workflow"),
                    ".catalog"),
    **dict.fromkeys(("ManifestError", "Task", "Workflow", "read_manifest",
                     "read_manifests", "workflow_from_dict", "workflow_to_dict",
                     "write_manifest"), ".manifest"),
    **dict.fromkeys(("WorkflowRecord", "regular_slowdowns", "speedup",
                     "utilisation", "workflow_records"), ".metrics"),
    **dict.fromkeys(("MODES", "SubmittedWorkflow", "WorkflowWorkload",
                     "build_workflow_workload", "load_workflow", "split_job_id",
                     "workflow_instance"), ".submission"),
    **dict.fromkeys(("WorkflowAwareOrder", "woas_order"), ".woas"),
})

__all__ = [
    "MODES",
    "WORKFLOW_NAMES",
    "Geometry",
    "ManifestError",
    "SubmittedWorkflow",
    "Task",
    "Workflow",
    "WorkflowAwareOrder",
    "WorkflowRecord",
    "WorkflowWorkload",
    "build_workflow_workload",
    "catalog_workflow",
    "geometry",
    "group_workflow",
    "load_workflow",
    "read_manifest",
    "read_manifests",
    "regular_slowdowns",
    "speedup",
    "split_job_id",
    "utilisation",
    "woas_order",
    "workflow_from_dict",
    "workflow_instance",
    "workflow_records",
    "workflow_to_dict",
    "write_manifest",
]
