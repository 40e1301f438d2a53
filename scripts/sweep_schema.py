"""Write the campaign spec's JSON schema with the names of this installation
(execution models, generators, experiments, reports, metrics; plug-ins
included) filled in as enums, for an editor that validates TOML or JSON::

    python scripts/sweep_schema.py > sweep.schema.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from opt_sched.campaign.schema import filled_schema

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "instances" / "schemas" / "sweep.schema.json"


def main() -> int:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    json.dump(filled_schema(schema), sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
