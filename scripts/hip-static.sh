#!/usr/bin/env bash
# The HIP core's checks that need no GPU: hipcc compiles HIP to AMD GPU code without one, as
# nvcc compiles PTX for scripts/cuda-static.sh. Installs Debian's hipcc (ROCm 5.2, clang 15)
# through scripts/apt.sh when it is missing; --install-only installs it and stops. Then:
#  1. The ISA of every core function for gfx90a (CDNA2) and gfx1030 (RDNA2) at hipcc's default
#     flags (its default -ffp-contract=fast-honor-pragmas included), warnings as errors:
#     hip_core/check/aether_hip_flat.hip has one kernel per callable, aether_hip_isa_<name>, into
#     which hipcc inlines the function, so each function's code is one kernel's.
#     scripts/hip-isa-check.awk counts each kernel's fused instructions (v_fma*, v_fmac*, v_mad*
#     and v_mac* of floats, v_madak/madmk, v_fmaak/fmamk, v_pk_fma*, v_fma_mix*, v_mad_mix*,
#     v_dot*) and approximate ones (v_rcp*, v_rsq*, v_sqrt*, v_exp*, v_log*, v_sin*, v_cos*). The
#     contract has no fused operation, but the device's correctly rounded division and square
#     root are sequences with fused refinements of their own (as is the f32 reciprocal estimate of
#     a 64-bit integer division), so each kernel's counts must equal what its divisions and square
#     roots explain: their markers (v_div_fixup, v_sqrt_f32, v_rsq_f64, ...) times the counts of
#     one division or square root compiled alone with the same flags for the same architecture
#     (the probes below). Any other fused instruction is a contraction and fails the check.
#  2. The same core with -ffp-contract=fast (clang then disregards the core's pragmas; its
#     product guards must hold alone), for gfx1030: the same check.
#  3. The negative control: -DAETHER_UNSAFE_ALLOW_CONTRACTION (no pragma, no guard) with
#     -ffp-contract=fast, for gfx90a, must show unexplained fused instructions, named by function.
#  4. The predicates (hip_core/aether_predicate.hip.h): a kernel per form for both architectures
#     through the same check, and the host path of both forms on every case of the predicates'
#     corpus parts.
#  5. The host path of the core: aether_hip_flat.hip's host thunks (hipcc --cuda-host-only) in
#     place of the C thunks under the C corpus runner (c_core/check/aether_check.c): every corpus
#     case against the corpus; with AETHER_REFERENCE_LIB set (the reference's C library, as
#     scripts/test.sh gives scripts/cuda-static.sh) also HIP_STATIC_RANDOM (default 10^5) random
#     inputs per function against the reference. Its control: the host thunks built with
#     -DAETHER_UNSAFE_ALLOW_CONTRACTION -ffp-contract=fast -mfma must give mismatches.
# Not checked here (it needs an AMD GPU): the device running the code, and the device flags that
# define no macro (-fno-hip-fp32-correctly-rounded-divide-sqrt, -fgpu-flush-denormals-to-zero).
# Prints one line per check and `hip-static: all checks passed`; exit 1 on a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
HIPCC=${HIPCC:-hipcc}
if ! command -v "$HIPCC" >/dev/null 2>&1; then
    # shellcheck source=scripts/apt.sh
    source scripts/apt.sh
    apt_install hipcc
fi
[ "${1:-}" != --install-only ] || exit 0

# hipcc --version asks rocm_agent_enumerator for the machine's GPUs (a traceback without one);
# the HIP headers and the clang that hipcc runs give the versions instead.
hip_version=$(sed -n 's/^#define HIP_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' /usr/include/hip/hip_version.h 2>/dev/null | paste -sd.)
clang_version=$("$HIPCC" --offload-arch=gfx90a --version 2>/dev/null | sed -n 's/.*clang version \([0-9.]*\).*/\1/p' | head -n 1)
echo "hip-static: hipcc $(command -v "$HIPCC"), HIP ${hip_version:-?}, clang ${clang_version:-?}"

out=build/hip-static
rm -rf "$out"
mkdir -p "$out"
archs=(gfx90a gfx1030)
# hipcc adds its link flags (-lamdhip64, ...) to every command; with -S and -c they are unused.
flags=(-Werror -Wall -Wno-unused-command-line-argument)
callables=$(sed -n 's/^#define AETHER_FLAT_COUNT \([0-9]*\)$/\1/p' c_core/check/aether_flat.h)
failed=0

# One of each expansion, alone: the counts the check scales by each kernel's markers.
cat >"$out/probe.hip" <<'EOF'
#include <hip/hip_runtime.h>
#include <math.h>
#include <stdint.h>
extern "C" __global__ void aether_hip_probe_div_f32(const float *a, float *r) { r[0] = a[0] / a[1]; }
extern "C" __global__ void aether_hip_probe_div_f64(const double *a, double *r) { r[0] = a[0] / a[1]; }
extern "C" __global__ void aether_hip_probe_sqrt_f32(const float *a, float *r) { r[0] = sqrtf(a[0]); }
extern "C" __global__ void aether_hip_probe_sqrt_f64(const double *a, double *r) { r[0] = sqrt(a[0]); }
extern "C" __global__ void aether_hip_probe_udiv_u64(const uint64_t *a, uint64_t *r) { r[0] = a[0] / a[1]; }
EOF

isa() { # name arch source flags...: the device assembly into $out/name.s, hipcc's output on failure
    local name=$1 arch=$2 src=$3
    shift 3
    if ! "$HIPCC" --offload-arch="$arch" --cuda-device-only -S "${flags[@]}" "$@" "$src" -o "$out/$name.s" >"$out/$name.log" 2>&1; then
        cat "$out/$name.log"
        echo "hip-static: FAIL: hipcc --offload-arch=$arch --cuda-device-only -S $* $src (warnings are errors)"
        return 1
    fi
}
build() { # log command...: runs a build, printing its output on failure
    local log=$1
    shift
    "$@" >"$out/$log.log" 2>&1 || { cat "$out/$log.log"; echo "hip-static: FAIL: $*"; return 1; }
}
core=hip_core/check/aether_hip_flat.hip
core_inc=(-Ihip_core -Ic_core/check)
pred=hip_core/check/aether_predicate_check.hip
pred_inc=(-Ihip_core -Icorpus)
runner=(gcc -std=c99 -O2 -Wall -Wextra -Werror -Ic_core -Ic_core/check -Icorpus)
host_thunks() { # name flags...: the host thunks of the core, without kernels
    local name=$1
    shift
    build "$name" "$HIPCC" --offload-arch=gfx90a --cuda-host-only -DAETHER_HIP_FLAT_NO_KERNELS -c -O2 "${flags[@]}" -Wextra "$@" \
        "${core_inc[@]}" "$core" -o "$out/$name.o"
}
queue_a() {
    isa probe-gfx90a gfx90a "$out/probe.hip" && isa core-gfx90a gfx90a "$core" "${core_inc[@]}" &&
        isa control-gfx90a gfx90a "$core" -DAETHER_UNSAFE_ALLOW_CONTRACTION -ffp-contract=fast "${core_inc[@]}" &&
        isa predicate-gfx90a gfx90a "$pred" "${pred_inc[@]}" &&
        build predicate-host "$HIPCC" --offload-arch=gfx90a -O2 "${flags[@]}" "${pred_inc[@]}" "$pred" -o "$out/aether_predicate_check"
}
queue_b() {
    isa probe-gfx1030 gfx1030 "$out/probe.hip" && isa core-gfx1030 gfx1030 "$core" "${core_inc[@]}" &&
        isa fast-gfx1030 gfx1030 "$core" -ffp-contract=fast "${core_inc[@]}" &&
        isa predicate-gfx1030 gfx1030 "$pred" "${pred_inc[@]}" &&
        host_thunks hip-flat-host && host_thunks hip-flat-fused -DAETHER_UNSAFE_ALLOW_CONTRACTION -ffp-contract=fast -mfma &&
        build runner "${runner[@]}" c_core/check/aether_check.c c_core/aether_core.c "$out/hip-flat-host.o" -lm -lstdc++ \
            -o "$out/aether_check_hip" &&
        build runner-fused "${runner[@]}" c_core/check/aether_check.c c_core/aether_core.c "$out/hip-flat-fused.o" -lm -lstdc++ \
            -o "$out/aether_check_hip_fused" && {
        [ -z "${AETHER_REFERENCE_LIB:-}" ] ||
            build runner-reference "${runner[@]}" -DAETHER_CHECK_REFERENCE -Ireference-capi/include c_core/check/aether_check.c \
                c_core/aether_core.c "$out/hip-flat-host.o" "$AETHER_REFERENCE_LIB" -lpthread -ldl -lm -lstdc++ \
                -o "$out/aether_check_hip_reference"
    }
}
queue_a & a_pid=$!
queue_b & b_pid=$!
wait "$a_pid" || failed=1
wait "$b_pid" || failed=1
[ "$failed" = 0 ] || { echo "hip-static: FAIL"; exit 1; }

for arch in "${archs[@]}"; do
    awk -v want_kernels="$callables" -f scripts/hip-isa-check.awk "$out/probe-$arch.s" "$out/core-$arch.s" |
        sed "s/^hip-isa-check: /hip-static: $arch: /" || failed=1
done
awk -v want_kernels="$callables" -f scripts/hip-isa-check.awk "$out/probe-gfx1030.s" "$out/fast-gfx1030.s" |
    sed 's/^hip-isa-check: /hip-static: gfx1030 -ffp-contract=fast (the guards alone): /' || failed=1
for arch in "${archs[@]}"; do
    awk -f scripts/hip-isa-check.awk "$out/probe-$arch.s" "$out/predicate-$arch.s" | sed "s/^hip-isa-check: /hip-static: predicates: $arch: /" ||
        failed=1
done
if control=$(awk -v expect_fused=1 -f scripts/hip-isa-check.awk "$out/probe-gfx90a.s" "$out/control-gfx90a.s"); then
    echo "$control" | sed 's/^hip-isa-check: /hip-static: control: gfx90a: /'
    echo "hip-static: control: no pragma and no guard (-DAETHER_UNSAFE_ALLOW_CONTRACTION) under -ffp-contract=fast gives fused instructions no expansion explains, as it must"
else
    echo "$control"
    echo "hip-static: FAIL: the control build with contraction on shows no unexplained fused instruction: the ISA check cannot see contraction"
    failed=1
fi

"$out/aether_predicate_check" | sed 's/^/hip-static: predicates (host): /' || failed=1

# The host path on the corpus, and its control.
log=$out/host.log
if "$out/aether_check_hip" >"$log" 2>&1; then
    grep -E '^aether_check: corpus' "$log" | sed 's/^aether_check: /hip-static: host path: /'
else
    cat "$log"
    echo "hip-static: FAIL: the C corpus runner on the HIP core's host thunks"
    failed=1
fi
if "$out/aether_check_hip_fused" >"$log" 2>&1; then
    cat "$log"
    echo "hip-static: FAIL: the host thunks with contraction on pass the corpus: the runner cannot see contraction"
    failed=1
else
    echo "hip-static: control: host thunks with -DAETHER_UNSAFE_ALLOW_CONTRACTION -ffp-contract=fast -mfma: $(grep -E '^aether_check: corpus' "$log" | sed 's/^aether_check: //'), as they must"
fi
if [ -n "${AETHER_REFERENCE_LIB:-}" ]; then
    if "$out/aether_check_hip_reference" --quiet --random "${HIP_STATIC_RANDOM:-100000}" >"$log" 2>&1; then
        grep -E '^aether_check: (corpus|random)' "$log" | sed 's/^aether_check: /hip-static: host path: /'
    else
        cat "$log"
        echo "hip-static: FAIL: random inputs on the HIP core's host path against the reference"
        failed=1
    fi
else
    echo "hip-static: (information) AETHER_REFERENCE_LIB is not set: the host path ran the corpus only, no random inputs"
fi

[ "$failed" = 0 ] || { echo "hip-static: FAIL"; exit 1; }
echo "hip-static: all checks passed"
