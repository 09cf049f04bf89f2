//! Evaluates a lowered function exactly as the generated C evaluates it: one
//! IEEE operation per tree node, in the element type. The generator uses it to
//! check the spec's model against the hand-written reference and to find the
//! inputs that tell a rule from its mutants.

use std::cell::Cell;

use crate::dsl::BinOp;
use crate::model::{Builtin, Expr, Function};

/// The IEEE operations a tree node can perform, for f32 and f64.
pub trait Ieee: Copy + PartialOrd {
    fn from_word(w: u64) -> Self;
    fn to_word(self) -> u64;
    fn lit(v: f64) -> Self;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    fn sqrt(self) -> Self;
    fn fabs(self) -> Self;
    fn fmin(self, o: Self) -> Self;
    fn fmax(self, o: Self) -> Self;
    fn hypot(self, o: Self) -> Self;
    fn fma(self, b: Self, c: Self) -> Self;
    fn finite(self) -> bool;
}

macro_rules! ieee {
    ($t:ty, $bits:ty) => {
        impl Ieee for $t {
            fn from_word(w: u64) -> Self {
                <$t>::from_bits(w as $bits)
            }
            fn to_word(self) -> u64 {
                self.to_bits() as u64
            }
            fn lit(v: f64) -> Self {
                v as $t
            }
            fn add(self, o: Self) -> Self {
                self + o
            }
            fn sub(self, o: Self) -> Self {
                self - o
            }
            fn mul(self, o: Self) -> Self {
                self * o
            }
            fn div(self, o: Self) -> Self {
                self / o
            }
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn fabs(self) -> Self {
                <$t>::abs(self)
            }
            fn fmin(self, o: Self) -> Self {
                <$t>::min(self, o)
            }
            fn fmax(self, o: Self) -> Self {
                <$t>::max(self, o)
            }
            fn hypot(self, o: Self) -> Self {
                <$t>::hypot(self, o)
            }
            fn fma(self, b: Self, c: Self) -> Self {
                <$t>::mul_add(self, b, c)
            }
            fn finite(self) -> bool {
                <$t>::is_finite(self)
            }
        }
    };
}
ieee!(f32, u32);
ieee!(f64, u64);

#[derive(Clone, Copy)]
enum V<T> {
    F(T),
    B(bool),
}

impl<T: Ieee> V<T> {
    fn f(self) -> T {
        match self {
            V::F(x) => x,
            V::B(_) => unreachable!("the model is type-checked"),
        }
    }
    fn b(self) -> bool {
        match self {
            V::B(x) => x,
            V::F(_) => unreachable!("the model is type-checked"),
        }
    }
}

/// The input words of one evaluation: parameter `p`'s component `c` is
/// `values[at[p] + c]`.
#[derive(Clone, Copy)]
struct Inputs<'a, T> {
    at: &'a [usize],
    values: &'a [T],
}

fn eval<T: Ieee>(e: &Expr, inputs: Inputs<T>, temps: &[V<T>]) -> V<T> {
    match e {
        Expr::Lit(v) => V::F(T::lit(*v)),
        Expr::Truth(b) => V::B(*b),
        Expr::Input { param, comp } => V::F(inputs.values[inputs.at[*param] + *comp]),
        Expr::Temp(t) => temps[*t],
        Expr::Not(a) => V::B(!eval(a, inputs, temps).b()),
        Expr::Select(c, a, b) => {
            if eval(c, inputs, temps).b() {
                eval(a, inputs, temps)
            } else {
                eval(b, inputs, temps)
            }
        }
        Expr::Bin(op, a, b) => {
            let x = eval(a, inputs, temps);
            if *op == BinOp::And {
                return V::B(x.b() && eval(b, inputs, temps).b());
            }
            if *op == BinOp::Or {
                return V::B(x.b() || eval(b, inputs, temps).b());
            }
            let (x, y) = (x.f(), eval(b, inputs, temps).f());
            match op {
                BinOp::Add => V::F(x.add(y)),
                BinOp::Sub => V::F(x.sub(y)),
                BinOp::Mul => V::F(x.mul(y)),
                BinOp::Div => V::F(x.div(y)),
                BinOp::Lt => V::B(x < y),
                BinOp::Gt => V::B(x > y),
                BinOp::Le => V::B(x <= y),
                BinOp::Ge => V::B(x >= y),
                BinOp::Eq => V::B(x == y),
                BinOp::Ne => V::B(x != y),
                BinOp::And | BinOp::Or => unreachable!(),
            }
        }
        Expr::Call(b, args) => {
            // At most three arguments (fma): on the stack, not a Vec per node (the
            // generator evaluates every function thousands of times).
            debug_assert!(args.len() <= 3, "a builtin takes at most three arguments");
            let mut a = [V::B(false); 3];
            for (slot, x) in a.iter_mut().zip(args) {
                *slot = eval(x, inputs, temps);
            }
            match b {
                Builtin::Sqrt => V::F(a[0].f().sqrt()),
                Builtin::Fabs => V::F(a[0].f().fabs()),
                Builtin::Fmin => V::F(a[0].f().fmin(a[1].f())),
                Builtin::Fmax => V::F(a[0].f().fmax(a[1].f())),
                Builtin::Hypot => V::F(a[0].f().hypot(a[1].f())),
                Builtin::Fma => V::F(a[0].f().fma(a[1].f(), a[2].f())),
                Builtin::Barrier => V::F(a[0].f()),
                Builtin::IsFinite => V::B(a[0].f().finite()),
            }
        }
        Expr::Fold { .. } | Expr::Hole(_) => panic!("evaluate a lowered function"),
    }
}

/// Evaluates a lowered function with the operations of any `Ieee` type
/// (`df64::Host`: the host df64), on words of that type.
pub fn run_with<T: Ieee>(f: &Function, words: &[u64]) -> Vec<u64> {
    // The words in parameter order, each parameter's components in order (`input_slots`).
    // One vector of every input word, and where each parameter's start (a
    // vector per parameter cost an allocation each: the generator evaluates
    // functions millions of times).
    let mut at = Vec::with_capacity(f.params.len());
    let mut n = 0;
    for p in &f.params {
        at.push(n);
        n += p.kind.words();
    }
    let values: Vec<T> = words.iter().take(n).map(|w| T::from_word(*w)).collect();
    let inputs = Inputs { at: &at, values: &values };
    let mut temps: Vec<V<T>> = Vec::with_capacity(f.temps.len());
    for t in &f.temps {
        let v = eval(&t.expr, inputs, &temps);
        temps.push(v);
    }
    f.outputs
        .iter()
        .map(|o| match eval(o, inputs, &temps) {
            V::F(x) => x.to_word(),
            V::B(b) => u64::from(b),
        })
        .collect()
}

/// Evaluates a lowered function on input words (bit patterns in the function's
/// element type), returning its result words, in the arithmetic of the
/// current [`Flavour`] (IEEE unless [`with_flavour`] says otherwise).
pub fn evaluate(f: &Function, bits: u32, words: &[u64]) -> Vec<u64> {
    assert_eq!(words.len(), f.input_words(), "{}: wrong number of input words", f.family);
    match (FLAVOUR.with(Cell::get), bits == 32) {
        (Flavour::Ieee, true) => run_with::<f32>(f, words),
        (Flavour::Ieee, false) => run_with::<f64>(f, words),
        (Flavour::Flush, true) => run_with::<Flushed<f32>>(f, words),
        (Flavour::Flush, false) => run_with::<Flushed<f64>>(f, words),
        (Flavour::ZeroPlus, true) => run_with::<Flavoured<f32, ZERO_PLUS>>(f, words),
        (Flavour::ZeroPlus, false) => run_with::<Flavoured<f64, ZERO_PLUS>>(f, words),
        (Flavour::ZeroMinus, true) => run_with::<Flavoured<f32, ZERO_MINUS>>(f, words),
        (Flavour::ZeroMinus, false) => run_with::<Flavoured<f64, ZERO_MINUS>>(f, words),
    }
}

/// The arithmetic [`evaluate`] performs: IEEE, or that of a stack that breaks
/// it in one way the self-test names as a cause (`selftest::Cause`): every
/// subnormal operand and result flushed to a zero of its sign (FTZ and DAZ),
/// or every zero result given the sign + (`ZeroPlus`) or - (`ZeroMinus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavour {
    Ieee,
    Flush,
    ZeroPlus,
    ZeroMinus,
}

thread_local! {
    static FLAVOUR: Cell<Flavour> = const { Cell::new(Flavour::Ieee) };
}

/// Runs `body` with [`evaluate`] (and so the kernels' evaluation, which goes
/// through it) in the arithmetic of `flavour`, on this thread.
pub fn with_flavour<R>(flavour: Flavour, body: impl FnOnce() -> R) -> R {
    struct Restore(Flavour);
    impl Drop for Restore {
        fn drop(&mut self) {
            FLAVOUR.with(|f| f.set(self.0));
        }
    }
    let _restore = Restore(FLAVOUR.with(|f| f.replace(flavour)));
    body()
}

/// The arithmetics of [`Flavoured`]: a stack that flushes every subnormal,
/// read or computed, to a zero of its sign; or one that gives every zero
/// result the sign + or - (inputs and literals keep theirs).
const FLUSH: u8 = 0;
const ZERO_PLUS: u8 = 1;
const ZERO_MINUS: u8 = 2;

/// A value of `T` in the arithmetic `K` (`FLUSH`, `ZERO_PLUS`, `ZERO_MINUS`):
/// every value read (an input word, a literal) passes `read`, every rounded
/// result `result`.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Flavoured<T, const K: u8>(T);

/// `Flavour::Flush`'s arithmetic.
pub type Flushed<T> = Flavoured<T, FLUSH>;

macro_rules! flavoured {
    ($t:ty) => {
        impl<const K: u8> Flavoured<$t, K> {
            fn read(x: $t) -> Self {
                Flavoured(if K == FLUSH && x.is_subnormal() { (0.0 as $t).copysign(x) } else { x })
            }
            fn result(x: $t) -> Self {
                match K {
                    ZERO_PLUS if x == 0.0 => Flavoured(0.0),
                    ZERO_MINUS if x == 0.0 => Flavoured(-0.0),
                    _ => Self::read(x),
                }
            }
        }
        impl<const K: u8> Ieee for Flavoured<$t, K> {
            fn from_word(w: u64) -> Self {
                Self::read(<$t as Ieee>::from_word(w))
            }
            fn to_word(self) -> u64 {
                self.0.to_word()
            }
            fn lit(v: f64) -> Self {
                Self::read(<$t as Ieee>::lit(v))
            }
            fn add(self, o: Self) -> Self {
                Self::result(self.0 + o.0)
            }
            fn sub(self, o: Self) -> Self {
                Self::result(self.0 - o.0)
            }
            fn mul(self, o: Self) -> Self {
                Self::result(self.0 * o.0)
            }
            fn div(self, o: Self) -> Self {
                Self::result(self.0 / o.0)
            }
            fn sqrt(self) -> Self {
                Self::result(Ieee::sqrt(self.0))
            }
            fn fabs(self) -> Self {
                Self::result(Ieee::fabs(self.0))
            }
            fn fmin(self, o: Self) -> Self {
                Self::result(Ieee::fmin(self.0, o.0))
            }
            fn fmax(self, o: Self) -> Self {
                Self::result(Ieee::fmax(self.0, o.0))
            }
            fn hypot(self, o: Self) -> Self {
                Self::result(Ieee::hypot(self.0, o.0))
            }
            fn fma(self, b: Self, c: Self) -> Self {
                Self::result(Ieee::fma(self.0, b.0, c.0))
            }
            fn finite(self) -> bool {
                self.0.is_finite()
            }
        }
    };
}
flavoured!(f32);
flavoured!(f64);

/// Replaces the words of `f`'s derived parameters (`s = a + b`) by their
/// values computed from the other words.
pub fn fill_derived(f: &Function, bits: u32, words: &mut [u64]) {
    for (p, g) in &f.derived {
        let at: usize = f.params[..*p].iter().map(|q| q.kind.words()).sum();
        words[at] = evaluate(g, bits, words)[0];
    }
}
