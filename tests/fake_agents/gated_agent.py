#!/usr/bin/env python3
"""A stdin-reading agent that waits while a gate file exists, then does the phase's work.

For the service tests: `--agent-cmd "<python> gated_agent.py"`. While the file named by
GATED_AGENT_FILE exists every call blocks, so a job can be caught mid-run (DELETE, a server
restart); once the file is removed, calls finish as fast as fake_opencode.py's "agent" mode.
Each waiting call touches GATED_AGENT_FILE + ".waiting", so a test knows a call is in flight.
"""

import os
import runpy
import time
from pathlib import Path

gate = os.environ.get("GATED_AGENT_FILE")
if gate:
    waiting = Path(gate + ".waiting")
    while os.path.exists(gate):
        waiting.touch()
        time.sleep(0.05)
os.environ.setdefault("FAKE_OPENCODE_MODE", "agent")
runpy.run_path(str(Path(__file__).with_name("fake_opencode.py")), run_name="__main__")
