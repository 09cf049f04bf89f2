#!/usr/bin/env bash
# Every target's checks on a real GPU in one command, for the short leases of a GPU machine
# (build here, run there once, report here):
#
#   bash scripts/gpu-session.sh pack          # here: scripts/cuda-device.sh build, the runners
#                                             # (aether-runner, aether-opencl) in release, the
#                                             # Vulkan and OpenCL ICD loaders (Debian's .debs),
#                                             # all into .gpu/ (gitignored; about 15 MB, xz)
#   bash scripts/gpu-session.sh run OUT       # there (it unpacks the .debs into /: meant for
#                                             # the bare GPU machine), from the repository root with .gpu/
#                                             # carried: OUT/gpu-logs.tar.gz (at most 9.2 minutes)
#   bash scripts/gpu-session.sh report DIR... # here, each DIR holding a gpu-logs.tar.gz: the reports
#
# `run` does, each step under its own time limit so that a slow one cannot starve the rest:
#   1. the CUDA core: `scripts/cuda-device.sh run` (self-tests, every one-input f32 function over
#      all 2^32 patterns against the C core, the corpus and 10^6 random inputs per function
#      against the reference, the controls, the throughput);
#   2. the WGSL core on the GPU's own Vulkan driver (wgpu, AETHER_WGPU_DRIVER=NVIDIA; CI runs it
#      on lavapipe and SwiftShader): the corpus and WGSL_RANDOM random inputs per entry against
#      the reference under the spec's bands, the self-test, and the guard-none control;
#   3. the OpenCL C core on the GPU's own OpenCL driver (CI runs it on PoCL): aether-opencl with
#      OPENCL_RANDOM random inputs and its controls.
# STEPS (default "cuda wgsl opencl") names the steps to run. A step whose driver is missing on
# the machine says so in its log; `report` says so too. `report` takes one or more DIRs, later
# ones adding or replacing logs (a second run of some steps).
set -euo pipefail
cd "$(dirname "$0")/.."
step=${1:-}
pack=.gpu
WGSL_RANDOM=${WGSL_RANDOM:-50000}
OPENCL_RANDOM=${OPENCL_RANDOM:-20000}
STEPS=${STEPS:-cuda wgsl opencl}

case "$step" in
pack)
    bash scripts/cuda-device.sh build
    cargo build -q --release -p aether-runner -p aether-opencl
    rm -rf "$pack"
    mkdir -p "$pack/bin"
    cp target/release/aether-runner target/release/aether-opencl "$pack/bin/"
    strip "$pack"/bin/*
    tar cJf "$pack/bundle.tar.xz" build/cuda-device "$pack/bin"
    rm -rf "$pack/bin"
    # The ICD loaders, unpacked there (the machine's image has the NVIDIA drivers, not the
    # loaders); apt-get download needs no root and installs nothing here.
    lists=$(mktemp -d)
    mkdir -p "$lists/partial"
    o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 "-oDir::State::Lists=$lists")
    # libGLX_nvidia.so.0, the library NVIDIA's Vulkan ICD names, needs glvnd's libGLdispatch.
    debs=(libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 ocl-icd-libopencl1)
    apt-get "${o[@]}" update -qq
    (cd "$pack" && apt-get "${o[@]}" download "${debs[@]}" 2>&1 | grep -v unsandboxed || true)
    rm -rf "$lists"
    for d in "${debs[@]}"; do ls "$pack/${d}"_*.deb >/dev/null; done
    echo "gpu-session: packed $(ls "$pack" | tr '\n' ' ')($(du -sh "$pack" | cut -f1)); carry $pack"
    ;;
run)
    out=${2:?usage: gpu-session.sh run OUT}
    logs=$(mktemp -d)
    status=0
    for f in "$pack"/*.deb; do dpkg -x "$f" /; done
    ldconfig
    tar xJf "$pack/bundle.tar.xz"
    bin=$pack/bin
    mkdir -p "$out"
    limit() { # seconds name command...: runs it into logs/name.log with its exit status and time
        local seconds=$1 name=$2 rc=0 t0=$SECONDS
        shift 2
        timeout "$seconds" "$@" >"$logs/$name.log" 2>&1 || rc=$?
        echo "gpu-session: $name: exit $rc ($((SECONDS - t0)) s)" | tee -a "$logs/steps.log"
        tail -n 3 "$logs/$name.log"
        # The logs so far, so that a run stopped from outside still brings them back.
        tar czf "$out/gpu-logs.tar.gz" -C "$logs" .
        return "$rc"
    }
    # 1. CUDA (its own steps keep their own logs under logs/cuda).
    if [[ " $STEPS " == *" cuda "* ]]; then
        limit 320 cuda bash scripts/cuda-device.sh run "$logs/cuda" || status=1
    fi
    # 2. WGSL on the GPU's Vulkan driver (the image's ICD file names it; the loader says why
    #    when it cannot open it).
    if [[ " $STEPS " == *" wgsl "* ]]; then
        icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
        [ -e "$icd" ] && [ ! -e /usr/share/vulkan/icd.d/nvidia_icd.json ] && export VK_DRIVER_FILES=$icd
        export AETHER_WGPU_DRIVER=${AETHER_WGPU_DRIVER:-NVIDIA} VK_LOADER_DEBUG=error
        limit 90 wgsl "$bin/aether-runner" wgsl --stack wgpu --random "$WGSL_RANDOM" --report "$logs/wgsl-gpu.md" || status=1
        limit 30 wgsl-selftest "$bin/aether-runner" wgsl-selftest --stack wgpu || status=1
        limit 30 wgsl-guard-none "$bin/aether-runner" wgsl --stack wgpu --random 2000 --expect-mismatch --guard none || status=1
    fi
    # 3. OpenCL on the GPU's OpenCL driver: AETHER_OPENCL_PLATFORM picks it where the loader
    #    lists another platform first (the image has PoCL too); a vendors file is written
    #    where there is none.
    if [[ " $STEPS " == *" opencl "* ]]; then
        export AETHER_OPENCL_PLATFORM=${AETHER_OPENCL_PLATFORM:-NVIDIA}
        if ! grep -qs nvidia /etc/OpenCL/vendors/*.icd; then
            lib=$(find / -xdev -name 'libnvidia-opencl.so.1' 2>/dev/null | head -n 1)
            if [ -n "$lib" ]; then mkdir -p /etc/OpenCL/vendors && echo "$lib" >/etc/OpenCL/vendors/nvidia.icd; fi
        fi
        limit 90 opencl "$bin/aether-opencl" "$OPENCL_RANDOM" --report "$logs/opencl-gpu.md" || status=1
    fi
    tar czf "$out/gpu-logs.tar.gz" -C "$logs" .
    echo "gpu-session: logs in $out/gpu-logs.tar.gz, status $status"
    exit "$status"
    ;;
report)
    [ $# -ge 2 ] || { echo "usage: gpu-session.sh report DIR..." >&2; exit 2; }
    logs=$(mktemp -d)
    shift
    run=0
    for in in "$@"; do
        run=$((run + 1))
        one=$(mktemp -d)
        tar xzf "$in/gpu-logs.tar.gz" -C "$one"
        sed "s/^/run $run: /" "$one/steps.log" >>"$logs/steps.log"
        rm "$one/steps.log"
        cp -r "$one"/. "$logs"/
        rm -rf "$one"
    done
    bash scripts/cuda-device.sh report "$logs/cuda"
    doc=docs/reports/gpu-targets.md
    {
        echo "# WGSL and OpenCL C on a GPU's own drivers"
        echo
        echo "Generated by \`bash scripts/gpu-session.sh report\` from the logs of \`bash scripts/gpu-session.sh run\`"
        echo "on the GPU machine (the CUDA core's part is \`docs/reports/cuda-device.md\`). CI runs these"
        echo "targets on CPU drivers only (lavapipe, SwiftShader, PoCL): this is the same check on a"
        echo "vendor's shader and kernel compilers. Machine:"
        echo
        sed 's/^/    /' "$logs/cuda/machine.log" 2>/dev/null || true
        echo
        echo "Steps (exit status and wall time; with several runs, a later run's logs replace an"
        echo "earlier one's for the steps it ran again):"
        echo
        sed 's/^/    /' "$logs/steps.log"
        echo
        echo "## WGSL on the GPU's Vulkan driver"
        echo
        echo "\`AETHER_WGPU_DRIVER=NVIDIA aether-runner wgsl --stack wgpu\`: the corpus and random inputs per entry"
        echo "(the count is in the command below), judged against the reference under the spec's WGSL bands;"
        echo "on this stack nothing is held to more than its band (\`rounds_to_nearest\` is false for it)."
        echo
        if [ -s "$logs/wgsl-gpu.md" ]; then sed 's/^#/##/' "$logs/wgsl-gpu.md"; else sed 's/^/    /' "$logs/wgsl.log"; fi
        echo
        echo "### The self-test and the guard-none control"
        echo
        sed 's/^/    /' "$logs/wgsl-selftest.log"
        echo
        sed 's/^/    /' "$logs/wgsl-guard-none.log"
        echo
        echo "## OpenCL C on the GPU's OpenCL driver"
        echo
        if [ -s "$logs/opencl-gpu.md" ]; then sed 's/^#/##/' "$logs/opencl-gpu.md"; else sed 's/^/    /' "$logs/opencl.log" 2>/dev/null || echo "    (not run)"; fi
    } >"$doc"
    rm -rf "$logs"
    echo "gpu-session: wrote $doc"
    ;;
*)
    echo "usage: $0 pack | run OUT | report DIR" >&2
    exit 2
    ;;
esac
