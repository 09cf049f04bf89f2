#!/usr/bin/env bash
# The CUDA core's checks that need no GPU (run by .ci/run). Installs nvcc from PyPI when it is
# missing (scripts/cuda-toolchain.sh), then:
#  1. PTX of every core function for sm_90 and sm_75 (the oldest architecture nvcc 13 accepts),
#     with -Werror all-warnings: each function's thunk in cuda_core/check/aether_cuda_flat.cuh
#     is one PTX function, with the core function inlined; the batched kernels of
#     cuda_core/aether_batch.cu likewise (sm_90). scripts/ptx-check.awk fails on any fma or mad, on any
#     f32/f64 add, sub, mul, div, sqrt or rcp without an explicit .rn, and on .ftz or .approx.
#  2. The negative control: the same core built with -DAETHER_UNSAFE_ALLOW_CONTRACTION (plain
#     operators on the device) must show fma instructions, named by function.
#  3. (information) --use_fast_math: the .ftz instructions no header can see, which is why the
#     device self-test exists.
#  4. The benchmark (cuda_core/check/aether_bench.cu with aether_batch.cu) builds, and the
#     self-test's host twin fails as it must under FTZ/DAZ and under host contraction, naming
#     the cause (flush, fusion).
#     tests/c/cuda_exhaustive.cu (scripts/cuda-device.sh runs it on the device over all 2^32
#     patterns) runs on the host path over 4 of its 256 blocks against the C core, and its
#     control (plain operators, host contraction) must differ.
#  6. The predicates (cuda_core/aether_predicate.cuh): PTX of a kernel per form for sm_90 and
#     sm_75 through the same PTX check (every f32/f64 instruction an explicit .rn), and the host
#     path of both forms on every case of the predicates' corpus parts.
#  5. The CUDA runner built with nvcc and run with --host: every corpus case and
#     CUDA_STATIC_RANDOM (default 10^5) random inputs per function against the reference,
#     through the host path of aether_core.cuh and the same dispatcher the device runs, and the
#     self-test's host twin (the device path needs a GPU: scripts/cuda-device.sh). Its device
#     code is embedded as compute_90 PTX only: the host path never runs it, and assembling it
#     to SASS (ptxas, about 50 s of the 2 cores) is what scripts/cuda-device.sh does on a GPU;
#     the benchmark above is still assembled for sm_90. The reference is AETHER_REFERENCE_LIB
#     when set (scripts/test.sh passes its test build's), else a release build.
# Prints one line per check and `cuda-static: all checks passed`; exit 1 on a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/cuda-toolchain.sh
source scripts/cuda-toolchain.sh
cuda_toolchain
echo "cuda-static: nvcc $NVCC_VERSION ($NVCC)"

out=build/cuda-static
rm -rf "$out"
mkdir -p "$out"
# The translation unit that makes every thunk a PTX function: a kernel that dispatches to them.
cat >"$out/ptx.cu" <<'EOF'
#include "aether_core.cuh"
#include "aether_cuda_flat.cuh"
extern "C" __global__ void aether_ptx_all(unsigned index, const uint64_t *in, size_t n_in, uint64_t *out, size_t cap, size_t *got)
{
    *got = aether_cuda_flat_call(index, in, n_in, out, cap);
}
EOF
includes=(-Icuda_core -Icuda_core/check -Ic_core/check)
thunks=$(sed -n 's/^#define AETHER_FLAT_COUNT \([0-9]*\)$/\1/p' c_core/check/aether_flat.h)
batches=$(grep -c '^int aether_[a-z0-9_]*_batch(' cuda_core/aether_batch.h)
failed=0

ptx() { # name flags...: compiles to $out/name.ptx, printing nvcc's output on failure
    local name=$1
    shift
    if ! "$NVCC" -Werror all-warnings -ptx "$@" -o "$out/$name.ptx" >"$out/$name.log" 2>&1; then
        cat "$out/$name.log"
        echo "cuda-static: FAIL: nvcc $* (warnings are errors)"
        return 1
    fi
}

# Three queues on the two cores: the core's PTX and the self-test programs; the batched kernels'
# PTX and the benchmark; the runner.
build() { # log command...: runs a build, printing its output on failure
    local log=$1
    shift
    "$@" >"$out/$log.log" 2>&1 || { cat "$out/$log.log"; echo "cuda-static: FAIL: $*"; return 1; }
}
# tests/c/cuda_exhaustive.cu against the C core's thunks (device code as PTX only: --host runs none).
exhaustive=(-Icuda_core -Icuda_core/check -Ic_core/check -Xcompiler -fopenmp tests/c/cuda_exhaustive.cu
    "$out/exhaustive_c_flat.o" -lgomp)
queue_core() {
    ptx core-sm_90 -arch=sm_90 "${includes[@]}" "$out/ptx.cu" &&
        ptx core-sm_75 -arch=sm_75 "${includes[@]}" "$out/ptx.cu" &&
        ptx control -arch=sm_90 -DAETHER_UNSAFE_ALLOW_CONTRACTION "${includes[@]}" "$out/ptx.cu" &&
        ptx fastmath -arch=sm_90 --use_fast_math "${includes[@]}" "$out/ptx.cu" && {
        [ "$(uname -m)" != x86_64 ] || {
            build selftest-host "$NVCC" -Werror all-warnings -O2 -Icuda_core tests/c/cuda_selftest.cu -o "$out/selftest_host" &&
                build selftest-fused "$NVCC" -Werror all-warnings -O2 -Icuda_core -DAETHER_UNSAFE_ALLOW_CONTRACTION \
                    -Xcompiler -mfma,-ffp-contract=fast tests/c/cuda_selftest.cu -o "$out/selftest_host_fused" &&
                build exhaustive-c gcc -std=c99 -O2 -Wall -Wextra -Werror -Ic_core -Ic_core/check -c \
                    tests/c/exhaustive_c_flat.c -o "$out/exhaustive_c_flat.o" &&
                build exhaustive-host "$NVCC" -Werror all-warnings -O2 -gencode arch=compute_90,code=compute_90 \
                    "${exhaustive[@]}" -o "$out/exhaustive_host" &&
                build exhaustive-fused "$NVCC" -Werror all-warnings -O2 -gencode arch=compute_90,code=compute_90 \
                    -DAETHER_UNSAFE_ALLOW_CONTRACTION -Xcompiler -mfma,-ffp-contract=fast "${exhaustive[@]}" \
                    -o "$out/exhaustive_host_fused"
        }
    }
}
queue_predicate() {
    ptx predicate-sm_90 -arch=sm_90 -Icuda_core -Icorpus cuda_core/check/aether_predicate_check.cu &&
        ptx predicate-sm_75 -arch=sm_75 -Icuda_core -Icorpus cuda_core/check/aether_predicate_check.cu &&
        build predicate-host "$NVCC" -Werror all-warnings -O2 -arch=sm_90 -Icuda_core -Icorpus \
            cuda_core/check/aether_predicate_check.cu -o "$out/aether_predicate_check"
}
queue_batch() {
    queue_predicate &&
    ptx batch-sm_90 -arch=sm_90 -Icuda_core cuda_core/aether_batch.cu &&
        build bench "$NVCC" -Werror all-warnings -Xcompiler -Wall,-Wextra -O3 -arch=sm_90 -Icuda_core \
            cuda_core/check/aether_bench.cu cuda_core/aether_batch.cu -o "$out/aether_bench"
}
queue_runner() {
    local lib=${AETHER_REFERENCE_LIB:-}
    if [ -z "$lib" ]; then
        cargo build -q --release -p aether-reference-capi || return 1
        lib=$PWD/target/release/libaether_reference_capi.a
    fi
    build runner make -s -C cuda_core/check "$PWD/$out/check/aether_check_reference" NVCC="$NVCC" BUILD="$PWD/$out/check" \
        NVCCFLAGS="-O3 -gencode arch=compute_90,code=compute_90" REFERENCE_LIB="$lib"
}
queue_core & core_pid=$!
queue_batch & batch_pid=$!
queue_runner & runner_pid=$!
wait "$core_pid" || failed=1
wait "$batch_pid" || failed=1
wait "$runner_pid" || failed=1
[ "$failed" = 0 ] || exit 1

for arch in sm_90 sm_75; do
    awk -v want_thunks="$thunks" -f scripts/ptx-check.awk "$out/core-$arch.ptx" || failed=1
done
awk -v want_batch="$batches" -f scripts/ptx-check.awk "$out/batch-sm_90.ptx" || failed=1
for arch in sm_90 sm_75; do
    awk -f scripts/ptx-check.awk "$out/predicate-$arch.ptx" | sed 's/^/cuda-static: predicates: /' || failed=1
done
"$out/aether_predicate_check" | sed 's/^/cuda-static: predicates (host): /' || failed=1
if awk -v expect_fma=1 -f scripts/ptx-check.awk "$out/control.ptx"; then
    echo "cuda-static: control: plain operators (-DAETHER_UNSAFE_ALLOW_CONTRACTION) give fma instructions, as they must"
else
    echo "cuda-static: FAIL: the control build with plain operators shows no fma: the PTX check cannot see contraction"
    failed=1
fi
ftz=$(grep -cE '^[[:space:]]*[a-z]+(\.[a-z0-9]+)*\.ftz\.f32' "$out/fastmath.ptx" || true)
fused=$(grep -cE '^[[:space:]]*(fma|mad)\.([a-z]+\.)*f(32|64)' "$out/fastmath.ptx" || true)
echo "cuda-static: (information) --use_fast_math: $ftz f32 instructions carry .ftz, $fused are fused; no macro shows the flush, the device self-test does"

# The self-test's host twin must fail in the stated way: flush-to-zero and denormals-are-zero set
# in MXCSR give bits 2 and 4 (the probes the device runs too; the witnesses then fail as well),
# and the core built with plain operators under host contraction (-mfma -ffp-contract=fast)
# fails its witnesses (bit 8). Each names its cause: the witnesses that fail under the flush are
# explained by it, those under contraction by fusion (bit 32, the cause probes fused as the core's
# code is), and no failure is left to a broken rule (bit 256).
if [ "$(uname -m)" = x86_64 ]; then
    ftz=$("$out/selftest_host" --host --ftz)
    fused=$("$out/selftest_host_fused" --host)
    echo "cuda-static: self-test (host) under FTZ|DAZ: $ftz"
    echo "cuda-static: self-test (host) with plain operators, -mfma -ffp-contract=fast: $fused"
    code=$(echo "$ftz" | sed -n 's/^status \([0-9]*\):.*/\1/p')
    [ -n "$code" ] && [ $((code & 6)) -eq 6 ] || { echo "cuda-static: FAIL: the self-test does not name FTZ and DAZ"; failed=1; }
    # Its failing witnesses are explained by the flush (the cause named), none left to a rule (bit 256).
    [ -n "$code" ] && [ $((code & 8)) -eq 8 ] && [ $((code & 256)) -eq 0 ] && case "$ftz" in *"explained by flushed subnormals"*) true ;; *) false ;; esac ||
        { echo "cuda-static: FAIL: the self-test under FTZ|DAZ does not name the flush as the cause of its failing witnesses"; failed=1; }
    # Contraction: witnesses fail (8), explained by fusion (32: the cause probes fuse too), no rule (256).
    case "$fused" in "status 40:"*"explained by fused products"*) ;; *) echo "cuda-static: FAIL: the self-test does not name contraction (fusion) as the cause"; failed=1 ;; esac
    # The exhaustive program of scripts/cuda-device.sh on the CUDA core's host path, over 4 of its
    # 256 blocks (x from 0, 2, -0 and -2 up: the tiny inputs and [2, 8) of either sign), and its
    # control: plain operators contracted on the host must differ from the C core on sin.
    log=$out/exhaustive.log
    if "$out/exhaustive_host" --host --blocks 4 >"$log" 2>&1; then
        tail -n 1 "$log" | sed 's/^/cuda-static: host: /'
    else
        cat "$log"
        echo "cuda-static: FAIL: the exhaustive program on the host path"
        failed=1
    fi
    if "$out/exhaustive_host_fused" --host --blocks 4 --only aether_f32_sin --control-expected >"$log" 2>&1; then
        echo "cuda-static: control: $(tail -n 1 "$log" | sed 's/^cuda_exhaustive: //') with plain operators under -mfma -ffp-contract=fast, as it must"
    else
        cat "$log"
        echo "cuda-static: FAIL: the exhaustive program does not see host contraction"
        failed=1
    fi
fi

# The runner on the host path: the corpus, then random inputs against the reference.
log=$out/host.log
if "$out/check/aether_check_reference" --host --quiet --random "${CUDA_STATIC_RANDOM:-100000}" >"$log" 2>&1; then
    grep -E '^aether_(check|cuda_selftest)' "$log" | sed 's/^/cuda-static: host: /'
else
    cat "$log"
    echo "cuda-static: FAIL: the CUDA runner on the host path"
    failed=1
fi

[ "$failed" = 0 ] || { echo "cuda-static: FAIL"; exit 1; }
echo "cuda-static: all checks passed"
