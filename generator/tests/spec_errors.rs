//! Every spec error names the file, the line and the key. Each case edits the
//! real spec in one place and expects one exact message.

use aether_generator::{spec, Model};

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
    match spec::parse("spec/aether.toml", text) {
        Err(e) => e.to_string(),
        Ok(s) => match Model::build(&s) {
            Err(e) => e.to_string(),
            Ok(_) => "no error".into(),
        },
    }
}

#[test]
fn the_real_spec_is_valid() {
    assert_eq!(error_of(SPEC), "no error");
}

#[test]
fn malformed_specs_get_exact_messages() {
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
    ];
    let mut failures = Vec::new();
    for (find, replace, offset, key, message) in &cases {
        let (text, line) = edit(find, replace);
        let want = format!("spec/aether.toml:{}: `{key}`: {message}", line as i64 + offset);
        let got = error_of(&text);
        if got != want {
            failures.push(format!("edit `{find}` -> `{replace}`\n  want: {want}\n  got:  {got}"));
        }
    }
    assert!(cases.len() >= 43);
    assert!(failures.is_empty(), "{} of {} messages differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
}
