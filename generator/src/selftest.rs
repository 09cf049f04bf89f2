//! What a core carries to check itself where it runs: the contract's
//! fingerprint, and the witness vectors its self-test replays.
//!
//! Witnesses are corpus cases labelled `discriminates <mutant>`: inputs on
//! which a plausible mistake in one rule of the spec gives other bits. A core
//! built so that one of those rules does not hold (a compiler that contracts,
//! reassociates or divides) fails at least one of them.

use crate::corpus::{self, Case};
use crate::dsl::BinOp;
use crate::interp::{self, Flavour, Ieee};
use crate::model::{Callable, Expr, Function, Model};
use crate::mutants::{self, Mutant};

/// A witness kept by the self-test: one corpus case of one callable.
#[derive(Debug, Clone, PartialEq)]
pub struct Witness {
    /// Index into `model.callables()`.
    pub callable: usize,
    pub c_name: String,
    pub mutant: Mutant,
    pub inputs: Vec<u64>,
    pub expected: Vec<u64>,
    /// The causes that can explain its failure (`witness_causes`, a mask of
    /// `Cause::bit`), from the contract's trees.
    pub causes: u32,
}

/// A probe of the subnormal handling where a core runs: `a * b` in the
/// element type of `bits` must give `expected`. With `operand` false, `a` is
/// the smallest normal number and b = 1/2, so a flush of results (FTZ) gives
/// zero; with `operand` true, `a` is the smallest subnormal, so a flush of
/// operands (DAZ) gives zero.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    pub bits: u32,
    pub operand: bool,
    pub a: u64,
    pub b: u64,
    pub expected: u64,
}

/// The subnormal probes of every element type, computed here in IEEE
/// arithmetic (Rust neither flushes nor contracts).
pub fn subnormal_probes(model: &Model) -> Vec<Probe> {
    let mut out = Vec::new();
    for t in &model.spec.types {
        if t.bits == 32 {
            let (min, sub, big) = (f32::MIN_POSITIVE, f32::from_bits(1), 2f32.powi(f32::MANTISSA_DIGITS as i32));
            let w = |x: f32| u64::from(x.to_bits());
            out.push(Probe { bits: 32, operand: false, a: w(min), b: w(0.5), expected: w(min * 0.5) });
            out.push(Probe { bits: 32, operand: true, a: w(sub), b: w(big), expected: w(sub * big) });
        } else {
            let (min, sub, big) = (f64::MIN_POSITIVE, f64::from_bits(1), 2f64.powi(f64::MANTISSA_DIGITS as i32));
            out.push(Probe { bits: 64, operand: false, a: min.to_bits(), b: 0.5f64.to_bits(), expected: (min * 0.5).to_bits() });
            out.push(Probe { bits: 64, operand: true, a: sub.to_bits(), b: big.to_bits(), expected: (sub * big).to_bits() });
        }
    }
    out
}

/// What, besides a broken rule, makes a witness fail where a core runs: a
/// compiler or driver that fuses products, reassociates sums, flushes
/// subnormals or ignores the sign of zero does it to the core and to
/// everything else it compiles. Each self-test first probes for each cause in
/// plain arithmetic (the cause probes, `cause_probes`, and the subnormal
/// probes, `subnormal_probes`), then counts a failing witness whose causes
/// (`witness_causes`) meet a detected cause as explained by it, not as a
/// failing rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    Fusion,
    Reassociation,
    Flush,
    ZeroSign,
}

/// Every cause, in the order of their bits (`Cause::bit`).
pub const CAUSES: [Cause; 4] = [Cause::Fusion, Cause::Reassociation, Cause::Flush, Cause::ZeroSign];

impl Cause {
    /// Its bit in a mask of causes (a witness's, or the causes a self-test detected).
    pub fn bit(self) -> u32 {
        1 << CAUSES.iter().position(|c| *c == self).unwrap()
    }

    pub fn name(self) -> &'static str {
        match self {
            Cause::Fusion => "fusion",
            Cause::Reassociation => "reassociation",
            Cause::Flush => "flush",
            Cause::ZeroSign => "zero-sign",
        }
    }

    /// The cause in words, as the self-tests' messages state it.
    pub fn words(self) -> &'static str {
        match self {
            Cause::Fusion => "fused products (a * b + c as one FMA)",
            Cause::Reassociation => "reassociated sums ((a + b) + c as a + (b + c))",
            Cause::Flush => "flushed subnormals",
            Cause::ZeroSign => "ignored zero signs",
        }
    }

    /// The causes of a mask, by name, joined by `sep`.
    pub fn names(mask: u32, sep: &str) -> String {
        CAUSES.iter().filter(|c| mask & c.bit() != 0).map(|c| c.name()).collect::<Vec<_>>().join(sep)
    }
}

/// The operation of a cause probe, over operands x, y, z (words of the
/// probe) and literals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeOp {
    /// `x * y + z`; fused: `fma(x, y, z)`.
    MulAdd,
    /// `x * y - z`; fused: `fma(x, y, -z)`.
    MulSub,
    /// `(x + y) + z`; reassociated: `x + (y + z)`.
    AddAdd,
    /// `(x + y) - y`; reassociated: `x + (y - y)`, i.e. x.
    AddSub,
    /// `x * -1`; with zero signs ignored: `0 - x`.
    NegOne,
    /// `0 - x`; with zero signs ignored: `-x`.
    ZeroSub,
    /// `x + 0`; with zero signs ignored: `x`.
    AddZero,
    /// `(x - y) * -1`; with zero signs ignored: `y - x`.
    SubNeg,
}

/// A probe of one cause: `op` on `inputs` in the element type of `bits`
/// gives `expected` in IEEE arithmetic and `under_cause` where the cause
/// strikes it (as the op's comment rewrites it).
#[derive(Debug, Clone, PartialEq)]
pub struct CauseProbe {
    pub cause: Cause,
    pub bits: u32,
    pub op: ProbeOp,
    pub inputs: [u64; 3],
    pub expected: u64,
    pub under_cause: u64,
}

impl ProbeOp {
    /// The probe in infix source (C, OpenCL C, CUDA, WGSL and GLSL spell it
    /// alike): `x` its operands, `lit` a literal of the element type, `fma`
    /// the language's fused multiply-add, `product` the core's spelling of a
    /// product `a * b` (the C core's guard around it: a probe is compiled as
    /// the core's own code is, so a build whose guards hold shows no fusion
    /// even where the compiler fuses other code), `sum` its spelling of the
    /// inner sum of the reassociation probes (identity, or a barrier for the
    /// shielded probes of a negative control). With `simulate`, the form the
    /// cause gives it (a control that stands for a stack with the cause).
    pub fn spell(
        self,
        x: [&str; 3],
        lit: &dyn Fn(f64) -> String,
        fma: &str,
        (product, sum): (&dyn Fn(String) -> String, &dyn Fn(String) -> String),
        simulate: bool,
    ) -> String {
        let [a, b, c] = x;
        match (self, simulate) {
            (ProbeOp::MulAdd, false) => format!("{} + {c}", product(format!("{a} * {b}"))),
            (ProbeOp::MulAdd, true) => format!("{fma}({a}, {b}, {c})"),
            (ProbeOp::MulSub, false) => format!("{} - {c}", product(format!("{a} * {b}"))),
            (ProbeOp::MulSub, true) => format!("{fma}({a}, {b}, -{c})"),
            (ProbeOp::AddAdd, false) => format!("{} + {c}", sum(format!("({a} + {b})"))),
            (ProbeOp::AddAdd, true) => format!("{a} + ({b} + {c})"),
            (ProbeOp::AddSub, false) => format!("{} - {b}", sum(format!("({a} + {b})"))),
            (ProbeOp::AddSub, true) => format!("{a} + ({b} - {b})"),
            (ProbeOp::NegOne, false) => product(format!("{a} * {}", lit(-1.0))),
            (ProbeOp::NegOne, true) => format!("{} - {a}", lit(0.0)),
            (ProbeOp::ZeroSub, false) => format!("{} - {a}", lit(0.0)),
            (ProbeOp::ZeroSub, true) => format!("-{a}"),
            (ProbeOp::AddZero, false) => format!("{a} + {}", lit(0.0)),
            (ProbeOp::AddZero, true) => a.to_string(),
            (ProbeOp::SubNeg, false) => product(format!("({a} - {b}) * {}", lit(-1.0))),
            (ProbeOp::SubNeg, true) => format!("{b} - {a}"),
        }
    }

    /// The probe evaluated here in IEEE arithmetic, or (`under_cause`) in the
    /// form the cause gives it.
    fn eval<T: Ieee + std::ops::Neg<Output = T>>(self, [a, b, c]: [T; 3], under_cause: bool) -> T {
        let (zero, one) = (T::lit(0.0), T::lit(1.0));
        let m1 = zero.sub(one);
        match (self, under_cause) {
            (ProbeOp::MulAdd, false) => a.mul(b).add(c),
            (ProbeOp::MulAdd, true) => a.fma(b, c),
            (ProbeOp::MulSub, false) => a.mul(b).sub(c),
            (ProbeOp::MulSub, true) => a.fma(b, -c),
            (ProbeOp::AddAdd, false) => a.add(b).add(c),
            (ProbeOp::AddAdd, true) => a.add(b.add(c)),
            (ProbeOp::AddSub, false) => a.add(b).sub(b),
            (ProbeOp::AddSub, true) => a.add(b.sub(b)),
            (ProbeOp::NegOne, false) => a.mul(m1),
            (ProbeOp::NegOne, true) => zero.sub(a),
            (ProbeOp::ZeroSub, false) => zero.sub(a),
            (ProbeOp::ZeroSub, true) => -a,
            (ProbeOp::AddZero, false) => a.add(zero),
            (ProbeOp::AddZero, true) => a,
            (ProbeOp::SubNeg, false) => a.sub(b).mul(m1),
            (ProbeOp::SubNeg, true) => b.sub(a),
        }
    }
}

/// The cause probes of every element type (the flush cause's probes are the
/// subnormal probes): for fusion, `x * y + z` and `x * y - z` with x = y =
/// 1 + 2^-h and z = -+(1 + 2^-(h-1)), h half the significand's width, whose
/// product's last term 2^-2h is lost to rounding (IEEE gives 0, a fused
/// operation 2^-2h); for reassociation, `(x + y) + z` and `(x + y) - y` with
/// x = 1, y = 2^p = -z, where 1 + 2^p rounds to 2^p (IEEE gives 0, the
/// reassociated sum 1); for the sign of zero, `+0 * -1` (-0), `0 - +0` (+0),
/// `-0 + 0` (+0) and `(1 - 1) * -1` (-0), which a compiler that ignores zero
/// signs rewrites as `0 - x`, `-x`, `x` and `y - x` (gcc and clang under
/// -fno-signed-zeros; the mutants neg-sub and neg-swap).
pub fn cause_probes(model: &Model) -> Vec<CauseProbe> {
    fn of<T: Ieee + std::ops::Neg<Output = T>>(bits: u32, digits: i32) -> Vec<CauseProbe> {
        let pow = |e: i32| T::lit(2f64.powi(e));
        let (zero, one) = (T::lit(0.0), T::lit(1.0));
        let h = (digits + 1) / 2;
        let near = one.add(pow(-h));
        let twice = one.add(pow(1 - h));
        let big = pow(digits);
        let rows: [(Cause, ProbeOp, [T; 3]); 8] = [
            (Cause::Fusion, ProbeOp::MulAdd, [near, near, -twice]),
            (Cause::Fusion, ProbeOp::MulSub, [near, near, twice]),
            (Cause::Reassociation, ProbeOp::AddAdd, [one, big, -big]),
            (Cause::Reassociation, ProbeOp::AddSub, [one, big, zero]),
            (Cause::ZeroSign, ProbeOp::NegOne, [zero, zero, zero]),
            (Cause::ZeroSign, ProbeOp::ZeroSub, [zero, zero, zero]),
            (Cause::ZeroSign, ProbeOp::AddZero, [-zero, zero, zero]),
            (Cause::ZeroSign, ProbeOp::SubNeg, [one, one, zero]),
        ];
        rows.into_iter()
            .map(|(cause, op, x)| CauseProbe {
                cause,
                bits,
                op,
                inputs: x.map(Ieee::to_word),
                expected: op.eval(x, false).to_word(),
                under_cause: op.eval(x, true).to_word(),
            })
            .collect()
    }
    let mut out = Vec::new();
    for t in &model.spec.types {
        if t.bits == 32 {
            out.extend(of::<f32>(32, f32::MANTISSA_DIGITS as i32));
        } else {
            out.extend(of::<f64>(64, f64::MANTISSA_DIGITS as i32));
        }
    }
    out
}

/// In a shader self-test's `simulate` mask: the cause probes' products and
/// inner sums are made opaque (`ShaderProbeSpelling::shield`), so no driver fuses or
/// reassociates them (the negative control: the failures a cause makes are
/// then failing rules, since nothing detects the cause).
pub const SHIELD_PROBES: u32 = 1 << 16;

/// How a shader language spells what its self-test's cause probes need:
/// `read` a table word as an f32 expression, `bits` an f32 expression's bits
/// as a u32, `flag(cond, bit)` the u32 `bit` where `cond` holds (else 0),
/// `declare` the declaration of the u32 `aether_causes`.
#[allow(missing_debug_implementations)] // closures only
pub struct ShaderProbeSpelling<'a> {
    pub read: &'a dyn Fn(u64) -> String,
    pub bits: &'a dyn Fn(&str) -> String,
    pub flag: &'a dyn Fn(&str, u32) -> String,
    pub declare: &'a str,
    /// An f32 expression made opaque (its bits ORed with the opaque zero,
    /// whatever the core's guard), for the shielded probes.
    pub shield: &'a dyn Fn(&str) -> String,
}

/// The cause probes (`cause_probes`, f32) as statements of a shader
/// self-test (WGSL and GLSL ES spell them alike but for `sp`), after its
/// subnormal and zero-sign probes: each sets its report field (`fuses`,
/// `reassociates`, `zero_sign_ignored`) when it gives other bits; then
/// `aether_causes`, the mask (`Cause::bit`) of the causes detected, flush
/// from the fields `flushes_results` and `flushes_operands`; and
/// `aether_guarded_causes`, the causes detected by the fusion and
/// reassociation probes printed as the core prints the functions that rely
/// on rounding (every sum through its barrier), for the witnesses of those
/// functions and of the kernels. The probes of the causes in `simulate` are
/// printed in the form their cause gives them.
pub fn shader_cause_probes(model: &Model, sp: &ShaderProbeSpelling, simulate: u32) -> Vec<String> {
    let mut lines = vec!["var aether_guarded_causes = 0u;".to_string()];
    if sp.declare.starts_with("uint") {
        lines[0] = "uint aether_guarded_causes = 0u;".into();
    }
    for p in cause_probes(model).into_iter().filter(|p| p.bits == 32) {
        let field = match p.cause {
            Cause::Fusion => "fuses",
            Cause::Reassociation => "reassociates",
            Cause::ZeroSign => "zero_sign_ignored",
            Cause::Flush => continue,
        };
        let x = p.inputs.map(|w| (sp.read)(w));
        let lit = |v: f64| format!("{v:.1}");
        // Shielded probes are printed plain (the negative control's point).
        let simulated = simulate & p.cause.bit() != 0 && simulate & SHIELD_PROBES == 0;
        // A product in parentheses, as the core prints it (a fusing rewrite
        // of the module, `wgsl::strict::fuse_products`, then fuses it as it
        // fuses the core's); shielded, the product and the inner sum are
        // made opaque, which no driver sees through.
        let shielded = |e: String| (sp.shield)(&e);
        let paren = |e: String| format!("({e})");
        let plain = |e: String| e;
        let barrier = |e: String| format!("aether_barrier_f32({e})");
        let forms: (&dyn Fn(String) -> String, &dyn Fn(String) -> String) =
            if simulate & SHIELD_PROBES != 0 { (&shielded, &shielded) } else { (&paren, &plain) };
        let expr = format!("({})", p.op.spell([&x[0], &x[1], &x[2]], &lit, "fma", forms, simulated));
        let note = if simulated { " (simulated: the form the cause gives it)" } else { "" };
        lines.push(format!(
            "if ({} != 0x{:08x}u) {{ aether_report.{field} = 1u; }} // {}{note}",
            (sp.bits)(&expr),
            p.expected as u32,
            p.cause.name()
        ));
        // The same probe as the core prints the functions that rely on
        // rounding (every sum through the core's barrier, aether_barrier_f32,
        // which the guard controls turn into the identity or a product by
        // one): the causes that can strike those functions and the kernels.
        if matches!(p.cause, Cause::Fusion | Cause::Reassociation) {
            let guarded: (&dyn Fn(String) -> String, &dyn Fn(String) -> String) =
                if simulate & SHIELD_PROBES != 0 { (&shielded, &shielded) } else { (&paren, &barrier) };
            let inner = p.op.spell([&x[0], &x[1], &x[2]], &lit, "fma", guarded, simulated);
            let expr = if simulated || simulate & SHIELD_PROBES != 0 { format!("({inner})") } else { barrier(format!("({inner})")) };
            lines.push(format!(
                "if ({} != 0x{:08x}u) {{ aether_guarded_causes |= {}u; }} // {}, through the core's barrier{note}",
                (sp.bits)(&expr),
                p.expected as u32,
                p.cause.bit(),
                p.cause.name()
            ));
        }
    }
    let flag = |field: &str, c: Cause| (sp.flag)(&format!("aether_report.{field} != 0u"), c.bit());
    lines.push(format!(
        "{} = {} | {} | {} | {} | {};",
        sp.declare,
        flag("fuses", Cause::Fusion),
        flag("reassociates", Cause::Reassociation),
        flag("flushes_results", Cause::Flush),
        flag("flushes_operands", Cause::Flush),
        flag("zero_sign_ignored", Cause::ZeroSign)
    ));
    lines.push(format!("aether_guarded_causes |= aether_causes & {}u;", Cause::Flush.bit() | Cause::ZeroSign.bit()));
    lines
}

/// The causes that can explain a failure of witness `w` (a mask of
/// `Cause::bit`), from the contract's lowered functions `lowered`:
/// fusion where its tree has a product as an operand of a sum or difference
/// (a driver may fuse any of them); reassociation where it has a sum or
/// difference as an operand of another, or a product of a product (neither
/// seen through a barrier); both for a kernel, whose compensated sums rest on
/// every step rounding as written; flush where evaluating it with every
/// subnormal operand and result flushed gives other bits than expected (for a
/// kernel, also where a word of its inputs or results is subnormal); the
/// sign of zero where evaluating it with every zero result +0, or every one
/// -0, does (both judged by the spec's comparison policy).
pub fn witness_causes(model: &Model, lowered: &[Function], w: &Witness) -> u32 {
    let callables = model.callables();
    let c = callables[w.callable];
    let mut mask = 0;
    let (fusable, reassociable) = match c {
        Callable::Function(_) => structure(&lowered[w.callable]),
        Callable::Kernel(_) => (true, true),
    };
    if fusable {
        mask |= Cause::Fusion.bit();
    }
    if reassociable {
        mask |= Cause::Reassociation.bit();
    }
    let bits = model.spec.types.iter().find(|t| t.name == c.elem()).map_or(32, |t| t.bits);
    let differs = |flavour: Flavour| {
        let got = interp::with_flavour(flavour, || crate::kernel::evaluate_callable(model, lowered, w.callable, &w.inputs));
        match got {
            Ok(got) => {
                got.len() != w.expected.len()
                    || got.iter().zip(&w.expected).any(|(g, e)| !same(*g, *e, bits, c.is_float(), c.either_zero()))
            }
            Err(_) => false,
        }
    };
    // The linear algebra's kernels compute through their own arithmetic, not
    // the flavoured evaluation: for a kernel, a subnormal word among its
    // inputs and results counts too.
    let subnormal = |x: &u64| if bits == 32 { f32::from_bits(*x as u32).is_subnormal() } else { f64::from_bits(*x).is_subnormal() };
    let kernel_subnormal = matches!(c, Callable::Kernel(_)) && c.is_float() && w.inputs.iter().chain(&w.expected).any(subnormal);
    if differs(Flavour::Flush) || kernel_subnormal {
        mask |= Cause::Flush.bit();
    }
    if differs(Flavour::ZeroPlus) || differs(Flavour::ZeroMinus) {
        mask |= Cause::ZeroSign.bit();
    }
    mask
}

/// The spec's comparison policy on one word: equal bits, both NaN, or +0
/// against -0 where the function grants it.
fn same(got: u64, want: u64, bits: u32, is_float: bool, either_zero: bool) -> bool {
    if got == want || !is_float {
        return got == want;
    }
    let (nan, zero) = if bits == 32 {
        let (g, w) = (f32::from_bits(got as u32), f32::from_bits(want as u32));
        (g.is_nan() && w.is_nan(), g == 0.0 && w == 0.0)
    } else {
        let (g, w) = (f64::from_bits(got), f64::from_bits(want));
        (g.is_nan() && w.is_nan(), g == 0.0 && w == 0.0)
    };
    nan || (either_zero && zero)
}

/// Whether a lowered function has a product as an operand of a sum or
/// difference (fusable), and a sum or difference as an operand of another or
/// a product of a product with no factor +-1 (reassociable). Temps are looked
/// through (a driver sees them as the values they are); barriers are not.
fn structure(f: &Function) -> (bool, bool) {
    fn resolve<'a>(f: &'a Function, mut e: &'a Expr) -> &'a Expr {
        while let Expr::Temp(i) = e {
            e = &f.temps[*i].expr;
        }
        e
    }
    let unit = |e: &Expr| matches!(e, Expr::Lit(v) if v.abs() == 1.0);
    let (mut fusable, mut reassociable) = (false, false);
    for e in f.exprs() {
        e.visit(&mut |x| match x {
            Expr::Bin(BinOp::Add | BinOp::Sub, a, b) => {
                for o in [resolve(f, a), resolve(f, b)] {
                    fusable |= matches!(o, Expr::Bin(BinOp::Mul, ..));
                    reassociable |= matches!(o, Expr::Bin(BinOp::Add | BinOp::Sub, ..));
                }
            }
            Expr::Bin(BinOp::Mul, a, b) => {
                let (a, b) = (resolve(f, a), resolve(f, b));
                if !unit(a) && !unit(b) {
                    for o in [a, b] {
                        reassociable |= matches!(o, Expr::Bin(BinOp::Mul, p, q) if !unit(resolve(f, p)) && !unit(resolve(f, q)));
                    }
                }
            }
            _ => {}
        });
    }
    (fusable, reassociable)
}

/// Witnesses with more input words than this stay in the corpus only: the
/// self-test runs at every start-up and should take microseconds.
pub const MAX_WITNESS_WORDS: usize = 160;

/// Families per mutant and element type whose witness the self-test keeps.
/// Contraction can strike any function, so `fma` keeps one per family.
fn families_kept(m: Mutant) -> usize {
    // Contraction and the sign of a zero (`x * -1` against `0 - x` or, for a
    // difference, `b - a`: what -fno-signed-zeros lets a compiler do) have a
    // witness in every family that has one: a compiler applies them pattern
    // by pattern (clang 14, -fno-signed-zeros: `(a - b) * -1` into `b - a` in
    // inverse_adjugate's cofactors, while `x * -1` alone in neg keeps its bits).
    if matches!(m, Mutant::Fma | Mutant::NegSub | Mutant::NegSwap) {
        usize::MAX
    } else {
        2
    }
}

/// The self-test's witnesses, chosen from the corpus cases of each callable
/// (`cases_of` gives them by C name): for every mutant and element type, the
/// first witness of up to `families_kept` distinct families, in spec order.
/// `no-barrier` has no witness: without contraction it changes no bit.
pub fn witnesses(model: &Model, cases_of: &dyn Fn(&str) -> Option<Vec<Case>>) -> Vec<Witness> {
    let callables = model.callables();
    let lowered = model.lowered();
    let mut out = Vec::new();
    for m in mutants::ALL {
        let label = format!("discriminates {}:", m.name());
        for t in &model.spec.types {
            let mut families: Vec<&str> = Vec::new();
            for (i, c) in callables.iter().enumerate() {
                if c.elem() != t.name || families.contains(&c.family()) || families.len() >= families_kept(m) {
                    continue;
                }
                let name = c.c_name(model);
                let Some(cases) = cases_of(&name) else { continue };
                let Some(case) = cases.iter().find(|k| k.label.contains(&label) && k.inputs.len() <= MAX_WITNESS_WORDS) else {
                    continue;
                };
                families.push(c.family());
                let mut w = Witness {
                    callable: i,
                    c_name: name,
                    mutant: m,
                    inputs: case.inputs.clone(),
                    expected: case.expected.clone(),
                    causes: 0,
                };
                w.causes = witness_causes(model, &lowered, &w);
                out.push(w);
            }
        }
    }
    out
}

/// The canonical form of the contract: every callable's C name, signature,
/// comparison slack and lowered tree (or, for a kernel, what its bits depend
/// on), the element types, the predicates' and integer helpers' typed steps,
/// and df64's operations and settings. Comments, documentation, key order and
/// spacing in the spec do not change it; any change to an operation does.
pub fn canonical_form(model: &Model) -> String {
    let lowered = model.lowered();
    let mut s = format!("{} {}\n", model.spec.name, model.spec.version);
    for t in &model.spec.types {
        s.push_str(&format!("type {} {} {}\n", t.name, t.c_type, t.bits));
    }
    for (i, c) in model.callables().into_iter().enumerate() {
        let tree = match c {
            Callable::Function(_) => mutants::canonical(&lowered[i]),
            Callable::Kernel(k) => corpus::kernel_signature(model, &lowered, k),
        };
        s.push_str(&format!("{} {} {} {} {} = {tree}\n", c.c_name(model), c.family(), c.shape(), c.elem(), c.either_zero()));
    }
    // The predicates' and the helpers' typed steps, and df64's operations,
    // map, guard and domain: a change to any of them changes the fingerprint.
    // (Steps without their comments.)
    let steps = |b: &crate::predicate::PBody| -> String { b.steps.iter().map(|st| format!("{} = {:?}; ", st.name, st.value)).collect() };
    let preds = &model.spec.predicates;
    for f in &preds.functions {
        s.push_str(&format!("int_function {} {:?} {:?} = {}\n", f.name, f.params, f.ret, steps(&f.body)));
    }
    for p in &preds.predicates {
        let forms = match &p.forms {
            crate::predicate::Forms::Two { golden, integer } => format!("golden {} integer {}", steps(golden), steps(integer)),
            crate::predicate::Forms::Derived(b) => format!("derived {}", steps(b)),
        };
        s.push_str(&format!("predicate {} {:?} {:?} = {forms}\n", p.name, p.params, p.domain));
    }
    if let Some(d) = &model.spec.df64 {
        s.push_str(&format!(
            "df64 {:?} exclude {:?} domain {:e} {:e} map {:?} renorm {}\n",
            d.targets, d.exclude, d.min_magnitude, d.max_magnitude, d.map, d.renorm
        ));
        for o in &d.ops {
            s.push_str(&format!("df64_op {} {:?} {:?} {:?} = {:?} -> {:?}\n", o.name, o.params, o.ret, o.bound, o.steps, o.out));
        }
    }
    s
}

/// The fingerprint: `<name> <version> <md5 of the canonical form>`.
pub fn contract_id(model: &Model) -> String {
    format!("{} {} {:x}", model.spec.name, model.spec.version, md5::compute(canonical_form(model).as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every cause probe tells its cause apart: IEEE arithmetic gives its
    /// expected bits, the form the cause gives it other bits.
    #[test]
    fn every_cause_probe_discriminates_its_cause() {
        let model = crate::load(&crate::default_root()).unwrap();
        let probes = cause_probes(&model);
        for c in [Cause::Fusion, Cause::Reassociation, Cause::ZeroSign] {
            for bits in [32, 64] {
                assert!(probes.iter().any(|p| p.cause == c && p.bits == bits), "no {} probe in f{bits}", c.name());
            }
        }
        for p in &probes {
            assert_ne!(p.expected, p.under_cause, "{p:?}");
        }
        // The f32 fusion probe: 0 in IEEE arithmetic, 2^-24 fused.
        let f = probes.iter().find(|p| p.bits == 32 && p.op == ProbeOp::MulAdd).unwrap();
        assert_eq!((f32::from_bits(f.expected as u32), f32::from_bits(f.under_cause as u32)), (0.0, 2f32.powi(-24)));
    }

    /// The masks are computed, not stated: a product summed is fusable, a
    /// layout with no arithmetic explains nothing, a witness with a
    /// subnormal result is flushable, and a zero-sign witness is
    /// zero-sign sensitive.
    #[test]
    fn witness_masks_follow_the_trees_and_the_flavoured_evaluation() {
        let model = crate::load(&crate::default_root()).unwrap();
        let corpus = corpus::read_committed(&crate::default_root()).unwrap();
        let ws = witnesses(&model, &|name| corpus.get(name).map(|p| p.cases.clone()));
        let of = |name: &str, m: Mutant| ws.iter().find(|w| w.c_name == name && w.mutant == m).map(|w| w.causes);
        assert_ne!(of("aether_vec2f_dot", Mutant::Fma).unwrap() & Cause::Fusion.bit(), 0);
        // Every fma witness can be explained by fusion, and every neg-sub or
        // neg-swap witness by the sign of zero.
        for w in &ws {
            if w.mutant == Mutant::Fma {
                assert_ne!(w.causes & Cause::Fusion.bit(), 0, "{} {}", w.c_name, w.mutant.name());
            }
            if matches!(w.mutant, Mutant::NegSub | Mutant::NegSwap) {
                assert_ne!(w.causes & Cause::ZeroSign.bit(), 0, "{} {}", w.c_name, w.mutant.name());
            }
        }
        // Some witness no cause explains (a rule break the self-test must report as one).
        assert!(ws.iter().any(|w| w.causes == 0), "every witness is explained by some cause");
        // A witness whose result is subnormal is explained by a flush.
        let callables = model.callables();
        let sub = |w: &Witness| {
            let narrow = callables[w.callable].elem() == "f32";
            callables[w.callable].is_float()
                && w.expected
                    .iter()
                    .any(|&x| if narrow { f32::from_bits(x as u32).is_subnormal() } else { f64::from_bits(x).is_subnormal() })
        };
        let flushable: Vec<&Witness> = ws.iter().filter(|w| sub(w)).collect();
        assert!(!flushable.is_empty());
        for w in flushable {
            assert_ne!(w.causes & Cause::Flush.bit(), 0, "{} {}", w.c_name, w.mutant.name());
        }
    }
}
