# Reads PTX and checks every floating-point instruction of f32/f64 in every function:
#   - no fma or mad (a contraction),
#   - add, sub, mul, div, sqrt and rcp carry an explicit .rn (an unqualified add.f32 or
#     mul.f32 is one ptxas may still fuse; .rn forbids it), except a product by a power-of-two
#     immediate (nvcc writes __ddiv_rn(x, 4096.0) as mul.f64 x, 2^-12): it is exact away from
#     overflow and underflow, so fusing it into a sum changes no bit; counted as scalings,
#   - no .ftz (flushed subnormals), .approx or .full (inexact division, square root), and no
#     approximate transcendental (rsqrt, ex2, lg2, sin, cos, tanh).
# Prints one line per function with a violation (its C name where the mangled name contains one),
# then `ptx-check: FILE: F functions (T thunks, K batch kernels), I floating-point instructions,
# V violations in N functions, fma in M functions`.
# -v expect_fma=1 turns it into the negative control: exit 0 only when some function has an fma.
# Exit status: 0 clean (or, as control, fma found), 1 otherwise.
function cname(mangled,    m) {
    if (match(mangled, /aether_flat_call_[A-Za-z0-9_]+E/)) {
        m = substr(mangled, RSTART, RLENGTH - 1)
        sub(/^aether_flat_call_/, "aether_", m)
        sub(/EPKmmPmm$/, "", m)
        return m
    }
    if (match(mangled, /aether_batch_kernel_[A-Za-z0-9_]+/)) {
        m = substr(mangled, RSTART, RLENGTH)
        sub(/^aether_batch_kernel_/, "", m)
        sub(/P.*$/, "", m)
        return "aether_" m "_batch"
    }
    return mangled
}
/^(\.visible |\.weak |\.extern )?\.(func|entry)/ {
    line = $0
    name = ""
    while (match(line, /[A-Za-z_$][A-Za-z0-9_$]*\(/)) {
        name = substr(line, RSTART, RLENGTH - 1)
        line = substr(line, RSTART + RLENGTH)
    }
    if (name == "") {
        n = split($0, parts, /[ \t]+/)
        name = parts[n]
    }
    current = cname(name)
    functions += 1
    if (current ~ /^aether_/ && $0 ~ /aether_flat_call_/) thunks += 1
    if ($0 ~ /aether_batch_kernel_/) batch += 1
    next
}
/^[ \t]*[a-z0-9]+(\.[a-z0-9]+)*[ \t]/ {
    op = $1
    if (op !~ /\.f(32|64)$/ || op ~ /^(ld|st|mov|cvt|setp|selp|abs|neg|min|max|testp|copysign|shfl|set|slct|bra|call)/) next
    instructions += 1
    why = ""
    if (op ~ /^(fma|mad)\./) { why = "contracted (" op ")"; fma[current] = 1 }
    else if (op ~ /^mul\.f(32|64)$/ && $0 ~ /, (0d[0-9A-F][0-9A-F][0-9A-F]0000000000000|0f[0-9A-F][08]000000);/) scalings += 1
    else if (op ~ /^(add|sub|mul|div|sqrt|rcp)\./ && op !~ /\.rn\./) why = "no explicit .rn (" op ")"
    else if (op ~ /\.(ftz|approx|full)\./) why = "inexact or flushing (" op ")"
    else if (op ~ /^(rsqrt|ex2|lg2|sin|cos|tanh)\./) why = "approximate (" op ")"
    if (why != "") {
        violations += 1
        if (!(current in bad)) { bad[current] = why; order[++nbad] = current }
        count[current] += 1
    }
}
END {
    nfma = 0
    for (f in fma) nfma += 1
    if (expect_fma) {
        shown = 0
        list = ""
        for (i = 1; i <= nbad; ++i) {
            f = order[i]
            if (!(f in fma)) continue
            shown += 1
            if (shown <= 10) list = list (shown > 1 ? ", " : "") f
        }
        more = ""
        if (shown > 10) more = ", ..."
        if (shown > 0) printf "ptx-check: fma in %s%s\n", list, more
    } else {
        for (i = 1; i <= nbad; ++i) printf "ptx-check: %s: %d violation(s), first: %s\n", order[i], count[order[i]], bad[order[i]]
    }
    printf "ptx-check: %s: %d functions (%d thunks, %d batch kernels), %d floating-point instructions (%d exact power-of-two scalings), %d violations in %d functions, fma in %d functions\n", FILENAME, functions, thunks, batch, instructions, scalings + 0, violations + 0, nbad + 0, nfma
    if (expect_fma) exit(nfma > 0 ? 0 : 1)
    if (want_thunks != "" && thunks != want_thunks) { printf "ptx-check: expected %d thunks, found %d\n", want_thunks, thunks; exit 1 }
    if (want_batch != "" && batch != want_batch) { printf "ptx-check: expected %d batch kernels, found %d\n", want_batch, batch; exit 1 }
    exit(nbad > 0 ? 1 : 0)
}
