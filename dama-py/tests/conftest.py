"""Shared helpers of the Python tests of dama (run with pytest from the repository root or
from dama-py/)."""

import os
import pathlib
import tempfile

# The endgame tables' directory is a temporary one: an engine the tests start builds tables
# in the background, and they must never land in the user's ~/.cache/dama/egtb (a run of
# this suite left K-K.egtb and more there).
os.environ["DAMA_EGTB"] = tempfile.mkdtemp(prefix="dama-py-test-egtb-")

REPO = pathlib.Path(__file__).resolve().parents[2]
"""The repository root (dama-py/tests/../..)."""
DATA = REPO / "tests" / "data"
"""The Rust tests' data: perft numbers and PDN files, shared with these tests."""
