//! Every spec error names the file, the line and the key. Each case edits the
//! real spec in one place and expects one exact message.

use aether_generator::error::ERROR_CAP;
use aether_generator::spec;
use aether_reference::flat::entries;

const SPEC: &str = include_str!("../../spec/aether.toml");

/// Replaces `find` (which must occur once) and returns the text and the line
/// where the replacement starts.
fn edit(find: &str, replace: &str) -> (String, usize) {
    assert_eq!(SPEC.matches(find).count(), 1, "`{find}` must occur once in the spec");
    let at = SPEC.find(find).unwrap();
    let line = SPEC[..at].matches('\n').count() + 1;
    (SPEC.replacen(find, replace, 1), line)
}

fn error_of(text: &str) -> String {
    error_of_bytes(text.as_bytes())
}

#[test]
fn the_real_spec_is_valid() {
    assert_eq!(error_of(SPEC), "no error");
}

/// A target that is not bit-exact (`Exactness::Bands`) must have its table:
/// without `[bands.wgsl]` the spec is refused at the first band table left.
#[test]
fn a_banded_target_without_its_table_is_refused() {
    let start = SPEC.find("\n[bands.wgsl]\n").unwrap() + 1;
    let end = start + SPEC[start..].find("\n# An OpenCL device").unwrap() + 1;
    let text = format!("{}{}", &SPEC[..start], &SPEC[end..]);
    let line = text[..text.find("[bands.opencl_relaxed]").unwrap()].matches('\n').count() + 1;
    assert_eq!(
        error_of(&text),
        format!("spec/aether.toml:{line}: `bands.wgsl`: target `wgsl` is not bit-exact: the spec must state its band table `[bands.wgsl]`")
    );
}

#[test]
fn malformed_specs_get_exact_messages() {
    // The band keys the registry's targets read, in its order.
    let mut keys: Vec<&str> = Vec::new();
    for t in aether_generator::targets::registry() {
        if let aether_generator::targets::Exactness::Bands(k) = t.exactness() {
            keys.push(k);
        }
        keys.extend(t.device_bands());
    }
    let stated_for = |name: &str| format!("unknown target `{name}` (bands are stated for: {})", keys.join(", "));
    let (stated_for_metal, stated_for_2) = (stated_for("metal"), stated_for("opencl_relaxed_2"));
    // (find, replace, line offset from the edit, key, message)
    let cases: Vec<(&str, &str, i64, &str, &str)> = vec![
        ("[contract]\nname = \"aether\"", "[contract]\nname = \"aether", 1, "contract", "invalid basic string"),
        (
            "[types.f32]\nc_type = \"float\"",
            "[types.f32]\nc_type = \"double\"",
            1,
            "types.f32.c_type",
            "a 32-bit element type is C `float`, not `double`",
        ),
        (
            "bits = 32",
            "bits = 16",
            0,
            "types.f32.bits",
            "unknown element type width 16: only IEEE binary32 (32) and binary64 (64) exist here",
        ),
        (
            "[shapes.vec2]\nkind = \"vector\"",
            "[shapes.vec2]\nkind = \"tensor\"",
            1,
            "shapes.vec2.kind",
            "unknown shape kind `tensor` (expected `scalar`, `vector` or `matrix`)",
        ),
        (
            "rows = 2\ncols = 2\nlayout = \"row-major\"",
            "rows = 2\ncols = 2\nlayout = \"diagonal\"",
            2,
            "shapes.mat2.layout",
            "unknown layout `diagonal` (expected `row-major` or `column-major`)",
        ),
        (
            "[rules.fold]\nnesting = \"right\"",
            "[rules.fold]\nnesting = \"pairwise\"",
            1,
            "rules.fold.nesting",
            "unknown nesting `pairwise` (expected `right` or `left`)",
        ),
        ("\nseed = \"none\"", "\nseed = \"zero\"", 1, "rules.fold.seed", "unknown seed `zero` (expected `none` or `identity`)"),
        (
            "either_zero = [\"fmin\", \"fmax\", \"min\", \"max\"]",
            "either_zero = [\"fmin\", \"fmax\", \"min\", \"maximum\"]",
            0,
            "policy.either_zero",
            "unknown function family `maximum`",
        ),
        (
            "either_zero = [\"fmin\", \"fmax\", \"min\", \"max\"]",
            "either_zero = [\"fmin\", \"fmax\", \"min\", \"max\", \"add\"]",
            0,
            "policy.either_zero",
            "family `add` is given either-zero slack, but its results are not fmin/fmax results",
        ),
        ("[families.sub]\n", "[families.add]\n", 0, "families.add", "invalid table header; duplicate key `add` in table `families`"),
        (
            "[families.mul]\ndoc",
            "[families.mul]\ncolor = 1\ndoc",
            1,
            "families.mul.color",
            "unknown field `color`, expected one of `op`, `doc`, `shapes`, `params`, `returns`, `body`, `bodies`, `derived`, `cases`",
        ),
        ("doc = \"Componentwise a - b.\"\n", "", -1, "families.sub.doc", "missing field `doc`"),
        (
            "shapes = [\"vec3\"]\nparams = [\"a: self\", \"b: self\"]",
            "shapes = [\"vec5\"]\nparams = [\"a: self\", \"b: self\"]",
            0,
            "families.cross.shapes",
            "unknown shape `vec5`",
        ),
        (
            "params = [\"a: self\", \"s: scalar\"]\nreturns = \"self\"\nbody = \"out[i] = s * a[i]\"",
            "params = [\"a: self\", \"s: complex\"]\nreturns = \"self\"\nbody = \"out[i] = s * a[i]\"",
            0,
            "families.scale.params",
            "unknown shape `complex`",
        ),
        (
            "body = \"out = fold(add, i < N, a[i])\"",
            "body = \"out = fold(mul, i < N, a[i])\"",
            0,
            "families.sum.body",
            "column 12: unknown combiner `mul`",
        ),
        (
            "body = \"out = dot(a, a)\"",
            "body = \"out = dott(a, a)\"",
            0,
            "families.squared_norm.body",
            "column 7: unknown function `dott` (not a builtin, a shape or a family)",
        ),
        (
            "body = \"out[i] = a[i] * -1\"",
            "body = \"out[i] = -a[i]\"",
            0,
            "families.neg.body",
            "column 11: a leading `-` is allowed on a number only; negate an expression as `x * -1`",
        ),
        ("body = \"out[i] = a[i] + b[i]\"", "body = \"out[i] = a[i] + c[i]\"", 0, "families.add.body", "column 17: unknown name `c`"),
        (
            "body = \"out[i] = a[i] - b[i]\"",
            "body = \"out[i] = a[i] - b[i] * 0.1\"",
            0,
            "families.sub.body",
            "column 24: literal 0.1 is not exactly representable in binary32",
        ),
        (
            "body = \"out[i] = a[i] * b[i]\"",
            "body = \"out[i] = a[i] * b[i]; out[i] = a[i]\"",
            0,
            "families.mul.body",
            "column 32: result component 0 is assigned twice",
        ),
        (
            "out.z = a.x * b.y - a.y * b.x\n",
            "",
            -2,
            "families.cross.body",
            "column 1: result component 2 of `cross` for `vec3` is never assigned",
        ),
        ("out.w = a.w * b.w", "out.w = a.q * b.w", 0, "families.quat_mul.body", "column 9: shape `quat` has no component `q`"),
        (
            "expr = \"new + acc\"",
            "expr = \"new + \"",
            0,
            "combiners.add.expr",
            "line 1 column 7 of the expression: the expression ends too early",
        ),
        (
            "[families.transpose]\n",
            "[families.transpose]\nop = \"mul\"\n",
            0,
            "families.transpose.op",
            "C name clash: family `mat_mul` already defines `mul` for a shape of this family",
        ),
        // Compensated sums: the reduction rule, kernels, derived inputs, probes.
        ("lanes = 32", "lanes = 24", 0, "rules.reduction.lanes", "24 lanes: the butterfly needs a power of two, at least 2"),
        (
            "rounds = [16, 8, 4, 2, 1]",
            "rounds = [16, 8, 4, 2]",
            0,
            "rules.reduction.rounds",
            "4 round(s) cannot merge 32 lanes: list every offset 1, 2, 4, ..., 16 once",
        ),
        ("rounds = [16, 8, 4, 2, 1]", "rounds = [16, 8, 4, 2, 2]", 0, "rules.reduction.rounds", "round offset 2 is listed twice"),
        (
            "rounds = [16, 8, 4, 2, 1]",
            "rounds = [16, 8, 4, 3, 1]",
            0,
            "rules.reduction.rounds",
            "round offset 3 is not a power of two below 32",
        ),
        (
            "assignment = \"strided\"",
            "assignment = \"blocked\"",
            0,
            "rules.reduction.assignment",
            "unknown assignment `blocked` (expected `strided` or `single`)",
        ),
        (
            "combine = \"pair_combine\"",
            "combine = \"neumaier_add\"",
            0,
            "rules.reduction.combine",
            "family `neumaier_add` must have one shape and take (self, self) to self, like a combine of (hi, comp) pairs",
        ),
        ("value = \"pair_value\"", "value = \"pair_worth\"", 0, "rules.reduction.value", "unknown family `pair_worth`"),
        (
            "schedule = \"butterfly\"",
            "schedule = \"tree\"",
            0,
            "kernels.reduce32.schedule",
            "unknown schedule `tree` (expected butterfly, lanes, array, plane, resolve, or a linear-algebra routine: lu, lu_solve, \
             solve_lower, solve_lower_unit, solve_upper, solve_upper_unit, det_lu, inverse, cholesky, cholesky_solve, eigh)",
        ),
        (
            "lanes = \"lanes_dot\"",
            "lanes = \"dot_array\"",
            0,
            "kernels.dot_array.lanes",
            "`dot_array` is not a `lanes` kernel declared above",
        ),
        (
            "term = \"a * b\"",
            "term = \"a * \"",
            0,
            "kernels.lanes_dot.term",
            "line 1 column 5 of the expression: the expression ends too early",
        ),
        (
            "schedule = \"plane\"\nshapes = [\"scalar\", \"vec2\", \"vec3\", \"vec4\"]",
            "schedule = \"plane\"\nshapes = [\"scalar\", \"mat2\"]",
            1,
            "kernels.plane_add.shapes",
            "a `plane` kernel cannot take shape `mat2`",
        ),
        (
            "derived = [\"s = a + b\"]",
            "derived = [\"q = a + b\"]",
            0,
            "families.two_sum_err.derived",
            "`q` is not a parameter of the family",
        ),
        (
            "  \"NaN stays NaN: nan, 1\",",
            "  \"NaN stays NaN: nan, one\",",
            0,
            "families.two_sum.cases",
            "`one` is not a number, `inf`, `nan`, `max`, `tiny`, `k*max_ulp` or `#n`",
        ),
        (
            "  \"NaN stays NaN: nan, 1\",",
            "  \"NaN stays NaN: nan, 1, 2\",",
            0,
            "families.two_sum.cases",
            "probe `NaN stays NaN` has 3 words; aether_f32_two_sum takes 2",
        ),
        // Per-lane linear algebra.
        (
            "pivot = \"first-largest\"",
            "pivot = \"largest\"",
            0,
            "rules.linalg.pivot",
            "unknown pivot `largest` (expected `first-largest` or `last-largest`)",
        ),
        ("eigh_sweeps = 10", "eigh_sweeps = 0", 0, "rules.linalg.eigh_sweeps", "0 sweeps: between 1 and 64"),
        (
            "rotation = \"jacobi_rotation\"",
            "rotation = \"jacobi_diag\"",
            0,
            "rules.linalg.rotation",
            "family `jacobi_diag` must be a scalar family of 3 parameter(s)",
        ),
        (
            "schedule = \"eigh\"\nshapes = [\"mat2\", \"mat3\", \"mat4\"]",
            "schedule = \"eigh\"\nshapes = [\"mat2\", \"vec3\"]",
            1,
            "kernels.eigh.shapes",
            "a `eigh` kernel cannot take shape `vec3`",
        ),
        (
            "shape_cases.mat2 = [\"unseeded dot: u11 = +0, so +0",
            "shape_cases.vec2 = [\"unseeded dot: u11 = +0, so +0",
            0,
            "kernels.det_lu.shape_cases.vec2",
            "`vec2` is not a shape of this kernel (shapes: mat2, mat3, mat4)",
        ),
        (
            "  \"NaN below the diagonal is passed over: 1, 1, nan, 1\",",
            "  \"NaN below the diagonal is passed over: 1, 1, nan\",",
            0,
            "kernels.lu.shape_cases.mat2",
            "probe `NaN below the diagonal is passed over` has 3 words; aether_mat2f_lu takes 4 (a probe for one shape goes in `shape_cases.<shape>`)",
        ),
        (
            "schedule = \"resolve\"\nshapes = [\"scalar\"]",
            "schedule = \"resolve\"\nshapes = [\"scalar\"]\nmany = true",
            2,
            "kernels.plane_resolve.many",
            "a `resolve` kernel has no many-lane form",
        ),
        // The WGSL bands: the metric a tree cannot have is refused where it
        // is stated, and every function needs one.
        (
            "ulp = [\"add\", \"sub\",",
            "ulp = [\"dot\", \"add\", \"sub\",",
            2,
            "bands.wgsl.forward",
            "`dot` is listed twice (also under ulp)",
        ),
        (
            "  \"lerp\", \"sum\", \"dot\",",
            "  \"lerp\", \"sum\",",
            -12,
            "bands.wgsl",
            "`dot` (aether_vec2f_dot) has no metric: list it under bits, ulp, forward or unbounded",
        ),
        (
            "\"jacobi_diag\", \"atan\",\n  \"sin_poly\", \"cos_poly\", \"tan_poly\", \"atan_poly\", \"asin_poly\", \"exp_poly\", \"exp2_poly\", \"log_poly\", \"pow_poly\",\n]\nunbounded = [\"inverse_adjugate\", \"exp\"",
            "\"atan\",\n  \"sin_poly\", \"cos_poly\", \"tan_poly\", \"atan_poly\", \"asin_poly\", \"exp_poly\", \"exp2_poly\", \"log_poly\", \"pow_poly\",\n]\nunbounded = [\"inverse_adjugate\", \"jacobi_diag\", \"exp\"",
            3,
            "bands.wgsl.unbounded",
            "`jacobi_diag` (aether_f32_jacobi_diag): result word 0 has a forward bound (2): state it `forward`",
        ),
        // A tree that rests on rounding to nearest (exp's shifter) has no
        // band but bits or unbounded.
        (
            "\"pow_poly\",\n]\nunbounded = [\"inverse_adjugate\", \"exp\", ",
            "\"pow_poly\", \"exp\",\n]\nunbounded = [\"inverse_adjugate\", ",
            0,
            "bands.wgsl.forward",
            "`exp` (aether_f32_exp): its tree rests on each operation rounding to nearest (a shifter's rounding to an integer, a split or a two-sum's error), so no band follows from the target's accuracy per operation: state it `unbounded` (or `bits`)",
        ),
        (
            "\"jacobi_rotation\"]\nforward = [\n  \"lerp\", \"sum\", \"dot\", \"cross\",",
            "\"jacobi_rotation\", \"cross\"]\nforward = [\n  \"lerp\", \"sum\", \"dot\",",
            0,
            "bands.wgsl.ulp",
            "`cross` (aether_vec3f_cross): result word 0 has a sum whose terms may cancel (or a division by one): a ULP count is meaningless there; state it `forward`",
        ),
        (
            "unbounded = [\"inverse_adjugate\", \"exp\", \"exp2\", \"sincos\", \"sin\", \"cos\", \"tan\", \"atan2\", \"log\", \"log2\", \"pow\", \"asin\", \"acos\", \"slerp\", \"from_axis_angle\", \"from_euler_xyz\",\n",
            "unbounded = [\"inverse_adjugate\", \"exp\", \"exp2\", \"sincos\", \"sin\", \"cos\", \"tan\", \"atan2\", \"log\", \"log2\", \"pow\", \"asin\", \"acos\", \"slerp\", \"from_axis_angle\", \"from_euler_xyz\", \"dotty\",\n",
            0,
            "bands.wgsl.unbounded",
            "unknown family or kernel `dotty`",
        ),
        // (A table no other table starts from: [bands.glsl] is like = "wgsl".)
        ("[bands.opencl_relaxed]", "[bands.metal]", 0, "bands.metal", stated_for_metal.as_str()),
        // A banded target must have its table; the keys are the targets' facts.
        ("[bands.opencl_relaxed]", "[bands.opencl_relaxed_2]", 0, "bands.opencl_relaxed_2", stated_for_2.as_str()),
        // df64 is for a target that prints it and lacks binary64.
        (
            "targets = [\"wgsl\", \"glsl\"]",
            "targets = [\"c\"]",
            0,
            "df64.targets",
            "`c`: df64 is printed by the targets without binary64 that print it (wgsl, glsl)",
        ),
        (
            "targets = [\"wgsl\", \"glsl\"]",
            "targets = [\"wgsl\", \"metal\"]",
            0,
            "df64.targets",
            "`metal`: df64 is printed by the targets without binary64 that print it (wgsl, glsl)",
        ),
        // ... and every target that prints it is listed (an empty list was accepted).
        (
            "targets = [\"wgsl\", \"glsl\"]",
            "targets = []",
            0,
            "df64.targets",
            "`wgsl` prints df64 (the f64 functions on a target without binary64) but is not listed; list every such target (wgsl, glsl)",
        ),
        (
            "targets = [\"wgsl\", \"glsl\"]",
            "targets = [\"wgsl\"]",
            0,
            "df64.targets",
            "`glsl` prints df64 (the f64 functions on a target without binary64) but is not listed; list every such target (wgsl, glsl)",
        ),
        // Each band table states its target's accuracy per operation.
        (
            "[bands.wgsl]\nadd_sub_mul_ulp = 1.0\ndiv_ulp = 2.5\n",
            "[bands.wgsl]\nadd_sub_mul_ulp = 1.0\n",
            0,
            "bands.wgsl",
            "missing `div_ulp`: the target's accuracy of that operation in ulp (its bands are derived from it)",
        ),
        (
            "div_ulp = 2.5\nsqrt_ulp = 3.0",
            "div_ulp = 2.5\nsqrt_ulp = 0.25",
            1,
            "bands.opencl_relaxed.sqrt_ulp",
            "0.25 ulp: an operation's accuracy is at least 0.5 ulp (correctly rounded) and at most 1048576",
        ),
        (
            "add_sub_mul_ulp = 0.5",
            "add_sub_mul_ulp = inf",
            0,
            "bands.opencl_relaxed.add_sub_mul_ulp",
            "inf ulp: an operation's accuracy is at least 0.5 ulp (correctly rounded) and at most 1048576",
        ),
        (
            "ulp = [\"div\", \"norm\", \"normalize\", \"jacobi_rotation\"]",
            "ulp = [\"div\", \"norm\", \"normalize\", \"jacobi_rotation\", \"eigh\"]",
            2,
            "bands.opencl_relaxed.unbounded",
            "`eigh` is listed twice (also under ulp)",
        ),
        (
            "unbounded = [\"lu\", \"lu_solve\",",
            "unbounded = [\"lu_solve\",",
            -15,
            "bands.opencl_relaxed",
            "`lu` (aether_mat2f_lu) has no metric: list it under bits, ulp, forward or unbounded",
        ),
        (
            "ulp = [\"div\", \"norm\", \"normalize\", \"jacobi_rotation\"]\nforward = [\"atan\"]\nunbounded = [\"lu\", ",
            "ulp = [\"div\", \"norm\", \"normalize\", \"jacobi_rotation\", \"lu\"]\nforward = [\"atan\"]\nunbounded = [",
            0,
            "bands.opencl_relaxed.ulp",
            "kernel `lu` is compared bit for bit (a linear-algebra routine may be unbounded): list it under bits",
        ),
        (
            "[integer_types.i64]\nwidth = 64",
            "[integer_types.i64]\nwidth = 48",
            1,
            "integer_types.i64.width",
            "an integer type is 32 or 64 bits wide",
        ),
        (
            "half-way remainder). Domain: x >= 0, 1 <= s <= 62.\n[int_functions.shr_rne]",
            "half-way remainder). Domain: x >= 0, 1 <= s <= 62.\n[int_functions.shr_rne]\nexact = true",
            2,
            "int_functions.shr_rne.exact",
            "unknown field `exact`, expected one of `doc`, `params`, `returns`, `body`",
        ),
        (
            "dm = 5110 * m\n",
            "dm = 5110 * m / 2\n",
            0,
            "predicates.angle_flag.integer",
            "column 6: integer division is not in the language (shift, or state a helper)",
        ),
        (
            "ndp = f64(f32(dp)) / 4096\n",
            "ndp = f64(f32(dp)) / 4096\nbad = ndp << 1\n",
            1,
            "predicates.angle_flag.golden",
            "column 7: `<<` needs integers, not f64",
        ),
        (
            "k = 11 - clz(zs)\n",
            "k = 11 - clz(zs) + f32(1)\n",
            0,
            "predicates.angle_flag.integer",
            "column 24: the literal's type is not known here: write it beside a typed operand",
        ),
        (
            "out = angle_flag(dp, om, tm)",
            "out = angle_flag(dp, om)",
            0,
            "predicates.angle_flag_bands.body",
            "column 7: `angle_flag` takes 3 argument(s)",
        ),
        ("renorm = \"renorm\"", "renorm = \"renorm_x\"", 0, "df64.renorm", "`renorm_x` is not an operation of [df64_ops]"),
        ("cl2 = a.lo * b\n", "cl2 = a.lo * z\n", 0, "df64_ops.mul_f32.body", "column 14: `z` is not a parameter or an earlier step"),
        (
            "body = \"out = df(a.hi * -1, a.lo * -1)\"",
            "body = \"out = add(a, a)\"",
            0,
            "df64_ops.neg.body",
            "column 7: `add` is not a builtin (df, sqrt, fabs, isfinite) or an earlier operation of [df64_ops]",
        ),
        (
            "isfinite = \"is_finite\"",
            "isfinite = \"abs\"",
            0,
            "df64.ops.isfinite",
            "`isfinite` needs an operation (df) -> bool; `abs` is (df) -> df",
        ),
        ("exclude = [\"two_sum_err\"", "exclude = [\"two_sum_errr\"", 0, "df64.exclude", "`two_sum_errr` is not a family"),
        (
            "\"exp2\", \"log2\", \"pow\", \"asin\"",
            "\"exp2\", \"log2\", \"asin\"",
            0,
            "df64.exclude",
            "family `pow` states the literal 2.2250738585072014e-308, outside the df64 domain (min_magnitude to max_magnitude): exclude it",
        ),
        (
            "min_magnitude = \"2^-70\"",
            "min_magnitude = \"1e-21\"",
            0,
            "df64.min_magnitude",
            "`1e-21`: a power of two `2^N`, -126 <= N <= 127",
        ),
        ("t = 4097 * a\n", "t = 4097.1 * a\n", 0, "df64_ops.split.body", "column 5: 4097.1 is not a binary32 number"),
        (
            "returns = \"df\"\nbound = 7.0",
            "returns = \"bool\"\nbound = 7.0",
            1,
            "df64_ops.mul.bound",
            "a bound is a positive number of u^2, on an operation that returns a pair",
        ),
    ];
    let failures = differing(&cases);
    assert!(cases.len() >= 43);
    assert!(failures.is_empty(), "{} of {} messages differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

/// The error of a spec given as bytes, through the same path as the
/// generator's `load` (UTF-8 first).
fn error_of_bytes(bytes: &[u8]) -> String {
    match spec::parse_bytes("spec/aether.toml", bytes) {
        Err(e) => e.to_string(),
        Ok(s) => match aether_generator::model(&s) {
            Err(e) => e.to_string(),
            Ok(_) => "no error".into(),
        },
    }
}

/// Specs that once panicked, overflowed the stack, allocated without bound,
/// emitted C that does not compile, or failed with no location: each is now
/// one error naming the file, the line and the key.
#[test]
fn hostile_specs_get_exact_messages() {
    // The targets whose keywords hold `word`, in name order, as the generator names them.
    let reserving = |word: &str| {
        let mut names: Vec<&str> =
            aether_generator::targets::registry().iter().filter(|t| t.keywords().contains(&word)).map(|t| t.name()).collect();
        names.sort();
        names.join(", ")
    };
    let nested = |open: &str, close: &str, n: usize| format!("{}a[i]{} + b[i]", open.repeat(n), close.repeat(n));
    let add = "body = \"out[i] = a[i] + b[i]\"";
    let with_body = |b: String| format!("body = \"out[i] = {b}\"");
    let ternary = format!("{}a[i]", "a[i] > 0 ? a[i] : ".repeat(100));
    let rounds40 = (0..40).rev().map(|k| (1u64 << k).to_string()).collect::<Vec<_>>().join(", ");
    let lane_words = |n: usize| vec!["0"; n].join(", ");
    let depth = "the expression nests more than 64 levels deep (parentheses, calls, indexes, `!`, `?:` and the operators of a \
                 chain each count one): split it into named steps";
    // (find, replace, line offset from the edit, key, message)
    let cases: Vec<(String, String, i64, &str, String)> = vec![
        // Panics: arity against the reference's table, a kernel probe of the wrong length.
        (
            "params = [\"m: self\"]\nreturns = \"self\"\nbody = \"out[r][c] = m[c][r]\"".into(),
            "params = [\"m: self\", \"k: scalar\"]\nreturns = \"self\"\nbody = \"out[r][c] = m[c][r]\"".into(),
            0,
            "families.transpose.params",
            "aether_mat2f_transpose takes 5 input words as its parameters give, but the reference's `transpose` for `mat2` \
             takes 4: the spec and reference/src/flat.rs must agree"
                .into(),
        ),
        (
            format!("\"lone +inf in lane 31: {}, inf, 0\"", lane_words(62)),
            format!("\"lone +inf in lane 31: {}, inf, 0\"", lane_words(61)),
            0,
            "kernels.reduce32.cases",
            "probe `lone +inf in lane 31`: aether_pairf_reduce32: takes 64 words, got 63".into(),
        ),
        (
            "\"companions round in; +inf ignores a NaN companion: 1, inf, nan, 5.960464477539063e-8, nan, 0\"".into(),
            "\"odd: 1, inf, nan\"".into(),
            0,
            "kernels.plane_resolve.cases",
            "probe `odd`: aether_f32_plane_resolve: takes value and companion words of one length, got 3 words".into(),
        ),
        (
            "  \"NaN stays NaN: nan, 1\",".into(),
            "  \"NaN stays NaN: nan, #5000000000\",".into(),
            0,
            "families.two_sum.cases",
            "probe `NaN stays NaN`: word 5000000000 does not fit the 32 bits of aether_f32_two_sum".into(),
        ),
        // Stack overflows: deep nesting of every kind, and long flat bodies.
        (add.into(), with_body(nested("(", ")", 5000)), 0, "families.add.body", format!("column 74: {depth}")),
        (add.into(), with_body(format!("{}a[i] + b[i]", "!".repeat(20000))), 0, "families.add.body", format!("column 74: {depth}")),
        (add.into(), with_body(nested("sqrt(", ")", 3000)), 0, "families.add.body", format!("column 170: {depth}")),
        (add.into(), with_body(ternary), 0, "families.add.body", format!("column 1121: {depth}")),
        (add.into(), with_body(format!("a[i]{}", " + b[i]".repeat(3000))), 0, "families.add.body", format!("column 446: {depth}")),
        (
            add.into(),
            with_body(format!("a[i]{}", " + b[i]".repeat(1_500_000))),
            0,
            "families.add.body",
            "column 1: 10500013 bytes of expression text: at most 65536".into(),
        ),
        (
            "body = \"out = fold(add, i < N, a[i])\"".into(),
            "body = \"out = fold(add, i < 100000000, a[0])\"".into(),
            0,
            "families.sum.body",
            "column 7: a fold of more than 256 terms: fold over a shape's components".into(),
        ),
        (
            "body = \"out = dot(a, a)\"".into(),
            "body = \"out = squared_norm(a)\"".into(),
            0,
            "families.squared_norm.body",
            "column 1: calls nest more than 16 deep (squared_norm -> squared_norm -> squared_norm -> squared_norm -> ...): a \
             family that calls itself, directly or through others, never ends"
                .into(),
        ),
        // Unbounded sizes.
        (
            "lanes = 32\nrounds = [16, 8, 4, 2, 1]".into(),
            format!("lanes = 1099511627776\nrounds = [{rounds40}]"),
            0,
            "rules.reduction.lanes",
            "1099511627776 lanes: at most 1024".into(),
        ),
        (
            "[shapes.vec2]\nkind = \"vector\"\ncomponents = [\"x\", \"y\"]".into(),
            format!(
                "[shapes.vec2]\nkind = \"vector\"\ncomponents = [\"x\", \"y\", {}]",
                (0..15).map(|k| format!("\"c{k}\"")).collect::<Vec<_>>().join(", ")
            ),
            2,
            "shapes.vec2.components",
            "17 components: a vector has at most 16".into(),
        ),
        (
            "[shapes.mat2]\nkind = \"matrix\"\nrows = 2\ncols = 2".into(),
            "[shapes.mat2]\nkind = \"matrix\"\nrows = 2\ncols = 100000".into(),
            0,
            "shapes.mat2",
            "a 2x100000 matrix: at most 8 rows and 8 columns".into(),
        ),
        // Accepted specs whose C did not compile.
        (
            "doc = \"Componentwise a - b.\"".into(),
            "doc = \"Componentwise */ a - b.\"".into(),
            0,
            "families.sub.doc",
            "`*/` would end or open the comment this text is printed in; write it with a space (`* /`)".into(),
        ),
        (
            "doc = \"Componentwise a - b.\"".into(),
            "doc = \"Componentwise /* a - b.\"".into(),
            0,
            "families.sub.doc",
            "`/*` would end or open the comment this text is printed in; write it with a space (`/ *`)".into(),
        ),
        (
            "\"lone +inf: 1, inf, 2\"".into(),
            "\"lone */ +inf: 1, inf, 2\"".into(),
            0,
            "kernels.sum_array.cases",
            "probe label `lone */ +inf`: `*/` would end or open the comment this text is printed in; write it with a space (`* /`)".into(),
        ),
        (
            "name = \"aether\"".into(),
            "name = \"aeth*/er\"".into(),
            0,
            "contract.name",
            "contract name `aeth*/er`: ASCII letters, digits, `_` and `-`, starting with a letter, at most 40 characters".into(),
        ),
        (
            "version = \"0.1.0\"".into(),
            "version = \"0.1\\\"0\"".into(),
            0,
            "contract.version",
            "version `0.1\\\"0` is not MAJOR.MINOR.PATCH (three whole numbers of at most 9 digits)".into(),
        ),
        (
            "[types.f32]".into(),
            "[types.\"f-32\"]".into(),
            0,
            "types.f-32",
            "type name `f-32` is not an identifier of every target (ASCII letters, digits and `_`, starting with a letter)".into(),
        ),
        (
            "[shapes.vec2]".into(),
            "[shapes.\"vec 2\"]".into(),
            0,
            "shapes.vec 2",
            "shape name `vec 2` is not an identifier of every target (ASCII letters, digits and `_`, starting with a letter)".into(),
        ),
        (
            "literal_suffix = \"f\"".into(),
            "literal_suffix = \"L\"".into(),
            -3,
            "types.f32",
            "a 32-bit element type has literal_suffix = \"f\" and libm_suffix = \"f\" (C's `float`), not \"L\" and \"f\"".into(),
        ),
        (
            "tt = isfinite(r) ? 1 / (fabs(theta) + r) : 0.5 / fabs(theta)".into(),
            "int = 1\ntt = isfinite(r) ? 1 / (fabs(theta) + r) : 0.5 / fabs(theta)".into(),
            0,
            "families.jacobi_rotation.body",
            format!("the step `int` is reserved by target {} (generator/src/targets/c/keywords.txt)", reserving("int")),
        ),
        (
            "params = [\"app: self\", \"aqq: self\", \"apq: self\"]\nreturns = \"rotation\"".into(),
            "params = [\"app: self\", \"aqq: self\", \"or: self\"]\nreturns = \"rotation\"".into(),
            0,
            "families.jacobi_rotation.params",
            format!("parameter name `or` is reserved by target {} (generator/src/targets/c/keywords.txt)", reserving("or")),
        ),
        // A name twice is refused; `out`, `lanes` and `first` are free (the cores' own names are
        // `aether_...`: tests/names.rs).
        (
            "params = [\"a: self\", \"s: scalar\"]\nreturns = \"self\"\nbody = \"out[i] = s * a[i]\"".into(),
            "params = [\"a: self\", \"a: scalar\"]\nreturns = \"self\"\nbody = \"out[i] = s * a[i]\"".into(),
            0,
            "families.scale.params",
            "parameter name `a` is not a fresh C identifier".into(),
        ),
        (
            "arrays = [\"a\", \"b\"]".into(),
            "arrays = [\"a\", \"a\"]".into(),
            0,
            "kernels.lanes_dot.arrays",
            "`a` is not a fresh array name".into(),
        ),
        (
            "[families.transpose]\n".into(),
            "[families.transpose]\nop = \"trans-pose\"\n".into(),
            1,
            "families.transpose.op",
            "`trans-pose` is not a C identifier".into(),
        ),
        // Shared compositions: not exported (no cases), named apart from the
        // families, and called by some body.
        (
            "[shared.log_special]\n".into(),
            "[shared.log_special]\ncases = [\"one: 1\"]\n".into(),
            0,
            "shared.log_special.cases",
            "a shared composition is not exported, so it has no `cases` (its callers' cases test it)".into(),
        ),
        (
            "[shared.log_special]\n".into(),
            "[shared.log]\n".into(),
            0,
            "shared.log",
            "`log` names a family too: a shared composition needs a name of its own".into(),
        ),
        (
            "[shared.log_special]\n".into(),
            "[shared.log_special_values]\n".into(),
            0,
            "shared.log_special_values",
            "shared composition `log_special_values` is called by no family or other shared composition (no core would print it)".into(),
        ),
        // Errors that named no location, or the wrong one.
        (
            "determinant(minor(m, 0, 2))\n".into(),
            "determinant(minor(m, 9, 0))\n".into(),
            -1,
            "families.determinant.bodies.mat3",
            "column 118: minor row 9 is not a row of `mat3` (0..3)".into(),
        ),
        ("term = \"a * b\"".into(), "term = \"a * c\"".into(), 0, "kernels.lanes_dot.term", "column 5: unknown name `c`".into()),
        (
            add.into(),
            "body = \"out[i] = a[i] \u{d7} b[i]\"".into(),
            0,
            "families.add.body",
            "column 15: unexpected character \u{d7} (U+00D7): the body language is ASCII".into(),
        ),
    ];
    let mut failures = Vec::new();
    for (find, replace, offset, key, message) in &cases {
        let (text, line) = edit(find, replace);
        let want = format!("spec/aether.toml:{}: `{key}`: {message}", line as i64 + offset);
        let got = error_of(&text);
        if got != want {
            failures.push(format!("edit `{}` -> `{}`\n  want: {want}\n  got:  {got}", short(find), short(replace)));
        }
    }
    // Bytes that are not UTF-8: the line and column of the first bad byte.
    let (text, line) = edit("doc = \"Componentwise a - b.\"", "doc = \"Componentwise @ a - b.\"");
    let bytes: Vec<u8> = text.bytes().map(|b| if b == b'@' { 0xff } else { b }).collect();
    let want = format!("spec/aether.toml:{line}: `families.sub`: column 22: byte 0xff is not UTF-8 (a spec is UTF-8 text)");
    let got = error_of_bytes(&bytes);
    if got != want {
        failures.push(format!("invalid UTF-8\n  want: {want}\n  got:  {got}"));
    }
    // A per-type body for a type that the spec no longer has: every family
    // and shared composition with a `bodies.f64` is refused, each at its key,
    // in line order (more of them than one run prints).
    let (text, _) = edit("[types.f64]", "[types.vec3f]");
    let want: Vec<String> = line_numbers(|l| l.starts_with("bodies.f64 = "))
        .map(|line| {
            format!(
                "spec/aether.toml:{line}: `{}.bodies.f64`: `f64` is neither one of the family's shapes nor an element type",
                table_above(line)
            )
        })
        .collect();
    assert!(want.len() > ERROR_CAP, "{} per-type bodies of f64: no longer more than one run prints", want.len());
    let want = listing(&want);
    let got = error_of(&text);
    if got != want {
        failures.push(format!("per-type body of a type that is gone\n  want: {want}\n  got:  {got}"));
    }
    // A type whose name spells a shape's name with a type's letter (the
    // per-type bodies renamed with it): the clash of each family that has
    // both shapes, and the reference's disagreement on the types, since it
    // implements `f64` and no `vec3f`.
    let (text, line) = edit("[types.f64]", "[types.vec3f]");
    let text = text.replace("bodies.f64 = ", "bodies.vec3f = ");
    let f64_entries: Vec<String> = entries().iter().filter(|e| e.2 == "f64").map(|(f, s, e)| format!("`{f}/{s}/{e}`")).collect();
    let clash = |table: &str, name: &str| {
        format!(
            "spec/aether.toml:{}: `{table}.{name}`: C name clash: `aether_vec3f_{name}` is both `{name}` for shape `scalar` and \
             type `vec3f` and `{name}` for shape `vec3` and type `f32` (a shape's name with a type's letter spells a type's \
             name, or two operations share a name)",
            line_of(&format!("[{table}.{name}]"))
        )
    };
    let want = [
        format!(
            "spec/aether.toml:{}: `types`: the reference implements functions of type `f64` ({} and {} more, in \
             reference/src/flat.rs), but the spec declares no type `f64`: declare `[types.f64]`, or take them out of the \
             reference",
            line_of("[types.f32]"),
            f64_entries[..3].join(", "),
            f64_entries.len() - 3
        ),
        format!(
            "spec/aether.toml:{line}: `types.vec3f`: the reference implements no function of type `vec3f` (aether_vec3f_fmin \
             and the others): implement them in reference/ and add them to reference/src/flat.rs first"
        ),
        clash("families", "neg"),
        clash("families", "abs"),
        clash("kernels", "plane_add"),
    ]
    .join("\n");
    let got = error_of(&text);
    if got != want {
        failures.push(format!("type name clash\n  want: {want}\n  got:  {got}"));
    }
    assert!(failures.is_empty(), "{} of {} messages differ:\n{}", failures.len(), cases.len() + 3, failures.join("\n"));
}

/// The line of the spec's line that is exactly `text`.
fn line_of(text: &str) -> i64 {
    SPEC.lines().position(|l| l == text).unwrap() as i64 + 1
}

fn short(s: &str) -> String {
    if s.len() > 120 {
        format!("{}... ({} bytes)", &s[..120], s.len())
    } else {
        s.to_string()
    }
}

/// The 1-based numbers of the spec's lines that `keep` keeps.
fn line_numbers(keep: impl Fn(&str) -> bool) -> impl Iterator<Item = usize> {
    SPEC.lines().enumerate().filter(move |(_, l)| keep(l)).map(|(i, _)| i + 1)
}

/// The name of the table whose header is the last one at or above `line`.
fn table_above(line: usize) -> String {
    let header = SPEC.lines().take(line).filter_map(|l| l.strip_prefix('[').and_then(|h| h.strip_suffix(']'))).last();
    header.unwrap().to_string()
}

/// What one run prints for these errors (in line order): at most
/// `ERROR_CAP`, then the count of the others.
fn listing(errors: &[String]) -> String {
    let shown = errors[..errors.len().min(ERROR_CAP)].join("\n");
    match errors.len().checked_sub(ERROR_CAP) {
        Some(left) if left > 0 => format!("{shown}\nand {left} more error(s) (only the first {ERROR_CAP} are shown)"),
        _ => shown,
    }
}

/// Applies each `(find, replace)` edit (each `find` occurring once in the
/// spec, and the edits keeping the line count) and returns the text.
fn edits(list: &[(&str, &str)]) -> String {
    let mut text = SPEC.to_string();
    for (find, replace) in list {
        assert_eq!(text.matches(find).count(), 1, "`{find}` must occur once in the spec");
        assert_eq!(find.matches('\n').count(), replace.matches('\n').count(), "`{find}`: the edits keep every line where it is");
        text = text.replacen(find, replace, 1);
    }
    text
}

/// The spec line where `find` (which occurs once) starts.
fn line_at(find: &str) -> usize {
    assert_eq!(SPEC.matches(find).count(), 1, "`{find}` must occur once in the spec");
    SPEC[..SPEC.find(find).unwrap()].matches('\n').count() + 1
}

/// The reference's entries of `family` for `shape`, as the errors list them.
fn entries_of(family: &str, shape: &str) -> String {
    let listed: Vec<String> =
        entries().iter().filter(|e| (e.0, e.1) == (family, shape)).map(|(f, s, e)| format!("`{f}/{s}/{e}`")).collect();
    assert_eq!(listed.len(), 2, "{family}/{shape}: one entry per element type of the spec");
    listed.join(", ")
}

/// Item 1 of issue 45: a function the reference implements and the spec
/// does not list is an error at the key that would list it, naming the
/// reference's entries. The spec drops a shape of a family, a shape of a
/// kernel, a kernel's many-lane form, and a whole family; each is one error.
#[test]
fn reference_entries_the_spec_drops_are_refused() {
    let dot = "shapes = [\"vec2\", \"vec3\", \"vec4\"]\nparams = [\"a: self\", \"b: self\"]\nreturns = \"scalar\"\nbody = \"out = fold(add, i < N, a[i] * b[i])\"";
    let dot_dropped = dot.replacen(", \"vec4\"]", "]", 1);
    let plane = "schedule = \"plane\"\nshapes = [\"scalar\", \"vec2\", \"vec3\", \"vec4\"]";
    let plane_dropped = plane.replacen(", \"vec4\"]", "]", 1);
    let lu = "schedule = \"lu\"\nshapes = [\"mat2\", \"mat3\", \"mat4\"]\nmany = true";
    let lu_single = lu.replacen("many = true", "many = false", 1);
    // `line`: the line of `shapes` in the edited text.
    let shape_error = |table: &str, name: &str, line: usize, shape: &str| {
        let what = if table == "families" { "family" } else { "kernel" };
        format!(
            "spec/aether.toml:{}: `{table}.{name}.shapes`: the reference implements `{name}` for shape `{shape}` ({} in \
             reference/src/flat.rs), but the {what} does not list `{shape}`: list it, or take it out of the reference",
            line,
            entries_of(name, shape)
        )
    };
    // One shape of one family.
    assert_eq!(error_of(&edits(&[(dot, &dot_dropped)])), shape_error("families", "dot", line_at(dot), "vec4"));
    // One shape of one kernel.
    assert_eq!(error_of(&edits(&[(plane, &plane_dropped)])), shape_error("kernels", "plane_add", line_at(plane) + 1, "vec4"));
    // A many-lane form: the error is at `many`.
    let lanes: Vec<String> = entries().iter().filter(|e| e.0 == "lu_lanes").take(3).map(|(f, s, e)| format!("`{f}/{s}/{e}`")).collect();
    let n_lanes = entries().iter().filter(|e| e.0 == "lu_lanes").count();
    assert_eq!(
        error_of(&edits(&[(lu, &lu_single)])),
        format!(
            "spec/aether.toml:{}: `kernels.lu.many`: the reference implements the many-lane form `lu_lanes` ({} and {} more, in \
             reference/src/flat.rs), but the kernel is not `many = true`: set it, or take the form out of the reference",
            line_at(lu) + 2,
            lanes.join(", "),
            n_lanes - 3
        )
    );
    // A whole family (and its names in the bands): the error names where
    // the function tables are and the entries.
    let sign = "[families.sign]\ndoc = \"+1 for a > 0, -1 for a < 0, and +0 for +0, -0 and NaN.\"\nshapes = [\"scalar\"]\nparams = [\"a: self\"]\nreturns = \"self\"\nbody = \"out = a > 0 ? 1 : (a < 0 ? -1 : 0)\"\n";
    assert_eq!(SPEC.matches(sign).count(), 1);
    let text = SPEC.replacen(sign, "", 1).replace("\"fmin\", \"fmax\", \"sign\", ", "\"fmin\", \"fmax\", ");
    let last_table =
        text.lines().collect::<Vec<_>>().iter().rposition(|l| l.starts_with("[families.") || l.starts_with("[kernels.")).unwrap() + 1;
    assert_eq!(
        error_of(&text),
        format!(
            "spec/aether.toml:{last_table}: `families.sign`: the reference implements `sign` ({} in reference/src/flat.rs), but \
             the spec has no `[families.sign]` or `[kernels.sign]`: add one among the function tables (the last of which starts \
             here), or take it out of the reference",
            entries_of("sign", "scalar")
        )
    );
}

/// Item 2 of issue 45: one run reports every independent error, in line
/// order, whatever the order they were made or found in.
#[test]
fn independent_errors_are_all_reported_in_line_order() {
    // Three tables that every function reads: checked together.
    let text = edits(&[
        ("[rules.fold]\nnesting = \"right\"", "[rules.fold]\nnesting = \"pairwise\""),
        ("[shapes.vec2]\nkind = \"vector\"", "[shapes.vec2]\nkind = \"tensor\""),
        ("[types.f32]\nc_type = \"float\"", "[types.f32]\nc_type = \"double\""),
    ]);
    let want = [
        format!(
            "spec/aether.toml:{}: `types.f32.c_type`: a 32-bit element type is C `float`, not `double`",
            line_at("[types.f32]\nc_type") + 1
        ),
        format!(
            "spec/aether.toml:{}: `shapes.vec2.kind`: unknown shape kind `tensor` (expected `scalar`, `vector` or `matrix`)",
            line_at("[shapes.vec2]\nkind") + 1
        ),
        format!(
            "spec/aether.toml:{}: `rules.fold.nesting`: unknown nesting `pairwise` (expected `right` or `left`)",
            line_at("[rules.fold]\nnesting") + 1
        ),
    ];
    assert_eq!(error_of(&text), want.join("\n"));
    // Three families, each checked on its own.
    let text = edits(&[
        (
            "params = [\"app: self\", \"aqq: self\", \"apq: self\"]\nreturns = \"rotation\"",
            "params = [\"app: self\", \"aqq: self\", \"or: self\"]\nreturns = \"rotation\"",
        ),
        ("shapes = [\"vec3\"]\nparams = [\"a: self\", \"b: self\"]", "shapes = [\"vec5\"]\nparams = [\"a: self\", \"b: self\"]"),
        ("doc = \"Componentwise a - b.\"", "doc = \"Componentwise a */ b.\""),
    ]);
    let want = [
        format!(
            "spec/aether.toml:{}: `families.sub.doc`: `*/` would end or open the comment this text is printed in; write it with \
             a space (`* /`)",
            line_at("doc = \"Componentwise a - b.\"")
        ),
        format!(
            "spec/aether.toml:{}: `families.cross.shapes`: unknown shape `vec5`",
            line_at("shapes = [\"vec3\"]\nparams = [\"a: self\", \"b: self\"]")
        ),
        format!(
            "spec/aether.toml:{}: `families.jacobi_rotation.params`: parameter name `or` is reserved by target {} \
             (generator/src/targets/c/keywords.txt)",
            line_at("params = [\"app: self\", \"aqq: self\", \"apq: self\"]\nreturns"),
            aether_generator::names::reserving("or").join(", ")
        ),
    ];
    assert_eq!(error_of(&text), want.join("\n"));
    // The checks of the built model: the reference both ways, twice.
    let dot = "shapes = [\"vec2\", \"vec3\", \"vec4\"]\nparams = [\"a: self\", \"b: self\"]\nreturns = \"scalar\"\nbody = \"out = fold(add, i < N, a[i] * b[i])\"";
    let plane = "schedule = \"plane\"\nshapes = [\"scalar\", \"vec2\", \"vec3\", \"vec4\"]";
    let got = error_of(&edits(&[(plane, &plane.replacen(", \"vec4\"]", "]", 1)), (dot, &dot.replacen(", \"vec4\"]", "]", 1))]));
    let keys: Vec<&str> = got.lines().map(|l| l.split('`').nth(1).unwrap()).collect();
    assert_eq!(keys, ["families.dot.shapes", "kernels.plane_add.shapes"], "{got}");
}

/// More errors than one run prints: the first `ERROR_CAP` in line order, and
/// the count of the others.
#[test]
fn errors_past_the_cap_are_counted() {
    // `*/` in the first line of every family's doc: each family is refused.
    let lines: Vec<&str> = SPEC.lines().collect();
    let docs: Vec<usize> = (1..lines.len())
        .filter(|&i| lines[i - 1].starts_with("[families.") && lines[i].starts_with("doc = \"") && !lines[i].starts_with("doc = \"\"\""))
        .map(|i| i + 1)
        .collect();
    assert!(docs.len() > ERROR_CAP + 1, "{} families: no more than the cap", docs.len());
    let text: String = SPEC
        .lines()
        .enumerate()
        .map(|(i, l)| if docs.contains(&(i + 1)) { l.replacen("doc = \"", "doc = \"*/", 1) } else { l.to_string() } + "\n")
        .collect();
    let got = error_of(&text);
    let lines: Vec<&str> = got.lines().collect();
    assert_eq!(lines.len(), ERROR_CAP + 1, "{got}");
    for (line, &n) in lines[..ERROR_CAP].iter().zip(&docs) {
        let want = format!("spec/aether.toml:{n}: `{}.doc`: `*/` would end or open the comment", table_above(n));
        assert!(line.starts_with(&want), "want {want}..., got {line}");
    }
    assert_eq!(lines[ERROR_CAP], format!("and {} more error(s) (only the first {ERROR_CAP} are shown)", docs.len() - ERROR_CAP));
}

/// `[df64]`'s lists (`targets`, `exclude`, the operations' `params`): an
/// empty entry and one listed twice, each refused at the entry; two keys of
/// `ops` naming one operation, refused at the later (each key means its own
/// reference operation: `df64::meaning`); a duplicate key of `ops` is the
/// TOML reader's.
#[test]
fn df64_lists_refuse_empty_and_repeated_entries() {
    let cases: Vec<(&str, &str, i64, &str, &str)> = vec![
        ("targets = [\"wgsl\", \"glsl\"]", "targets = [\"wgsl\", \"glsl\", \"wgsl\"]", 0, "df64.targets", "`wgsl` is listed twice"),
        ("targets = [\"wgsl\", \"glsl\"]", "targets = [\"wgsl\", \" \"]", 0, "df64.targets", "an empty entry: each entry names a target"),
        (
            "exclude = [\"two_sum_err\", \"two_sum\",",
            "exclude = [\"two_sum_err\", \"two_sum\", \"two_sum\",",
            0,
            "df64.exclude",
            "`two_sum` is listed twice",
        ),
        (
            "exclude = [\"two_sum_err\",",
            "exclude = [\"\", \"two_sum_err\",",
            0,
            "df64.exclude",
            "an empty entry: each entry names a family",
        ),
        (" le = \"le\",", " le = \"lt\",", 0, "df64.ops.le", "names `lt`, as `lt` does: each f64 operation has its own df64 operation"),
        (
            " add = \"add\",",
            " add = \"sub\",",
            0,
            "df64.ops.sub",
            "names `sub`, as `add` does: each f64 operation has its own df64 operation",
        ),
        (
            "params = [\"a: df\", \"b: f32\"]",
            "params = [\"a: df\", \"a: f32\"]",
            0,
            "df64_ops.mul_f32.params",
            "parameter `a` is listed twice",
        ),
        (
            "params = [\"a: df\", \"b: f32\"]",
            "params = [\"a: df\", \"\"]",
            0,
            "df64_ops.mul_f32.params",
            "an empty entry: each entry is `name: type`",
        ),
    ];
    let failures = differing(&cases);
    assert!(failures.is_empty(), "{} of {} messages differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
    let (text, line) = edit(" add = \"add\",", " add = \"add\", add = \"sub\",");
    let got = error_of(&text);
    assert!(got.starts_with(&format!("spec/aether.toml:{line}: ")) && got.contains("duplicate key"), "{got}");
}

/// The one rule for every text the spec carries into a generated file
/// (`names::check_text`), in each section it reaches: the docs of `[df64]`,
/// `[df64_ops]`, integer functions and predicates, the `#` comments of their
/// bodies and right above their tables, and the body language's blanks.
/// (generator/tests/texts.rs injects every class into every section and
/// compiles what is accepted.)
#[test]
fn every_text_of_the_spec_gets_the_text_rule() {
    let newline = "a newline would end the `//` comment this text is printed in (in WGSL at least), leaving the rest as code: a \
                   text is one line (a `\"\"\"` string joins its lines where each ends in a backslash)";
    let ls = newline.replacen("a newline", "U+2028 LINE SEPARATOR", 1);
    let nel = newline.replacen("a newline", "U+0085 NEXT LINE", 1);
    let close = "`*/` would end or open the comment this text is printed in; write it with a space (`* /`)";
    let open = "`/*` would end or open the comment this text is printed in; write it with a space (`/ *`)";
    let backslash =
        "this text ends in a backslash (or the trigraph `??/`), which joins the next line to the `//` comment it is printed in (GLSL ES, C)";
    let rlo = "the bidirectional control U+202E RIGHT-TO-LEFT OVERRIDE would show the text in another order than a compiler reads it \
               (gcc's -Wbidi-chars and rustc refuse it in a comment)";
    let pdi = rlo.replacen("U+202E RIGHT-TO-LEFT OVERRIDE", "U+2069 POP DIRECTIONAL ISOLATE", 1);
    let cases: Vec<(&str, String, i64, &str, String)> = vec![
        ("on a target without binary64.\"", "on a target without binary64.\\nAnd code.\"".into(), 0, "df64.doc", newline.to_string()),
        ("(any order of magnitudes).\"", "(any order of magnitudes).\u{2028}And code.\"".into(), 0, "df64_ops.two_sum.doc", ls),
        (
            "ties to even (x >= 0, 1 <= s <= 62).\"",
            "ties to even */ (x >= 0, 1 <= s <= 62).\"".into(),
            0,
            "int_functions.shr_rne.doc",
            close.into(),
        ),
        (
            "as the frozen binary32/binary64 expression decides it.\"",
            "as the frozen binary32/binary64 expression decides it \\\\\"".into(),
            0,
            "predicates.angle_flag.doc",
            backslash.into(),
        ),
        ("doc = \"Componentwise a - b.\"", "doc = \"Componentwise a - b.\\u0085\"".into(), 0, "families.sub.doc", nel),
        (
            "q = x >> s\n",
            "q = x >> s # the quotient */ truncated\n".into(),
            0,
            "int_functions.shr_rne.body",
            format!("the comment `the quotient */ truncated`: {close}"),
        ),
        (
            "dp = i64(oh) * i64(th) + i64(ov) * i64(tv)\n",
            "dp = i64(oh) * i64(th) + i64(ov) * i64(tv) # u.v /* exact\n".into(),
            0,
            "predicates.angle_flag_bands.body",
            format!("the comment `u.v /* exact`: {open}"),
        ),
        (
            "[int_functions.exp24]\n",
            "# a \u{202e}reversed note\n[int_functions.exp24]\n".into(),
            0,
            "int_functions.exp24",
            format!("the comment `a \\u{{202e}}reversed note` above the table: {rlo}"),
        ),
        (
            "\"lone +inf: 1, inf, 2\"",
            "\"lone \u{2069}+inf: 1, inf, 2\"".into(),
            0,
            "kernels.sum_array.cases",
            format!("probe label `lone \\u{{2069}}+inf`: {pdi}"),
        ),
        (
            "body = \"out[i] = a[i] - b[i]\"",
            "body = \"out[i] = a[i]\\r- b[i]\"".into(),
            0,
            "families.sub.body",
            "column 14: unexpected character \\r (U+000D): blanks are spaces and tabs, and a step or an expression is one line".into(),
        ),
        (
            "term = \"a * b\"",
            "term = \"a\\n* b\"".into(),
            0,
            "kernels.lanes_dot.term",
            "line 1 column 2 of the expression: unexpected character \\n (U+000A): blanks are spaces and tabs, and a step or an \
             expression is one line"
                .into(),
        ),
    ];
    let failures = differing(&cases);
    assert!(failures.is_empty(), "{} of {} messages differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

/// The cases of a table (find, replace, line offset, key, message) whose
/// error is not the one stated: each edit applied alone to the spec.
fn differing<R: AsRef<str>, M: AsRef<str>>(cases: &[(&str, R, i64, &str, M)]) -> Vec<String> {
    let mut failures = Vec::new();
    for (find, replace, offset, key, message) in cases {
        let replace = replace.as_ref();
        let (text, line) = edit(find, replace);
        let want = format!("spec/aether.toml:{}: `{key}`: {}", line as i64 + offset, message.as_ref());
        let got = error_of(&text);
        if got != want {
            failures.push(format!("edit `{}` -> `{}`\n  want: {want}\n  got:  {got}", find.escape_debug(), replace.escape_debug()));
        }
    }
    failures
}
