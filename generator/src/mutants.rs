//! Plausible mistakes in a rule, each as a change to the spec or to the
//! lowered trees. The corpus carries, for every function a mutant changes, an
//! input on which the mutant gives other bits; the tests build the C core from
//! each mutant and show that the corpus catches it.

use crate::dsl::{self, BinOp};
use crate::error::SpecErrors;
use crate::model::{Builtin, Expr, Function, Model};
use crate::spec::{Assignment, Layout, Multipliers, Nesting, Pivot, Seed, ShapeKind, Spec, Symmetrize, Update};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mutant {
    FoldLeft,
    FoldSeeded,
    TrueDivision,
    Fma,
    Hypot,
    NegSub,
    NegSwap,
    MaxSelectSwapped,
    ColumnMajor,
    QuatXyzw,
    Uncompensated,
    NonFiniteKept,
    NoBarrier,
    RoundsReversed,
    SingleLane,
    PivotLast,
    RightLooking,
    NoSymmetrize,
    CompDropped,
    NanFirst,
    NanSecond,
    Reassociate,
    Reciprocal,
    ProductOrder,
    CoefficientBit,
    ReductionConstant,
}

pub const ALL: [Mutant; 26] = [
    Mutant::FoldLeft,
    Mutant::FoldSeeded,
    Mutant::TrueDivision,
    Mutant::Fma,
    Mutant::Hypot,
    Mutant::NegSub,
    Mutant::NegSwap,
    Mutant::MaxSelectSwapped,
    Mutant::ColumnMajor,
    Mutant::QuatXyzw,
    Mutant::Uncompensated,
    Mutant::NonFiniteKept,
    Mutant::NoBarrier,
    Mutant::RoundsReversed,
    Mutant::SingleLane,
    Mutant::PivotLast,
    Mutant::RightLooking,
    Mutant::NoSymmetrize,
    Mutant::CompDropped,
    Mutant::NanFirst,
    Mutant::NanSecond,
    Mutant::Reassociate,
    Mutant::Reciprocal,
    Mutant::ProductOrder,
    Mutant::CoefficientBit,
    Mutant::ReductionConstant,
];

impl Mutant {
    pub fn name(self) -> &'static str {
        match self {
            Mutant::FoldLeft => "fold-left",
            Mutant::FoldSeeded => "fold-seeded",
            Mutant::TrueDivision => "true-division",
            Mutant::Fma => "fma",
            Mutant::Hypot => "hypot",
            Mutant::NegSub => "neg-sub",
            Mutant::NegSwap => "neg-swap",
            Mutant::MaxSelectSwapped => "max-select-swapped",
            Mutant::ColumnMajor => "column-major",
            Mutant::QuatXyzw => "quat-xyzw",
            Mutant::Uncompensated => "uncompensated",
            Mutant::NonFiniteKept => "non-finite-kept",
            Mutant::NoBarrier => "no-barrier",
            Mutant::RoundsReversed => "rounds-reversed",
            Mutant::SingleLane => "single-lane",
            Mutant::PivotLast => "pivot-last",
            Mutant::RightLooking => "right-looking",
            Mutant::NoSymmetrize => "no-symmetrize",
            Mutant::CompDropped => "comp-dropped",
            Mutant::NanFirst => "nan-first",
            Mutant::NanSecond => "nan-second",
            Mutant::Reassociate => "reassociate",
            Mutant::Reciprocal => "reciprocal",
            Mutant::ProductOrder => "product-order",
            Mutant::CoefficientBit => "coefficient-bit",
            Mutant::ReductionConstant => "reduction-constant",
        }
    }

    pub fn from_name(s: &str) -> Option<Mutant> {
        ALL.into_iter().find(|m| m.name() == s)
    }

    pub fn description(self) -> &'static str {
        match self {
            Mutant::FoldLeft => "folds accumulate from the highest index down",
            Mutant::FoldSeeded => "folds start from the combiner's identity (a zero seed)",
            Mutant::TrueDivision => "r * x with r = 1/s becomes the correctly rounded x / s (also LU's multipliers)",
            Mutant::Fma => "a product feeding an addition or subtraction is fused (contraction; also in the linear algebra)",
            Mutant::Hypot => "sqrt of a sum of squares becomes a chain of hypot",
            Mutant::NegSub => "x * -1 becomes 0 - x (the sign of a zero: what -fno-signed-zeros allows)",
            Mutant::NegSwap => "(a - b) * -1 becomes b - a (the sign of a zero: what clang does under -fno-signed-zeros)",
            Mutant::MaxSelectSwapped => "the max_select combiner becomes acc > new ? acc : new",
            Mutant::ColumnMajor => "matrices are read and written column-major",
            Mutant::QuatXyzw => "quaternions are laid out (x, y, z, w)",
            Mutant::Uncompensated => "the plain computation: two_sum_err gives 0 and a pair is delivered as hi alone",
            Mutant::NonFiniteKept => {
                "a select on isfinite() always takes its finite branch: the correction kept for a non-finite hi, the rotation's overflow branch dropped"
            }
            Mutant::NoBarrier => "barrier() is dropped (the same bits unless the compiler contracts)",
            Mutant::RoundsReversed => "the butterfly runs its rounds in reverse order (xor 1, 2, 4, 8, 16)",
            Mutant::SingleLane => "every array element goes to lane 0: one sequential Neumaier chain",
            Mutant::PivotLast => "LU pivots on the last entry of largest magnitude",
            Mutant::RightLooking => "LU updates the trailing matrix after each column, term by term (right-looking)",
            Mutant::NoSymmetrize => "Cholesky and eigh read the lower triangle as it is, not 0.5*a_ij + 0.5*a_ji",
            Mutant::CompDropped => "pair combine drops the comp parts of its operands (keeps only the new residual)",
            Mutant::NanFirst => {
                "a NaN operand is not ignored: fmin(a, b) as b < a ? b : a, fmax(a, b) as b > a ? b : a, the first operand kept \
                 on NaN (a compiler that assumes no NaN: clang -fno-honor-nans, -ffinite-math-only)"
            }
            Mutant::NanSecond => {
                "a NaN operand is not ignored: fmin(a, b) as a < b ? a : b, fmax(a, b) as a > b ? a : b, the second operand kept \
                 on NaN (x86 minss/maxss, a compiler that assumes no NaN)"
            }
            Mutant::Reassociate => "(x + y) + z becomes x + (y + z) (a compiler that reassociates: -fassociative-math)",
            Mutant::Reciprocal => "x / y becomes x * (1 / y) (a compiler that divides by reciprocals: -freciprocal-math)",
            Mutant::ProductOrder => "(x * y) * z becomes x * (y * z) (another evaluation order of a polynomial's products; -fassociative-math)",
            Mutant::CoefficientBit => {
                "every polynomial coefficient (c of a Horner step c + u * (...), and d of the innermost step c + u * d) has its \
                 last bit flipped (a constant printed with too few digits, or fitted again)"
            }
            Mutant::ReductionConstant => {
                "every constant multiplied by a rounded integer k (the parts of pi/2 of a reduction k * P) has its last bit \
                 flipped, so k * P1 is no longer exact"
            }
        }
    }

    /// The spec as this mutant states it (unchanged for tree mutants).
    pub fn spec(self, spec: &Spec) -> Spec {
        let mut s = spec.clone();
        match self {
            Mutant::FoldLeft => s.fold.nesting = Nesting::Left,
            Mutant::FoldSeeded => s.fold.seed = Seed::Identity,
            Mutant::MaxSelectSwapped => {
                if let Some(c) = s.combiners.iter_mut().find(|c| c.name == "max_select") {
                    c.source = "acc > new ? acc : new".into();
                    c.expr = dsl::parse_expr(&c.source).expect("a fixed, valid expression");
                }
            }
            Mutant::ColumnMajor => {
                for sh in &mut s.shapes {
                    if let ShapeKind::Matrix { layout, .. } = &mut sh.kind {
                        *layout = Layout::ColumnMajor;
                    }
                }
            }
            Mutant::QuatXyzw => {
                if let Some(sh) = s.shapes.iter_mut().find(|sh| sh.name == "quat") {
                    if let ShapeKind::Vector(names) = &mut sh.kind {
                        names.rotate_left(1);
                    }
                }
            }
            Mutant::Uncompensated => {
                let plain = [("two_sum_err", "out = 0".to_string()), ("pair_value", "out = p.hi".to_string())];
                for (family, body) in plain {
                    if let Some(f) = s.families.iter_mut().find(|f| f.name == family) {
                        for b in &mut f.bodies {
                            b.stmts = dsl::parse_body(&body).expect("a fixed, valid body");
                            b.source = body.clone();
                        }
                    }
                }
            }
            Mutant::CompDropped => {
                let name = s.reduction.as_ref().map_or("pair_combine".to_string(), |r| r.combine.clone());
                if let Some(f) = s.families.iter_mut().find(|f| f.name == name) {
                    for b in &mut f.bodies {
                        // The same body with `(barrier(a.comp) + barrier(b.comp)) + ` removed.
                        let src = b.source.replace("(barrier(a.comp) + barrier(b.comp)) + ", "");
                        b.stmts = dsl::parse_body(&src).expect("the combine body without its comp parts");
                        b.source = src;
                    }
                }
            }
            Mutant::RoundsReversed => {
                if let Some(r) = &mut s.reduction {
                    r.rounds.reverse();
                }
            }
            Mutant::SingleLane => {
                if let Some(r) = &mut s.reduction {
                    r.assignment = Assignment::Single;
                }
            }
            Mutant::PivotLast | Mutant::RightLooking | Mutant::NoSymmetrize | Mutant::TrueDivision | Mutant::Fma => {
                if let Some(l) = &mut s.linalg {
                    match self {
                        Mutant::PivotLast => l.pivot = Pivot::LastLargest,
                        Mutant::RightLooking => l.update = Update::RightLooking,
                        Mutant::NoSymmetrize => l.symmetrize = Symmetrize::Lower,
                        Mutant::TrueDivision => l.multipliers = Multipliers::Division,
                        _ => l.fused = true,
                    }
                }
            }
            _ => {}
        }
        s
    }

    /// The mutant's model, lowered: one function per function of `model`, in
    /// the same order.
    pub fn lowered(self, model: &Model) -> Result<Vec<Function>, SpecErrors> {
        Ok(self.build(model)?.1)
    }

    /// The mutant's model (its spec states the mutant's layouts) and its
    /// lowered functions.
    pub fn build(self, model: &Model) -> Result<(Model, Vec<Function>), SpecErrors> {
        let m = Model::build(&self.spec(&model.spec))?;
        SpecErrors::check(m.check_probes())?;
        let lowered = m
            .functions
            .iter()
            .map(|f| {
                let mut f = f.clone();
                if self == Mutant::Hypot {
                    f.map_exprs(&mut hypot);
                }
                let mut g = m.lower(&f);
                match self {
                    Mutant::TrueDivision => true_division(&mut g),
                    Mutant::NonFiniteKept => g.map_exprs(&mut |e| match e {
                        Expr::Select(c, a, _) if matches!(*c, Expr::Call(Builtin::IsFinite, _)) => *a,
                        other => other,
                    }),
                    Mutant::NoBarrier => g.map_exprs(&mut |e| match e {
                        Expr::Call(Builtin::Barrier, mut args) => args.remove(0),
                        other => other,
                    }),
                    Mutant::Fma => g.map_exprs(&mut fma),
                    Mutant::NanFirst => g.map_exprs(&mut |e| nan_kept(e, true)),
                    Mutant::NanSecond => g.map_exprs(&mut |e| nan_kept(e, false)),
                    Mutant::Reassociate => g.map_exprs(&mut |e| match e {
                        Expr::Bin(BinOp::Add, l, z) => match *l {
                            Expr::Bin(BinOp::Add, x, y) => Expr::Bin(BinOp::Add, x, Box::new(Expr::Bin(BinOp::Add, y, z))),
                            l => Expr::Bin(BinOp::Add, Box::new(l), z),
                        },
                        other => other,
                    }),
                    Mutant::Reciprocal => g.map_exprs(&mut |e| match e {
                        Expr::Bin(BinOp::Div, x, y) if *x != Expr::Lit(1.0) => {
                            Expr::Bin(BinOp::Mul, x, Box::new(Expr::Bin(BinOp::Div, Box::new(Expr::Lit(1.0)), y)))
                        }
                        other => other,
                    }),
                    Mutant::NegSwap => g.map_exprs(&mut |e| match e {
                        Expr::Bin(BinOp::Mul, x, m1) if *m1 == Expr::Lit(-1.0) => match *x {
                            Expr::Bin(BinOp::Sub, a, b) => Expr::Bin(BinOp::Sub, b, a),
                            x => Expr::Bin(BinOp::Mul, Box::new(x), m1),
                        },
                        other => other,
                    }),
                    // A factor of +-1 (the contract's neg) is exact in either order: left alone.
                    Mutant::ProductOrder => g.map_exprs(&mut |e| match e {
                        Expr::Bin(BinOp::Mul, l, z) => match *l {
                            Expr::Bin(BinOp::Mul, x, y) if ![&x, &y, &z].iter().any(|f| matches!(***f, Expr::Lit(v) if v.abs() == 1.0)) => {
                                Expr::Bin(BinOp::Mul, x, Box::new(Expr::Bin(BinOp::Mul, y, z)))
                            }
                            l => Expr::Bin(BinOp::Mul, Box::new(l), z),
                        },
                        other => other,
                    }),
                    Mutant::CoefficientBit => {
                        let narrow = m.spec.types.iter().any(|t| t.name == g.elem && t.bits == 32);
                        g.map_exprs(&mut |e| coefficients_replaced(e, &|v| Some(last_bit_flipped(v, narrow))))
                    }
                    Mutant::ReductionConstant => {
                        let narrow = m.spec.types.iter().any(|t| t.name == g.elem && t.bits == 32);
                        let rounded: Vec<bool> = g.temps.iter().map(|t| is_rounded_integer(&t.expr)).collect();
                        g.map_exprs(&mut |e| match e {
                            Expr::Bin(BinOp::Mul, k, c)
                                if matches!(*k, Expr::Temp(i) if rounded[i]) && matches!(*c, Expr::Lit(v) if !power_of_two(v)) =>
                            {
                                let Expr::Lit(v) = *c else { unreachable!() };
                                Expr::Bin(BinOp::Mul, k, Box::new(Expr::Lit(last_bit_flipped(v, narrow))))
                            }
                            other => other,
                        })
                    }
                    Mutant::NegSub => g.map_exprs(&mut |e| match e {
                        Expr::Bin(BinOp::Mul, x, m1) if *m1 == Expr::Lit(-1.0) => Expr::Bin(BinOp::Sub, Box::new(Expr::Lit(0.0)), x),
                        other => other,
                    }),
                    _ => {}
                }
                g
            })
            .collect();
        Ok((m, lowered))
    }
}

fn power_of_two(v: f64) -> bool {
    v == 0.0 || v.abs().log2().fract() == 0.0
}

/// The polynomial coefficients of the Horner step at `e`: the literal c of
/// `c + x * (...)`, and the literal d of the innermost step `c + x * d`, each
/// one that is not zero or a power of two (so not a scale such as `1 + x`).
pub fn horner_coefficients(e: &Expr) -> Vec<f64> {
    let Expr::Bin(BinOp::Add, c, p) = e else { return Vec::new() };
    let (Expr::Lit(v), Expr::Bin(BinOp::Mul, _, d)) = (&**c, &**p) else { return Vec::new() };
    if power_of_two(*v) {
        return Vec::new();
    }
    match **d {
        Expr::Lit(w) if !power_of_two(w) => vec![*v, w],
        _ => vec![*v],
    }
}

/// `e` with each coefficient v of its Horner step (`horner_coefficients`)
/// replaced by `with(v)` where that is `Some`.
pub fn coefficients_replaced(e: Expr, with: &dyn Fn(f64) -> Option<f64>) -> Expr {
    if horner_coefficients(&e).is_empty() {
        return e;
    }
    let Expr::Bin(BinOp::Add, c, p) = e else { unreachable!() };
    let Expr::Bin(BinOp::Mul, x, d) = *p else { unreachable!() };
    let swap = |y: Box<Expr>| match *y {
        Expr::Lit(v) if !power_of_two(v) => Box::new(Expr::Lit(with(v).unwrap_or(v))),
        other => Box::new(other),
    };
    Expr::Bin(BinOp::Add, swap(c), Box::new(Expr::Bin(BinOp::Mul, x, swap(d))))
}

/// `v` with the last bit of its element type's significand flipped.
pub fn last_bit_flipped(v: f64, narrow: bool) -> f64 {
    if narrow {
        f64::from(f32::from_bits((v as f32).to_bits() ^ 1))
    } else {
        f64::from_bits(v.to_bits() ^ 1)
    }
}

/// `(x + M) - M` with one literal M: the rounding of x to an integer.
fn is_rounded_integer(e: &Expr) -> bool {
    match e {
        Expr::Bin(BinOp::Sub, s, m2) => {
            matches!((&**s, &**m2), (Expr::Bin(BinOp::Add, _, m1), Expr::Lit(b)) if matches!(**m1, Expr::Lit(a) if a == *b))
        }
        _ => false,
    }
}

fn hypot(e: Expr) -> Expr {
    if let Expr::Call(Builtin::Sqrt, args) = &e {
        if let Expr::Fold { terms, identity, .. } = &args[0] {
            let xs: Option<Vec<Expr>> = terms
                .iter()
                .map(|t| match t {
                    Expr::Bin(BinOp::Mul, a, b) if a == b => Some((**a).clone()),
                    _ => None,
                })
                .collect();
            if let Some(xs) = xs {
                if xs.len() >= 2 {
                    return Expr::Fold {
                        combiner: "hypot".into(),
                        op: Box::new(Expr::Call(Builtin::Hypot, vec![Expr::Hole(0), Expr::Hole(1)])),
                        identity: *identity,
                        terms: xs,
                    };
                }
            }
        }
    }
    e
}

fn true_division(f: &mut Function) {
    let recips: Vec<Option<Expr>> = f
        .temps
        .iter()
        .map(|t| match &t.expr {
            Expr::Bin(BinOp::Div, one, s) if **one == Expr::Lit(1.0) => Some((**s).clone()),
            _ => None,
        })
        .collect();
    f.map_exprs(&mut |e| match e {
        Expr::Bin(BinOp::Mul, r, x) | Expr::Bin(BinOp::Mul, x, r) if matches!(*r, Expr::Temp(t) if recips[t].is_some()) => {
            let Expr::Temp(t) = *r else { unreachable!() };
            Expr::Bin(BinOp::Div, x, Box::new(recips[t].clone().unwrap()))
        }
        other => other,
    });
}

/// fmin/fmax of two inputs as the select a compiler that assumes no NaN
/// emits: with `first`, the first operand is kept when an operand is NaN,
/// else the second. Only where both operands are inputs (the fmin, fmax, min
/// and max families), so a witness can hand it a NaN: inside a computation
/// (two_sum_err's fmax of two errors, and the kernels built on it) a NaN
/// operand takes inputs that random search does not find.
fn nan_kept(e: Expr, first: bool) -> Expr {
    match e {
        Expr::Call(b @ (Builtin::Fmin | Builtin::Fmax), mut args)
            if args.len() == 2 && args.iter().all(|a| matches!(a, Expr::Input { .. })) =>
        {
            let y = args.pop().unwrap();
            let x = args.pop().unwrap();
            let op = if b == Builtin::Fmin { BinOp::Lt } else { BinOp::Gt };
            // first: y op x ? y : x (NaN in x gives x); second: x op y ? x : y (NaN in y gives y).
            let (p, q) = if first { (y, x) } else { (x, y) };
            Expr::Select(Box::new(Expr::Bin(op, Box::new(p.clone()), Box::new(q.clone()))), Box::new(p), Box::new(q))
        }
        other => other,
    }
}

fn neg(e: Expr) -> Expr {
    Expr::Bin(BinOp::Mul, Box::new(e), Box::new(Expr::Lit(-1.0)))
}

fn fma(e: Expr) -> Expr {
    match e {
        Expr::Bin(BinOp::Add, l, r) => match (*l, *r) {
            (Expr::Bin(BinOp::Mul, a, b), c) | (c, Expr::Bin(BinOp::Mul, a, b)) => Expr::Call(Builtin::Fma, vec![*a, *b, c]),
            (l, r) => Expr::Bin(BinOp::Add, Box::new(l), Box::new(r)),
        },
        Expr::Bin(BinOp::Sub, l, r) => match (*l, *r) {
            (Expr::Bin(BinOp::Mul, a, b), c) => Expr::Call(Builtin::Fma, vec![*a, *b, neg(c)]),
            (c, Expr::Bin(BinOp::Mul, a, b)) => Expr::Call(Builtin::Fma, vec![neg(*a), *b, c]),
            (l, r) => Expr::Bin(BinOp::Sub, Box::new(l), Box::new(r)),
        },
        other => other,
    }
}

/// A canonical text of a lowered function, blind to operand order where the
/// operation is commutative, so an order change that cannot change a bit
/// (`t1 + t0` against `t0 + t1`) is not counted as a change.
///
/// Temps are expanded in place, so naming and binding choices do not count.
/// Every subform longer than [`DIGEST_ABOVE`] characters is replaced by the
/// md5 digest of its text (`#` and 32 hex digits), wherever it stands, so a
/// value bound to a temp and the same value written inline still give the
/// same text, and a tree whose temps are each read several times (the
/// elementary functions' chains of exact steps) stays linear in size instead
/// of growing with every reuse.
pub fn canonical(f: &Function) -> String {
    fn short(s: String) -> String {
        if s.len() > DIGEST_ABOVE {
            format!("#{:x}", md5::compute(s.as_bytes()))
        } else {
            s
        }
    }
    fn canon(e: &Expr, temps: &[String]) -> String {
        short(match e {
            Expr::Lit(v) => format!("{:x}", v.to_bits()),
            Expr::Truth(b) => format!("{b}"),
            Expr::Input { param, comp } => format!("i{param}.{comp}"),
            Expr::Temp(t) => return temps[*t].clone(),
            Expr::Not(a) => format!("!{}", canon(a, temps)),
            Expr::Select(c, a, b) => format!("({}?{}:{})", canon(c, temps), canon(a, temps), canon(b, temps)),
            Expr::Bin(op, a, b) => {
                let (mut x, mut y) = (canon(a, temps), canon(b, temps));
                if matches!(op, BinOp::Add | BinOp::Mul | BinOp::Eq | BinOp::Ne | BinOp::And | BinOp::Or) && x > y {
                    std::mem::swap(&mut x, &mut y);
                }
                format!("({x}{}{y})", op.symbol())
            }
            Expr::Call(b, args) => {
                let mut xs: Vec<String> = args.iter().map(|a| canon(a, temps)).collect();
                if matches!(b, Builtin::Fmin | Builtin::Fmax | Builtin::Hypot | Builtin::Fma) {
                    let k = if *b == Builtin::Fma { 2 } else { xs.len() };
                    xs[..k].sort();
                }
                format!("{}({})", b.name(), xs.join(","))
            }
            Expr::Fold { .. } | Expr::Hole(_) => unreachable!("canonical forms are of lowered functions"),
        })
    }
    let mut temps: Vec<String> = Vec::new();
    for t in &f.temps {
        let c = canon(&t.expr, &temps);
        temps.push(c);
    }
    f.outputs.iter().map(|o| canon(o, &temps)).collect::<Vec<_>>().join(";")
}

/// The longest subform [`canonical`] writes out; a longer one is its digest.
pub const DIGEST_ABOVE: usize = 96;
