//! The strict build of the WGSL core: `wgsl_core/aether_core_strict.wgsl`,
//! the same functions, names and trees as `aether_core.wgsl`, with every
//! rounded operation's result made observable.
//!
//! WGSL (§15.7.5, "Reassociation and Fusion") lets an implementation
//! reassociate operations ("the reordering of operations in an expression
//! such that the answer is the same if computed exactly": `(a + b) + c` to
//! `a + (b + c)`, `(a * b) / c` to `(a / c) * b`) and fuse them when the
//! result is at least as accurate (`a * b + c` into one FMA). Either changes
//! bits, and nothing in the language forbids it: the only defence a shader
//! has is a value the compiler cannot see through. The default build already
//! passes every sum of a function that relies on rounding through the guard
//! (`aether_barrier_f32`: the bits ORed with an opaque zero read from a
//! buffer). The strict build passes the result of every rounded operation
//! through it, in every function: each `+`, `-`, `*` and `/` of f32, each
//! `sqrt` (and, in a mutant's core only, `fma` and `length`). A product is
//! then never an operand of a sum, only the guard's result is, so there is
//! nothing to fuse; and no two operations are adjacent, so there is nothing
//! to reassociate. Guarding the products alone would not do: a sum feeding
//! a sum (every fold of the linear algebra) may be reassociated, and a
//! quotient feeding a product (`(a * b) / c`) may be reordered.
//!
//! Exact operations are printed as they are: negation, `fabs` and the
//! comparisons (on values or on bits), `select`. The trees, their order and
//! every name are the default build's (`Wgsl { strict: true }` is a flag on
//! the one spelling): on a stack that rounds every operation to nearest,
//! the two builds give the same bits (measured on lavapipe and SwiftShader);
//! on one that fuses or reassociates, the strict build is made to give them
//! too wherever the driver rounds each remaining operation to nearest (not
//! measured: no such driver was available; docs/reports/wgsl-strict.md). Division stays WGSL's (2.5 ulp allowed), and a
//! stack that flushes subnormals still flushes them: the guard stops
//! rewrites, not a driver's rounding of one operation.
//!
//! df64 (`aether_df64.wgsl`) has no strict form: its operations are the
//! error-free transforms, and every rounded result of every one of them is
//! already guarded (the df64 printer, `shared::df64`, wraps each in
//! `aether_df64_guard`). The predicates (`aether_predicate.wgsl`) are
//! integer arithmetic on u32 limbs, which WGSL defines exactly: nothing to
//! fuse or reassociate.

use crate::dsl::BinOp;
use crate::error::Error;
use crate::model::{Function, Model};
use crate::selftest::Witness;
use crate::spec::ElemType;
use crate::targets::shared::check::{CheckModule, Guard};

use super::Wgsl;

/// The strict build's file.
pub const PATH: &str = "wgsl_core/aether_core_strict.wgsl";

/// The spelling of a build: the strict one guards every rounded result.
pub fn spelling(strict: bool) -> Wgsl {
    Wgsl { opaque: strict, strict }
}

/// A rounded result `e` (a builtin's): through the guard in the strict build.
pub fn rounded(sp: &Wgsl, e: String, elem: &ElemType) -> String {
    if sp.strict {
        format!("aether_barrier_{}({e})", elem.name)
    } else {
        e
    }
}

/// The strict core's source.
pub fn core_source(model: &Model, lowered: &[Function], banner: &str, guard: Guard, witnesses: &[Witness]) -> Result<String, Error> {
    super::core_source_of(model, lowered, banner, guard, witnesses, true)
}

/// The strict build's check module (`wgsl::check_module`'s entries).
pub fn check_module(model: &Model, lowered: &[Function], guard: Guard) -> CheckModule {
    super::check_module_of(model, lowered, guard, &[], true)
}

/// The strict build's self-test module (`wgsl::selftest_module`'s entry).
pub fn selftest_module(model: &Model, lowered: &[Function], guard: Guard, witnesses: &[Witness]) -> CheckModule {
    let mut m = super::check_module_of(model, lowered, guard, witnesses, true);
    m.entries.retain(|e| e.entry == "check_selftest");
    m
}

/// The guard's call, as the strict build prints it around a rounded result.
pub const GUARD_CALL: &str = "aether_barrier_f32(";

/// The control that stands for a fusing driver: `source` with every product
/// that is an operand of a sum or difference fused with it, as a compiler
/// that contracts does. A group `(X op Y)` of the printed source (op `+` or
/// `-`, spaced, the only operator at the group's top level) whose operand X
/// or Y is itself a group `(P * Q)` (the left one first) becomes
/// `fma(P, Q, Y)`, `fma(P, Q, -(Y))`, `fma(P, Q, X)` or `fma(-(P), Q, X)`,
/// innermost first, so a fold of products becomes a chain of FMAs. Returns
/// the source and the number of fusions. `call` names the fused operation:
/// `fma` (WGSL's, which lavapipe and SwiftShader evaluate as a rounded
/// product and a rounded sum: 690 substitutions in the check module changed
/// no bit there) or [`FUSED`], the control's own, defined by
/// [`FUSED_HELPER`].
///
/// It sees the printed text, not a compiler's graph: a product bound to a
/// name and summed in a later statement is left apart (a driver fuses that
/// too). In the strict build every product is the guard's argument, so an
/// operand of a sum is never a bare `(P * Q)` group and this finds nothing:
/// the property a driver's fusion also needs, a product that the sum reads
/// directly.
pub fn fuse_products(source: &str, call: &str) -> (String, usize) {
    let mut n = 0;
    let out = rewrite(source, call, &mut n);
    (out, n)
}

/// The fused multiply-add of the fusion control: `a * b + c` with the
/// product kept exact, as a fusing driver's FMA keeps it, on a stack whose
/// own `fma` rounds the product.
pub const FUSED: &str = "aether_fused_f32";

/// The definition of [`FUSED`], to append to a check module (Guard::Bits):
/// the rounded product p, its exact error e by Dekker's product over
/// Veltkamp's splits, the two-sum of p and c, and one final rounding of
/// s + (es + e). Every step is guarded, so the compiler keeps it. It is the
/// exact a * b + c rounded once up to the rare double rounding of the last
/// step (an FMA's result or a neighbour): a product that is not rounded
/// before its sum, which is what the control needs, not a correctly rounded
/// FMA. Where a split or the sum overflows, the rounded product and sum.
pub const FUSED_HELPER: &str = "
// The fusion control's multiply-add (wgsl::strict::FUSED_HELPER): a * b + c,
// the product unrounded.
fn aether_fused_f32(a: f32, b: f32, c: f32) -> f32 {
    let p = aether_barrier_f32(a * b);
    let ta = aether_barrier_f32(4097.0 * a);
    let ah = aether_barrier_f32(ta - aether_barrier_f32(ta - a));
    let al = aether_barrier_f32(a - ah);
    let tb = aether_barrier_f32(4097.0 * b);
    let bh = aether_barrier_f32(tb - aether_barrier_f32(tb - b));
    let bl = aether_barrier_f32(b - bh);
    let e1 = aether_barrier_f32(aether_barrier_f32(ah * bh) - p);
    let e2 = aether_barrier_f32(e1 + aether_barrier_f32(ah * bl));
    let e3 = aether_barrier_f32(e2 + aether_barrier_f32(al * bh));
    let e = aether_barrier_f32(e3 + aether_barrier_f32(al * bl));
    let s = aether_barrier_f32(p + c);
    let bb = aether_barrier_f32(s - p);
    let es = aether_barrier_f32(aether_barrier_f32(p - aether_barrier_f32(s - bb)) + aether_barrier_f32(c - bb));
    // Where a split or the sum overflows, the rounded product and sum.
    let tail = select(0.0, aether_barrier_f32(es + e), aether_isfinite_f32(e) && aether_isfinite_f32(es));
    return aether_barrier_f32(s + tail);
}
";

/// `s` with its groups rewritten, innermost first.
fn rewrite(s: &str, call: &str, n: &mut usize) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'(' {
            let Some(close) = matching(b, i) else {
                out.push_str(&s[i..]);
                return out;
            };
            let inner = rewrite(&s[i + 1..close], call, n);
            match fuse(&inner, call) {
                Some(f) => {
                    *n += 1;
                    out.push_str(&f);
                }
                None => {
                    out.push('(');
                    out.push_str(&inner);
                    out.push(')');
                }
            }
            i = close + 1;
        } else {
            let c = s[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The index of the parenthesis that closes the one at `open`.
fn matching(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (k, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'(' | b'[' => depth += 1,
            b')' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return (c == b')').then_some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// The operators of `inner` at its top level: (byte index, operator).
fn top_level_ops(inner: &str) -> Vec<(usize, char)> {
    let b = inner.as_bytes();
    let mut depth = 0i32;
    let mut ops = Vec::new();
    for k in 0..b.len() {
        match b[k] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            c @ (b'+' | b'-' | b'*' | b'/') if depth == 0 && k > 0 && b[k - 1] == b' ' && b.get(k + 1) == Some(&b' ') => {
                ops.push((k, c as char))
            }
            _ => {}
        }
    }
    ops
}

/// `(P * Q)` as (P, Q), when `x` is one whole group with one top-level `*`.
fn product(x: &str) -> Option<(&str, &str)> {
    let x = x.trim();
    if !x.starts_with('(') || matching(x.as_bytes(), 0) != Some(x.len() - 1) {
        return None;
    }
    let inner = &x[1..x.len() - 1];
    match top_level_ops(inner).as_slice() {
        [(k, '*')] => Some((inner[..*k].trim(), inner[k + 1..].trim())),
        _ => None,
    }
}

/// The fused form of a group's `inner` text, if it is `X + Y` or `X - Y`
/// with a product operand.
fn fuse(inner: &str, call: &str) -> Option<String> {
    if inner.contains([';', '=', '<', '>', '&', '|', '!']) {
        return None;
    }
    let ops = top_level_ops(inner);
    let [(k, op)] = ops.as_slice() else { return None };
    let (x, y) = (inner[..*k].trim(), inner[k + 1..].trim());
    let op = match op {
        '+' => BinOp::Add,
        '-' => BinOp::Sub,
        _ => return None,
    };
    if let Some((p, q)) = product(x) {
        return match op {
            BinOp::Add => Some(format!("{call}({p}, {q}, {y})")),
            BinOp::Sub => Some(format!("{call}({p}, {q}, -({y}))")),
            _ => None,
        };
    }
    let (p, q) = product(y)?;
    match op {
        BinOp::Add => Some(format!("{call}({p}, {q}, {x})")),
        BinOp::Sub => Some(format!("{call}(-({p}), {q}, {x})")),
        _ => None,
    }
}

/// `source` with every guard's call removed (`aether_barrier_f32(X)` is
/// `(X)`'s value): the tree as a compiler that could see through the guard
/// would have it. The strict and the default builds are the same text
/// under it but for the header, the strict build's banner line and the
/// guard's own definition.
pub fn unguarded(source: &str) -> String {
    let b = source.as_bytes();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while let Some(at) = source[i..].find(GUARD_CALL) {
        let start = i + at;
        // Not a definition (`fn aether_barrier_f32(x: f32)`).
        if source[..start].ends_with("fn ") {
            out.push_str(&source[i..start + GUARD_CALL.len()]);
            i = start + GUARD_CALL.len();
            continue;
        }
        let open = start + GUARD_CALL.len() - 1;
        let Some(close) = matching(b, open) else { break };
        out.push_str(&source[i..start]);
        // The argument is a parenthesized operation or a call: its text alone.
        out.push_str(&unguarded(&source[open + 1..close]));
        i = close + 1;
    }
    out.push_str(&source[i..]);
    out
}

/// The arithmetic of `source` that is not the guard's argument: every group
/// `(X op Y)` (op `+ - * /`, spaced, at the group's top level; not a loop's
/// head) that does not directly follow `aether_barrier_f32(`, outside
/// comments and outside the self-test's body (whose probes are unguarded on
/// purpose: they measure the stack). Empty for the strict core.
pub fn unguarded_operations(source: &str) -> Vec<String> {
    let code: String = source.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    let skip = code.find("fn aether_selftest(").and_then(|at| {
        let open = at + code[at..].find('{')?;
        let close = code[open..].char_indices().scan(0i32, |d, (k, c)| {
            *d += match c {
                '{' => 1,
                '}' => -1,
                _ => 0,
            };
            Some((k, *d))
        });
        close.filter(|(_, d)| *d == 0).map(|(k, _)| (at, open + k)).next()
    });
    let b = code.as_bytes();
    let mut out = Vec::new();
    for (i, _) in code.match_indices('(') {
        if skip.is_some_and(|(from, to)| (from..=to).contains(&i)) {
            continue;
        }
        let Some(close) = matching(b, i) else { continue };
        let inner = &code[i + 1..close];
        if inner.contains([';', '=', '<', '>']) || top_level_ops(inner).is_empty() || code[..i].ends_with(GUARD_CALL) {
            continue;
        }
        out.push(inner.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> Model {
        crate::load(&crate::default_root()).expect("the spec loads")
    }

    /// The two builds are one tree: without their guards they are the same
    /// text (from the core's first declaration on; the header comments
    /// differ).
    #[test]
    fn the_strict_core_is_the_default_core_behind_guards() {
        let m = model();
        let lowered = m.lowered();
        let d = super::super::core_source(&m, &lowered, "", Guard::Bits, &[]).unwrap();
        let s = core_source(&m, &lowered, "", Guard::Bits, &[]).unwrap();
        let body = |t: &str| {
            let u = unguarded(t);
            let at = u.find("var<private> aether_opaque_zero").expect("the opaque zero");
            u[at..].to_string()
        };
        assert!(s.len() > d.len());
        assert_eq!(body(&d), body(&s));
    }

    /// Every rounded operation of the strict core is the guard's argument;
    /// the default core has unguarded ones (its products and the linear
    /// algebra's sums).
    #[test]
    fn every_operation_of_the_strict_core_is_guarded() {
        let m = model();
        let lowered = m.lowered();
        let s = core_source(&m, &lowered, "", Guard::Bits, &[]).unwrap();
        let open = unguarded_operations(&s);
        assert!(open.is_empty(), "{} unguarded operations in the strict core, first {:?}", open.len(), open.first());
        let d = super::super::core_source(&m, &lowered, "", Guard::Bits, &[]).unwrap();
        assert!(unguarded_operations(&d).len() > 1000);
    }

    /// The fusion control finds products to fuse in the default check module
    /// and none in the strict one: there, a sum never reads a product.
    #[test]
    fn no_product_of_the_strict_build_is_fusable() {
        let m = model();
        let lowered = m.lowered();
        let (_, d) = fuse_products(&super::super::check_module(&m, &lowered, Guard::Bits).source, FUSED);
        let (_, s) = fuse_products(&check_module(&m, &lowered, Guard::Bits).source, FUSED);
        assert!(d > 500, "{d} fusions in the default build");
        assert_eq!(s, 0);
    }

    #[test]
    fn fuses_a_fold_of_products_innermost_first() {
        let (s, n) = fuse_products("return ((a.z * b.z) + ((a.y * b.y) + (a.x * b.x)));", "fma");
        assert_eq!(s, "return fma(a.z, b.z, fma(a.y, b.y, (a.x * b.x)));");
        assert_eq!(n, 2);
        let (s, n) = fuse_products("s = (s - ((*w)[(i) * 3 + (k)] * (*x)[k]));", "fma");
        assert_eq!(s, "s = fma(-((*w)[(i) * 3 + (k)]), (*x)[k], s);");
        assert_eq!(n, 1);
        assert_eq!(fuse_products("x = ((a * b) - c);", "fma").0, "x = fma(a, b, -(c));");
    }

    #[test]
    fn leaves_guarded_products_integers_and_loops() {
        let strict = "acc = aether_barrier_f32((aether_barrier_f32((a * b)) + acc));";
        assert_eq!(fuse_products(strict, "fma"), (strict.to_string(), 0));
        for s in ["for (i = j + 1; i < 3; i++) { }", "let k = (aether_i * 3u + aether_l) * 7u;", "y = (a * b);"] {
            assert_eq!(fuse_products(s, "fma"), (s.to_string(), 0), "{s}");
        }
    }

    #[test]
    fn unguarded_removes_calls_not_definitions() {
        let s = "fn aether_barrier_f32(x: f32) -> f32 {\n}\nacc = aether_barrier_f32((aether_barrier_f32((a * b)) + sqrt(x)));\n";
        assert_eq!(unguarded(s), "fn aether_barrier_f32(x: f32) -> f32 {\n}\nacc = ((a * b) + sqrt(x));\n");
    }
}
