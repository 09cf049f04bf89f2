# Sourced by the scripts that run the GLSL ES 3.00 core: installs the two GL
# stacks of this machine kind when they are missing.
#   glsl_stacks   Chromium (its WebGL2 runs on ANGLE over SwiftShader, for the
#                 webgl stack) and Node.js, which drives it (runner/webgl/run.mjs);
#                 Mesa's EGL and GLES with its DRI drivers (llvmpipe, for the
#                 GLES stack: libegl1 libegl-mesa0 libgles2 libgl1-mesa-dri), and
#                 glslang (glslangValidator: the generator's test compiles the core
#                 and the check module as GLSL ES 3.00 with it).
#   glsl_installed PKG   true when dpkg has PKG installed.
# shellcheck source=scripts/apt.sh
source "$(dirname "${BASH_SOURCE[0]}")/apt.sh"

# True when package $1 is installed (for any architecture).
glsl_installed() {
    dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q '^install ok installed$'
}

glsl_stacks() {
    local need=() p
    [ -x /usr/bin/chromium ] || need+=(chromium)
    command -v node >/dev/null 2>&1 || need+=(nodejs)
    command -v glslangValidator >/dev/null 2>&1 || need+=(glslang-tools)
    for p in libegl1 libegl-mesa0 libgles2 libgl1-mesa-dri; do
        glsl_installed "$p" || need+=("$p")
    done
    if [ ${#need[@]} -gt 0 ]; then
        apt_install "${need[@]}"
    fi
}
