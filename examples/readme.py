"""The README's examples, read from README.md itself and run top to bottom.

    .venv/bin/python -m examples.readme          # against the server at $API (default :1337)

The first ``sh`` block of the README's "Examples" section starts the server; its ``export``
lines are the environment the server needs (``server_environment``). Every later block is run
as written, in order, in one ``bash`` (``client_script``), where ``curl`` is wrapped to fail
the run on an HTTP status of 400 or more, or a GraphQL answer carrying ``errors``. The test
``tests/test_readme_examples.py`` runs the same script against a fresh server, so the README
cannot drift from what works.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

__all__ = ["README", "ROOT", "client_script", "example_blocks", "server_environment"]

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.MULTILINE | re.DOTALL)

#: Prepended to the examples: stop at the first failing command and say which it was.
_PRELUDE = r"""set -euo pipefail
curl() {
  local out code
  out=$(command curl --max-time 60 -w '\n%{http_code}' "$@") || {
    echo "FAILED: curl $* (no answer)" >&2; return 1; }
  code=${out##*$'\n'}
  out=${out%$'\n'*}
  printf '%s\n' "$out"
  if [ "$code" -ge 400 ] || [[ "$out" == *'"errors":'* ]]; then
    echo "FAILED with HTTP $code: curl $*" >&2
    return 1
  fi
}
"""


def example_blocks(text: str) -> list[str]:
    """The ``sh`` blocks of the "## Examples" section, in order."""
    start = text.index("\n## Examples\n")
    end = text.find("\n## ", start + 1)
    section = text[start : end if end != -1 else len(text)]
    return [match.group(1) for match in _BLOCK.finditer(section)]


def server_environment(block: str) -> dict[str, str]:
    """The variables the first block exports for the server."""
    found: dict[str, str] = {}
    for line in block.splitlines():
        words = shlex.split(line, comments=True)
        if words[:1] == ["export"]:
            for word in words[1:]:
                name, _, value = word.partition("=")
                found[name] = value
    return found


def client_script(blocks: list[str]) -> str:
    """Every block after the server's, as one bash script."""
    return _PRELUDE + "\n".join(blocks[1:])


def main() -> None:
    blocks = example_blocks(README.read_text(encoding="utf-8"))
    wanted = server_environment(blocks[0])
    print(f"the server must run with: {' '.join(f'{k}={v}' for k, v in wanted.items())}")
    env = {**os.environ, "API": os.environ.get("API", "http://127.0.0.1:1337")}
    result = subprocess.run(["bash", "-c", client_script(blocks)], cwd=ROOT, env=env)
    sys.exit(result.returncode)


if __name__ == "__main__":
    main()
