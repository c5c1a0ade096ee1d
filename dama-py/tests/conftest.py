"""Shared helpers of the Python tests of dama (run with pytest from the repository root or
from dama-py/)."""

import pathlib

REPO = pathlib.Path(__file__).resolve().parents[2]
"""The repository root (dama-py/tests/../..)."""
DATA = REPO / "tests" / "data"
"""The Rust tests' data: perft numbers and PDN files, shared with these tests."""
