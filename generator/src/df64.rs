//! df64: the f64 functions of the spec on a target without binary64.
//!
//! `[df64]` states what a df64 value is, which f64 operation of a tree is
//! which df64 operation, the loaded-low-word rule, the bounds and the domain;
//! `[df64_ops.<name>]` states each operation as binary32 steps. The spec
//! reads, parses and types those steps in `crate::df64_spec` (whose types
//! this module re-exports); this module evaluates them (the generator proves
//! them equal to the hand-written `aether_reference::df64`, and what each key
//! of `[df64].ops` and `renorm` names equal to the reference operation the
//! key means, before it writes anything: `check_against_reference`) and
//! composes the operations' bounds over a function's tree
//! (`constant_bound`, `running_bound`).
//!
//! The printers of the operations and of the function trees in df64 are
//! `targets::df64`.

pub use crate::df64_spec::{DExpr, DStep, DTy, Df64Spec, Op, OP_KEYS};
use crate::dsl::BinOp;
use crate::error::SpecError;
use crate::model::{Builtin, Expr, Function, Model};
use aether_reference::df64::{self as reference, Df64};

// ----------------------------------------------- a tree's operations in df64

/// The key of `[df64].ops` of a binary operation of a tree.
pub fn bin_key(op: BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Add => "add",
        BinOp::Sub => "sub",
        BinOp::Mul => "mul",
        BinOp::Div => "div",
        BinOp::Lt => "lt",
        BinOp::Gt => "gt",
        BinOp::Le => "le",
        BinOp::Ge => "ge",
        BinOp::Eq => "eq",
        BinOp::Ne => "ne",
        BinOp::And | BinOp::Or => return None,
    })
}

/// The key of `[df64].ops` of a builtin of a tree (None: not in df64).
pub fn builtin_key(b: Builtin) -> Option<&'static str> {
    Some(match b {
        Builtin::Sqrt => "sqrt",
        Builtin::Fabs => "fabs",
        Builtin::Fmin => "fmin",
        Builtin::Fmax => "fmax",
        Builtin::IsFinite => "isfinite",
        Builtin::Barrier | Builtin::Fma | Builtin::Hypot => return None,
    })
}

/// Whether an operation of a tree can cancel: a subtraction, an addition
/// (whose operands may have opposite signs), a division. Its operands that
/// are loads pass `renorm` first.
pub fn cancels(op: BinOp) -> bool {
    matches!(op, BinOp::Add | BinOp::Sub | BinOp::Div)
}

/// Whether an expression of `f` is a load: a parameter or a component of one,
/// a step bound to a load, or a choice between loads (a choice computes
/// nothing). The result of any df64 operation is computed.
pub fn is_load(f: &Function, e: &Expr) -> bool {
    match e {
        Expr::Input { .. } => true,
        Expr::Temp(t) => is_load(f, &f.temps[*t].expr),
        Expr::Select(_, a, b) => is_load(f, a) || is_load(f, b),
        _ => false,
    }
}

// ----------------------------------------------------------------- evaluate

/// A value of an operation's steps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DVal {
    F(f32),
    D(f32, f32),
    B(bool),
}

impl DVal {
    fn f(self) -> f32 {
        match self {
            DVal::F(x) => x,
            _ => unreachable!("typed"),
        }
    }
    fn d(self) -> (f32, f32) {
        match self {
            DVal::D(h, l) => (h, l),
            _ => unreachable!("typed"),
        }
    }
    fn b(self) -> bool {
        match self {
            DVal::B(b) => b,
            _ => unreachable!("typed"),
        }
    }
}

impl Df64Spec {
    /// The operation of a key of `[df64].ops`.
    pub fn op(&self, key: &str) -> &Op {
        &self.ops[self.map[key]]
    }

    /// Evaluates operation `at` as the spec states it: every binary32
    /// operation rounded once, in order (every step, both arms of a choice).
    pub fn eval(&self, at: usize, args: &[DVal]) -> DVal {
        self.eval_with(at, args, false)
    }

    /// `eval` on a stack that flushes subnormals (`ftz`): every operand of
    /// a binary32 operation that is subnormal is read as a zero of its sign,
    /// and every subnormal result is written as one (both GL stacks flush in
    /// a vertex shader).
    pub fn eval_with(&self, at: usize, args: &[DVal], ftz: bool) -> DVal {
        let op = &self.ops[at];
        let mut env: Vec<DVal> = args.to_vec();
        for s in &op.steps {
            let v = self.expr(&s.expr, &env, ftz);
            env.push(v);
        }
        self.expr(&op.out, &env, ftz)
    }

    fn expr(&self, e: &DExpr, env: &[DVal], ftz: bool) -> DVal {
        let go = |x: &DExpr| self.expr(x, env, ftz);
        let fl = |x: f32| if ftz { flush(x) } else { x };
        match e {
            DExpr::Lit(v) => DVal::F(*v),
            DExpr::Var(k) => env[*k],
            DExpr::Word(x, w) => {
                let (h, l) = go(x).d();
                DVal::F(if *w == 0 { h } else { l })
            }
            DExpr::Pair(h, l) => DVal::D(go(h).f(), go(l).f()),
            DExpr::Bin(op, x, y) => {
                let (a, b) = (go(x), go(y));
                match op {
                    BinOp::And => DVal::B(a.b() && b.b()),
                    BinOp::Or => DVal::B(a.b() || b.b()),
                    BinOp::Add => DVal::F(fl(fl(a.f()) + fl(b.f()))),
                    BinOp::Sub => DVal::F(fl(fl(a.f()) - fl(b.f()))),
                    BinOp::Mul => DVal::F(fl(fl(a.f()) * fl(b.f()))),
                    BinOp::Div => DVal::F(fl(fl(a.f()) / fl(b.f()))),
                    BinOp::Lt => DVal::B(a.f() < b.f()),
                    BinOp::Gt => DVal::B(a.f() > b.f()),
                    BinOp::Le => DVal::B(a.f() <= b.f()),
                    BinOp::Ge => DVal::B(a.f() >= b.f()),
                    BinOp::Eq => DVal::B(a.f() == b.f()),
                    BinOp::Ne => DVal::B(a.f() != b.f()),
                }
            }
            DExpr::Not(x) => DVal::B(!go(x).b()),
            DExpr::Select(c, x, y) => {
                let (c, x, y) = (go(c).b(), go(x), go(y));
                if c {
                    x
                } else {
                    y
                }
            }
            DExpr::Sqrt(x) => DVal::F(fl(fl(go(x).f()).sqrt())),
            DExpr::Fabs(x) => DVal::F(go(x).f().abs()),
            DExpr::IsFinite(x) => DVal::B(go(x).f().is_finite()),
            DExpr::Call(at, xs) => {
                let args: Vec<DVal> = xs.iter().map(go).collect();
                self.eval_with(*at, &args, ftz)
            }
        }
    }

    /// Whether a family runs in df64.
    pub fn runs(&self, family: &str) -> bool {
        !self.exclude.iter().any(|e| e == family)
    }

    /// The f64 functions of the model that run in df64.
    pub fn functions<'a>(&self, lowered: &'a [Function]) -> Vec<&'a Function> {
        lowered.iter().filter(|f| f.elem == "f64" && self.runs(&f.family)).collect()
    }
}

/// The spec's df64 of a model (None when the spec has no `[df64]`).
pub fn of(model: &Model) -> Option<&Df64Spec> {
    model.spec.df64.as_ref()
}

// ------------------------------------------------------------------- bounds

/// u^2, u = 2^-24: the unit of df64's bounds.
pub const U2: f64 = 1.0 / (1u64 << 48) as f64;
/// Binary64's unit roundoff, 2^-53: the f64 reference's own error per
/// operation, relative to its result.
const U64: f64 = 1.0 / (1u64 << 53) as f64;
/// What a flushing stack may lose per operation: a few subnormal residuals,
/// each below 2^-126.
const FLUSH: f64 = 8.0 / (1u128 << 126) as f64;

/// The sign a value of a tree is known to have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sign {
    NonNeg,
    NonPos,
    Unknown,
}

impl Sign {
    fn neg(self) -> Sign {
        match self {
            Sign::NonNeg => Sign::NonPos,
            Sign::NonPos => Sign::NonNeg,
            Sign::Unknown => Sign::Unknown,
        }
    }
    fn times(self, o: Sign) -> Sign {
        match (self, o) {
            (Sign::Unknown, _) | (_, Sign::Unknown) => Sign::Unknown,
            (a, b) if a == b => Sign::NonNeg,
            _ => Sign::NonPos,
        }
    }
}

impl Df64Spec {
    fn stated(&self, key: &str) -> f64 {
        self.op(key).bound.unwrap_or(0.0)
    }

    /// The relative bound of `f`'s results against the exact function of its
    /// binary64 inputs, in units of u^2, composed over the tree to first
    /// order (an input's split 1, a product or quotient the sum of its
    /// operands' plus the operation's, a square root half its operand's plus
    /// its own, a sum of operands of one sign the larger plus its own; a
    /// choice, abs, fmin, fmax the larger of their operands'): None when the
    /// tree can cancel (a subtraction or a sum of operands whose signs are
    /// not known to agree), where only a conditioned bound exists.
    pub fn constant_bound(&self, f: &Function) -> Option<f64> {
        let mut worst: f64 = 0.0;
        for o in &f.outputs {
            if o.is_truth() {
                continue;
            }
            worst = worst.max(self.relative(f, o)?.0);
        }
        Some(worst)
    }

    fn relative(&self, f: &Function, e: &Expr) -> Option<(f64, Sign)> {
        let go = |x: &Expr| self.relative(f, x);
        Some(match e {
            Expr::Lit(v) => {
                let exact = Df64::from_f64(*v).to_f64() == *v;
                (if exact { 0.0 } else { 1.0 }, if *v >= 0.0 { Sign::NonNeg } else { Sign::NonPos })
            }
            Expr::Input { .. } => (1.0, Sign::Unknown),
            Expr::Temp(t) => go(&f.temps[*t].expr)?,
            Expr::Select(_, a, b) => {
                let (x, y) = (go(a)?, go(b)?);
                (x.0.max(y.0), if x.1 == y.1 { x.1 } else { Sign::Unknown })
            }
            Expr::Bin(op, a, b) => {
                let (x, y) = (go(a)?, go(b)?);
                match op {
                    BinOp::Mul => {
                        let s = if a == b { Sign::NonNeg } else { x.1.times(y.1) };
                        (x.0 + y.0 + self.stated("mul"), s)
                    }
                    BinOp::Div => (x.0 + y.0 + self.stated("div"), x.1.times(y.1)),
                    BinOp::Add | BinOp::Sub => {
                        let ys = if *op == BinOp::Sub { y.1.neg() } else { y.1 };
                        if x.1 != ys || x.1 == Sign::Unknown {
                            return None;
                        }
                        (x.0.max(y.0) + self.stated(if *op == BinOp::Add { "add" } else { "sub" }), x.1)
                    }
                    _ => (0.0, Sign::Unknown),
                }
            }
            Expr::Call(b, args) => {
                let xs: Vec<(f64, Sign)> = args.iter().map(go).collect::<Option<_>>()?;
                match b {
                    Builtin::Sqrt => (xs[0].0 / 2.0 + self.stated("sqrt"), Sign::NonNeg),
                    Builtin::Fabs => (xs[0].0, Sign::NonNeg),
                    Builtin::Fmin | Builtin::Fmax => (xs[0].0.max(xs[1].0), if xs[0].1 == xs[1].1 { xs[0].1 } else { Sign::Unknown }),
                    _ => (0.0, Sign::Unknown),
                }
            }
            Expr::Not(_) | Expr::Truth(_) => (0.0, Sign::Unknown),
            Expr::Fold { .. } | Expr::Hole(_) => unreachable!("a lowered function"),
        })
    }

    fn in_range(&self, v: f64) -> bool {
        v == 0.0 || (v.abs() >= self.min_magnitude && v.abs() <= self.max_magnitude)
    }

    /// The running bound of `f` on one input (binary64 values in the
    /// function's word order): per result word, the binary64 reference's
    /// value and a bound on its distance from df64's result, composed from
    /// the stated bounds over the tree with the operands' magnitudes (first
    /// the operands' own distances, then the operation's bound on the exact
    /// operation of its df64 operands, then the reference's own rounding,
    /// 2^-53 of its result, and what a flushing stack may lose). A truth
    /// result's bound is 0 (it must be the reference's). Err: the input is
    /// outside the domain (a value out of range or not finite, a comparison
    /// or a divisor within its bound, a square root of an operand within its
    /// bound of zero), with the reason; only the arms of choices that are
    /// chosen count.
    pub fn running_bound(&self, f: &Function, inputs: &[f64]) -> Result<Vec<(f64, f64)>, &'static str> {
        let mut at = 0;
        let mut vals: Vec<Vec<f64>> = Vec::new();
        for p in &f.params {
            vals.push(inputs[at..at + p.kind.words()].to_vec());
            at += p.kind.words();
        }
        // The steps on demand: only those the chosen arms of the choices read
        // (the device evaluates both arms of a `select`, but only one is
        // delivered, so the other's values do not leave the domain).
        let temps = Temps { f, memo: std::cell::RefCell::new(vec![None; f.temps.len()]) };
        let mut out = Vec::new();
        for o in &f.outputs {
            match self.rb(o, &vals, &temps)? {
                RB::V(v, e) => out.push((v, e)),
                RB::B(b) => out.push((f64::from(u8::from(b)), 0.0)),
            }
        }
        Ok(out)
    }

    fn rb(&self, e: &Expr, vals: &[Vec<f64>], temps: &Temps) -> Result<RB, &'static str> {
        let go = |x: &Expr| self.rb(x, vals, temps);
        let value = |v: f64, e: f64| -> Result<RB, &'static str> {
            if !v.is_finite() {
                return Err("a value not finite");
            }
            if !self.in_range(v) {
                return Err("a value out of range");
            }
            Ok(RB::V(v, e + U64 * v.abs() + FLUSH))
        };
        // An input or a literal: the host split's error (none where the pair
        // is exact), and its low word where a flushing stack loses it.
        let leaf = |v: f64| -> Result<RB, &'static str> {
            if !v.is_finite() {
                return Err("a value not finite");
            }
            if !self.in_range(v) {
                return Err("a value out of range");
            }
            let p = Df64::from_f64(v);
            let flushed = if p.lo != 0.0 && !p.lo.is_normal() { f64::from(p.lo.abs()) } else { 0.0 };
            Ok(RB::V(v, (f64::from(p.hi) - v + f64::from(p.lo)).abs() + flushed))
        };
        match e {
            Expr::Lit(v) => leaf(*v),
            Expr::Input { param, comp } => leaf(vals[*param][*comp]),
            Expr::Temp(t) => {
                if let Some(v) = temps.memo.borrow()[*t] {
                    return v;
                }
                let v = go(&temps.f.temps[*t].expr);
                temps.memo.borrow_mut()[*t] = Some(v);
                v
            }
            Expr::Truth(b) => Ok(RB::B(*b)),
            Expr::Not(a) => Ok(RB::B(!go(a)?.b())),
            Expr::Select(c, a, b) => {
                if go(c)?.b() {
                    go(a)
                } else {
                    go(b)
                }
            }
            Expr::Bin(op, a, b) => {
                let (x, y) = (go(a)?, go(b)?);
                if *op == BinOp::And || *op == BinOp::Or {
                    return Ok(RB::B(if *op == BinOp::And { x.b() && y.b() } else { x.b() || y.b() }));
                }
                let ((va, ea), (vb, eb)) = (x.v(), y.v());
                if op.is_comparison() {
                    let d = (va - vb).abs();
                    if d <= ea + eb && !(d == 0.0 && ea + eb == 0.0) {
                        return Err("a comparison within its bound");
                    }
                    return Ok(RB::B(match op {
                        BinOp::Lt => va < vb,
                        BinOp::Gt => va > vb,
                        BinOp::Le => va <= vb,
                        BinOp::Ge => va >= vb,
                        BinOp::Eq => va == vb,
                        _ => va != vb,
                    }));
                }
                let (v, delta, c) = match op {
                    BinOp::Add => (va + vb, ea + eb, self.stated("add")),
                    BinOp::Sub => (va - vb, ea + eb, self.stated("sub")),
                    BinOp::Mul => (va * vb, va.abs() * eb + vb.abs() * ea + ea * eb, self.stated("mul")),
                    _ => {
                        if vb.abs() <= eb {
                            return Err("a divisor within its bound of zero");
                        }
                        (va / vb, (ea * vb.abs() + va.abs() * eb) / (vb.abs() * (vb.abs() - eb)), self.stated("div"))
                    }
                };
                value(v, delta + c * U2 * (v.abs() * (1.0 + 2.0 * U64) + delta))
            }
            Expr::Call(b, args) => {
                let x = go(&args[0])?;
                match b {
                    Builtin::IsFinite => Ok(RB::B(true)),
                    Builtin::Fabs => {
                        let (v, e) = x.v();
                        Ok(RB::V(v.abs(), e))
                    }
                    Builtin::Fmin | Builtin::Fmax => {
                        let ((va, ea), (vb, eb)) = (x.v(), go(&args[1])?.v());
                        let v = if *b == Builtin::Fmin { va.min(vb) } else { va.max(vb) };
                        Ok(RB::V(v, ea.max(eb)))
                    }
                    Builtin::Sqrt => {
                        let (va, ea) = x.v();
                        if va < 0.0 || (va < ea && ea > 0.0) {
                            return Err("a square root of an operand within its bound of zero");
                        }
                        let v = va.sqrt();
                        let delta = if ea == 0.0 { 0.0 } else { ea / (v + (va - ea).max(0.0).sqrt()) };
                        value(v, delta + self.stated("sqrt") * U2 * (v * (1.0 + 2.0 * U64) + delta))
                    }
                    _ => unreachable!("validated: no other builtin runs in df64"),
                }
            }
            Expr::Fold { .. } | Expr::Hole(_) => unreachable!("a lowered function"),
        }
    }
}

/// The steps of a function as the running bound reads them: each evaluated
/// once, when first read.
struct Temps<'a> {
    f: &'a Function,
    memo: std::cell::RefCell<Vec<Option<Result<RB, &'static str>>>>,
}

/// A value of the running bound: the binary64 reference's value and the
/// bound on df64's distance from it, or a truth.
#[derive(Debug, Clone, Copy)]
enum RB {
    V(f64, f64),
    B(bool),
}

impl RB {
    fn v(self) -> (f64, f64) {
        match self {
            RB::V(v, e) => (v, e),
            RB::B(_) => unreachable!("typed"),
        }
    }
    fn b(self) -> bool {
        match self {
            RB::B(b) => b,
            RB::V(..) => unreachable!("typed"),
        }
    }
}

// --------------------------------------------------- the host df64, proved

/// The hand-written reference's operation of a name of `[df64_ops]`.
fn reference_op(name: &str) -> Option<fn(&[DVal]) -> DVal> {
    fn d(v: DVal) -> Df64 {
        let (h, l) = v.d();
        Df64::new(h, l)
    }
    fn p(x: Df64) -> DVal {
        DVal::D(x.hi, x.lo)
    }
    Some(match name {
        "two_sum" => |a| p(reference::two_sum(a[0].f(), a[1].f())),
        "fast_two_sum" => |a| p(reference::fast_two_sum(a[0].f(), a[1].f())),
        "split" => |a| p(reference::split(a[0].f())),
        "two_prod" => |a| p(reference::two_prod(a[0].f(), a[1].f())),
        "renorm" => |a| p(reference::renorm(d(a[0]))),
        "neg" => |a| p(reference::neg(d(a[0]))),
        "add" => |a| p(reference::add(d(a[0]), d(a[1]))),
        "sub" => |a| p(reference::sub(d(a[0]), d(a[1]))),
        "mul_f32" => |a| p(reference::mul_f32(d(a[0]), a[1].f())),
        "mul" => |a| p(reference::mul(d(a[0]), d(a[1]))),
        "div" => |a| p(reference::div(d(a[0]), d(a[1]))),
        "sqrt" => |a| p(reference::sqrt(d(a[0]))),
        "abs" => |a| p(reference::abs(d(a[0]))),
        "eq" => |a| DVal::B(reference::eq(d(a[0]), d(a[1]))),
        "lt" => |a| DVal::B(reference::lt(d(a[0]), d(a[1]))),
        "gt" => |a| DVal::B(reference::gt(d(a[0]), d(a[1]))),
        "le" => |a| DVal::B(reference::le(d(a[0]), d(a[1]))),
        "ge" => |a| DVal::B(reference::ge(d(a[0]), d(a[1]))),
        "ne" => |a| DVal::B(reference::ne(d(a[0]), d(a[1]))),
        "fmin" => |a| p(reference::fmin(d(a[0]), d(a[1]))),
        "fmax" => |a| p(reference::fmax(d(a[0]), d(a[1]))),
        "is_finite" => |a| DVal::B(reference::is_finite(d(a[0]))),
        _ => return None,
    })
}

fn same(a: DVal, b: DVal) -> bool {
    match (a, b) {
        (DVal::F(x), DVal::F(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
        (DVal::D(x, y), DVal::D(z, w)) => same(DVal::F(x), DVal::F(z)) && same(DVal::F(y), DVal::F(w)),
        (DVal::B(x), DVal::B(y)) => x == y,
        _ => false,
    }
}

/// The reference operation (a name of `aether_reference::df64`) that a key
/// of `[df64].ops` means, or `renorm`: `fabs` is `abs`, `isfinite` is
/// `is_finite`, every other key its own name. None: not a key.
pub fn meaning(key: &str) -> Option<&'static str> {
    Some(match key {
        "fabs" => "abs",
        "isfinite" => "is_finite",
        "renorm" => "renorm",
        k => OP_KEYS.iter().find(|(n, ..)| *n == k)?.0,
    })
}

/// The binary32 number after `x` (x finite and positive).
fn up(x: f32) -> f32 {
    f32::from_bits(x.to_bits() + 1)
}

/// The fixed binary32 inputs each operation's proof starts from, crossed
/// with each other: the zeros of both signs, 1 and its neighbours on both
/// sides, -1, 3, half an ulp of 1 (1 + 2^-24 is a tie) and a quarter, the
/// domain's magnitudes (`min_magnitude` of both signs, `max_magnitude`) and
/// just outside them (half the least, twice the greatest), and the
/// non-finite values (the steps and the reference are the same binary32
/// operations, so they agree there too; `isfinite` is about nothing else).
pub fn edge_words(spec: &Df64Spec) -> Vec<f32> {
    let (min, max) = (spec.min_magnitude as f32, spec.max_magnitude as f32);
    let (half, quarter) = (2f32.powi(-24), 2f32.powi(-25));
    vec![
        1.0,
        0.0,
        -0.0,
        -1.0,
        up(1.0),
        1.0 - half,
        3.0,
        half,
        quarter,
        min,
        -min,
        min / 2.0,
        max,
        max * 2.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ]
}

/// The fixed pairs each operation's proof starts from, crossed with each
/// other (what the comparisons, fmin, fmax, abs and renorm test word by
/// word): (1, 0) first; the four pairs of signed zeros; pairs of high word 1
/// whose low words are zero of either sign, of opposite signs, one ulp
/// apart, and a tie (1 + 2^-24 rounds to 1); a tie that rounds away
/// (1 + 2^-23 + 2^-24: not normalised); a high word just below 1, a high
/// word equal to another pair's low word; -1 with a zero and with a
/// positive low word; two pairs that are not normalised (renorm re-derives
/// them: (1, 1), and (2^-25, 1) where the fast two-sum and the two-sum
/// differ); 2 (its square root is not exact); the domain's least magnitude,
/// half of it, its greatest and twice that; and the non-finite high words.
pub fn edge_pairs(spec: &Df64Spec) -> Vec<(f32, f32)> {
    let (min, max) = (spec.min_magnitude as f32, spec.max_magnitude as f32);
    let (half, quarter) = (2f32.powi(-24), 2f32.powi(-25));
    vec![
        (1.0, 0.0),
        (0.0, 0.0),
        (-0.0, 0.0),
        (0.0, -0.0),
        (-0.0, -0.0),
        (1.0, -0.0),
        (1.0, quarter),
        (1.0, -quarter),
        (1.0, up(quarter)),
        (1.0, half),
        (up(1.0), half),
        (1.0 - half, 0.0),
        (quarter, 0.0),
        (-1.0, 0.0),
        (-1.0, quarter),
        (1.0, 1.0),
        (quarter, 1.0),
        (2.0, 0.0),
        (min, 0.0),
        (min / 2.0, 0.0),
        (max, 0.0),
        (max * 2.0, 0.0),
        (f32::INFINITY, 0.0),
        (f32::NEG_INFINITY, 0.0),
        (f32::NAN, 0.0),
    ]
}

/// The most edge inputs one operation is proved on (an operation of three
/// parameters or more: the first combinations, the last parameter fastest).
const EDGE_CAP: usize = 2048;

/// Every combination of the edge values of parameters of these types (the
/// last parameter fastest), at most [`EDGE_CAP`].
pub fn edge_args(spec: &Df64Spec, types: &[DTy]) -> Vec<Vec<DVal>> {
    let lists: Vec<Vec<DVal>> = types
        .iter()
        .map(|t| match t {
            DTy::F32 => edge_words(spec).into_iter().map(DVal::F).collect(),
            DTy::Df => edge_pairs(spec).into_iter().map(|(h, l)| DVal::D(h, l)).collect(),
            DTy::Bool => vec![DVal::B(false), DVal::B(true)],
        })
        .collect();
    let total: usize = lists.iter().map(Vec::len).product();
    (0..total.min(EDGE_CAP))
        .map(|mut i| {
            let mut v = vec![DVal::B(false); lists.len()];
            for (k, l) in lists.iter().enumerate().rev() {
                v[k] = l[i % l.len()];
                i /= l.len();
            }
            v
        })
        .collect()
}

/// The random inputs of the proof: normalised pairs and binary32 numbers of
/// every magnitude in the domain, near-cancelling pairs, zeros.
struct Random {
    r: crate::rng::SplitMix64,
    lo: i32,
    hi: i32,
    prev: Option<f64>,
}

impl Random {
    fn new(spec: &Df64Spec, seed: u64) -> Random {
        let (lo, hi) = (spec.min_magnitude.log2() as i32, spec.max_magnitude.log2() as i32);
        Random { r: crate::rng::SplitMix64::new(seed), lo, hi, prev: None }
    }

    fn value(&mut self) -> f64 {
        let r = &mut self.r;
        let e = self.lo + r.below((self.hi - self.lo + 1) as u64) as i32;
        let m = 1.0 + (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let s = if r.next_u64() & 1 == 0 { 1.0 } else { -1.0 };
        s * m * 2f64.powi(e)
    }

    /// The `k`th input of an operation of parameters of these types.
    fn args(&mut self, types: &[DTy], k: usize) -> Vec<DVal> {
        types
            .iter()
            .map(|t| {
                let mut x = self.value();
                if k.is_multiple_of(5) {
                    if let Some(p) = self.prev {
                        // Near-cancelling: the negation of the previous operand, perturbed.
                        let k = 1 + self.r.below(48) as i32;
                        x = -p * (1.0 + if self.r.next_u64() & 1 == 0 { 1.0 } else { -1.0 } * 2f64.powi(-k));
                    }
                }
                if k.is_multiple_of(97) {
                    x = 0.0;
                }
                self.prev = Some(x);
                match t {
                    DTy::F32 => DVal::F(x as f32),
                    DTy::Df => {
                        let p = Df64::from_f64(x);
                        DVal::D(p.hi, p.lo)
                    }
                    DTy::Bool => DVal::B(k.is_multiple_of(2)),
                }
            })
            .collect()
    }
}

/// A binary32 number as an error shows it: its value and its word.
fn show_f32(x: f32) -> String {
    let plain = x == 0.0 || !x.is_finite() || (1e-4..1e7).contains(&x.abs());
    let v = if plain { format!("{x}") } else { format!("{x:e}") };
    format!("{v} [{:#010x}]", x.to_bits())
}

/// A value of the steps as an error shows it: a pair as `df(hi, lo)` with
/// both words' values and bits.
pub fn show(v: DVal) -> String {
    match v {
        DVal::F(x) => show_f32(x),
        DVal::D(h, l) => format!("df({}, {})", show_f32(h), show_f32(l)),
        DVal::B(b) => b.to_string(),
    }
}

/// An input as an error shows it: each parameter by name.
fn show_args(params: &[(String, DTy)], args: &[DVal]) -> String {
    params.iter().zip(args).map(|((n, _), v)| format!("{n} = {}", show(*v))).collect::<Vec<_>>().join(", ")
}

/// What [`prove`] runs: [`check_against_reference`] runs all of it. The
/// tests' negative controls turn a part off to show what only it refuses.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Proof {
    /// Random inputs per operation.
    pub random: usize,
    /// Whether the fixed inputs ([`edge_args`]) come first.
    pub edges: bool,
    /// Whether `[df64].ops` and `renorm` are proved to mean their keys.
    pub map: bool,
}

/// Random inputs per key of the map's proof (after the edge inputs): the
/// operations themselves are proved on all of `Proof::random`.
const MAP_RANDOM: usize = 1_000;

/// Proves every operation of `[df64_ops]`, evaluated from its steps, equal
/// bit for bit to the hand-written `aether_reference::df64` of its name,
/// first on every combination of the fixed inputs ([`edge_pairs`],
/// [`edge_words`]), then on `n` random inputs of each (normalised pairs and
/// binary32 numbers of every magnitude in the domain, near-cancelling
/// pairs, zeros): the error names the operation's body and the first input
/// where they differ. Then proves what `[df64]` maps: the operation each key
/// of `ops` names, and `renorm`'s, evaluated from its steps, equal to the
/// reference operation of the key's meaning ([`meaning`]) on the same fixed
/// inputs and 1,000 random ones: the error names the key, its line, the
/// input and both results.
pub fn check_against_reference(spec: &Df64Spec, n: usize) -> Result<(), SpecError> {
    prove(spec, Proof { random: n, edges: true, map: true })
}

/// [`check_against_reference`] with parts of it turned off (`Proof`).
#[doc(hidden)]
pub fn prove(spec: &Df64Spec, proof: Proof) -> Result<(), SpecError> {
    // The reference's tests measure against its own copy of the stated
    // bounds: the spec is their one source, so the copy must be the spec's.
    for op in &spec.ops {
        let copy = match op.name.as_str() {
            "add" => Some(reference::BOUND_ADD),
            "sub" => Some(reference::BOUND_SUB),
            "mul_f32" => Some(reference::BOUND_MUL_F32),
            "mul" => Some(reference::BOUND_MUL),
            "div" => Some(reference::BOUND_DIV),
            "sqrt" => Some(reference::BOUND_SQRT),
            _ => None,
        };
        if copy != op.bound {
            return Err(SpecError {
                file: crate::SPEC_PATH.into(),
                line: op.line,
                key: format!("df64_ops.{}.bound", op.name),
                message: format!("the spec states {:?} u^2, aether_reference::df64 measures against {copy:?}", op.bound),
            });
        }
    }
    let mut random = Random::new(spec, 0xdf64_0000_0001);
    for (at, op) in spec.ops.iter().enumerate() {
        let err =
            |m: String| SpecError { file: crate::SPEC_PATH.into(), line: op.line, key: format!("df64_ops.{}.body", op.name), message: m };
        let Some(reference) = reference_op(&op.name) else {
            return Err(err(format!("aether_reference::df64 has no operation `{}`", op.name)));
        };
        let types: Vec<DTy> = op.params.iter().map(|p| p.1).collect();
        let edges = if proof.edges { edge_args(spec, &types) } else { Vec::new() };
        random.prev = None;
        let check = |args: &[DVal]| {
            let (a, b) = (spec.eval(at, args), reference(args));
            if same(a, b) {
                return Ok(());
            }
            Err(err(format!(
                "on {} the steps give {}, aether_reference::df64::{} gives {}",
                show_args(&op.params, args),
                show(a),
                op.name,
                show(b)
            )))
        };
        for args in &edges {
            check(args)?;
        }
        for k in 0..proof.random {
            check(&random.args(&types, k))?;
        }
    }
    if proof.map {
        prove_map(spec, proof)?;
    }
    Ok(())
}

/// The map's half of [`prove`]: each key of `[df64].ops` (in `OP_KEYS`
/// order), then `renorm`.
fn prove_map(spec: &Df64Spec, proof: Proof) -> Result<(), SpecError> {
    let mut random = Random::new(spec, 0xdf64_0000_0002);
    let keys = OP_KEYS.iter().map(|k| k.0).chain(["renorm"]);
    for key in keys {
        let (at, line, name) = if key == "renorm" {
            (spec.renorm, spec.renorm_line, "df64.renorm".to_string())
        } else {
            (spec.map[key], spec.map_lines[key], format!("df64.ops.{key}"))
        };
        let want = meaning(key).expect("a key");
        let reference = reference_op(want).expect("every key's meaning is a reference operation");
        let op = &spec.ops[at];
        let types: Vec<DTy> = op.params.iter().map(|p| p.1).collect();
        let edges = if proof.edges { edge_args(spec, &types) } else { Vec::new() };
        random.prev = None;
        let randoms = (0..proof.random.min(MAP_RANDOM)).map(|k| random.args(&types, k)).collect::<Vec<_>>();
        for args in edges.iter().chain(&randoms) {
            let (a, b) = (spec.eval(at, args), reference(args));
            if same(a, b) {
                continue;
            }
            let what = if key == "renorm" { "names".to_string() } else { format!("maps f64 `{key}` to") };
            return Err(SpecError {
                file: crate::SPEC_PATH.into(),
                line,
                key: name,
                message: format!(
                    "{what} `{}`, which on {} gives {} where aether_reference::df64::{want} gives {}",
                    op.name,
                    show_args(&op.params, args),
                    show(a),
                    show(b)
                ),
            });
        }
    }
    Ok(())
}

/// A df64 value for the generator's interpreter (`interp::Ieee`): each
/// rounded operation of a binary64 tree is the hand-written reference's df64
/// operation, so evaluating an f64 function's tree with it is the host df64
/// the devices are compared with. Its word is the pair packed
/// (`Df64::to_word`); a literal is the host split.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Host(pub Df64);

impl PartialOrd for Host {
    fn partial_cmp(&self, o: &Host) -> Option<std::cmp::Ordering> {
        use std::cmp::Ordering::*;
        if reference::lt(self.0, o.0) {
            Some(Less)
        } else if reference::gt(self.0, o.0) {
            Some(Greater)
        } else if reference::eq(self.0, o.0) {
            Some(Equal)
        } else {
            None
        }
    }
    fn lt(&self, o: &Host) -> bool {
        reference::lt(self.0, o.0)
    }
    fn gt(&self, o: &Host) -> bool {
        reference::gt(self.0, o.0)
    }
    fn le(&self, o: &Host) -> bool {
        reference::le(self.0, o.0)
    }
    fn ge(&self, o: &Host) -> bool {
        reference::ge(self.0, o.0)
    }
}

impl crate::interp::Ieee for Host {
    fn from_word(w: u64) -> Self {
        Host(Df64::from_word(w))
    }
    fn to_word(self) -> u64 {
        self.0.to_word()
    }
    fn lit(v: f64) -> Self {
        Host(Df64::from_f64(v))
    }
    fn add(self, o: Self) -> Self {
        Host(reference::add(self.0, o.0))
    }
    fn sub(self, o: Self) -> Self {
        Host(reference::sub(self.0, o.0))
    }
    fn mul(self, o: Self) -> Self {
        Host(reference::mul(self.0, o.0))
    }
    fn div(self, o: Self) -> Self {
        Host(reference::div(self.0, o.0))
    }
    fn sqrt(self) -> Self {
        Host(reference::sqrt(self.0))
    }
    fn fabs(self) -> Self {
        Host(reference::abs(self.0))
    }
    fn fmin(self, o: Self) -> Self {
        Host(reference::fmin(self.0, o.0))
    }
    fn fmax(self, o: Self) -> Self {
        Host(reference::fmax(self.0, o.0))
    }
    fn hypot(self, _o: Self) -> Self {
        unreachable!("no function df64 runs calls hypot")
    }
    fn fma(self, _b: Self, _c: Self) -> Self {
        unreachable!("no function df64 runs calls fma")
    }
    fn finite(self) -> bool {
        reference::is_finite(self.0)
    }
}

/// The host df64 of an f64 function: its tree evaluated with every rounded
/// operation the reference's df64 operation; `pairs` are the inputs as
/// packed pairs (`Df64::to_word`), the result too (a truth as 0 or 1).
pub fn host(f: &Function, pairs: &[u64]) -> Vec<u64> {
    crate::interp::run_with::<Host>(f, pairs)
}

/// A binary32 value as a stack that flushes subnormals reads or writes it: a
/// subnormal becomes the zero of its sign.
pub fn flush(x: f32) -> f32 {
    if x.is_subnormal() {
        0f32.copysign(x)
    } else {
        x
    }
}

/// The spec's df64 operations evaluated on a flushing stack (`HostFtz`).
static FTZ_SPEC: std::sync::OnceLock<Df64Spec> = std::sync::OnceLock::new();

/// A df64 value of a stack that flushes subnormals: each rounded operation
/// of a binary64 tree is the spec's df64 operation evaluated from its steps
/// with every binary32 operand and result flushed (`Df64Spec::eval_with`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HostFtz(pub f32, pub f32);

impl HostFtz {
    fn spec() -> &'static Df64Spec {
        FTZ_SPEC.get().expect("host_ftz sets the spec first")
    }
    fn op(key: &str, args: &[HostFtz]) -> DVal {
        let s = Self::spec();
        let args: Vec<DVal> = args.iter().map(|a| DVal::D(a.0, a.1)).collect();
        s.eval_with(s.map[key], &args, true)
    }
    fn pair(key: &str, args: &[HostFtz]) -> HostFtz {
        let (h, l) = Self::op(key, args).d();
        HostFtz(h, l)
    }
    fn truth(key: &str, args: &[HostFtz]) -> bool {
        Self::op(key, args).b()
    }
}

impl PartialOrd for HostFtz {
    fn partial_cmp(&self, o: &HostFtz) -> Option<std::cmp::Ordering> {
        use std::cmp::Ordering::*;
        if self.lt(o) {
            Some(Less)
        } else if self.gt(o) {
            Some(Greater)
        } else if HostFtz::truth("eq", &[*self, *o]) {
            Some(Equal)
        } else {
            None
        }
    }
    fn lt(&self, o: &HostFtz) -> bool {
        HostFtz::truth("lt", &[*self, *o])
    }
    fn gt(&self, o: &HostFtz) -> bool {
        HostFtz::truth("gt", &[*self, *o])
    }
    fn le(&self, o: &HostFtz) -> bool {
        HostFtz::truth("le", &[*self, *o])
    }
    fn ge(&self, o: &HostFtz) -> bool {
        HostFtz::truth("ge", &[*self, *o])
    }
}

impl crate::interp::Ieee for HostFtz {
    fn from_word(w: u64) -> Self {
        let d = Df64::from_word(w);
        HostFtz(d.hi, d.lo)
    }
    fn to_word(self) -> u64 {
        Df64 { hi: self.0, lo: self.1 }.to_word()
    }
    fn lit(v: f64) -> Self {
        let d = Df64::from_f64(v);
        HostFtz(d.hi, d.lo)
    }
    fn add(self, o: Self) -> Self {
        HostFtz::pair("add", &[self, o])
    }
    fn sub(self, o: Self) -> Self {
        HostFtz::pair("sub", &[self, o])
    }
    fn mul(self, o: Self) -> Self {
        HostFtz::pair("mul", &[self, o])
    }
    fn div(self, o: Self) -> Self {
        HostFtz::pair("div", &[self, o])
    }
    fn sqrt(self) -> Self {
        HostFtz::pair("sqrt", &[self])
    }
    fn fabs(self) -> Self {
        HostFtz::pair("fabs", &[self])
    }
    fn fmin(self, o: Self) -> Self {
        HostFtz::pair("fmin", &[self, o])
    }
    fn fmax(self, o: Self) -> Self {
        HostFtz::pair("fmax", &[self, o])
    }
    fn hypot(self, _o: Self) -> Self {
        unreachable!("no function df64 runs calls hypot")
    }
    fn fma(self, _b: Self, _c: Self) -> Self {
        unreachable!("no function df64 runs calls fma")
    }
    fn finite(self) -> bool {
        HostFtz::truth("isfinite", &[self])
    }
}

/// The host df64 of a stack that flushes subnormals (the inputs' words
/// flushed too, as such a stack reads them): `host` with every binary32
/// operand and result of the spec's operations flushed.
pub fn host_ftz(spec: &Df64Spec, f: &Function, pairs: &[u64]) -> Vec<u64> {
    let _ = FTZ_SPEC.set(spec.clone());
    let flushed: Vec<u64> = pairs
        .iter()
        .map(|w| {
            let d = Df64::from_word(*w);
            Df64 { hi: flush(d.hi), lo: flush(d.lo) }.to_word()
        })
        .collect();
    crate::interp::run_with::<HostFtz>(f, &flushed)
}

/// What a df64 printer's audit found in its source (the WGSL core's:
/// `targets::wgsl::df64::audit`): the cancelling calls of the
/// functions' trees, their operands wrapped in renorm, and the faults.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Audit {
    /// Functions walked (the operations `aether_df64_*` are not: their
    /// operands are renormed, or computed, at every call).
    pub functions: usize,
    /// Calls of a cancelling operation (add, sub, div).
    pub cancelling: usize,
    /// Their operands that are loads, wrapped in renorm.
    pub wrapped: usize,
    /// Their operands that are computed (left as they are).
    pub computed: usize,
    /// A load that is an operand of a cancelling call, not wrapped.
    pub unwrapped_loads: Vec<String>,
    /// A renorm anywhere else: of a computed value, or not an operand of a
    /// cancelling call.
    pub needless: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec_with(find: &str, replace: &str) -> Df64Spec {
        let text = std::fs::read_to_string(crate::default_root().join(crate::SPEC_PATH)).unwrap();
        assert_eq!(text.matches(find).count(), 1, "`{find}` occurs once in the spec");
        let s = crate::spec::parse_bytes(crate::SPEC_PATH, text.replacen(find, replace, 1).as_bytes()).expect("the edited spec parses");
        s.df64.expect("the spec has [df64]")
    }

    /// The flushing host is the host where no binary32 operand or result is
    /// subnormal, and loses a subnormal residual where one is: a product of
    /// two values near 2^-60 has a normal high word and a subnormal low word.
    #[test]
    fn the_flushing_host_differs_only_where_a_word_is_subnormal() {
        let m = crate::load(&crate::default_root()).unwrap();
        let spec = of(&m).unwrap();
        let lowered = m.lowered();
        let f = lowered.iter().find(|f| f.family == "mul" && f.shape == "vec2" && f.elem == "f64").unwrap();
        let w = |x: &[f64]| -> Vec<u64> { x.iter().map(|v| Df64::from_f64(*v).to_word()).collect() };
        let mut r = crate::rng::SplitMix64::new(7);
        for _ in 0..2000 {
            let x: Vec<f64> = (0..4).map(|_| 1.0 + (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64).collect();
            assert_eq!(host_ftz(spec, f, &w(&x)), host(f, &w(&x)), "{x:?}");
        }
        let tiny = w(&[1.1e-18, 1.0, 1.3e-18, 1.0]);
        let (plain, flushed) = (host(f, &tiny), host_ftz(spec, f, &tiny));
        let (p, q) = (Df64::from_word(plain[0]), Df64::from_word(flushed[0]));
        assert!(p.lo.is_subnormal() && q.lo == 0.0 && p.hi == q.hi, "{p:?} {q:?}");
        assert_eq!(plain[1], flushed[1]);
    }

    /// The operations as stated are the reference's; a step changed in a way
    /// the parser accepts (an operand swapped, a constant, a sign) is refused
    /// by the proof, which names the operation.
    #[test]
    fn the_proof_against_the_reference_refuses_a_changed_step() {
        check_against_reference(&spec_with("s = a + b\nbb = s - a\n", "s = a + b\nbb = s - a\n"), 5_000).expect("the spec's own steps");
        for (find, replace, op) in [
            ("bb = s - a\n", "bb = s - b\n", "two_sum"),
            ("h = t - (t - a)\n", "h = t - (a - t)\n", "split"),
            ("w = t.lo + v.lo\n", "w = t.lo - v.lo\n", "add"),
            ("r = ((a.hi - p.hi) - p.lo) + a.lo\n", "r = ((a.hi - p.hi) + a.lo) - p.lo\n", "sqrt"),
        ] {
            let e = check_against_reference(&spec_with(find, replace), 5_000).expect_err(find);
            assert_eq!(e.key, format!("df64_ops.{op}.body"), "{e}");
        }
        let e = check_against_reference(&spec_with("bound = 7.0\n", "bound = 5.0\n"), 10).expect_err("a changed bound");
        assert_eq!(e.key, "df64_ops.mul.bound", "{e}");
    }

    /// The composed constant bounds: a product tree has one, a difference has
    /// none (conditioned), and the numbers are the composition's.
    #[test]
    fn constant_bounds_compose_and_cancellation_has_none() {
        let m = crate::load(&crate::default_root()).unwrap();
        let d = of(&m).unwrap();
        let lowered = m.lowered();
        let get = |fam: &str, shape: &str| lowered.iter().find(|f| f.family == fam && f.shape == shape && f.elem == "f64").unwrap();
        // a * b per lane: two splits (1 each) and the product's 7.
        assert_eq!(d.constant_bound(get("mul", "vec3")), Some(9.0));
        // x^2 + y^2 + z^2: squares (2 + 7 = 9 each, non-negative), two sums of one sign (+3 each).
        assert_eq!(d.constant_bound(get("squared_norm", "vec3")), Some(15.0));
        // sqrt of it: half of 15 plus 4.
        assert_eq!(d.constant_bound(get("norm", "vec3")), Some(11.5));
        assert_eq!(d.constant_bound(get("sub", "vec3")), None);
        assert_eq!(d.constant_bound(get("dot", "vec3")), None);
        assert_eq!(d.constant_bound(get("cross", "vec3")), None);
    }

    /// The running bound refuses what the domain excludes.
    #[test]
    fn the_running_bound_names_what_leaves_the_domain() {
        let m = crate::load(&crate::default_root()).unwrap();
        let d = of(&m).unwrap();
        let lowered = m.lowered();
        let get = |fam: &str, shape: &str| lowered.iter().find(|f| f.family == fam && f.shape == shape && f.elem == "f64").unwrap();
        let div = get("div", "vec3");
        assert_eq!(d.running_bound(div, &[1.0, 2.0, 3.0, 0.0]), Err("a divisor within its bound of zero"));
        assert!(d.running_bound(div, &[1.0, 2.0, 3.0, 0.5]).is_ok());
        assert_eq!(d.running_bound(div, &[1.0, 2.0, f64::NAN, 0.5]), Err("a value not finite"));
        assert_eq!(d.running_bound(div, &[1.0, 2.0, 1e-30, 0.5]), Err("a value out of range"));
        let sub = get("sub", "vec3");
        // A difference of exact inputs: only the operation's 3u^2 and the
        // reference's own 2^-53 (u^2 / 32), relative to the result.
        let b = d.running_bound(sub, &[1.0, 2.0, 3.0, 0.5, 0.25, 0.125]).unwrap();
        assert!(b.iter().all(|(v, e)| *e <= 3.04 * U2 * v.abs() && *e >= 3.0 * U2 * v.abs()), "{b:?}");
        // 0.1 is not a df64 number: its split error enters the difference's bound.
        let b = d.running_bound(sub, &[0.1, 2.0, 3.0, 0.1 * (1.0 + 1e-9), 0.25, 0.125]).unwrap();
        assert!(b[0].1 > 1e-17 && b[0].1 < 1e-15, "{b:?}");
    }
}
