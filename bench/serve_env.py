"""The environment contentapi is benchmarked in: the project with its runtime dependencies only.

That is what the Docker image (``pip install .``) and ``make serve`` install. The development
environment also holds the test tools (moto, schemathesis, …) and what they pull in, and the
server imports some of it when it is there — PyJWT loads ``cryptography`` whenever it is
installed: 7 MB more per worker, which a deployed server does not carry. ``--dev-env`` on
``bench.run`` measures the development environment instead.
"""

from __future__ import annotations

import subprocess
import venv
from pathlib import Path

__all__ = ["serve_env"]

ROOT = Path(__file__).resolve().parent.parent
ENV = ROOT / "bench" / ".venv-serve"


def serve_env() -> Path:
    """The ``bin`` folder of ``bench/.venv-serve``, made on first use; the project is installed
    editable there, so it always runs the code of this checkout."""
    python = ENV / "bin" / "python"
    if not python.exists():
        venv.create(ENV, with_pip=True)
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "-e",
            str(ROOT),
        ],
        check=True,
    )
    return ENV / "bin"
