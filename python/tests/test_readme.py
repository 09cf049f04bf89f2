"""The quick starts as written: python/README.md's, and the package block of the repository's
README.md (marked `<!-- python.sh runs this block -->`), each run by the installed package in a
fresh interpreter; the values they print are checked."""
import os
import re
import subprocess
import sys

REPO = os.environ.get("AETHER_REPO") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def blocks(path, after):
    """The ```python blocks of `path` that follow the line matching `after` (up to the next heading)."""
    lines = open(path, encoding="utf-8").read().split("\n")
    start = next(i for i, l in enumerate(lines) if re.match(after, l))
    found, i = [], start + 1
    while i < len(lines) and not (lines[i].startswith("## ") and found):
        if lines[i] == "```python":
            j = lines.index("```", i + 1)
            found.append("\n".join(lines[i + 1 : j]))
            i = j
        i += 1
    return found


def run(code):
    # Run from a folder without the package's source, so the installed one is imported.
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=os.path.dirname(__file__))
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_the_packages_readme_quick_start_runs():
    (code,) = blocks(os.path.join(REPO, "python", "README.md"), r"^## Quick start")
    out = run(code)
    cid = __import__("aether").contract_id()
    assert out == (
        "True aether_selftest: ok: 233 witnesses of 25 rules, round-to-nearest, no flush-to-zero, contract %s\n"
        "%s\n"
        "[0.32 2.  ]\n"
        "[[0.26726124 0.5345225  0.8017837 ]\n"
        " [0.33333334 0.6666667  0.6666667 ]]\n"
        "[0.32 2.  ]\n"
        "[[1. 1. 1. 1.]\n"
        " [1. 1. 1. 1.]]\n"
        "0.32\n"
        "0.479425538604203 -2.0\n" % (cid, cid)
    ), out

def test_the_repository_readme_python_block_runs():
    (code,) = blocks(os.path.join(REPO, "README.md"), r"^<!-- python.sh runs this block")[:1]
    assert run(code) == "dot(a, b) = 0.319999993\n"

