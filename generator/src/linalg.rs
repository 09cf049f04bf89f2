//! Per-lane linear algebra: LU with partial pivoting, triangular solves,
//! determinant and inverse through LU, Cholesky, and the cyclic Jacobi
//! eigen-decomposition, each with its fixed order of IEEE operations. The
//! orders are the spec's `[rules.linalg]` (and `[rules.fold]` for the
//! finished dot products); the Jacobi rotation is written out in the spec as
//! families, which this module evaluates through the model's interpreter.
//! The C target prints the same schedules as loops (`targets/c.rs`).
//!
//! Flat convention (words are IEEE bit patterns; `#` marks whole numbers):
//!
//! | routine          | input words                     | result words              |
//! |------------------|---------------------------------|---------------------------|
//! | lu               | A (n², row-major)               | LU (n²), #ipiv (n, 1-based), #info |
//! | lu_solve         | LU (n²), #ipiv (n), b (n)       | x (n)                     |
//! | solve_lower[_unit], solve_upper[_unit] | M (n²), b (n) | x (n)                |
//! | det_lu           | A (n²)                          | d                         |
//! | inverse          | A (n²)                          | X (n²), #info             |
//! | cholesky         | A (n²)                          | L (n²), #info             |
//! | cholesky_solve   | L (n²), b (n)                   | x (n)                     |
//! | eigh             | A (n²)                          | w (n), V (n²)             |
//!
//! A many-lane form takes `count` single inputs one after another and gives
//! the `count` results one after another.

// The schedules index rows and columns as the contract writes them.
#![allow(clippy::needless_range_loop)]

use crate::interp::{self, Ieee};
use crate::model::{Function, Model};
use crate::spec::{Linalg, Multipliers, Nesting, Pivot, Routine, Seed, Symmetrize, Update};

// The flat convention's sizes (`words`, `whole_words`, `pivot_words`) are the
// routine's own, stated beside it in `crate::spec`, where building the model
// (which evaluates nothing) reads them too.
pub use crate::spec::{pivot_words, whole_words, words};

/// The spec's rules in force, with the step families of the rotation.
#[derive(Debug)]
pub struct Rules<'a> {
    pub linalg: &'a Linalg,
    pub nesting: Nesting,
    pub seed: Seed,
    pub bits: u32,
    rotation: &'a Function,
    update: &'a Function,
    diag: &'a Function,
}

impl<'a> Rules<'a> {
    pub fn new(model: &'a Model, lowered: &'a [Function], elem: &str) -> Rules<'a> {
        let linalg = model.spec.linalg.as_ref().expect("linear algebra needs [rules.linalg]");
        let find = |family: &str| {
            lowered.iter().find(|f| f.family == family && f.elem == elem).unwrap_or_else(|| panic!("no `{family}` for {elem}"))
        };
        Rules {
            linalg,
            nesting: model.spec.fold.nesting,
            seed: model.spec.fold.seed,
            bits: model.spec.types.iter().find(|t| t.name == elem).unwrap().bits,
            rotation: find(&linalg.rotation),
            update: find(&linalg.update_pair),
            diag: find(&linalg.diag),
        }
    }
}

/// A working matrix: row-major, n×n.
#[derive(Clone)]
struct M<T> {
    n: usize,
    a: Vec<T>,
}

impl<T: Ieee> M<T> {
    fn get(&self, i: usize, j: usize) -> T {
        self.a[i * self.n + j]
    }
    fn set(&mut self, i: usize, j: usize, v: T) {
        self.a[i * self.n + j] = v;
    }
}

fn zero<T: Ieee>() -> T {
    T::lit(0.0)
}

/// `s - a*b`: one rounded product, one subtraction (or one fused
/// operation under the fma mutant).
fn sub_mul<T: Ieee>(r: &Rules, s: T, a: T, b: T) -> T {
    if r.linalg.fused {
        a.mul(T::lit(-1.0)).fma(b, s)
    } else {
        s.sub(a.mul(b))
    }
}

/// `a - acc`, acc the finished dot product of the products (x_k * y_k) by
/// the fold rule: unseeded, the new term on the left, ascending k for the
/// right nesting. Under the fma mutant each step after the first is fused.
fn reduce<T: Ieee>(r: &Rules, a: T, products: &[(T, T)]) -> T {
    if products.is_empty() {
        return a;
    }
    if r.linalg.fused && products.len() == 1 && r.seed == Seed::None {
        // a - x*y, one product: contraction fuses it whole.
        let (x, y) = products[0];
        return x.mul(T::lit(-1.0)).fma(y, a);
    }
    let mut order: Vec<(T, T)> = products.to_vec();
    if r.nesting == Nesting::Left {
        order.reverse();
    }
    let step = |(x, y): (T, T), acc: T| if r.linalg.fused { x.fma(y, acc) } else { x.mul(y).add(acc) };
    let mut acc = match r.seed {
        Seed::None => order[0].0.mul(order[0].1),
        Seed::Identity => step(order[0], zero()),
    };
    for &p in &order[1..] {
        acc = step(p, acc);
    }
    a.sub(acc)
}

struct LuOut<T> {
    w: M<T>,
    ipiv: Vec<usize>,
    info: usize,
}

fn lu<T: Ieee>(r: &Rules, a: M<T>) -> LuOut<T> {
    let n = a.n;
    let mut w = a;
    let mut ipiv = vec![0; n];
    let mut info = 0;
    for j in 0..n {
        if r.linalg.update == Update::Dot {
            for i in 1..j {
                let p: Vec<(T, T)> = (0..i).map(|k| (w.get(i, k), w.get(k, j))).collect();
                let v = reduce(r, w.get(i, j), &p);
                w.set(i, j, v);
            }
            if j > 0 {
                for i in j..n {
                    let p: Vec<(T, T)> = (0..j).map(|k| (w.get(i, k), w.get(k, j))).collect();
                    let v = reduce(r, w.get(i, j), &p);
                    w.set(i, j, v);
                }
            }
        }
        let mut p = j;
        let mut best = w.get(j, j).fabs();
        for i in j + 1..n {
            let m = w.get(i, j).fabs();
            let wins = match r.linalg.pivot {
                Pivot::FirstLargest => m > best,
                Pivot::LastLargest => m >= best,
            };
            if wins {
                p = i;
                best = m;
            }
        }
        ipiv[j] = p + 1;
        if p != j {
            for k in 0..n {
                let t = w.get(j, k);
                w.set(j, k, w.get(p, k));
                w.set(p, k, t);
            }
        }
        let d = w.get(j, j);
        if d == zero() {
            if info == 0 {
                info = j + 1;
            }
        } else {
            let recip = T::lit(1.0).div(d);
            for i in j + 1..n {
                let v = match r.linalg.multipliers {
                    Multipliers::Reciprocal => w.get(i, j).mul(recip),
                    Multipliers::Division => w.get(i, j).div(d),
                };
                w.set(i, j, v);
            }
        }
        if r.linalg.update == Update::RightLooking {
            for i in j + 1..n {
                for k in j + 1..n {
                    let v = sub_mul(r, w.get(i, k), w.get(i, j), w.get(j, k));
                    w.set(i, k, v);
                }
            }
        }
    }
    LuOut { w, ipiv, info }
}

/// A triangular solve: lower (forward) or upper (backward), unit or not.
fn solve<T: Ieee>(r: &Rules, m: &M<T>, b: &[T], lower: bool, unit: bool) -> Vec<T> {
    let n = m.n;
    let mut x = vec![zero(); n];
    let rows: Vec<usize> = if lower { (0..n).collect() } else { (0..n).rev().collect() };
    for i in rows {
        let mut s = b[i];
        let ks: Vec<usize> = if lower { (0..i).collect() } else { (i + 1..n).collect() };
        for k in ks {
            s = sub_mul(r, s, m.get(i, k), x[k]);
        }
        x[i] = if unit { s } else { s.div(m.get(i, i)) };
    }
    x
}

fn lu_solve<T: Ieee>(r: &Rules, lu: &M<T>, ipiv: &[usize], b: &[T]) -> Vec<T> {
    let mut y = b.to_vec();
    for (k, &p) in ipiv.iter().enumerate() {
        if p - 1 != k {
            y.swap(k, p - 1);
        }
    }
    let y = solve(r, lu, &y, true, true);
    solve(r, lu, &y, false, false)
}

/// The symmetrised read of element (i, j).
fn sym<T: Ieee>(r: &Rules, a: &M<T>, i: usize, j: usize) -> T {
    let (hi, lo) = if i >= j { (i, j) } else { (j, i) };
    match r.linalg.symmetrize {
        Symmetrize::HalfSum => T::lit(0.5).mul(a.get(hi, lo)).add(T::lit(0.5).mul(a.get(lo, hi))),
        Symmetrize::Lower => a.get(hi, lo),
    }
}

fn cholesky<T: Ieee>(r: &Rules, a: &M<T>) -> (M<T>, usize) {
    let n = a.n;
    let mut w = M { n, a: vec![zero(); n * n] };
    for i in 0..n {
        for j in 0..=i {
            w.set(i, j, sym(r, a, i, j));
        }
    }
    for j in 0..n {
        let mut d = w.get(j, j);
        for k in 0..j {
            d = sub_mul(r, d, w.get(j, k), w.get(j, k));
        }
        // The contract's test, `!(d > 0)`: a NaN d fails it too.
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        if !(d > zero()) {
            return (w, j + 1);
        }
        let l = d.sqrt();
        w.set(j, j, l);
        for i in j + 1..n {
            let mut s = w.get(i, j);
            for k in 0..j {
                s = sub_mul(r, s, w.get(i, k), w.get(j, k));
            }
            w.set(i, j, s.div(l));
        }
    }
    (w, 0)
}

fn cholesky_solve<T: Ieee>(r: &Rules, l: &M<T>, b: &[T]) -> Vec<T> {
    let n = l.n;
    let y = solve(r, l, b, true, false);
    let mut x = vec![zero(); n];
    for i in (0..n).rev() {
        let mut s = y[i];
        for k in i + 1..n {
            s = sub_mul(r, s, l.get(k, i), x[k]);
        }
        x[i] = s.div(l.get(i, i));
    }
    x
}

fn call<T: Ieee>(r: &Rules, f: &Function, args: &[T]) -> Vec<T> {
    let words: Vec<u64> = args.iter().map(|x| x.to_word()).collect();
    interp::evaluate(f, r.bits, &words).into_iter().map(T::from_word).collect()
}

fn eigh<T: Ieee>(r: &Rules, a: &M<T>) -> (Vec<T>, M<T>) {
    let n = a.n;
    let mut w = M { n, a: vec![zero(); n * n] };
    let mut v = M { n, a: vec![zero(); n * n] };
    for i in 0..n {
        for j in 0..n {
            w.set(i, j, sym(r, a, i, j));
        }
        v.set(i, i, T::lit(1.0));
    }
    for _ in 0..r.linalg.eigh_sweeps {
        for p in 0..n.saturating_sub(1) {
            for q in p + 1..n {
                let (app, aqq, apq) = (w.get(p, p), w.get(q, q), w.get(p, q));
                if apq == zero() {
                    continue;
                }
                // rotation = (c, s, t, tau)
                let rot = call(r, r.rotation, &[app, aqq, apq]);
                for k in 0..n {
                    if k == p || k == q {
                        continue;
                    }
                    let gh = call(r, r.update, &[w.get(k, p), w.get(k, q), rot[0], rot[1], rot[2], rot[3]]);
                    w.set(k, p, gh[0]);
                    w.set(p, k, gh[0]);
                    w.set(k, q, gh[1]);
                    w.set(q, k, gh[1]);
                }
                let d = call(r, r.diag, &[app, aqq, apq, rot[0], rot[1], rot[2], rot[3]]);
                w.set(p, p, d[0]);
                w.set(q, q, d[1]);
                w.set(p, q, zero());
                w.set(q, p, zero());
                for k in 0..n {
                    let gh = call(r, r.update, &[v.get(k, p), v.get(k, q), rot[0], rot[1], rot[2], rot[3]]);
                    v.set(k, p, gh[0]);
                    v.set(k, q, gh[1]);
                }
            }
        }
    }
    let mut e: Vec<T> = (0..n).map(|i| w.get(i, i)).collect();
    for i in 0..n.saturating_sub(1) {
        let mut m = i;
        for j in i + 1..n {
            if e[j] < e[m] {
                m = j;
            }
        }
        if m != i {
            e.swap(i, m);
            for k in 0..n {
                let t = v.get(k, i);
                v.set(k, i, v.get(k, m));
                v.set(k, m, t);
            }
        }
    }
    (e, v)
}

/// Evaluates one single-form routine of size n on its flat words.
fn single<T: Ieee>(r: &Rules, routine: Routine, n: usize, words: &[u64]) -> Result<Vec<u64>, String> {
    let nn = n * n;
    let f = |ws: &[u64]| ws.iter().map(|w| T::from_word(*w)).collect::<Vec<T>>();
    let out = |xs: &[T]| xs.iter().map(|x| x.to_word()).collect::<Vec<u64>>();
    let mat = M { n, a: f(&words[..nn]) };
    Ok(match routine {
        Routine::Lu => {
            let o = lu(r, mat);
            let mut v = out(&o.w.a);
            v.extend(o.ipiv.iter().map(|&p| p as u64));
            v.push(o.info as u64);
            v
        }
        Routine::LuSolve => {
            let (at, count) = pivot_words(routine, n).expect("lu_solve takes pivots");
            let ipiv: Vec<usize> = words[at..at + count].iter().map(|&p| p as usize).collect();
            if let Some((k, p)) = ipiv.iter().enumerate().find(|(k, p)| **p < k + 1 || **p > n) {
                return Err(format!("lu_solve: ipiv[{k}] = {p} is outside {}..={n}", k + 1));
            }
            out(&lu_solve(r, &mat, &ipiv, &f(&words[at + count..])))
        }
        Routine::SolveLower => out(&solve(r, &mat, &f(&words[nn..]), true, false)),
        Routine::SolveLowerUnit => out(&solve(r, &mat, &f(&words[nn..]), true, true)),
        Routine::SolveUpper => out(&solve(r, &mat, &f(&words[nn..]), false, false)),
        Routine::SolveUpperUnit => out(&solve(r, &mat, &f(&words[nn..]), false, true)),
        Routine::DetLu => {
            let o = lu(r, mat);
            let mut d = o.w.get(0, 0);
            for k in 1..n {
                d = d.mul(o.w.get(k, k));
            }
            let swaps = o.ipiv.iter().enumerate().filter(|(k, p)| **p != k + 1).count();
            if swaps % 2 == 1 {
                d = d.mul(T::lit(-1.0));
            }
            out(&[d])
        }
        Routine::Inverse => {
            let o = lu(r, mat);
            let mut x = M { n, a: vec![zero(); nn] };
            for j in 0..n {
                let e: Vec<T> = (0..n).map(|i| if i == j { T::lit(1.0) } else { zero() }).collect();
                let col = lu_solve(r, &o.w, &o.ipiv, &e);
                for (i, c) in col.into_iter().enumerate() {
                    x.set(i, j, c);
                }
            }
            let mut v = out(&x.a);
            v.push(o.info as u64);
            v
        }
        Routine::Cholesky => {
            let (l, info) = cholesky(r, &mat);
            let mut v = out(&l.a);
            v.push(info as u64);
            v
        }
        Routine::CholeskySolve => out(&cholesky_solve(r, &mat, &f(&words[nn..]))),
        Routine::Eigh => {
            let (e, v) = eigh(r, &mat);
            let mut o = out(&e);
            o.extend(out(&v.a));
            o
        }
    })
}

/// Evaluates a routine of size n, single (`many` false) or over lanes, on
/// flat words.
pub fn evaluate(r: &Rules, routine: Routine, n: usize, many: bool, words: &[u64]) -> Result<Vec<u64>, String> {
    let (w_in, _) = self::words(routine, n);
    let run = |ws: &[u64]| if r.bits == 32 { single::<f32>(r, routine, n, ws) } else { single::<f64>(r, routine, n, ws) };
    if !many {
        if words.len() != w_in {
            return Err(format!("{routine:?} of size {n} takes {w_in} words, got {}", words.len()));
        }
        return run(words);
    }
    if !words.len().is_multiple_of(w_in) {
        return Err(format!("{routine:?} lanes of size {n}: {} words are not lanes of {w_in}", words.len()));
    }
    let mut out = Vec::new();
    for lane in words.chunks(w_in) {
        out.extend(run(lane)?);
    }
    Ok(out)
}

// ------------------------------------------------------------------ inputs

use crate::rng::{self, SplitMix64};

fn to_word(x: f64, bits: u32) -> u64 {
    if bits == 32 {
        u64::from((x as f32).to_bits())
    } else {
        x.to_bits()
    }
}

fn uniform(r: &mut SplitMix64) -> f64 {
    (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
}

/// A random n×n matrix (as f64 values, rounded to the element type later)
/// of one of the classes the contract must handle.
fn matrix(r: &mut SplitMix64, n: usize, class: u64) -> Vec<f64> {
    let mut a: Vec<f64> = (0..n * n).map(|_| uniform(r)).collect();
    match class {
        // Well conditioned: diagonally dominant.
        0 => {
            for i in 0..n {
                a[i * n + i] += if r.below(2) == 0 { 2.0 } else { -2.0 } * n as f64;
            }
        }
        // Singular: a repeated row, or a zero column.
        1 => {
            let (i, k) = (r.below(n as u64) as usize, r.below(n as u64) as usize);
            if i != k && r.below(2) == 0 {
                for j in 0..n {
                    a[i * n + j] = a[k * n + j];
                }
            } else {
                for row in 0..n {
                    a[row * n + k] = 0.0;
                }
            }
        }
        // Nearly singular: a row equal to another up to a few ulps.
        2 => {
            let i = r.below(n as u64) as usize;
            let k = (i + 1) % n;
            for j in 0..n {
                a[i * n + j] = a[k * n + j] * (1.0 + 1e-7 * uniform(r));
            }
        }
        // Symmetric positive definite: B B^T + n I.
        3 => {
            let b = a.clone();
            for i in 0..n {
                for j in 0..n {
                    a[i * n + j] = (0..n).map(|k| b[i * n + k] * b[j * n + k]).sum::<f64>() + if i == j { 0.5 } else { 0.0 };
                }
            }
        }
        // Symmetric indefinite (not SPD).
        4 => {
            for i in 0..n {
                for j in 0..i {
                    a[j * n + i] = a[i * n + j];
                }
            }
        }
        // Badly scaled: rows and columns scaled by 10^k, k in -30..30.
        5 => {
            let s: Vec<f64> = (0..n).map(|_| 10f64.powi(r.below(61) as i32 - 30)).collect();
            let t: Vec<f64> = (0..n).map(|_| 10f64.powi(r.below(61) as i32 - 30)).collect();
            for i in 0..n {
                for j in 0..n {
                    a[i * n + j] *= s[i] * t[j];
                }
            }
        }
        // Small integers: ties in pivot magnitude, exact arithmetic, zeros.
        6 => {
            for x in &mut a {
                *x = (r.below(7) as f64) - 3.0;
            }
        }
        // Symmetric with a huge dynamic range.
        7 => {
            for i in 0..n {
                for j in 0..=i {
                    let v = uniform(r) * 10f64.powi(r.below(41) as i32 - 20);
                    a[i * n + j] = v;
                    a[j * n + i] = v;
                }
            }
        }
        _ => {}
    }
    a
}

/// A matrix's words: a class above, with NaN/inf/specials mixed in now and
/// then, or raw words of the project's general modes.
fn matrix_words(r: &mut SplitMix64, n: usize, bits: u32) -> Vec<u64> {
    let class = r.below(10);
    if class >= 8 {
        return rng::input(r, bits, n * n);
    }
    let mut w: Vec<u64> = matrix(r, n, class).into_iter().map(|x| to_word(x, bits)).collect();
    if r.below(8) == 0 {
        let k = r.below((n * n) as u64) as usize;
        w[k] = rng::word(r, bits, rng::Mode::Specials);
    }
    w
}

fn vector_words(r: &mut SplitMix64, n: usize, bits: u32) -> Vec<u64> {
    if r.below(6) == 0 {
        rng::input(r, bits, n)
    } else {
        (0..n).map(|_| to_word(uniform(r) * 4.0, bits)).collect()
    }
}

/// A valid pivot vector: ipiv[k] in k+1..=n.
fn pivots(r: &mut SplitMix64, n: usize) -> Vec<u64> {
    (0..n).map(|k| (k + 1 + r.below((n - k) as u64) as usize) as u64).collect()
}

/// One random flat input of a single-form routine.
pub fn random_single(rules: &Rules, routine: Routine, n: usize, r: &mut SplitMix64) -> Vec<u64> {
    let bits = rules.bits;
    let nn = n * n;
    match routine {
        Routine::Lu | Routine::DetLu | Routine::Inverse | Routine::Cholesky | Routine::Eigh => matrix_words(r, n, bits),
        Routine::LuSolve => {
            // A real factorisation most of the time.
            let a = matrix_words(r, n, bits);
            let (mut w, ipiv) = if r.below(4) != 0 {
                let o = evaluate(rules, Routine::Lu, n, false, &a).expect("a well-formed input");
                (o[..nn].to_vec(), o[nn..nn + n].to_vec())
            } else {
                (a, pivots(r, n))
            };
            w.extend(ipiv);
            w.extend(vector_words(r, n, bits));
            w
        }
        Routine::CholeskySolve => {
            let a = matrix_words(r, n, bits);
            let mut w = if r.below(4) != 0 {
                evaluate(rules, Routine::Cholesky, n, false, &a).expect("a well-formed input")[..nn].to_vec()
            } else {
                a
            };
            w.extend(vector_words(r, n, bits));
            w
        }
        Routine::SolveLower | Routine::SolveLowerUnit | Routine::SolveUpper | Routine::SolveUpperUnit => {
            let mut w = matrix_words(r, n, bits);
            w.extend(vector_words(r, n, bits));
            w
        }
    }
}

/// One random flat input of a routine, single or over 0..6 lanes.
pub fn random_input(rules: &Rules, routine: Routine, n: usize, many: bool, r: &mut SplitMix64) -> Vec<u64> {
    if !many {
        return random_single(rules, routine, n, r);
    }
    let count = r.below(7) as usize;
    (0..count).flat_map(|_| random_single(rules, routine, n, r)).collect()
}
