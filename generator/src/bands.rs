//! What a target that is not bit-exact may return: each function's metric
//! and band on the WGSL target, derived here from the model's lowered trees
//! and WGSL's accuracy rules (never typed by hand), and the one judgement
//! every checker of such a target applies to a result.
//!
//! The spec's `[bands.<target>]` states each family's metric and the
//! target's accuracy per rounded operation (`add_sub_mul_ulp`, `div_ulp`,
//! `sqrt_ulp`: `OpUlps`); the number is derived by walking the tree with,
//! per rounded operation, that bound in units of eps = 2^-23 (the ulp of
//! 1.0). WGSL (`[bands.wgsl]`): `+ - *` are "correctly rounded" (either
//! neighbour: at most 1 ulp, relative error below eps), `/` is 2.5 ulp,
//! `sqrt` is inherited from 1 / inverseSqrt (2 + 2.5 = 4.5 ulp). An OpenCL
//! device without correctly rounded f32 divide and sqrt
//! (`[bands.opencl_relaxed]`): `+ - *` 0.5 ulp (one operation of exact
//! operands is then the reference's bits), `/` 2.5 ulp, `sqrt` 3 ulp;
//! fabs, fmin, fmax, select, comparisons, `* -1` and products with a power
//! of two are exact. An implementation may fuse and reassociate, so a sum of
//! n flattened terms is charged n - 1 additions whatever its tree.
//!
//! * relative bound R (every node a product, quotient or square root of
//!   relatively bounded operands, a sum of terms of one sign, or one rounded
//!   operation of exact operands): |c' - c| <= R eps |c| to first order, so
//!   the result is at most 2R + 1 ulp from the reference's (the +1 is the
//!   reference's own rounding; one operation of exact operands is 1 ulp for
//!   + - *, 3 for /, 5 for sqrt).
//! * forward bound K (sums whose terms may cancel): |c' - c| <= K eps M,
//!   M the sum of the magnitudes of the terms (the tree evaluated with
//!   |.|: M(a +- b) = M(a) + M(b), M(a * b) = M(a) M(b), M(a / b) = M(a) /
//!   |b|); K = max(K_i) + n - 1 for a sum of n terms, K_a + K_b + 1 for a
//!   product, K_a + R_b + 2.5 for a quotient by a relatively bounded b. The
//!   band is K (1 + K eps), which covers the second-order terms.
//! * no bound: a division by, or a square root or comparison of, a quantity
//!   that may cancel; the spec must say `unbounded`, and the runner reports
//!   what it measured.
//!
//! The domain is what WGSL promises anything for: every input, every
//! intermediate (in the element type, as the reference rounds it) and the
//! result finite and either zero or normal, no intermediate whose exact value
//! underflows, every node's sum of magnitudes M below the largest finite
//! value (so no reassociation of its terms can overflow), and every divisor's
//! magnitude in [2^-126, 2^126]. Outside it (NaN, infinities, subnormals, which a stack
//! may flush, overflow) a case is counted apart. The sign of a zero may be
//! ignored on WGSL: a +0 against a -0 is within every band (it is still not
//! bit-identical).

use crate::dsl::BinOp;
use crate::error::SpecError;
use crate::model::{Builtin, Callable, Expr, Function, KernelKind, Kind, Model};
use crate::spec::{BandMetric, OpUlps};

/// eps of f32: the ulp of 1.0.
pub const EPS_F32: f64 = 1.0 / 8_388_608.0;

/// How a result is measured against the reference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Metric {
    /// The same bits (under the comparison policy, and either zero sign).
    Bits,
    /// At most `max` units in the last place of the element type from the
    /// reference's result, counted on the ordered integer mapping.
    Ulp { max: f64 },
    /// |computed - exact| <= factor * eps * (sum of |terms|), eps = 2^-23
    /// for f32: where a ULP count is meaningless (cancellation).
    Forward { factor: f64 },
    /// No bound follows from the target's rules; measured and reported only.
    Unbounded,
}

impl std::fmt::Display for Metric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Metric::Bits => write!(f, "bits"),
            Metric::Ulp { max } => write!(f, "<= {max} ulp"),
            Metric::Forward { factor } => write!(f, "forward <= {}", trim(*factor)),
            Metric::Unbounded => write!(f, "unbounded"),
        }
    }
}

fn trim(x: f64) -> String {
    let s = format!("{x:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// One callable's band on a target: per result word, and the lowered tree
/// the judgement evaluates (none for a kernel).
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    pub metrics: Vec<Metric>,
    /// What the spec states for the family.
    pub stated: BandMetric,
    pub tree: Option<Function>,
    /// The tree rests on rounding to nearest (`Function::relies_on_rounding`):
    /// its value in real arithmetic is not the function's, so the domain is
    /// judged on the values as the reference rounds them alone.
    pub rounding: bool,
}

impl Band {
    /// The loosest metric over the result words, for a one-line report.
    pub fn summary(&self) -> String {
        let mut worst = Metric::Bits;
        for m in &self.metrics {
            worst = match (worst, *m) {
                (_, Metric::Unbounded) | (Metric::Unbounded, _) => Metric::Unbounded,
                (Metric::Forward { factor: a }, Metric::Forward { factor: b }) => Metric::Forward { factor: a.max(b) },
                (Metric::Forward { .. }, _) => worst,
                (_, Metric::Forward { .. }) => *m,
                (Metric::Ulp { max: a }, Metric::Ulp { max: b }) => Metric::Ulp { max: a.max(b) },
                (Metric::Ulp { .. }, _) => worst,
                (Metric::Bits, m) => m,
            };
        }
        worst.to_string()
    }
}

/// The verdict on one case.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    /// Inputs, result and intermediates inside the domain the target
    /// promises (finite, zero or normal, divisors in range).
    pub in_domain: bool,
    /// Every result word matches the reference under the policy.
    pub identical: bool,
    /// The worst ULP distance over the result words (0 when identical).
    pub ulp: f64,
    /// The worst forward-error factor over the result words, where the
    /// metric is `Forward` (0 otherwise).
    pub factor: f64,
    /// Every result word is within its band.
    pub within: bool,
}

// ------------------------------------------------------------ the derivation

#[derive(Debug, Clone, Copy, PartialEq)]
enum Sign {
    NonNeg,
    NonPos,
    Any,
}

impl Sign {
    fn flip(self) -> Sign {
        match self {
            Sign::NonNeg => Sign::NonPos,
            Sign::NonPos => Sign::NonNeg,
            Sign::Any => Sign::Any,
        }
    }
    fn of(v: f64) -> Sign {
        if v >= 0.0 && v.is_sign_positive() {
            Sign::NonNeg
        } else {
            Sign::NonPos
        }
    }
    fn join(self, o: Sign) -> Sign {
        if self == o {
            self
        } else {
            Sign::Any
        }
    }
}

/// What the walk knows of a node.
#[derive(Debug, Clone, Copy)]
struct Info {
    /// No rounded operation below (and none here).
    exact: bool,
    /// One rounded operation of exact operands: its own ulp count.
    single: Option<f64>,
    rel: Option<f64>,
    fwd: Option<f64>,
    sign: Sign,
    /// For a truth value: decided the same way as on exact values.
    stable: bool,
}

const EXACT: Info = Info { exact: true, single: None, rel: Some(0.0), fwd: Some(0.0), sign: Sign::Any, stable: true };
const NONE: Info = Info { exact: false, single: None, rel: None, fwd: None, sign: Sign::Any, stable: false };

fn add_opt(a: Option<f64>, b: Option<f64>, c: f64) -> Option<f64> {
    Some(a? + b? + c)
}

fn power_of_two(e: &Expr) -> Option<f64> {
    match e {
        Expr::Lit(v) if *v != 0.0 && v.is_finite() && v.abs().log2().fract() == 0.0 => Some(*v),
        _ => None,
    }
}

struct Walk<'a> {
    f: &'a Function,
    temps: Vec<Option<Info>>,
    ops: OpUlps,
}

/// The ulp count of one rounded operation of exact operands against the
/// reference's (correctly rounded) result: 0 where the target rounds
/// correctly, else its bound plus the reference's half ulp, rounded down.
fn single(b: f64) -> f64 {
    if b <= 0.5 {
        0.0
    } else {
        (b + 0.5).floor()
    }
}

impl Walk<'_> {
    fn temp(&mut self, t: usize) -> Info {
        if let Some(i) = self.temps[t] {
            return i;
        }
        let i = self.info(&self.f.temps[t].expr.clone());
        self.temps[t] = Some(i);
        i
    }

    /// The summands of a chain of additions and subtractions (through
    /// temps), each with its effective sign.
    fn summands(&self, e: &Expr, neg: bool, out: &mut Vec<(Expr, bool)>) {
        match e {
            Expr::Bin(BinOp::Add, a, b) => {
                self.summands(a, neg, out);
                self.summands(b, neg, out);
            }
            Expr::Bin(BinOp::Sub, a, b) => {
                self.summands(a, neg, out);
                self.summands(b, !neg, out);
            }
            Expr::Temp(t) if matches!(self.f.temps[*t].expr, Expr::Bin(BinOp::Add | BinOp::Sub, ..)) => {
                let inner = self.f.temps[*t].expr.clone();
                self.summands(&inner, neg, out)
            }
            _ => out.push((e.clone(), neg)),
        }
    }

    fn info(&mut self, e: &Expr) -> Info {
        match e {
            Expr::Lit(v) => Info { sign: Sign::of(*v), ..EXACT },
            Expr::Input { .. } => EXACT,
            Expr::Truth(_) => EXACT,
            Expr::Temp(t) => self.temp(*t),
            Expr::Call(Builtin::Barrier, a) => self.info(&a[0]),
            Expr::Call(Builtin::Fabs, a) => Info { sign: Sign::NonNeg, single: None, ..self.info(&a[0]) },
            Expr::Call(Builtin::Fmin | Builtin::Fmax, a) => {
                let (x, y) = (self.info(&a[0]), self.info(&a[1]));
                if x.exact && y.exact {
                    return Info { sign: x.sign.join(y.sign), ..EXACT };
                }
                Info { fwd: x.fwd.zip(y.fwd).map(|(p, q)| p.max(q)), sign: x.sign.join(y.sign), ..NONE }
            }
            Expr::Call(Builtin::IsFinite, _) => Info { stable: true, ..NONE },
            Expr::Call(Builtin::Sqrt, a) => {
                let x = self.info(&a[0]);
                let (q, one) = (self.ops.sqrt, x.exact.then_some(single(self.ops.sqrt)));
                Info { single: one, rel: x.rel.map(|r| r / 2.0 + q), fwd: x.rel.map(|r| r / 2.0 + q), sign: Sign::NonNeg, ..NONE }
            }
            Expr::Call(Builtin::Hypot | Builtin::Fma, _) => NONE,
            Expr::Not(a) => Info { stable: self.info(a).stable, ..NONE },
            Expr::Bin(op, a, b) if op.is_comparison() => {
                let (x, y) = (self.info(a), self.info(b));
                let zero = |e: &Expr| matches!(e, Expr::Lit(v) if *v == 0.0);
                let stable = (x.exact && y.exact) || (zero(b) && x.rel.is_some()) || (zero(a) && y.rel.is_some());
                Info { stable, ..NONE }
            }
            Expr::Bin(_, a, b) if e.is_truth() => {
                let stable = self.info(a).stable && self.info(b).stable;
                Info { stable, ..NONE }
            }
            Expr::Select(c, a, b) => {
                let (s, x, y) = (self.info(c), self.info(a), self.info(b));
                if !s.stable {
                    return NONE;
                }
                if x.exact && y.exact {
                    return Info { sign: x.sign.join(y.sign), ..EXACT };
                }
                Info {
                    exact: false,
                    single: None,
                    rel: x.rel.zip(y.rel).map(|(p, q)| p.max(q)),
                    fwd: x.fwd.zip(y.fwd).map(|(p, q)| p.max(q)),
                    sign: x.sign.join(y.sign),
                    stable: x.stable && y.stable,
                }
            }
            Expr::Bin(BinOp::Mul, a, b) => {
                if let Some(v) = power_of_two(b).or(power_of_two(a)) {
                    let other = if power_of_two(b).is_some() { a } else { b };
                    let x = self.info(other);
                    return Info { sign: if v < 0.0 { x.sign.flip() } else { x.sign }, single: None, ..x };
                }
                let (x, y) = (self.info(a), self.info(b));
                let sign = if a == b {
                    Sign::NonNeg
                } else {
                    match (x.sign, y.sign) {
                        (Sign::Any, _) | (_, Sign::Any) => Sign::Any,
                        (p, q) if p == q => Sign::NonNeg,
                        _ => Sign::NonPos,
                    }
                };
                let m = self.ops.add_sub_mul;
                Info {
                    single: (x.exact && y.exact).then_some(single(m)),
                    rel: add_opt(x.rel, y.rel, m),
                    fwd: add_opt(x.fwd, y.fwd, m),
                    sign,
                    ..NONE
                }
            }
            Expr::Bin(BinOp::Div, a, b) => {
                if let Some(v) = power_of_two(b) {
                    let x = self.info(a);
                    return Info { sign: if v < 0.0 { x.sign.flip() } else { x.sign }, single: None, ..x };
                }
                let (x, y) = (self.info(a), self.info(b));
                let sign = match (x.sign, y.sign) {
                    (Sign::Any, _) | (_, Sign::Any) => Sign::Any,
                    (p, q) if p == q => Sign::NonNeg,
                    _ => Sign::NonPos,
                };
                let d = self.ops.div;
                Info {
                    single: (x.exact && y.exact).then_some(single(d)),
                    rel: add_opt(x.rel, y.rel, d),
                    fwd: add_opt(x.fwd, y.rel, d),
                    sign,
                    ..NONE
                }
            }
            Expr::Bin(BinOp::Add | BinOp::Sub, ..) => {
                let mut terms = Vec::new();
                self.summands(e, false, &mut terms);
                let infos: Vec<(Info, bool)> = terms.iter().map(|(t, neg)| (self.info(t), *neg)).collect();
                let n = infos.len() as f64;
                let signs: Vec<Sign> = infos.iter().map(|(i, neg)| if *neg { i.sign.flip() } else { i.sign }).collect();
                let one_sign = signs.iter().all(|s| *s == Sign::NonNeg) || signs.iter().all(|s| *s == Sign::NonPos);
                let all_exact = infos.iter().all(|(i, _)| i.exact);
                let max_fwd = infos.iter().try_fold(0.0f64, |m, (i, _)| i.fwd.map(|f| m.max(f)));
                let max_rel = infos.iter().try_fold(0.0f64, |m, (i, _)| i.rel.map(|r| m.max(r)));
                let a = self.ops.add_sub_mul;
                let rel = if all_exact && infos.len() == 2 {
                    Some(a)
                } else if one_sign {
                    max_rel.map(|r| r + (n - 1.0) * a)
                } else {
                    None
                };
                Info {
                    single: (all_exact && infos.len() == 2).then_some(single(a)),
                    rel,
                    fwd: max_fwd.map(|f| f + (n - 1.0) * a),
                    sign: if one_sign { signs[0] } else { Sign::Any },
                    ..NONE
                }
            }
            Expr::Bin(..) => unreachable!("every operator is handled"),
            Expr::Fold { .. } | Expr::Hole(_) => unreachable!("bands are derived on lowered trees"),
        }
    }
}

/// The metric of each result word of a lowered function, for the metric the
/// spec states; an error message when the tree gives no such bound.
fn derive(f: &Function, stated: BandMetric, ops: OpUlps) -> Result<Vec<Metric>, String> {
    // A tree whose value rests on rounding to nearest (a shifter, a split, a
    // two-sum's error: `Function::relies_on_rounding`) has no real value to
    // bound: the walk below would bound what it computes under real
    // arithmetic (a fraction where it rounds to an integer, zero where it
    // keeps an error), not the function.
    if stated != BandMetric::Bits && f.relies_on_rounding() {
        return match stated {
            BandMetric::Unbounded => Ok(vec![Metric::Unbounded; f.outputs.len()]),
            _ => Err("its tree rests on each operation rounding to nearest (a shifter's rounding to an integer, a split or a \
                      two-sum's error), so no band follows from the target's accuracy per operation: state it `unbounded` (or \
                      `bits`)"
                .into()),
        };
    }
    let mut w = Walk { f, temps: vec![None; f.temps.len()], ops };
    let truth = f.ret == Kind::Bool;
    let mut out = Vec::new();
    for (k, o) in f.outputs.iter().enumerate() {
        let i = w.info(o);
        let exact = if truth { i.stable || i.exact } else { i.exact };
        let m = match stated {
            BandMetric::Bits => Metric::Bits,
            _ if exact => Metric::Bits,
            _ if truth => return Err(format!("result word {k} is a truth value decided on rounded values: state it `unbounded`")),
            BandMetric::Ulp => match (i.single, i.rel) {
                (Some(u), _) => Metric::Ulp { max: u },
                (None, Some(r)) => Metric::Ulp { max: (2.0 * r * (1.0 + 1e-6)).floor() + 1.0 },
                (None, None) => {
                    return Err(format!(
                        "result word {k} has a sum whose terms may cancel (or a division by one): a ULP count is meaningless there; \
                         state it `forward`{}",
                        if i.fwd.is_none() { " or `unbounded`" } else { "" }
                    ))
                }
            },
            BandMetric::Forward => match i.fwd {
                Some(kf) => Metric::Forward { factor: kf * (1.0 + kf * EPS_F32) },
                None => {
                    return Err(format!(
                        "result word {k} divides by, takes the square root of or compares a quantity that may cancel: the target's \
                         rules give no forward bound; state it `unbounded`"
                    ))
                }
            },
            BandMetric::Unbounded => {
                if let Some(kf) = i.fwd {
                    return Err(format!("result word {k} has a forward bound ({}): state it `forward`", trim(kf)));
                }
                Metric::Unbounded
            }
        };
        out.push(m);
    }
    Ok(out)
}

/// The metric the spec states for a callable's family or kernel on a
/// target, with its line; `Bits` with line 0 when the target has no table.
pub fn stated(model: &Model, target: &str, name: &str) -> Option<(BandMetric, usize)> {
    let t = model.spec.bands.iter().find(|b| b.target == target)?;
    t.entries.iter().find(|e| e.name == name).map(|e| (e.metric, e.line))
}

fn key(c: &Callable) -> String {
    match c {
        Callable::Function(f) => f.family.clone(),
        Callable::Kernel(k) => k.key.clone(),
    }
}

/// Every band of the WGSL target's callables (its f32 functions and the
/// butterfly kernel), or the spec line that states a metric the tree cannot
/// have, or a callable the table leaves out.
pub fn check(model: &Model, target: &str, callables: &[Callable]) -> Result<(), SpecError> {
    let Some(table) = model.spec.bands.iter().find(|b| b.target == target) else { return Ok(()) };
    for c in callables {
        let name = key(c);
        let Some((metric, line)) = stated(model, target, &name) else {
            return Err(model.error_at(
                table.line,
                format!("bands.{target}"),
                format!("`{name}` ({}) has no metric: list it under bits, ulp, forward or unbounded", c.c_name(model)),
            ));
        };
        if let Callable::Function(f) = c {
            derive(&model.lower(f), metric, table.ops).map_err(|m| {
                model.error_at(line, format!("bands.{target}.{}", metric.key()), format!("`{name}` ({}): {m}", c.c_name(model)))
            })?;
        } else if !(metric == BandMetric::Bits || (metric == BandMetric::Unbounded && is_linalg(c))) {
            return Err(model.error_at(
                line,
                format!("bands.{target}.{}", metric.key()),
                format!("kernel `{name}` is compared bit for bit (a linear-algebra routine may be unbounded): list it under bits"),
            ));
        }
    }
    for e in &table.entries {
        if !callables.iter().any(|c| key(c) == e.name) {
            return Err(model.error_at(
                e.line,
                format!("bands.{target}.{}", e.metric.key()),
                format!("`{}` has no function on the {target} target", e.name),
            ));
        }
    }
    Ok(())
}

/// The domain of the per-lane linear algebra on WGSL: every float input word
/// zero or of magnitude in [2^-16, 2^16] (and, as everywhere, every result
/// word zero or normal). A schedule of n <= 4 has no tree to walk for its
/// intermediates (pivoting, the Jacobi sweeps and the convergence tests are
/// data-dependent), so the domain is stated on the inputs: in it a product
/// of a few words and a difference of two stay far from overflow and from
/// the subnormals a stack may flush (SwiftShader does), and a square root of
/// a large intermediate stays inside the range where a sqrt through
/// inverseSqrt is finite. Outside it (the badly scaled and huge-range
/// classes of `linalg::random_single`) the cases are counted apart.
pub const LINALG_DOMAIN: (f32, f32) = (1.0 / 65536.0, 65536.0);

/// The domain of the kernels over arrays checked per invocation (lanes,
/// plane, resolve) on WGSL: every float input word zero or of magnitude in
/// [2^-50, 2^50]. Their steps are error-free transforms whose residuals a
/// stack that flushes subnormals (SwiftShader) loses when they are
/// subnormal; in this range every term (a word or a product of two) is at
/// least 2^-100, so every residual is a multiple of 2^-123 and normal, and
/// a sum of ARRAY_CHECK_LEN products stays below 2^107.
pub const ARRAY_KERNEL_DOMAIN: (f32, f32) = (1.0 / 1_125_899_906_842_624.0, 1_125_899_906_842_624.0);

fn is_linalg(c: &Callable) -> bool {
    matches!(c, Callable::Kernel(k) if matches!(k.kind, KernelKind::Linalg { .. }))
}

/// The band of a callable on a target with a `[bands.<target>]` table
/// (bits where the spec states none or has no table).
pub fn band_on(model: &Model, target: &str, c: Callable) -> Band {
    let (stated, _) = stated(model, target, &key(&c)).unwrap_or((BandMetric::Bits, 0));
    let ops = model.spec.bands.iter().find(|b| b.target == target).map(|b| b.ops);
    match (c, ops) {
        (Callable::Function(f), Some(ops)) => {
            let tree = model.lower(f);
            let metrics = derive(&tree, stated, ops).unwrap_or_else(|_| vec![Metric::Unbounded; f.output_words()]);
            Band { metrics, stated, rounding: tree.relies_on_rounding(), tree: Some(tree) }
        }
        (Callable::Function(f), None) => {
            let tree = model.lower(f);
            Band { metrics: vec![Metric::Bits; f.output_words()], stated, rounding: tree.relies_on_rounding(), tree: Some(tree) }
        }
        (Callable::Kernel(_), _) => {
            let words = c.fixed_words().map(|(_, o)| o).unwrap_or(1);
            let m = if stated == BandMetric::Unbounded { Metric::Unbounded } else { Metric::Bits };
            Band { metrics: vec![m; words], stated, tree: None, rounding: false }
        }
    }
}

// ------------------------------------------------------------ the judgement

/// The distance in ulps of two f32 words (`aether_reference::ulp`: the
/// ordered mapping across signs, +0 and -0 one point, any NaN against any
/// NaN 0), a NaN against a number infinitely far.
pub fn ulp_f32(a: u32, b: u32) -> f64 {
    match aether_reference::ulp::f32_ulp_distance_bits(a, b) {
        u32::MAX => f64::INFINITY,
        d => f64::from(d),
    }
}

/// Per node of a lowered f32 tree: the value as the reference rounds it
/// (f32), the value in f64 (the exact value to about 2^-53 relative to M)
/// and the magnitude M; `domain` is cleared by an intermediate outside it.
struct Eval<'a> {
    f: &'a Function,
    inputs: Vec<f32>,
    temps: Vec<Option<(f32, f64, f64)>>,
    domain: bool,
    /// The f64 value and the magnitude follow the real value of the tree
    /// (false where the tree rests on rounding: `Band::rounding`).
    real: bool,
}

fn normal_or_zero(x: f32) -> bool {
    x.is_finite() && (x == 0.0 || x.abs() >= f32::MIN_POSITIVE)
}

impl Eval<'_> {
    fn input(&self, param: usize, comp: usize) -> f32 {
        let at: usize = self.f.params[..param].iter().map(|p| p.kind.words()).sum::<usize>() + comp;
        self.inputs[at]
    }

    fn truth(&mut self, e: &Expr) -> bool {
        match e {
            Expr::Truth(b) => *b,
            Expr::Not(a) => !self.truth(a),
            Expr::Bin(BinOp::And, a, b) => self.truth(a) & self.truth(b),
            Expr::Bin(BinOp::Or, a, b) => self.truth(a) | self.truth(b),
            Expr::Bin(op, a, b) => {
                // Decided on the exact values (f64): what the band assumes;
                // where the tree rests on rounding, on the rounded ones (the
                // branches the reference took: its quadrant is a rounded
                // whole number, a fraction under real arithmetic).
                let (x, y) = if self.real { (self.num(a).1, self.num(b).1) } else { (f64::from(self.num(a).0), f64::from(self.num(b).0)) };
                match op {
                    BinOp::Lt => x < y,
                    BinOp::Gt => x > y,
                    BinOp::Le => x <= y,
                    BinOp::Ge => x >= y,
                    BinOp::Eq => x == y,
                    BinOp::Ne => x != y,
                    _ => unreachable!(),
                }
            }
            Expr::Call(Builtin::IsFinite, a) => self.num(&a[0]).0.is_finite(),
            Expr::Select(c, a, b) => {
                if self.truth(c) {
                    self.truth(a)
                } else {
                    self.truth(b)
                }
            }
            Expr::Temp(t) => {
                let e = self.f.temps[*t].expr.clone();
                self.truth(&e)
            }
            _ => unreachable!("not a truth value"),
        }
    }

    fn num(&mut self, e: &Expr) -> (f32, f64, f64) {
        let r = match e {
            Expr::Lit(v) => (*v as f32, *v, v.abs()),
            Expr::Input { param, comp } => {
                let x = self.input(*param, *comp);
                (x, f64::from(x), f64::from(x).abs())
            }
            Expr::Temp(t) => {
                if let Some(v) = self.temps[*t] {
                    return v;
                }
                let e = self.f.temps[*t].expr.clone();
                let v = self.num(&e);
                self.temps[*t] = Some(v);
                return v;
            }
            Expr::Call(Builtin::Barrier, a) => self.num(&a[0]),
            Expr::Call(Builtin::Fabs, a) => {
                let (s, d, m) = self.num(&a[0]);
                (s.abs(), d.abs(), m)
            }
            Expr::Call(b @ (Builtin::Fmin | Builtin::Fmax), a) => {
                let (x, y) = (self.num(&a[0]), self.num(&a[1]));
                let (u, v) = if self.real { (x.1, y.1) } else { (f64::from(x.0), f64::from(y.0)) };
                let pick_x = if *b == Builtin::Fmin { u <= v } else { u >= v };
                let s = if *b == Builtin::Fmin { x.0.min(y.0) } else { x.0.max(y.0) };
                (s, if pick_x { x.1 } else { y.1 }, x.2.max(y.2))
            }
            Expr::Call(Builtin::Sqrt, a) => {
                let (s, d, _) = self.num(&a[0]);
                (s.sqrt(), d.sqrt(), d.abs().sqrt())
            }
            Expr::Call(Builtin::Hypot, a) => {
                let (x, y) = (self.num(&a[0]), self.num(&a[1]));
                (x.0.hypot(y.0), x.1.hypot(y.1), x.1.hypot(y.1).abs())
            }
            Expr::Call(Builtin::Fma, a) => {
                let (x, y, z) = (self.num(&a[0]), self.num(&a[1]), self.num(&a[2]));
                (x.0.mul_add(y.0, z.0), x.1 * y.1 + z.1, x.2 * y.2 + z.2)
            }
            Expr::Select(c, a, b) => {
                if self.truth(c) {
                    self.num(a)
                } else {
                    self.num(b)
                }
            }
            Expr::Bin(op, a, b) => {
                let (x, y) = (self.num(a), self.num(b));
                match op {
                    BinOp::Add => (x.0 + y.0, x.1 + y.1, x.2 + y.2),
                    BinOp::Sub => (x.0 - y.0, x.1 - y.1, x.2 + y.2),
                    BinOp::Mul => (x.0 * y.0, x.1 * y.1, x.2 * y.2),
                    BinOp::Div => {
                        let d = y.0.abs();
                        if !(2f32.powi(-126)..=2f32.powi(126)).contains(&d) {
                            self.domain = false;
                        }
                        (x.0 / y.0, x.1 / y.1, x.2 / y.1.abs())
                    }
                    _ => unreachable!("comparisons are truth values"),
                }
            }
            Expr::Call(Builtin::IsFinite, _) | Expr::Not(_) | Expr::Truth(_) => unreachable!("a truth value"),
            Expr::Fold { .. } | Expr::Hole(_) => unreachable!("lowered"),
        };
        // Outside the domain: a value the reference rounds to a subnormal,
        // an infinity or a NaN, and one whose exact value is below the
        // normal range (an underflow to zero, which a flushing stack and the
        // reference reach by different roads).
        // And a node whose terms' magnitudes sum to the top of the range: a
        // stack that reassociates or fuses them may overflow where the
        // reference does not (measured: quat rotate on lavapipe gave -inf for
        // a result of -3.4e38).
        // The magnitudes are those of an operation's terms: a literal or an
        // input near the top of the range (log's `x > max`) sums nothing.
        // Where the tree rests on rounding (guarded, so not reassociated),
        // its value in f64 is no exact value of anything: the values as the
        // reference rounds them decide alone.
        let operation = matches!(e, Expr::Bin(..) | Expr::Call(Builtin::Fma, _));
        if !normal_or_zero(r.0)
            || (self.real
                && ((r.1 != 0.0 && r.1.abs() < f64::from(f32::MIN_POSITIVE))
                    || (operation && r.2 > f64::from(f32::MAX) * (1.0 - 1.0 / 1_048_576.0))))
        {
            self.domain = false;
        }
        r
    }
}

/// Judges one case: `inputs` and `got` are the target's words (an f32 in the
/// low 32 bits), `expected` the reference's.
pub fn judge(model: &Model, c: Callable, band: &Band, inputs: &[u64], expected: &[u64], got: &[u64]) -> Judgement {
    let w = if c.elem() == "f32" { 32 } else { 64 };
    let is_float = c.is_float();
    let identical = crate::policy::matches(expected, got, w, is_float, c.either_zero());
    let as_f32 = |x: u64| f32::from_bits(x as u32);
    // A linear-algebra kernel's pivots and info are whole numbers: compared
    // exactly, and no part of the floating-point domain.
    let (whole_in, whole_out) = match c {
        Callable::Kernel(k) => match k.kind {
            KernelKind::Linalg { routine, n, .. } => {
                let (i, o) = crate::linalg::whole_words(routine, n);
                let (wi, wo) = crate::linalg::words(routine, n);
                (
                    (0..inputs.len()).filter(|x| i.contains(&(x % wi))).collect::<Vec<_>>(),
                    (0..expected.len()).filter(|x| o.contains(&(x % wo))).collect::<Vec<_>>(),
                )
            }
            // A lanes kernel's `#first`, a plane's `#S` and element numbers.
            KernelKind::Lanes { .. } => (model.spec.reduction.as_ref().map(|r| 2 * r.lanes).into_iter().collect(), Vec::new()),
            KernelKind::Plane { width } => ((0..inputs.len()).filter(|x| *x == 0 || (x - 1) % (width + 1) == 0).collect(), Vec::new()),
            _ => (Vec::new(), Vec::new()),
        },
        Callable::Function(_) => (Vec::new(), Vec::new()),
    };
    let range = match c {
        Callable::Kernel(k) => match k.kind {
            KernelKind::Linalg { .. } => Some(LINALG_DOMAIN),
            KernelKind::Lanes { .. } | KernelKind::Plane { .. } | KernelKind::Resolve => Some(ARRAY_KERNEL_DOMAIN),
            _ => None,
        },
        Callable::Function(_) => None,
    };
    let float_in = |x: f32| normal_or_zero(x) && range.is_none_or(|(lo, hi)| x == 0.0 || (lo..=hi).contains(&x.abs()));
    let mut in_domain = inputs.iter().enumerate().all(|(k, x)| whole_in.contains(&k) || float_in(as_f32(*x)))
        && (!is_float || expected.iter().enumerate().all(|(k, x)| whole_out.contains(&k) || normal_or_zero(as_f32(*x))));
    if c.fixed_words().is_some_and(|(_, o)| o != got.len()) || expected.len() != got.len() {
        return Judgement { in_domain, identical: false, ulp: f64::INFINITY, factor: f64::INFINITY, within: false };
    }
    let mut exact: Vec<Option<(f64, f64)>> = vec![None; got.len()];
    if let Some(tree) = &band.tree {
        let mut ev = Eval {
            f: tree,
            inputs: inputs.iter().map(|x| as_f32(*x)).collect(),
            temps: vec![None; tree.temps.len()],
            domain: true,
            real: !band.rounding,
        };
        if tree.ret != Kind::Bool {
            for (k, o) in tree.outputs.iter().enumerate() {
                let (_, d, m) = ev.num(o);
                exact[k] = Some((d, m));
            }
        }
        in_domain &= ev.domain;
    }
    let (mut ulp, mut factor, mut within) = (0.0f64, 0.0f64, true);
    // An unbounded routine's pivots and info follow from values the target
    // rounds its own way (a pivot chosen between two near-equal magnitudes,
    // a zero pivot that a 2-ulp division misses): measured, like its floats.
    let unbounded = !band.metrics.is_empty() && band.metrics.iter().all(|m| *m == Metric::Unbounded);
    for (k, (&e, &g)) in expected.iter().zip(got).enumerate() {
        if !is_float || whole_out.contains(&k) {
            within &= e == g || (unbounded && whole_out.contains(&k));
            ulp = ulp.max(if e == g { 0.0 } else { f64::INFINITY });
            continue;
        }
        let d = ulp_f32(e as u32, g as u32);
        ulp = ulp.max(d);
        // A kernel's band is one metric for every word.
        let metric = band.metrics.get(k).or(band.metrics.last()).copied().unwrap_or(Metric::Bits);
        let fe = exact[k].map(|(x, m)| {
            let err = (f64::from(as_f32(g)) - x).abs();
            if m == 0.0 {
                if err == 0.0 {
                    0.0
                } else {
                    f64::INFINITY
                }
            } else {
                err / (EPS_F32 * m)
            }
        });
        if let (Metric::Forward { .. }, Some(fe)) = (metric, fe) {
            factor = factor.max(fe);
        }
        within &= match metric {
            Metric::Bits => d == 0.0,
            Metric::Ulp { max } => d <= max,
            Metric::Forward { factor: bound } => fe.is_some_and(|fe| fe <= bound) || d == 0.0,
            Metric::Unbounded => true,
        };
    }
    Judgement { in_domain, identical, ulp, factor, within }
}

/// A magnitude range of powers of two as `2^a, 2^b` (a domain of the
/// bands, in the contract doc).
pub fn domain_text((lo, hi): (f32, f32)) -> String {
    format!("2^{}, 2^{}", lo.log2(), hi.log2())
}

/// One row of a band table in the contract doc: the callable's name, its
/// stated metric and its band per result word (one entry where all agree).
#[derive(Debug, Clone, serde::Serialize)]
pub struct BandRow {
    pub name: String,
    pub stated: &'static str,
    pub words: String,
}

/// The rows of `[bands.<target>]` for `callables`: every one, or, with
/// `banded_only`, those whose stated metric is not bits.
pub fn rows(model: &Model, target: &str, callables: &[Callable], banded_only: bool) -> Vec<BandRow> {
    callables
        .iter()
        .map(|c| (c, band_on(model, target, *c)))
        .filter(|(_, band)| !banded_only || band.stated != BandMetric::Bits)
        .map(|(c, band)| {
            let words: Vec<String> = band.metrics.iter().map(|m| m.to_string()).collect();
            let words = if words.iter().all(|w| *w == words[0]) { words[0].clone() } else { words.join("; ") };
            BandRow { name: c.c_name(model), stated: band.stated.key(), words }
        })
        .collect()
}
