#!/usr/bin/env bash
# The pure-C runner's random mode: N random inputs per function (default 100000), each
# compared with the Rust reference exported as a C library (reference-capi, cbindgen), on top
# of the whole corpus. Built with gcc at the consumer's defaults (-O2, GNU C, so GCC's default
# -ffp-contract=fast) and with clang -O3 -march=native -ffp-contract=fast. A negative control
# (the guards disabled) must report random mismatches.
#   usage: scripts/c-random.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-100000}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The reference as a C static library: AETHER_REFERENCE_LIB when set (scripts/test.sh passes
# the one its optimised test build made, so the reference is not built a second time), else a
# release build.
if [ -n "${AETHER_REFERENCE_LIB:-}" ]; then
    lib=$AETHER_REFERENCE_LIB
else
    cargo build -q --release -p aether-reference-capi
    lib="$(pwd)/target/release/libaether_reference_capi.a"
fi
[ -f "$lib" ] || { echo "c-random: no reference library at $lib" >&2; exit 2; }

run() {
    local what="$1" cc="$2" flags="$3"
    make -s -C c_core/check random CC="$cc" CFLAGS="$flags" BUILD="$tmp/$what" REFERENCE_LIB="$lib" \
        RANDOM="$n" CHECKFLAGS=--quiet >"$tmp/$what.txt" 2>&1 || { cat "$tmp/$what.txt" >&2; echo "c-random: $what ($cc $flags) FAILED" >&2; exit 1; }
    echo "c-random: $cc $flags: $(grep '^aether_check: random:' "$tmp/$what.txt" | cut -d: -f3-)"
}
run gcc-default gcc "-O2"
run clang-native clang "-O3 -march=native -ffp-contract=fast"

# Negative control: the guards disabled under contraction; the random mode alone must see it.
set +e
make -s -C c_core/check random CC=gcc CFLAGS="-O2 -ffp-contract=fast -mfma -DAETHER_UNSAFE_ALLOW_CONTRACTION" \
    BUILD="$tmp/unguarded" REFERENCE_LIB="$lib" RANDOM=2000 CHECKFLAGS="--quiet --no-selftest" >"$tmp/unguarded.txt" 2>&1
set -e
line=$(grep '^aether_check: random:' "$tmp/unguarded.txt" || true)
bad=$(echo "$line" | sed -n 's/.*, \([0-9]*\) mismatches$/\1/p')
if [ -z "$bad" ] || [ "$bad" -eq 0 ]; then
    cat "$tmp/unguarded.txt" >&2
    echo "c-random: FAILED: the random mode does not see the unguarded contracted core" >&2
    exit 1
fi
echo "c-random: negative control (gcc -O2 -ffp-contract=fast -mfma -DAETHER_UNSAFE_ALLOW_CONTRACTION, 2000 inputs per function): $bad random mismatches"
