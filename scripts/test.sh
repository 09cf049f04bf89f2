#!/usr/bin/env bash
# The whole test suite, on a fresh machine of this kind: installs clang and
# libclang-dev (bindgen needs libclang) through apt when they are missing, then
# runs every Rust test, the C compile and fence checks, and the C consumer kit's
# checks (which install cmake, pkg-config and gcc-multilib when missing), and the CUDA core's
# static checks (which install nvcc from PyPI when it is missing), and the
# WGSL core on two WebGPU stacks (which installs lavapipe, SwiftShader and
# Dawn for Node when missing), and the OpenCL core on PoCL (which installs
# pocl-opencl-icd when missing).
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v clang >/dev/null || need+=(clang)
ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1 || need+=(libclang-dev)
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

# PoCL (OpenCL 3.0 on this CPU) and the ICD loader: the OpenCL core's device
# test runs on it and must not skip here.
if ! { ldconfig -p 2>/dev/null | grep -q 'libOpenCL\.so\.1' && ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1; }; then
    apt_install pocl-opencl-icd ocl-icd-libopencl1 ocl-icd-opencl-dev
fi
export AETHER_REQUIRE_OPENCL=1

# Every test; the corpus, random and mutant tests print what they compared.
cargo test --workspace -- --nocapture
bash scripts/check-c.sh
# The C consumer kit: the pure-C runner against the cbindgen-exported reference
# (10^5 random inputs per function), the negative controls, and every documented
# way to consume the core (installs cmake, pkg-config and gcc-multilib when missing).
bash scripts/c-random.sh 100000
bash scripts/negative-controls.sh
bash scripts/consumer-kit.sh
# The CUDA core without a GPU (installs nvcc from PyPI into build/cuda when none is found): PTX
# of every function for sm_90 and sm_75 with no fma and only .rn arithmetic, the plain-operator
# control that must show fma, and the GPU runner on the host path over the whole corpus.
bash scripts/cuda-static.sh
# The WGSL core on wgpu/lavapipe and Dawn/SwiftShader: the corpus and 10^5
# random inputs per f32 function against the reference under the bands of
# [bands.wgsl], the self-test, and the negative controls (no guard, the
# opaque-one guard, rule mutants).
bash scripts/wgsl.sh 100000
# The OpenCL core on PoCL: every kernel of the check program (f32 and f64) on
# the corpus and 10^5 random inputs, bit for bit, with the build options
# printed; the self-test; the controls (contraction on, -cl-fast-relaxed-math
# refused, -cl-denorms-are-zero named, the fp64-free build).
bash scripts/opencl.sh 100000
