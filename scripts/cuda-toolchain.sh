# Sourced by the scripts that compile CUDA; needs no GPU and no apt CUDA packages.
#   cuda_toolchain   find a working nvcc ($CUDA_HOME/bin/nvcc, then nvcc on PATH), else install
#                    NVIDIA's PyPI wheels (pinned below) with pip into $AETHER_CUDA_PREFIX
#                    (default: build/cuda in the repo, gitignored; a second call reuses it).
#                    Exports NVCC (nvcc's path), CUDA_HOME (has bin/nvcc, include/cuda_runtime.h),
#                    CUDA_LIBDIR (libcudart.so*, libcudart_static.a) and NVCC_VERSION (e.g. 13.0.88);
#                    returns 2 with a message naming what failed.
# PyPI has no CUDA 12 nvcc: nvidia-cuda-nvcc-cu12 ships only ptxas, no nvcc, cicc or fatbinary.
# The CUDA 13 wheels hold the whole compiler in one tree, nvidia/cu13/{bin,include,lib,nvvm};
# 13.0 emits PTX ISA 9.0 (any r580+ driver loads it); its oldest target is sm_75.
# nvcc.profile links from lib64, so lib64 -> lib and lib/libcudart.so -> libcudart.so.13 are added.
# A host program linked against the shared cudart needs -Xlinker -rpath -Xlinker "$CUDA_LIBDIR";
# the default (--cudart static) needs nothing.
CUDA_WHEELS=(nvidia-cuda-nvcc==13.0.88 nvidia-cuda-runtime==13.0.88 nvidia-cuda-crt==13.0.88
             nvidia-nvvm==13.0.88 nvidia-cuda-cccl==13.0.85)

# _cuda_probe NVCC: true when NVCC compiles a kernel using cuda_runtime.h and cuda_fp16.h to PTX.
_cuda_probe() {
    local dir rc
    [ -x "$1" ] || return 1
    dir=$(mktemp -d) || return 1
    printf '%s\n' '#include <cuda_runtime.h>' '#include <cuda_fp16.h>' \
        '__global__ void k(float *p) { p[0] = __fadd_rn(p[1], __shfl_xor_sync(~0u, p[2], 1)); }' >"$dir/p.cu"
    "$1" -ptx -o "$dir/p.ptx" "$dir/p.cu" >"$dir/log" 2>&1
    rc=$?
    [ "$rc" = 0 ] || _cuda_log=$(cat "$dir/log")
    rm -rf "$dir"
    return "$rc"
}

# _cuda_use NVCC: export NVCC, CUDA_HOME, CUDA_LIBDIR and NVCC_VERSION for that nvcc.
_cuda_use() {
    local home=${1%/bin/nvcc} d
    NVCC_VERSION=$("$1" --version 2>/dev/null | sed -n 's/.*, V\([0-9][0-9.]*\).*/\1/p')
    [ -n "$NVCC_VERSION" ] || { echo "cuda-toolchain: cannot read the version from $1 --version" >&2; return 2; }
    [ -f "$home/include/cuda_runtime.h" ] || { echo "cuda-toolchain: no include/cuda_runtime.h under $home" >&2; return 2; }
    CUDA_LIBDIR=
    for d in "$home/lib64" "$home/lib" "$home"/targets/*/lib; do
        if compgen -G "$d/libcudart.so*" >/dev/null; then CUDA_LIBDIR=$(cd "$d" && pwd -P); break; fi
    done
    [ -n "$CUDA_LIBDIR" ] || { echo "cuda-toolchain: no libcudart.so* under $home" >&2; return 2; }
    NVCC=$1 CUDA_HOME=$home
    export NVCC CUDA_HOME CUDA_LIBDIR NVCC_VERSION
}

cuda_toolchain() {
    local prefix=${AETHER_CUDA_PREFIX:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build/cuda}
    local nvcc log tree
    _cuda_log=
    # 1. an nvcc that is already there
    for nvcc in ${CUDA_HOME:+"$CUDA_HOME/bin/nvcc"} "$(command -v nvcc 2>/dev/null)"; do
        [ -x "$nvcc" ] || continue
        nvcc=$(cd "$(dirname "$nvcc")" && pwd)/nvcc
        case $nvcc in "$prefix"/*) continue ;; esac   # the prefix's own: checked against the pins below
        if _cuda_probe "$nvcc"; then _cuda_use "$nvcc"; return; fi
    done
    # 2. the wheels already installed in the prefix, by this very list of pins
    if [ "$(cat "$prefix/pins" 2>/dev/null)" = "${CUDA_WHEELS[*]}" ] && _cuda_probe "$prefix/root/bin/nvcc"; then
        _cuda_use "$prefix/root/bin/nvcc"; return
    fi
    # 3. install them
    command -v python3 >/dev/null 2>&1 && python3 -m pip --version >/dev/null 2>&1 \
        || { echo "cuda-toolchain: need python3 with pip to install ${CUDA_WHEELS[*]}" >&2; return 2; }
    mkdir -p "$prefix" || { echo "cuda-toolchain: cannot create $prefix" >&2; return 2; }
    echo "cuda-toolchain: pip installing ${CUDA_WHEELS[*]} into $prefix" >&2
    rm -rf "$prefix/wheels.new" "$prefix/pins"
    log=$(mktemp)
    if ! PIP_ROOT_USER_ACTION=ignore python3 -m pip install --disable-pip-version-check --progress-bar off --no-deps \
            --no-warn-script-location --target "$prefix/wheels.new" "${CUDA_WHEELS[@]}" >"$log" 2>&1; then
        cat "$log" >&2; rm -f "$log"
        echo "cuda-toolchain: pip install ${CUDA_WHEELS[*]} failed" >&2
        return 2
    fi
    rm -f "$log"
    rm -rf "$prefix/wheels" && mv "$prefix/wheels.new" "$prefix/wheels" \
        || { echo "cuda-toolchain: cannot move the wheels into $prefix/wheels" >&2; return 2; }
    tree=$prefix/wheels/nvidia/cu13
    [ -x "$tree/bin/nvcc" ] && [ -f "$tree/lib/libcudart.so.13" ] \
        || { echo "cuda-toolchain: the wheels lack bin/nvcc or lib/libcudart.so.13 under $tree" >&2; return 2; }
    ln -sfn lib "$tree/lib64" && ln -sfn libcudart.so.13 "$tree/lib/libcudart.so" \
        && ln -sfn wheels/nvidia/cu13 "$prefix/root" \
        || { echo "cuda-toolchain: cannot make the lib64, libcudart.so and root links in $prefix" >&2; return 2; }
    if ! _cuda_probe "$prefix/root/bin/nvcc"; then
        printf '%s\n' "$_cuda_log" >&2
        echo "cuda-toolchain: the installed $prefix/root/bin/nvcc cannot compile a kernel to PTX" >&2
        return 2
    fi
    echo "${CUDA_WHEELS[*]}" >"$prefix/pins"
    _cuda_use "$prefix/root/bin/nvcc"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    cuda_toolchain || exit 2
    echo "cuda-toolchain: nvcc $NVCC_VERSION at $NVCC"
fi
