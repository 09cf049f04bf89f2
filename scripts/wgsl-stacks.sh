# Sourced by the scripts that run the WGSL core: installs the two WebGPU
# stacks of this machine kind when they are missing.
#   wgsl_stacks   Mesa's lavapipe (mesa-vulkan-drivers, for wgpu), SwiftShader
#                 (chromium-common ships its Vulkan ICD, for Dawn), Node.js and
#                 npm, then Dawn for Node (`npm ci` in runner/dawn, the webgpu
#                 package pinned by its package-lock.json).
# shellcheck source=scripts/apt.sh
source "$(dirname "${BASH_SOURCE[0]}")/apt.sh"

wgsl_stacks() {
    local need=() root
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    compgen -G '/usr/share/vulkan/icd.d/lvp_icd.*.json' >/dev/null || need+=(mesa-vulkan-drivers)
    [ -f /usr/lib/chromium/vk_swiftshader_icd.json ] || need+=(chromium-common)
    command -v node >/dev/null 2>&1 || need+=(nodejs)
    command -v npm >/dev/null 2>&1 || need+=(npm)
    if [ ${#need[@]} -gt 0 ]; then
        apt_install "${need[@]}"
    fi
    if [ ! -f "$root/runner/dawn/node_modules/webgpu/package.json" ]; then
        (cd "$root/runner/dawn" && npm ci --no-audit --no-fund --loglevel=error)
    fi
}
