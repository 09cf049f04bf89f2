# Reads AMD GPU assembly (hipcc --cuda-device-only -S) and checks every kernel's floating-point
# instructions, the HIP analogue of scripts/ptx-check.awk. Run it on two files: first the probes'
# assembly (kernels aether_hip_probe_<what>: one f32 division, one f64 division, one f32 and one
# f64 square root, one 64-bit unsigned division, each alone, compiled with the same flags for the
# same architecture), then the core's (kernels aether_hip_isa_<name>, one per callable).
#
# The contract has no fused operation, but the device has no correctly rounded division or f64
# square root: LLVM expands each into a fixed sequence that holds fused instructions of its own
# (f32 division: v_div_scale, v_rcp_f32, v_fma/v_fmac, v_div_fmas, v_div_fixup; f64 square
# root: v_rsq_f64 and v_fma_f64 refinements; a 64-bit integer division: an f32 reciprocal
# estimate with v_mac_f32/v_fmac_f32). So the check counts, per kernel, every fused instruction
# (v_fma*, v_fmac*, v_mad*/v_mac* of floats, v_madak/v_madmk, v_fmaak/v_fmamk, v_pk_fma*,
# v_fma_mix*, v_mad_mix*, v_dot*) and every approximate one (v_rcp*, v_rsq*, v_sqrt*, v_exp*,
# v_log*, v_sin*, v_cos*), op by op, and requires each count to equal what the kernel's
# expansions explain: the number of each expansion's marker (v_div_fixup_f32, v_div_fixup_f64,
# v_sqrt_f32, v_rsq_f64, and the v_mul_f32 by 0x5f7ffffc of the 64-bit integer division) times
# that op's count in the probe. A contraction (a product fused into a sum) is a fused
# instruction no expansion explains; an approximate reciprocal or square root (arcp, afn, an
# unrefined v_sqrt_f32) is one too many or one fused refinement too few. Integer
# multiply-adds (v_mad_u64_u32, v_mad_u32_u24, ...) round nothing and are not counted.
#
# Prints one line per kernel with a mismatch (its callable's C name), then
# `hip-isa-check: FILE: K kernels, F fused instructions (E explained by D divisions, S square roots
# and I integer divisions), V unexplained in N kernels`.
# -v want_kernels=N: the number of aether_hip_isa_ kernels there must be.
# -v expect_fused=1 turns it into the negative control: exit 0 only when some kernel has a fused
# instruction no expansion explains (naming up to 10 of them).
# Exit status: 0 clean (or, as control, contraction found), 1 otherwise.
function base(op) {
    sub(/_(e32|e64|sdwa|dpp|dpp8)$/, "", op)
    return op
}
# A fused op's class: the encodings of one operation count together (v_fma_f32, v_fmac_f32,
# v_fmaak_f32 and v_fmamk_f32 are one fused multiply-add; v_mad_f32, v_mac_f32, v_madak_f32 and
# v_madmk_f32 one unfused multiply-add), since register allocation picks among them.
function class(op) {
    if (op ~ /^v_(fma|fmac|fmaak|fmamk)_f(16|32|64)$/) { sub(/^v_(fma|fmac|fmaak|fmamk)_/, "v_fma*_", op); return op }
    if (op ~ /^v_(mad|mac|madak|madmk)_f(16|32)$/) { sub(/^v_(mad|mac|madak|madmk)_/, "v_mad*_", op); return op }
    return op
}
function fused(op) {
    if (op ~ /^v_(mad|dot[0-9a-z]*)_(u|i)[0-9]/ || op ~ /^v_mad_(u|i)32_(u|i)24$/ || op ~ /^v_dot[0-9a-z]*_(i|u)32_/) return 0
    return op ~ /^v_(pk_)?(fma|fmac|mad|mac|madak|madmk|fmaak|fmamk)[*]?(_legacy)?_f(16|32|64)$/ || op ~ /^v_(fma|mad)_mix/ || op ~ /^v_dot/
}
function approximate(op) {
    return op ~ /^v_(rcp|rsq|sqrt|exp|log|sin|cos)(_legacy|_clamp)?_f(16|32|64)$/
}
function marker(op, line) {
    if (op == "v_div_fixup_f32") return "div_f32"
    if (op == "v_div_fixup_f64") return "div_f64"
    if (op == "v_sqrt_f32") return "sqrt_f32"
    if (op == "v_rsq_f64") return "sqrt_f64"
    if (op == "v_mul_f32" && line ~ /0x5f7ffffc/) return "udiv_u64"
    return ""
}
function cname(k) {
    sub(/^aether_hip_isa_/, "aether_", k)
    return k
}
FNR == 1 { probes = (FILENAME ~ /probe/) }
/^(_Z[0-9]+)?aether_(hip_probe|hip_isa|pcheck)_[A-Za-z0-9_]*:/ {
    current = $1
    sub(/:$/, "", current)
    sub(/^_Z[0-9]+/, "", current)
    if (current ~ /^aether_pcheck_/) sub(/_(golden|integer)P.*$/, "&", current) && sub(/P[A-Za-z]*$/, "", current)
    if (probes) { sub(/^aether_hip_probe_/, "", current); probe_seen[current] = 1 }
    else { kernels += 1; order[kernels] = current }
    next
}
/^[ \t]+v_/ && current != "" {
    m = marker(base($1), $0)
    op = class(base($1))
    if (probes) {
        if (m != "") pmark[current, m] += 1
        if (fused(op) || approximate(op)) { pcount[current, op] += 1; pops[op] = 1 }
        next
    }
    if (m != "") mark[current, m] += 1
    if (fused(op) || approximate(op)) { count[current, op] += 1; ops[op] = 1; if (fused(op)) total_fused += 1 }
}
/^[ \t]+s_endpgm/ { current = "" }
END {
    split("div_f32 div_f64 sqrt_f32 sqrt_f64 udiv_u64", kinds, " ")
    for (i = 1; i <= 5; ++i) {
        p = kinds[i]
        if (!(p in probe_seen) || pmark[p, p] != 1) {
            printf "hip-isa-check: the probe %s is missing or has %d markers instead of 1: the expansions cannot be counted\n", p, pmark[p, p] + 0
            exit 2
        }
    }
    for (op in pops) ops[op] = 1
    for (k = 1; k <= kernels; ++k) {
        f = order[k]
        why = ""
        for (op in ops) {
            want = 0
            for (i = 1; i <= 5; ++i) want += mark[f, kinds[i]] * pcount[kinds[i], op]
            got = count[f, op] + 0
            if (fused(op)) explained_total += (got < want ? got : want)
            if (got != want) {
                why = why (why == "" ? "" : ", ") sprintf("%s %d (the expansions explain %d)", op, got, want)
                if (fused(op) && got > want) { contracted[f] = 1; unexplained += got - want }
                else if (!fused(op) || got < want) unexplained_other += 1
            }
        }
        divs += mark[f, "div_f32"] + mark[f, "div_f64"]
        roots += mark[f, "sqrt_f32"] + mark[f, "sqrt_f64"]
        idivs += mark[f, "udiv_u64"]
        if (why != "") { bad[f] = why; nbad += 1; badorder[nbad] = f }
    }
    ncon = 0
    for (f in contracted) ncon += 1
    if (expect_fused) {
        list = ""
        shown = 0
        for (i = 1; i <= nbad; ++i) {
            f = badorder[i]
            if (!(f in contracted)) continue
            shown += 1
            if (shown <= 10) list = list (shown > 1 ? ", " : "") cname(f)
        }
        more = ""
        if (shown > 10) more = ", ..."
        if (shown > 0) printf "hip-isa-check: unexplained fused instructions in %s%s\n", list, more
    } else {
        for (i = 1; i <= nbad; ++i) printf "hip-isa-check: %s: %s\n", cname(badorder[i]), bad[badorder[i]]
    }
    printf "hip-isa-check: %s: %d kernels, %d fused instructions (%d explained by %d divisions, %d square roots and %d integer divisions), %d unexplained in %d kernels, %d kernels with another mismatch\n", FILENAME, kernels, total_fused, explained_total, divs, roots, idivs, unexplained + 0, ncon, nbad - ncon
    if (expect_fused) exit(ncon > 0 ? 0 : 1)
    if (want_kernels != "" && kernels != want_kernels) { printf "hip-isa-check: expected %d kernels, found %d\n", want_kernels, kernels; exit 1 }
    exit(nbad > 0 ? 1 : 0)
}
