"""The ``symattn`` command: argument parsing, files and exit codes.
"""

from symattn.cli.app import main, run

__all__ = ["main", "run"]
