#!/usr/bin/env bash
# The CUDA core on a GPU, in three steps, so that the GPU's time is spent only on running:
#
#   bash scripts/cuda-device.sh build          # here, no GPU needed: nvcc from PyPI
#                                              # (scripts/cuda-toolchain.sh), the reference's C
#                                              # library, and every binary into build/cuda-device/
#   bash scripts/cuda-device.sh run DIR        # on the GPU machine, from the repository root with
#                                              # build/cuda-device carried there: runs them, writes
#                                              # DIR/*.log (a few minutes on an H200)
#   bash scripts/cuda-device.sh report DIR     # here: docs/reports/cuda-device.md from DIR's logs
#
# `run` does, on the device: every one-input f32 function over all 2^32 patterns against the C
# core (tests/c/cuda_exhaustive.cu, with its control: plain operators on the device must differ),
# the corpus and RANDOM (default 10^6) random inputs per function against the Rust reference
# (aether_check_reference --each: one line per function for the corpus and for the random
# inputs, a line per mismatch), the device self-test built normally and with --use_fast_math
# (which it must name), the negative control (the core with plain operators, which must report
# mismatches), and the throughput of every batched kernel against a device copy kernel, with the
# intrinsics and with plain operators. ARCH (default sm_90) is the GPU's architecture.
# scripts/gpu-session.sh wraps build and run for a short GPU lease.
set -euo pipefail
cd "$(dirname "$0")/.."
step=${1:-}
dir=build/cuda-device
ARCH=${ARCH:-sm_90}
RANDOM_N=${RANDOM_N:-1000000}

# waitall: waits for every background job, failing when one failed (a bare `wait` returns 0).
waitall() {
    local job rc=0
    for job in $(jobs -p); do wait "$job" || rc=$?; done
    return "$rc"
}

case "$step" in
build)
    # shellcheck source=scripts/cuda-toolchain.sh
    source scripts/cuda-toolchain.sh
    cuda_toolchain
    cargo build -q --release -p aether-reference-capi
    rm -rf "$dir"
    mkdir -p "$dir/lib"
    make -s -C cuda_core/check NVCC="$NVCC" ARCH="$ARCH" BUILD="$PWD/$dir" \
        "$PWD/$dir/aether_check_reference" "$PWD/$dir/aether_check_control"
    flags=(-Werror all-warnings -O3 -arch="$ARCH" -Icuda_core)
    "$NVCC" "${flags[@]}" cuda_core/check/aether_bench.cu cuda_core/aether_batch.cu -o "$dir/aether_bench" &
    "$NVCC" "${flags[@]}" -DAETHER_UNSAFE_ALLOW_CONTRACTION cuda_core/check/aether_bench.cu cuda_core/aether_batch.cu \
        -o "$dir/aether_bench_plain" &
    waitall
    # The self-test as a consumer calls it, built with the default flags and with --use_fast_math.
    "$NVCC" "${flags[@]}" tests/c/cuda_selftest.cu -o "$dir/selftest"
    "$NVCC" "${flags[@]}" --use_fast_math tests/c/cuda_selftest.cu -o "$dir/selftest_fastmath"
    # Every one-input f32 function over all 2^32 patterns on the device against the C core
    # (tests/c/cuda_exhaustive.cu), and its control with plain operators on the device.
    gcc -std=c99 -O2 -Wall -Wextra -Ic_core -Ic_core/check -c tests/c/exhaustive_c_flat.c -o "$dir/exhaustive_c_flat.o"
    exhaustive=(-Icuda_core/check -Ic_core/check -Xcompiler -fopenmp tests/c/cuda_exhaustive.cu "$dir/exhaustive_c_flat.o" -lgomp)
    "$NVCC" "${flags[@]}" "${exhaustive[@]}" -o "$dir/exhaustive" &
    "$NVCC" "${flags[@]}" -DAETHER_UNSAFE_ALLOW_CONTRACTION "${exhaustive[@]}" -o "$dir/exhaustive_plain" &
    waitall
    # The host libraries the binaries need beyond libc (the GPU machine may be bare).
    for lib in $(ldd "$dir"/aether_check_reference "$dir"/aether_bench "$dir"/exhaustive | awk '/=> \// { print $3 }' | sort -u); do
        case "$(basename "$lib")" in
        libc.so* | libm.so* | libdl.so* | libpthread.so* | librt.so* | ld-linux*) ;;
        *) cp -L "$lib" "$dir/lib/" ;;
        esac
    done
    # What travels to the GPU machine is limited (64 MiB with the working tree): no host symbols.
    rm -f "$dir/exhaustive_c_flat.o"
    strip "$dir"/aether_* "$dir"/exhaustive* "$dir"/selftest*
    echo "$NVCC_VERSION" >"$dir/nvcc-version"
    echo "cuda-device: built $(ls "$dir" | tr '\n' ' ')($(du -sh "$dir" | cut -f1)) with nvcc $NVCC_VERSION for $ARCH"
    ;;
run)
    out=${2:?usage: cuda-device.sh run DIR}
    mkdir -p "$out"
    export LD_LIBRARY_PATH="$PWD/$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    {
        date -u '+%Y-%m-%d %H:%M UTC'
        nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 || echo "nvidia-smi: not available"
        echo "nvcc $(cat "$dir/nvcc-version")"
    } >"$out/machine.log"
    cat "$out/machine.log"
    status=0
    run() { # name timeout command...: runs it into DIR/name.log, printing its last lines
        local name=$1 limit=$2 rc=0 t0=$SECONDS
        shift 2
        timeout "$limit" "$@" >"$out/$name.log" 2>&1 || rc=$?
        echo "cuda-device: $name: exit $rc ($((SECONDS - t0)) s)" | tee -a "$out/steps.log"
        tail -n 4 "$out/$name.log"
        return "$rc"
    }
    run selftest 60 "$dir/selftest" || status=1
    grep -q '^status 0:' "$out/selftest.log" || { echo "cuda-device: FAIL: the device self-test does not pass"; status=1; }
    run selftest_fastmath 60 "$dir/selftest_fastmath" || status=1
    # --use_fast_math must be named: the flush-to-zero bit (2) set.
    fast=$(sed -n 's/^status \([0-9]*\):.*/\1/p' "$out/selftest_fastmath.log")
    if [ -n "$fast" ] && [ $((fast & 2)) -ne 0 ]; then
        echo "cuda-device: the self-test built with --use_fast_math names the flush (status $fast), as it must"
    else
        echo "cuda-device: FAIL: the self-test built with --use_fast_math does not see the flush (status ${fast:-none})"
        status=1
    fi
    # Every one-input f32 function over all 2^32 patterns, the device against the C core.
    run exhaustive 240 "$dir/exhaustive" || status=1
    run check 240 "$dir/aether_check_reference" --random "$RANDOM_N" --each || status=1
    run control 120 "$dir/aether_check_control" --control-expected --quiet || status=1
    # Its control: plain operators on the device must differ from the C core somewhere
    # (16 of the 256 blocks, evenly spaced).
    run exhaustive_plain 120 "$dir/exhaustive_plain" --blocks 16 --control-expected || status=1
    run bench 120 "$dir/aether_bench" || status=1
    # The control: with plain operators some items must differ from the host path (exit 1).
    rc=0
    run bench_plain 120 "$dir/aether_bench_plain" || rc=$?
    case $rc in
    1) echo "cuda-device: the plain-operator benchmark differs from the host path, as it must" ;;
    0) echo "cuda-device: FAIL: the plain-operator benchmark matched the host path everywhere"; status=1 ;;
    *) status=1 ;;
    esac
    exit "$status"
    ;;
report)
    in=${2:?usage: cuda-device.sh report DIR}
    doc=docs/reports/cuda-device.md
    {
        echo "# The CUDA core on a GPU"
        echo
        echo "Generated by \`bash scripts/cuda-device.sh report\` from the logs of \`bash scripts/cuda-device.sh run\`"
        echo "(binaries from \`bash scripts/cuda-device.sh build\`). Machine, driver and compiler:"
        echo
        sed 's/^/    /' "$in/machine.log"
        echo
        echo "Each step's exit status and wall time on the device machine:"
        echo
        sed 's/^/    /' "$in/steps.log"
        echo
        echo "## Corpus and random inputs on the device, against the reference"
        echo
        echo "\`aether_check_reference --random $RANDOM_N\`: every corpus case, then $RANDOM_N random inputs per"
        echo "function, run on the GPU (one thread per input) and compared bit for bit, under the spec's"
        echo "policy, with the corpus and with the Rust reference's C library on the host."
        echo
        grep -E '^aether_(check|cuda_selftest)' "$in/check.log" | sed 's/^/    /'
        echo
        echo "<details><summary>Every line of the run</summary>"
        echo
        sed 's/^/    /' "$in/check.log"
        echo
        echo "</details>"
        echo
        echo "## Every one-input f32 function over all 2^32 patterns"
        echo
        echo "\`tests/c/cuda_exhaustive.cu\`: every entry of the flat convention's table with one 32-bit input"
        echo "word (sign, neg, abs and the f32 elementary functions), run on the GPU over every bit pattern"
        echo "(256 blocks of 2^24 inputs, one thread per input) and compared under the spec's policy with"
        echo "the C core (its thunks in \`tests/c/exhaustive_c_flat.c\`, built by gcc -O2 and run on the"
        echo "host's cores). The exhaustive sweep (\`scripts/sweep.sh\`, \`docs/reports/exhaustive-f32.md\`)"
        echo "compares the C core with the Rust reference over the same patterns."
        echo
        sed 's/^/    /' "$in/exhaustive.log"
        echo
        echo "Its control: the same program with plain operators on the device"
        echo "(\`-DAETHER_UNSAFE_ALLOW_CONTRACTION\`, which nvcc contracts into FMAs), over 16 of the 256"
        echo "blocks, evenly spaced; the run passes only when some input mismatches:"
        echo
        sed 's/^/    /' "$in/exhaustive_plain.log"
        echo
        echo "## The self-test on the device"
        echo
        echo "Built with the default flags:"
        echo
        sed 's/^/    /' "$in/selftest.log"
        echo
        echo "Built with \`--use_fast_math\` (which implies \`-ftz=true\`; no macro shows it):"
        echo
        sed 's/^/    /' "$in/selftest_fastmath.log"
        echo
        echo "## Negative control: plain operators"
        echo
        echo "The same runner with \`-DAETHER_UNSAFE_ALLOW_CONTRACTION\` (plain operators on the device, which"
        echo "nvcc contracts into FMAs); the run passes only when it reports mismatches."
        echo
        grep -E '^aether_check' "$in/control.log" | sed 's/^/    /'
        echo
        echo "## Throughput"
        echo
        echo "Bytes each batched kernel must read and write per second, against a device-to-device copy"
        echo "kernel in the same run (\`aether_bench\`), and each kernel's check against the host path of"
        echo "aether_core.cuh; the last column is the same kernel built with plain operators"
        echo "(\`aether_bench_plain\`: GB/s, and its own check, where items must differ)."
        echo
        head -n 1 "$in/bench.log"
        echo
        awk -F'|' 'NR == FNR { if ($2 ~ /aether_/) { c = $8; gsub(/^ +| +$|\*/, "", c); plain[$2] = $6 "(" c ") " }; next }
            /^\| kernel/ { print $0 " plain operators |"; next }
            /^\|---/ { print $0 "---:|"; next }
            /^\|/ { p = ($2 in plain) ? plain[$2] : " - "; print $0 p "|" }' "$in/bench_plain.log" "$in/bench.log"
    } >"$doc"
    echo "cuda-device: wrote $doc"
    ;;
*)
    echo "usage: $0 build | run DIR | report DIR" >&2
    exit 2
    ;;
esac
