#!/usr/bin/env bash
# The WGSL check module on both API-driven stacks, against the Rust reference:
#
#   bash scripts/wgsl.sh [N] [--report FILE.md]
#
# Installs what it lacks on a fresh Debian machine (Mesa's lavapipe from
# mesa-vulkan-drivers, SwiftShader from chromium-common, Node.js, and Dawn for
# Node by `npm ci` in runner/dawn), builds the runner, and runs:
#   1. every entry on wgpu/lavapipe and Dawn/SwiftShader with the corpus and N
#      random inputs (default 100000; at most 2000 per linear-algebra entry
#      and 5000 per per-invocation array kernel, wgsl::LINALG_CHECK_RANDOM and
#      KERNEL_CHECK_RANDOM, so that CI stays short): fails when an in-domain
#      case is outside its band;
#   2. the negative controls, each of which must change bits (the runner's
#      --expect-mismatch), on NC = min(N/10, 20000) random inputs:
#      guard none on wgpu/lavapipe, in the compensated functions;
#      guard opaque-one on wgpu/lavapipe;
#      the rule mutant $MUTANT (default fold-left) on both stacks (with
#      fold-left it must change the 4x4 LU, det_lu and inverse), and
#      no-symmetrize on the matrix entries of both stacks (Cholesky, eigh);
#   3. the core's self-test on both stacks (SwiftShader must be reported as
#      flushing subnormals), and its controls, which must make it fail: no
#      guard and the opaque-one guard on lavapipe, the rule mutant
#      $SELFTEST_MUTANT (default comp-dropped) on both stacks;
#   4. the predicates' integer forms (wgsl_core/aether_predicate.wgsl, i64 in u32
#      limbs) on both stacks: the corpus and the proof's sweep (3e6 near-parallel
#      int16, N int32 bands, 1e4 within one ulp, N random int64, the 18.9e6
#      reduced-domain combinations (on lavapipe; SwiftShader runs the rest), N + N band
#      quadruples) and the predicates' self-test, every answer the golden one; and the limb controls on wgpu/lavapipe (the add's carry dropped, the wide
#      product's middle carry dropped), each of which must make answers wrong;
#   5. the strict build (wgsl_core/aether_core_strict.wgsl) on both stacks with the corpus and
#      NS = min(N/200, 500) random inputs per entry (at least 50), bits where the spec says bits,
#      its self-test on both stacks, and the fusion control on lavapipe (see below);
#   6. df64 (wgsl_core/aether_df64.wgsl) on both stacks, the corpus and N/20 random inputs per
#      f64 function, and its guard controls on lavapipe (see below).
# Prints the build time and the run time.
set -euo pipefail
cd "$(dirname "$0")/.."

N=100000
report=()
while [ $# -gt 0 ]; do
    case "$1" in
    --report)
        report=(--report "${2:?--report needs a file}")
        shift 2
        ;;
    [0-9]*)
        N=$1
        shift
        ;;
    *)
        echo "usage: scripts/wgsl.sh [N] [--report FILE.md]" >&2
        exit 2
        ;;
    esac
done
NC=$((N / 10 < 20000 ? N / 10 : 20000))
MUTANT=${MUTANT:-fold-left}
# A mutant of a family the spec states as bits on WGSL (the self-test can
# only require the bits of those).
SELFTEST_MUTANT=${SELFTEST_MUTANT:-comp-dropped}

# shellcheck source=scripts/wgsl-stacks.sh
source scripts/wgsl-stacks.sh
wgsl_stacks

t0=$(date +%s)
# AETHER_RUNNER_BIN: the runner scripts/test.sh's test build made (a `-p` build here would
# resolve the dependencies' features for this package alone and build them again); else the
# test profile's build.
if [ -n "${AETHER_RUNNER_BIN:-}" ]; then
    bin=$AETHER_RUNNER_BIN
else
    cargo build -q --profile test -p aether-runner
    bin=target/debug/aether-runner
fi
[ -x "$bin" ] || { echo "wgsl: no runner at $bin" >&2; exit 2; }
t1=$(date +%s)
echo "wgsl: built the runner in $((t1 - t0)) s"
status=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

echo "wgsl: both stacks, corpus and $N random inputs per entry"
"$bin" wgsl --stack all --random "$N" "${report[@]}" || status=1

control() { # name stack grep-pattern args...: runs a control that must change bits
    local name=$1 stack=$2 want=$3 rc=0
    shift 3
    "$bin" wgsl --stack "$stack" --random "$NC" --expect-mismatch "$@" >"$log/$name.txt" || rc=$?
    grep -E '^expect-mismatch:' "$log/$name.txt" || true
    if [ "$rc" -ne 0 ]; then
        echo "wgsl: FAIL: the control $name ($*) on $stack changes no bit (exit $rc)"
        tail -n 20 "$log/$name.txt"
        status=1
    elif [ -n "$want" ] && ! grep -Eq "^  changed: ($want)" "$log/$name.txt"; then
        echo "wgsl: FAIL: the control $name on $stack does not change the functions it must ($want)"
        status=1
    else
        echo "wgsl: the control $name on $stack changes bits, as it must"
    fi
}
control guard-none wgpu 'aether_[a-z0-9_]*(two_sum|neumaier|combine|reduce|sum_array|dot_array|lanes)' --guard none
control guard-opaque-one wgpu '' --guard opaque-one
# The fold-left mutant must also move the linear algebra (LU's finished dot
# products of length 3, so the 4x4 routines), and no-symmetrize Cholesky and
# eigh, on both stacks.
if [ "$MUTANT" = fold-left ]; then
    control "mutant-$MUTANT" all 'aether_mat4f_(lu|det_lu|inverse)' --mutant "$MUTANT"
else
    control "mutant-$MUTANT" all '' --mutant "$MUTANT"
fi
control mutant-no-symmetrize all 'aether_mat[234]f_(cholesky|eigh)' --mutant no-symmetrize --only mat

# The core's self-test on both stacks: every witness of a bits family passes,
# SwiftShader is reported as flushing subnormals and lavapipe as not; then the
# controls: the core without its guard on lavapipe (named as reassociation) and
# with the opaque-one guard (failing rules), a simulated fusing driver, and a
# rule mutant's core on both stacks (failing rules).
selftest() { # name args...
    local name=$1 rc=0
    shift
    "$bin" wgsl-selftest --expect-flush dawn "$@" >"$log/$name.txt" 2>&1 || rc=$?
    grep -E '^(selftest|FAIL)' "$log/$name.txt" || true
    if [ "$rc" -ne 0 ]; then
        echo "wgsl: FAIL: the self-test ($name) did not report as expected (exit $rc)"
        tail -n 5 "$log/$name.txt"
        status=1
    else
        echo "wgsl: the self-test ($name) reports as expected"
    fi
}
selftest core --stack all
# The self-test names the cause (issue 52): lavapipe reassociates plain sums, so the core without
# its guard fails the compensated witnesses and the self-test must put them down to
# reassociation, with no failing rule; with the cause probes shielded from the driver (the
# negative control) the same failures must be failing rules. A fusing driver, simulated by the
# module rewritten with every product a sum reads fused (the probes with it), must be named as
# fusing; shielded, its failures are rules again.
selftest guard-none --stack wgpu --guard none --expect-cause reassociation
selftest guard-none-shielded --stack wgpu --guard none --shield-probes --expect-fail
selftest fusion --stack wgpu --guard none --simulate fusion --expect-cause fusion
selftest fusion-shielded --stack wgpu --guard none --simulate fusion --shield-probes --expect-fail
selftest guard-opaque-one --stack wgpu --guard opaque-one --expect-fail
selftest "mutant-$SELFTEST_MUTANT" --stack all --mutant "$SELFTEST_MUTANT" --expect-fail

# The strict build (wgsl_core/aether_core_strict.wgsl: every rounded result behind the guard, so
# that no driver can fuse a product into a sum or reassociate): every entry on both stacks with the
# corpus and NS random inputs, 0 in-domain cases outside their band (bits where the spec says
# bits), and its self-test on both stacks. Then the fusion control on wgpu/lavapipe (which fuses
# nothing itself): the default build with every product that a sum reads directly fused into a
# multiply-add with an unrounded product, as a fusing driver computes it, must change the bits of
# the 4x4 LU and inverse; in the strict build the same rewrite finds nothing to fuse (the
# generator's unit test wgsl::strict::tests holds that).
NS=$((N / 200 < 500 ? N / 200 : 500))
NS=$((NS > 50 ? NS : 50))
echo "wgsl: the strict build on both stacks, corpus and $NS random inputs per entry"
"$bin" wgsl --stack all --random "$NS" --strict >"$log/strict.txt" 2>&1 || {
    grep -E '^(outside|FAIL)' "$log/strict.txt" | head -n 20
    echo "wgsl: FAIL: the strict build (exit status above)"
    status=1
}
grep -E '^(wgpu|dawn): [0-9]+ entries' "$log/strict.txt" | sed 's/^/wgsl: strict build: /' || true
selftest strict --stack all --strict
control fuse wgpu 'aether_mat4f_(lu|inverse)' --fuse --only mat4f --random "$NS"
grep -E '^fuse:' "$log/fuse.txt" || true

# The reduced domain's 18.9 million combinations run on lavapipe here (SwiftShader needs about
# 35 s more for them on two cores); the report's run (docs/reports/integer-predicate.md) has them
# on both stacks.
"$bin" predicates --stack wgpu --random "$N" 2>&1 | grep -v XDG_RUNTIME_DIR || status=1
"$bin" predicates --stack dawn --random "$N" --no-reduced 2>&1 | grep -v XDG_RUNTIME_DIR || status=1
for c in carry wide-mul; do
    "$bin" predicates --stack wgpu --random "$NC" --control "$c" >"$log/pred-$c.txt" 2>&1 || { cat "$log/pred-$c.txt"; echo "wgsl: FAIL: the predicate control $c"; status=1; }
    grep -E '^predicates control' "$log/pred-$c.txt" || true
done

# df64: every f64 function of the spec in df64 (wgsl_core/aether_df64.wgsl) on both stacks, the
# corpus and ND random inputs each: the pairs bit-identical to the host df64 and the values within
# the running bound of the f64 reference, and the probes (computed and loaded; the contract's f32
# fails each); then the guard's controls on lavapipe, each of which must put cases outside the
# bound. The 10^6 run is docs/reports/df64.md (scripts/df64-report.sh).
ND=$((N / 20 > 200 ? N / 20 : 200))
df64() { # name args...
    local name=$1 rc=0
    shift
    "$bin" df64 "$@" >"$log/df64-$name.txt" 2>&1 || rc=$?
    grep -E '^(df64|  probe)' "$log/df64-$name.txt" | cut -c1-240 || true
    if [ "$rc" -ne 0 ]; then
        grep -E 'outside the bound \([^0]|first in-domain|FAIL|error' "$log/df64-$name.txt" | head -n 20 || true
        echo "wgsl: FAIL: df64 $name (exit $rc)"
        status=1
    fi
}
df64 core --stack all --random "$ND"
df64 guard-none --stack wgpu --random $((ND / 4)) --guard none
df64 guard-opaque-one --stack wgpu --random $((ND / 4)) --guard opaque-one

t2=$(date +%s)
echo "wgsl: ran in $((t2 - t1)) s (build $((t1 - t0)) s); status $status"
exit "$status"
