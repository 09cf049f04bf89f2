#!/usr/bin/env bash
# The Rust core (rust_core/) on every build the issue names, against the reference, in one
# run: the runner crate rust-check built in debug (opt-level 0, overflow checks), in release,
# in release for this machine's CPU (-C target-cpu=native: AVX2 and FMA where it has them;
# rustc must still not fuse) and, with --report, for x86-64-v3, for aarch64 under qemu-user, and for wasm32-wasip1
# under Node's WASI with and without simd128 (without it the core's integer square root
# runs); plus a rule mutant's core (true division instead of the reciprocal product), which
# must fail, and only where the mutant changes a tree. Every runner gets the same inputs:
# every corpus case and N random inputs per function (kernels N/5).
#
#   scripts/rust-core.sh [--per-function N] [--report FILE]
#
# CI runs N = 2000 (about 640,000 inputs per runner); docs/reports/rust-core.md is the
# run with N = 100000. Installs (apt) qemu-user, gcc-aarch64-linux-gnu and
# libc6-dev-arm64-cross, and (rustup) the aarch64-unknown-linux-gnu and wasm32-wasip1
# standard libraries when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
per=2000
report=""
while [ $# -gt 0 ]; do
    case $1 in
        --per-function) per=$2; shift 2 ;;
        --report) report=$2; shift 2 ;;
        --install-only) install_only=1; shift ;;
        *) echo "usage: $0 [--per-function N] [--report FILE]" >&2; exit 2 ;;
    esac
done
# shellcheck source=scripts/apt.sh
source scripts/apt.sh
missing=()
command -v qemu-aarch64 >/dev/null 2>&1 || missing+=(qemu-user)
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || missing+=(gcc-aarch64-linux-gnu)
[ -e /usr/aarch64-linux-gnu/lib/libc.so.6 ] || missing+=(libc6-dev-arm64-cross)
[ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
installed=$(rustup target list --installed)
for t in aarch64-unknown-linux-gnu wasm32-wasip1; do
    grep -qx "$t" <<<"$installed" || rustup target add "$t"
done
[ "${install_only:-0}" = 1 ] && exit 0
command -v node >/dev/null || { echo "rust-core: node is needed for the wasm32 runs" >&2; exit 2; }

t0=$SECONDS
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build() { # target dir, extra cargo args...: builds the runner quietly
    local dir=$1
    shift
    CARGO_TARGET_DIR=$dir cargo build -q -p aether-rust-check "$@"
}
build target
build target --release
# x86-64-v3 (AVX2 and FMA) is a subset of this machine's native CPU, and the core has no code
# for it alone (its SIMD forms are SSE's, and rustc never contracts): the report's run builds
# it, CI (no --report) takes native for both.
if [ -n "$report" ]; then
    RUSTFLAGS="-C target-cpu=x86-64-v3" build target/rust-core-v3 --release
    v3=("x86-64-v3=target/rust-core-v3/release/aether-rust-check")
    runs=8
else
    v3=()
    runs=7
fi
RUSTFLAGS="-C target-cpu=native" build target/rust-core-native --release
CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc build target --release --target aarch64-unknown-linux-gnu
build target --release --target wasm32-wasip1
RUSTFLAGS="-C target-feature=+simd128" build target/rust-core-simd128 --release --target wasm32-wasip1
# The mutant's core and a runner over it, a workspace of their own.
# The checker with the test profile: the build scripts/test.sh made for the workspace's tests (no
# second build of the C core and the generator).
cargo build -q --profile test -p aether-tests --bin rust_core_check
target/debug/rust_core_check --write-mutant true-division "$tmp/mutant"
CARGO_TARGET_DIR=target/rust-core-mutant cargo build -q --release --manifest-path "$tmp/mutant/rust-check/Cargo.toml"
echo "rust-core: built $runs runners in $((SECONDS - t0)) s"

wasi="node --no-warnings scripts/wasi-run.mjs"
# The self-test on every build; the mutant's must fail it (its witnesses come from the contract's
# corpus).
selftests=(target/debug/aether-rust-check target/release/aether-rust-check target/rust-core-native/release/aether-rust-check)
[ ${#v3[@]} -eq 0 ] || selftests+=(target/rust-core-v3/release/aether-rust-check)
for run in "${selftests[@]}" \
    "qemu-aarch64 -L /usr/aarch64-linux-gnu target/aarch64-unknown-linux-gnu/release/aether-rust-check" \
    "$wasi target/wasm32-wasip1/release/aether-rust-check.wasm" "$wasi target/rust-core-simd128/wasm32-wasip1/release/aether-rust-check.wasm"; do
    $run --selftest >"$tmp/selftest.txt" || { cat "$tmp/selftest.txt"; echo "rust-core: the self-test fails under $run" >&2; exit 1; }
done
echo "rust-core: $(cat "$tmp/selftest.txt") on all $((runs - 1)) builds"
if target/rust-core-mutant/release/aether-rust-check --selftest >"$tmp/selftest.txt"; then
    echo "rust-core: the true-division mutant's core passes the self-test" >&2
    exit 1
fi
echo "rust-core: the mutant's self-test fails, as it must: $(cat "$tmp/selftest.txt")"
target/debug/rust_core_check --per-function "$per" --expect-fail mutant:true-division \
    "debug=target/debug/aether-rust-check" \
    "release=target/release/aether-rust-check" \
    ${v3[@]+"${v3[@]}"} \
    "native=target/rust-core-native/release/aether-rust-check" \
    "aarch64=qemu-aarch64 -L /usr/aarch64-linux-gnu target/aarch64-unknown-linux-gnu/release/aether-rust-check" \
    "wasm32=$wasi target/wasm32-wasip1/release/aether-rust-check.wasm" \
    "wasm32-simd128=$wasi target/rust-core-simd128/wasm32-wasip1/release/aether-rust-check.wasm" \
    "mutant=target/rust-core-mutant/release/aether-rust-check" | tee "$tmp/out.txt"
# The crate as a user gets it: cargo package (the packaged files build alone), and the consumer
# crate outside the workspace (examples/rust-consumer: by path, with the glam, mint and bytemuck
# features): its tests and doctests, and its program's line on x86_64, aarch64 and wasm32,
# which must be examples/rust-consumer/expected.txt on each.
cargo package -q -p aether-core --allow-dirty
consumer=(--manifest-path examples/rust-consumer/Cargo.toml)
export CARGO_TARGET_DIR=target/rust-consumer
cargo test -q "${consumer[@]}"
cargo fmt "${consumer[@]}" -- --check
cargo clippy -q "${consumer[@]}" --all-targets -- -D warnings
cargo build -q --release "${consumer[@]}"
CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc cargo build -q --release "${consumer[@]}" --target aarch64-unknown-linux-gnu
cargo build -q --release "${consumer[@]}" --target wasm32-wasip1
for run in "target/rust-consumer/release/aether-rust-consumer" \
    "qemu-aarch64 -L /usr/aarch64-linux-gnu target/rust-consumer/aarch64-unknown-linux-gnu/release/aether-rust-consumer" \
    "$wasi target/rust-consumer/wasm32-wasip1/release/aether-rust-consumer.wasm"; do
    if ! $run | diff examples/rust-consumer/expected.txt - >/dev/null; then
        echo "rust-core: the consumer's line differs from examples/rust-consumer/expected.txt under: $run" >&2
        $run >&2
        exit 1
    fi
done
unset CARGO_TARGET_DIR
echo "rust-core: the packaged crate builds; the consumer crate's tests and doctests pass; its line is the expected one on x86_64, aarch64 and wasm32"
echo "rust-core: $((SECONDS - t0)) s in all"
if [ -n "$report" ]; then
    {
        echo "# The Rust core against the reference on eight builds"
        echo
        echo "Written by \`scripts/rust-core.sh --per-function $per --report $report\` on $(date -u +%Y-%m-%d)"
        echo "($(rustc --version), $(qemu-aarch64 --version | head -1), node $(node --version),"
        echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'))."
        echo "Every runner got every corpus case and $per random inputs per function (kernels over"
        echo "arrays $((per / 5))), the same inputs for each, and every function's inputs again through each of"
        echo "its batched forms (\`_aos\` and \`_soa\`, in requests of up to 4096 items), so that the count is the"
        echo "callables' inputs plus twice the functions'; a mismatch is a result the comparison policy"
        echo "does not accept as the reference's. The mutant is the core generated with true division"
        echo "where the contract multiplies by the reciprocal: it must fail, and only in callables whose"
        echo "tree the mutation changes."
        echo
        echo '```'
        cat "$tmp/out.txt"
        echo '```'
    } >"$report"
    echo "rust-core: wrote $report"
fi
