"""`research.py` for child processes of the tests: the same CLI, with the scripted double
of `tests/scripted_mock.py` behind `--mock-mode` when `--mock-script PATH` is given."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scripted_mock import installed  # noqa: E402

from research.cli import main  # noqa: E402

with installed(sys.argv[1:]) as args:
    sys.argv = ["research.py", *args]
    main()
