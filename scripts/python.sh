#!/usr/bin/env bash
# The Python package (python/, issue 49) as a numpy user gets it: a fresh virtual environment in a
# temporary folder, `pip install ./python` (which compiles c_core/aether_core.c and
# c_core/aether_batch.c with the system compiler), numpy and pytest from PyPI, then the package's
# tests (python/tests): every batched function in both forms and every scalar function on every
# corpus case, every batched function against the Rust reference on random inputs
# (reference/examples/py_ref.rs, built here), every refused argument, and the negative controls.
# Prints the counts and the self-test's message; exits non-zero on any failure.
#
#   bash scripts/python.sh            PYTHON=python3.12 bash scripts/python.sh (another interpreter)
#   bash scripts/python.sh --control  the negative control instead: the package built with the core's
#                                     product guards off and contraction forced on (-march=haswell
#                                     -ffp-contract=fast -DAETHER_UNSAFE_*), whose corpus and reference
#                                     tests and self-test must fail; exit 0 when they all do
# Needs python3 (3.8 or later) with venv, gcc and cargo; installs python3-venv with apt if the
# interpreter cannot make a virtual environment.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
source scripts/apt.sh
python=${PYTHON:-python3}
control=0
case ${1:-} in
    --control) control=1 ;;
    "") ;;
    *) echo "usage: $0 [--control]" >&2; exit 2 ;;
esac
if [ $control = 1 ]; then
    export AETHER_CFLAGS="-march=haswell -ffp-contract=fast -DAETHER_UNSAFE_UNGUARDED_BATCH_PRODUCTS -DAETHER_UNSAFE_ALLOW_CONTRACTION"
fi
start=$(date +%s)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! "$python" -m venv "$tmp/venv" >"$tmp/venv.log" 2>&1; then
    echo "python: $python cannot make a virtual environment; installing python3-venv"
    apt_install python3-venv
    rm -rf "$tmp/venv"
    "$python" -m venv "$tmp/venv"
fi
py=$tmp/venv/bin/python
echo "python: $("$py" --version) in a fresh venv"
"$py" -m pip install -q --disable-pip-version-check numpy pytest
if ! "$py" -m pip install --disable-pip-version-check ./python >"$tmp/install.log" 2>&1; then
    cat "$tmp/install.log" >&2
    echo "python: pip install ./python failed" >&2
    exit 1
fi
echo "python: pip install ./python built the C core ($(( $(date +%s) - start )) s so far)"
cargo build -q -p aether-reference --example py_ref
export AETHER_PY_REF=$repo/target/debug/examples/py_ref AETHER_REPO=$repo

if [ $control = 1 ]; then
    echo "python: control build (AETHER_CFLAGS=$AETHER_CFLAGS)"
    ok=1
    for t in test_corpus.py test_reference.py; do
        if (cd python/tests && "$py" -m pytest -q -p no:cacheprovider "$t") >"$tmp/$t.log" 2>&1; then
            echo "python: CONTROL NOT CAUGHT: $t passed on the unguarded, contracted build"; ok=0
        else
            echo "python: control caught by $t: $(tail -n 1 "$tmp/$t.log")"
        fi
    done
    if "$py" -c 'import aether, sys; r = aether.selftest(); print("python: self-test:", r.message[:160]); sys.exit(0 if r.ok else 1)'; then
        echo "python: CONTROL NOT CAUGHT: the self-test passed"; ok=0
    fi
    echo "python: $(( $(date +%s) - start )) s"
    [ $ok = 1 ] && echo "python: every control caught" && exit 0
    exit 1
fi

# From python/tests, so that `import aether` is the installed package, not python/aether.
status=0
(cd python/tests && "$py" -m pytest -q -p no:cacheprovider -rfE --junitxml="$tmp/junit.xml") >"$tmp/pytest.log" 2>&1 || status=$?
grep -Ev '^[.sFExX]+ +\[ *[0-9]+%\]$' "$tmp/pytest.log" | tail -n 60
(cd python/tests && "$py" -m pytest -q -p no:cacheprovider -rP test_negative.py -k "numpy or corpus_check") 2>&1 \
    | grep -E '^(vec3f|mat4f)' || status=1
"$py" - "$tmp/junit.xml" <<'PY' || status=1
import sys, xml.etree.ElementTree as ET
import aether
s = ET.parse(sys.argv[1]).getroot()
s = s if s.tag == "testsuite" else s.find("testsuite")
t, f, e, k = (int(s.get(x, 0)) for x in ("tests", "failures", "errors", "skipped"))
print("python: %d tests, %d passed, %d failed, %d errors, %d skipped" % (t, t - f - e - k, f, e, k))
r = aether.selftest()
print("python: self-test %s: %s" % ("passed" if r.ok else "FAILED", r.message))
sys.exit(0 if (f == e == k == 0 and t > 0 and r.ok) else 1)
PY
echo "python: $(( $(date +%s) - start )) s"
exit $status
