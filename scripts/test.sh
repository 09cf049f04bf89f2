#!/usr/bin/env bash
# The whole test suite, on a fresh machine of this kind: installs clang and
# libclang-dev (bindgen needs libclang) through apt when they are missing, then
# runs every Rust test, the C compile and fence checks, and the C consumer kit's
# checks (which install cmake, pkg-config and gcc-multilib when missing), and the CUDA core's
# static checks (which install nvcc from PyPI when it is missing), the HIP core's (hipcc from
# Debian), and the
# WGSL core on two WebGPU stacks (which installs lavapipe, SwiftShader and
# Dawn for Node when missing), the OpenCL core on PoCL (which installs
# pocl-opencl-icd when missing), and the GLSL ES core on two GL stacks (which
# installs Chromium, Mesa's EGL and GLES, and glslang when missing), the Python package in a
# fresh venv (numpy and pytest from PyPI) and the web package in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/null-device.sh
source scripts/null-device.sh
null_device

need=()
command -v clang >/dev/null || need+=(clang)
ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1 || need+=(libclang-dev)
# cglm's headers for the benchmark's bit check (scripts/bench.sh --check).
[ -f /usr/include/cglm/cglm.h ] || need+=(libcglm-dev)
# shellcheck source=scripts/apt.sh
source scripts/apt.sh
[ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"

# nvcc from PyPI (into build/cuda) when none is found: the generator's tests compile accepted
# hostile specs to PTX with it, and cuda-static.sh below reuses it.
# shellcheck source=scripts/cuda-toolchain.sh
source scripts/cuda-toolchain.sh
cuda_toolchain
export NVCC AETHER_REQUIRE_NVCC=1

# The two WebGPU stacks (lavapipe for wgpu, SwiftShader for Dawn; apt and npm):
# the runner's tests run the WGSL core on both, and must not skip them here.
# shellcheck source=scripts/wgsl-stacks.sh
source scripts/wgsl-stacks.sh
wgsl_stacks
export AETHER_REQUIRE_WGSL=1

# The two GL stacks (Mesa's GLES on llvmpipe, Chromium's WebGL2 on SwiftShader) and glslang:
# the runner's GLSL tests run on them and must not skip here.
# shellcheck source=scripts/glsl-stacks.sh
source scripts/glsl-stacks.sh
glsl_stacks
export AETHER_REQUIRE_GLSL=1

# PoCL (OpenCL 3.0 on this CPU) and the ICD loader: the OpenCL core's device
# test runs on it and must not skip here.
# shellcheck source=scripts/pocl.sh
source scripts/pocl.sh
pocl_platform || true
export AETHER_REQUIRE_OPENCL=1

# While cargo builds (CPU-bound), apt fetches and installs (mostly I/O) what the later steps
# need: the consumer kit's cmake and pkg-config, the negative controls' gcc multilib and, with
# AETHER_PREINSTALL_COMPAT=1 (.ci/run, which runs the compatibility matrix next), the
# matrix's cross compilers, emulators and WASI runtime. One background job, so one apt at a
# time; it is waited for (and its failure fails the suite) before any step that needs them.
step() { # name command...: runs a step, printing its wall time
    local name=$1 t0=$SECONDS
    shift
    echo "== test: $name"
    "$@"
    echo "== test: $name took $((SECONDS - t0)) s (total $SECONDS s)"
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefetch() {
    bash scripts/consumer-kit.sh --install-only
    bash scripts/negative-controls.sh --install-only
    bash scripts/rust-core.sh --install-only
    if [ "${AETHER_PREINSTALL_COMPAT:-0}" = 1 ]; then bash scripts/compat-matrix.sh --install-only; fi
}
prefetch >"$tmp/prefetch.log" 2>&1 &
prefetch_pid=$!

# Every test binary. The later scripts take what this build made, named by cargo's artifact
# messages: the reference's static library (the C and CUDA runners link it; optimised, so no
# release build of the reference), the runner and the OpenCL host program. A `cargo build -p`
# of any of them would resolve the dependencies' features for that package alone (without the
# workspace's and the dev-dependencies') and build them all again: 2-3 minutes here.
build_all() { cargo test --workspace --no-run --message-format=json-render-diagnostics >"$tmp/artifacts.json"; }
step "build" build_all
artifact() { # target name, file suffix ("" for the executable): the path the build wrote
    python3 - "$tmp/artifacts.json" "$1" "$2" <<'EOF'
import json, sys
path, name, suffix = sys.argv[1:]
found = []
for line in open(path):
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") != "compiler-artifact" or m["target"]["name"] != name:
        continue
    if suffix:
        found += [f for f in m["filenames"] if f.endswith(suffix)]
    elif m.get("executable") and "bin" in m["target"]["kind"] and not m["profile"]["test"]:
        found.append(m["executable"])
if not found:
    sys.exit(f"test.sh: the build made no {name}{suffix}")
print(found[-1])
EOF
}
AETHER_REFERENCE_LIB=$(artifact aether_reference_capi .a)
AETHER_RUNNER_BIN=$(artifact aether-runner "")
AETHER_OPENCL_BIN=$(artifact aether-opencl "")
export AETHER_REFERENCE_LIB AETHER_RUNNER_BIN AETHER_OPENCL_BIN
echo "test: the reference library $AETHER_REFERENCE_LIB, the runner $AETHER_RUNNER_BIN, the OpenCL host $AETHER_OPENCL_BIN"
t0=$SECONDS
if ! wait "$prefetch_pid"; then
    cat "$tmp/prefetch.log"
    echo "test: installing the later steps' tools failed" >&2
    exit 2
fi
sed 's/^/prefetch: /' "$tmp/prefetch.log"
echo "== test: waited $((SECONDS - t0)) s for the tools"

# Two lanes on the two cores: the Rust tests (which use every core only part of the time:
# each test binary ends on its slowest test) beside the C and CUDA scripts (single-threaded
# compiles and runs). Each lane logs to its own file, printed whole when both are done.
lane() { # log steps...: runs the steps in order, stopping at the first that fails
    local log=$1 s t0
    shift
    for s in "$@"; do
        t0=$SECONDS
        echo "== test: $s"
        if ! bash -c "$s"; then
            echo "== test: FAILED: $s"
            return 1
        fi
        echo "== test: $s took $((SECONDS - t0)) s (total $SECONDS s)"
    done >"$log" 2>&1
}
# Every test; the corpus, random and mutant tests print what they compared.
rust_lane=(
    "cargo test --workspace -- --nocapture"
    # The Rust core on seven builds (debug, release, native, aarch64 under qemu-user, wasm32
    # under Node with and without simd128; the report adds x86-64-v3) and a rule mutant's, which must fail: the
    # corpus and 2000 random inputs per function each (tests/rust_core.rs runs 10^5 in process;
    # docs/reports/rust-core.md is the 10^5 run of every build).
    "bash scripts/rust-core.sh"
    # The benchmark against cglm and glam (bench/, its own workspace): its formatting, clippy,
    # and every aether contender's bits (object and header-only, gcc and clang) against the
    # reference; the timings are scripts/bench.sh's report, not a test.
    "bash scripts/bench.sh --check"
    # Every quick start of the README as written (C two files, header-only and CMake, C++,
    # Rust, Python; WGSL on Dawn; GLSL, OpenCL C and CUDA through their compilers), the README's
    # figures and CHANGELOG.md's contract id; then the controls (READMEs broken five ways).
    "bash scripts/quickstart.sh"
    "bash scripts/quickstart.sh --control"
    # The Python package as a numpy user gets it: a fresh venv, `pip install ./python` (the C
    # core built by the system compiler), then pytest: every batched function in both layouts
    # on every corpus case and against the reference, every refused argument, numpy's own
    # results as the negative control, and the READMEs' Python blocks.
    "bash scripts/python.sh"
    # The pure-C runner against the cbindgen-exported reference (8*10^3 random inputs per function
    # here; `bash scripts/c-random.sh` runs 10^5), and the negative controls. C steps in this lane:
    # the C lane holds the GPU-API and browser steps (about 23 minutes of the last CI run's 45 on
    # the two lanes' 2 cores), and these two (about 11 minutes) level the lanes.
    "bash scripts/c-random.sh 8000"
    "bash scripts/negative-controls.sh"
    # The aarch64 instruction counts against cglm (cross-compiled, counted under qemu-user; about
    # a minute): the harness of docs/reports/performance-aarch64.md, so that it keeps working.
    "bash scripts/bench-aarch64.sh --check"
)
c_lane=(
    "bash scripts/check-c.sh"
    # The elementary functions' accuracy targets on a bounded run: one f32 input in 61 and
    # 2000 f64 inputs per binade (docs/reports/elementary-functions.md is the full run).
    "bash scripts/elementary-report.sh 2000 --check 61"
    # The native coefficient search (tests/coefficients.rs's witnesses come from it) on a
    # control: a coefficient the corpus already sees must be found again (a few seconds).
    "python3 scripts/coefficient-search.py --tries 1000000 sincos:BF56C16C16C16966 exp:3F8111111110FF8B"
    # Every documented way to consume the core (the consumer kit).
    "bash scripts/consumer-kit.sh"
    # The CUDA core without a GPU (nvcc from PyPI, installed above): PTX of every function
    # for sm_90 and sm_75 with no fma and only .rn arithmetic, the plain-operator control
    # that must show fma, and the GPU runner on the host path over the whole corpus.
    "CUDA_STATIC_RANDOM=25000 bash scripts/cuda-static.sh"
    # The HIP core without a GPU (hipcc from Debian, which it installs here and not in the
    # prefetch: hipcc brings libclang 15, which bindgen would find while the build above runs): every function as a kernel
    # in the ISA of gfx90a (CDNA2) and gfx1030 (RDNA2) at hipcc's default flags, every fused or
    # approximate instruction accounted for by the expansions of the kernel's divisions and square
    # roots (none of the core's products or sums fused); the control (contraction allowed) whose
    # fusions are named by function; the host path on the corpus and 2.5*10^4 random inputs.
    "HIP_STATIC_RANDOM=25000 bash scripts/hip-static.sh"
    # The OpenCL core on PoCL: every kernel of the check program (f32 and f64) on the corpus and
    # 2.5*10^4 random inputs, bit for bit, with the build options printed; the self-test; the
    # controls (contraction on, -cl-fast-relaxed-math refused, -cl-denorms-are-zero named, the
    # fp64-free build).
    "bash scripts/opencl.sh 25000"
    # Every OpenCL C build option that touches floating point, and the -cl-std versions, on PoCL:
    # each cell refused (the core's #error or the driver), held (the reference's bits, the
    # self-test ok) or caught (bits change and the self-test fails), as the core's header says;
    # a cell whose bits change while the self-test passes fails it (bounded: the self-test and
    # a third of the kernels, spread over the cells; docs/reports/opencl-options.md is the full run).
    "bash scripts/opencl-options.sh --ci"
    # The GLSL ES core on Mesa's GLES (llvmpipe) and Chromium's WebGL2 (SwiftShader): the corpus
    # and 2*10^4 random inputs per f32 callable against the reference under [bands.glsl], the
    # self-test on both, the negative controls (no guard, a rule mutant; the self-test of an
    # unguarded or mutant core), the integer predicates, and df64 (10^3 random inputs per f64
    # function, the probes with the seed's from a uniform block, a plain uniform, an attribute
    # and computed, with and without the renorm; the guard removed). docs/reports/glsl.md and
    # glsl-df64.md are the 10^6 runs.
    "bash scripts/glsl.sh 20000"
    # The WGSL core on wgpu/lavapipe and Dawn/SwiftShader: the corpus and 1.5*10^4 random inputs
    # per f32 function against the reference under the bands of [bands.wgsl], the self-test, and
    # the negative controls (no guard, the opaque-one guard, rule mutants). (In this lane: on the
    # last CI run the Rust lane, with it, ended 430 s after this one.)
    "bash scripts/wgsl.sh 15000"
    # The web package in headless Chromium (DevTools protocol): every item of the WGSL and GLSL
    # cores compiled with what the subset tool gives it, a dropped dependency failing to compile
    # (the control), 12 functions through WebGPU and WebGL2 from the whole cores and from
    # subsets, bit for bit against the reference, both self-tests; and the demo's screenshot.
    "bash scripts/web.sh"
)
t0=$SECONDS
lane "$tmp/rust.log" "${rust_lane[@]}" &
rust_pid=$!
lane "$tmp/c.log" "${c_lane[@]}" &
c_pid=$!
rust_rc=0
c_rc=0
wait "$rust_pid" || rust_rc=$?
wait "$c_pid" || c_rc=$?
echo "== test: the Rust lane"
cat "$tmp/rust.log"
echo "== test: the C and CUDA lane"
cat "$tmp/c.log"
echo "== test: both lanes took $((SECONDS - t0)) s (total $SECONDS s)"
if [ "$rust_rc" != 0 ] || [ "$c_rc" != 0 ]; then
    echo "test: FAILED (Rust lane exit $rust_rc, C and CUDA lane exit $c_rc)" >&2
    exit 1
fi

echo "test: all steps passed in $SECONDS s"
