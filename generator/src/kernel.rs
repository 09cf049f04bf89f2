//! Kernels: functions over caller-owned arrays (the compensated reductions and
//! the accumulation plane). Every floating-point operation of a kernel is a
//! step family of the model (`[rules.reduction]`: step, combine, value) or a
//! kernel's term; the kernel itself only fixes which step runs on which data,
//! in which order. This module evaluates kernels through the model's
//! interpreter, on the flat calling convention the reference and the tests
//! share, and draws their test inputs.
//!
//! Flat convention (every word an IEEE bit pattern of the element type, or a
//! whole number where marked `#`):
//!
//! | schedule    | input words                                         | result words          |
//! |-------------|-----------------------------------------------------|-----------------------|
//! | `butterfly` | `lanes` pairs (hi, comp)                            | the pair of lane 0    |
//! | `lanes`     | `lanes` pairs, `#first`, each array's n words       | the `lanes` pairs     |
//! | `array`     | each array's n words                                | the value             |
//! | `plane`     | `#S`, then records `#element, K term words`         | S·K values, S·K comps |
//! | `resolve`   | n value words, then n companion words               | n values              |

use crate::error::SpecError;
use crate::interp;
use crate::linalg;
use crate::model::{Callable, Function, Kernel, KernelKind, Model};
use crate::rng::{self, SplitMix64};
use crate::spec::{Assignment, Reduction};

/// The step functions of one element type, with the reduction's constants.
#[derive(Debug)]
pub struct Steps<'a> {
    pub bits: u32,
    pub reduction: &'a Reduction,
    step: &'a Function,
    combine: &'a Function,
    value: &'a Function,
}

type Pair = [u64; 2];

impl<'a> Steps<'a> {
    /// The steps of `elem` among `lowered` (the model's functions, or a
    /// mutant's), under the reduction rule of `model`'s spec.
    pub fn new(model: &'a Model, lowered: &'a [Function], elem: &str) -> Steps<'a> {
        let reduction = model.spec.reduction.as_ref().expect("kernels need [rules.reduction]");
        let find = |family: &str| {
            lowered.iter().find(|f| f.family == family && f.elem == elem).unwrap_or_else(|| panic!("no `{family}` for {elem}"))
        };
        let bits = model.spec.types.iter().find(|t| t.name == elem).unwrap().bits;
        Steps { bits, reduction, step: find(&reduction.step), combine: find(&reduction.combine), value: find(&reduction.value) }
    }

    pub fn step(&self, p: Pair, x: u64) -> Pair {
        let r = interp::evaluate(self.step, self.bits, &[p[0], p[1], x]);
        [r[0], r[1]]
    }

    pub fn combine(&self, a: Pair, b: Pair) -> Pair {
        let r = interp::evaluate(self.combine, self.bits, &[a[0], a[1], b[0], b[1]]);
        [r[0], r[1]]
    }

    pub fn value(&self, p: Pair) -> u64 {
        interp::evaluate(self.value, self.bits, &p)[0]
    }

    /// The butterfly: in each round with offset k, every lane i takes
    /// `combine(v[i], v[i ^ k])` of the previous round's values; lane 0 is
    /// the result.
    pub fn butterfly(&self, lanes: &[Pair]) -> Pair {
        let mut v = lanes.to_vec();
        for &k in &self.reduction.rounds {
            v = (0..v.len()).map(|i| self.combine(v[i], v[i ^ k])).collect();
        }
        v[0]
    }

    /// The lane that element `index` (global, from the array's start) goes to.
    pub fn lane_of(&self, index: usize) -> usize {
        match self.reduction.assignment {
            Assignment::Strided => index % self.reduction.lanes,
            Assignment::Single => 0,
        }
    }

    /// Adds the terms to the lanes in ascending element order.
    pub fn accumulate(&self, lanes: &mut [Pair], first: usize, term: &Function, arrays: &[&[u64]]) {
        let n = arrays.first().map_or(0, |a| a.len());
        for j in 0..n {
            let args: Vec<u64> = arrays.iter().map(|a| a[j]).collect();
            let t = interp::evaluate(term, self.bits, &args)[0];
            let l = self.lane_of(first + j);
            lanes[l] = self.step(lanes[l], t);
        }
    }
}

fn pairs(words: &[u64]) -> Vec<Pair> {
    words.chunks(2).map(|c| [c[0], c[1]]).collect()
}

/// Splits `words` into `count` arrays of equal length.
fn split(words: &[u64], count: usize, what: &str) -> Result<Vec<Vec<u64>>, String> {
    if !words.len().is_multiple_of(count) {
        return Err(format!("{what}: {} words do not split into {count} arrays of one length", words.len()));
    }
    let n = words.len() / count;
    Ok(words.chunks(n.max(1)).take(count).map(<[u64]>::to_vec).chain(std::iter::repeat(Vec::new())).take(count).collect())
}

/// Evaluates kernel `k` on flat input words with the given lowered functions
/// (the model's, or a mutant's). An input that breaks the flat convention is
/// an error naming the kernel.
pub fn evaluate(model: &Model, lowered: &[Function], k: &Kernel, words: &[u64]) -> Result<Vec<u64>, String> {
    let s = Steps::new(model, lowered, &k.elem);
    let lanes = s.reduction.lanes;
    let name = model.kernel_c_name(k);
    let out = |ps: &[Pair]| ps.iter().flat_map(|p| p.iter().copied()).collect::<Vec<u64>>();
    match &k.kind {
        KernelKind::Butterfly => {
            if words.len() != 2 * lanes {
                return Err(format!("{name}: takes {} words, got {}", 2 * lanes, words.len()));
            }
            Ok(s.butterfly(&pairs(words)).to_vec())
        }
        KernelKind::Lanes { arrays, term } => {
            if words.len() < 2 * lanes + 1 {
                return Err(format!("{name}: takes at least {} words, got {}", 2 * lanes + 1, words.len()));
            }
            let mut ls = pairs(&words[..2 * lanes]);
            let first = usize::try_from(words[2 * lanes]).map_err(|_| format!("{name}: first index too large"))?;
            let data = split(&words[2 * lanes + 1..], arrays.len(), &name)?;
            let refs: Vec<&[u64]> = data.iter().map(Vec::as_slice).collect();
            s.accumulate(&mut ls, first, term, &refs);
            Ok(out(&ls))
        }
        KernelKind::Array { lanes: lk } => {
            let Some(KernelKind::Lanes { arrays, term }) =
                model.kernels.iter().find(|x| &x.name == lk && x.elem == k.elem).map(|x| &x.kind)
            else {
                return Err(format!("{name}: no lanes kernel `{lk}`"));
            };
            let data = split(words, arrays.len(), &name)?;
            let refs: Vec<&[u64]> = data.iter().map(Vec::as_slice).collect();
            let mut ls = vec![[0u64, 0u64]; lanes];
            s.accumulate(&mut ls, 0, term, &refs);
            Ok(vec![s.value(s.butterfly(&ls))])
        }
        KernelKind::Plane { width } => {
            let Some((&count, records)) = words.split_first() else { return Err(format!("{name}: no element count")) };
            let count =
                usize::try_from(count).ok().filter(|c| *c <= 1 << 16).ok_or_else(|| format!("{name}: element count {count} too large"))?;
            if records.len() % (width + 1) != 0 {
                return Err(format!("{name}: records of {} words do not fit {} words", width + 1, records.len()));
            }
            let mut value = vec![0u64; count * width];
            let mut comp = vec![0u64; count * width];
            for r in records.chunks(width + 1) {
                let e = usize::try_from(r[0])
                    .ok()
                    .filter(|e| *e < count)
                    .ok_or_else(|| format!("{name}: element {} is not below {count}", r[0]))?;
                for c in 0..*width {
                    let slot = e * width + c;
                    let p = s.step([value[slot], comp[slot]], r[1 + c]);
                    value[slot] = p[0];
                    comp[slot] = p[1];
                }
            }
            value.extend(comp);
            Ok(value)
        }
        KernelKind::Linalg { routine, n, many } => {
            linalg::evaluate(&linalg::Rules::new(model, lowered, &k.elem), *routine, *n, *many, words)
        }
        KernelKind::Resolve => {
            if !words.len().is_multiple_of(2) {
                return Err(format!("{name}: takes value and companion words of one length, got {} words", words.len()));
            }
            let n = words.len() / 2;
            Ok((0..n).map(|i| s.value([words[i], words[n + i]])).collect())
        }
    }
}

// The probe check evaluates kernels, so it runs after `Model::build`, in
// `aether_generator::model` (building the model imports no evaluator).
impl Model {
    /// A family's probes have as many words as its functions take; a
    /// kernel's probes are inputs its flat convention accepts (checked by
    /// evaluating them on the model); and every word fits the element type.
    pub fn check_probes(&self) -> Vec<SpecError> {
        let mut errors = Vec::new();
        for f in &self.functions {
            for p in &self.spec.family(&f.family).unwrap().cases {
                if p.words.len() != f.input_words() {
                    errors.push(SpecError {
                        file: self.spec.file.clone(),
                        line: p.line,
                        key: p.key.clone(),
                        message: format!("probe `{}` has {} words; {} takes {}", p.label, p.words.len(), self.c_name(f), f.input_words()),
                    });
                }
            }
        }
        // A linear-algebra kernel's probe is one problem of its shape: the
        // single form's words (the many-lane form takes it as one lane).
        for k in &self.kernels {
            let KernelKind::Linalg { routine, n, .. } = &k.kind else { continue };
            let w_in = crate::spec::words(*routine, *n).0;
            for p in self.spec.kernel(&k.key).unwrap().cases.iter().filter(|p| p.applies_to(&k.shape)) {
                if p.words.len() != w_in {
                    errors.push(SpecError {
                        file: self.spec.file.clone(),
                        line: p.line,
                        key: p.key.clone(),
                        message: format!(
                            "probe `{}` has {} words; {} takes {w_in} (a probe for one shape goes in `shape_cases.<shape>`)",
                            p.label,
                            p.words.len(),
                            self.kernel_c_name(k)
                        ),
                    });
                }
            }
        }
        // Only probes of the right length are evaluated.
        if !errors.is_empty() {
            return errors;
        }
        let lowered = self.lowered();
        for c in self.callables() {
            let bits = self.spec.types.iter().find(|t| t.name == c.elem()).map_or(64, |t| t.bits);
            let probes: Vec<&crate::spec::Probe> = match c {
                Callable::Function(f) => self.spec.family(&f.family).unwrap().cases.iter().collect(),
                Callable::Kernel(k) => self.spec.kernel(&k.key).unwrap().cases.iter().filter(|p| p.applies_to(&k.shape)).collect(),
            };
            for p in probes {
                let words: Vec<u64> = p.words.iter().map(|w| w.word(bits)).collect();
                let err = |m: String| self.error_at(p.line, p.key.clone(), format!("probe `{}`: {m}", p.label));
                if let Some(w) = words.iter().find(|&&w| bits < 64 && w >> bits != 0) {
                    errors.push(err(format!("word {w} does not fit the {bits} bits of {}", c.c_name(self))));
                    continue;
                }
                if let Callable::Kernel(k) = c {
                    errors.extend(evaluate(self, &lowered, k, &words).map_err(err).err());
                }
            }
        }
        errors
    }
}

/// Array lengths the random inputs draw from: around the lane count, its
/// multiples, and a few odd sizes.
const LENGTHS: [usize; 16] = [0, 1, 2, 3, 5, 17, 31, 32, 33, 47, 63, 64, 65, 100, 129, 257];

/// One random element word in a style that makes compensation matter.
fn element(r: &mut SplitMix64, bits: u32, style: u64, big: &mut Vec<u64>) -> u64 {
    let sign = (r.next_u64() & 1) << (bits - 1);
    match style {
        // Large values that later cancel exactly, small ones that survive
        // only through the companions.
        0 => {
            if !big.is_empty() && r.below(3) == 0 {
                let k = r.below(big.len() as u64) as usize;
                big.swap_remove(k) ^ (1 << (bits - 1))
            } else if r.below(2) == 0 {
                let (mant_bits, e_lo) = if bits == 32 { (23, 127 + 20) } else { (52, 1023 + 50) };
                let e = e_lo + r.below(10);
                let w = sign | (e << mant_bits) | (r.next_u64() & ((1 << mant_bits) - 1));
                big.push(w);
                w
            } else {
                rng::word(r, bits, rng::Mode::Narrow)
            }
        }
        // Magnitudes across a wide but finite range.
        1 => {
            let (mant_bits, bias, span) = if bits == 32 { (23, 127u64, 40) } else { (52, 1023, 120) };
            let e = bias - span / 2 + r.below(span);
            sign | (e << mant_bits) | (r.next_u64() & ((1 << mant_bits) - 1))
        }
        // Magnitudes near 1: rounding in every addition.
        2 => rng::word(r, bits, rng::Mode::Narrow),
        // One of the project's general modes (specials, zeros, integers,
        // wide, mixed), chosen once per array.
        _ => rng::word(r, bits, rng::MODES[(style - 3) as usize % rng::MODES.len()]),
    }
}

/// `n` element words in one style.
pub fn elements(r: &mut SplitMix64, bits: u32, n: usize) -> Vec<u64> {
    // Styles 0..3 make compensation matter; the rest are the general modes.
    let style = if r.below(3) == 0 { 3 + r.below(rng::MODES.len() as u64) } else { r.below(3) };
    let mut big = Vec::new();
    (0..n).map(|_| element(r, bits, style, &mut big)).collect()
}

/// The words of a second (or later) array of a kernel's term: near 1 in
/// most inputs, so products of the first array's values stay finite.
fn factors(r: &mut SplitMix64, bits: u32, n: usize) -> Vec<u64> {
    let one = if bits == 32 { u64::from(1f32.to_bits()) } else { 1f64.to_bits() };
    match r.below(4) {
        0 => elements(r, bits, n),
        // Exact products: the dot of the first array's cancellation.
        1 => vec![one; n],
        _ => (0..n).map(|_| rng::word(r, bits, rng::Mode::Narrow)).collect(),
    }
}

/// Lanes as a real accumulation leaves them (the model's own steps over a
/// random array), or all +0 pairs.
fn some_lanes(model: &Model, lowered: &[Function], k: &Kernel, r: &mut SplitMix64) -> Vec<u64> {
    let s = Steps::new(model, lowered, &k.elem);
    let lanes = s.reduction.lanes;
    let mut ls = vec![[0u64, 0u64]; lanes];
    match r.below(4) {
        0 => {}
        1 => {
            // Raw words: any bits at all.
            for l in &mut ls {
                *l = [rng::word(r, s.bits, rng::Mode::Mixed), rng::word(r, s.bits, rng::Mode::Mixed)];
            }
        }
        _ => {
            let n = LENGTHS[r.below(LENGTHS.len() as u64) as usize] + lanes;
            let xs = elements(r, s.bits, n);
            for (i, x) in xs.into_iter().enumerate() {
                ls[i % lanes] = s.step(ls[i % lanes], x);
            }
            // A ragged end: lanes past it keep +0 pairs.
            let ragged = 1 + r.below(lanes as u64) as usize;
            if r.below(2) == 0 {
                for l in &mut ls[ragged..] {
                    *l = [0, 0];
                }
            }
        }
    }
    ls.into_iter().flat_map(|p| p.into_iter()).collect()
}

/// One random flat input of kernel `k`.
pub fn random_input(model: &Model, lowered: &[Function], k: &Kernel, r: &mut SplitMix64) -> Vec<u64> {
    let bits = model.spec.types.iter().find(|t| t.name == k.elem).unwrap().bits;
    let length = |r: &mut SplitMix64| LENGTHS[r.below(LENGTHS.len() as u64) as usize];
    match &k.kind {
        KernelKind::Butterfly => some_lanes(model, lowered, k, r),
        KernelKind::Lanes { arrays, .. } => {
            let mut w = some_lanes(model, lowered, k, r);
            w.push(r.below(100));
            let n = length(r);
            for k in 0..arrays.len() {
                w.extend(if k == 0 { elements(r, bits, n) } else { factors(r, bits, n) });
            }
            w
        }
        KernelKind::Array { lanes } => {
            let count = model.spec.kernel(lanes).map_or(1, |ks| match &ks.schedule {
                crate::spec::Schedule::Lanes { arrays, .. } => arrays.len(),
                _ => 1,
            });
            let n = length(r);
            (0..count).flat_map(|k| if k == 0 { elements(r, bits, n) } else { factors(r, bits, n) }).collect()
        }
        KernelKind::Plane { width } => {
            let count = 1 + r.below(4);
            let records = r.below(24) as usize;
            let terms = elements(r, bits, records * width);
            let mut w = vec![count];
            for t in terms.chunks(*width) {
                w.push(r.below(count));
                w.extend_from_slice(t);
            }
            w
        }
        KernelKind::Linalg { routine, n, many } => {
            linalg::random_input(&linalg::Rules::new(model, lowered, &k.elem), *routine, *n, *many, r)
        }
        KernelKind::Resolve => {
            let ls = some_lanes(model, lowered, k, r);
            let n = r.below(9) as usize;
            let (v, c): (Vec<u64>, Vec<u64>) = ls.chunks(2).take(n).map(|p| (p[0], p[1])).unzip();
            v.into_iter().chain(c).collect()
        }
    }
}

/// A long array of heavy cancellation: `n` values (per array) whose large
/// parts cancel exactly, with small values in between.
pub fn long_cancellation(model: &Model, k: &Kernel, n: usize, seed: u64) -> Vec<u64> {
    let bits = model.spec.types.iter().find(|t| t.name == k.elem).unwrap().bits;
    let count = match &k.kind {
        KernelKind::Array { lanes } => match model.spec.kernel(lanes).map(|x| &x.schedule) {
            Some(crate::spec::Schedule::Lanes { arrays, .. }) => arrays.len(),
            _ => 1,
        },
        _ => 1,
    };
    let mut r = SplitMix64::for_name(&model.kernel_c_name(k), seed);
    (0..count)
        .flat_map(|a| {
            let mut big = Vec::new();
            // The first array carries the cancellation; a second (a dot's
            // b) is all ones, so the products are exact and still cancel.
            let one = if bits == 32 { u64::from(1f32.to_bits()) } else { 1f64.to_bits() };
            (0..n).map(|_| if a == 0 { element(&mut r, bits, 0, &mut big) } else { one }).collect::<Vec<u64>>()
        })
        .collect()
}

/// Evaluates a function or a kernel on flat input words, with the given
/// model and lowered functions (the model's own, or a mutant's); `at` is the
/// callable's index in `model.callables()`.
pub fn evaluate_callable(model: &Model, lowered: &[Function], at: usize, words: &[u64]) -> Result<Vec<u64>, String> {
    if at < lowered.len() {
        let f = &lowered[at];
        let bits = model.spec.types.iter().find(|t| t.name == f.elem).unwrap().bits;
        if words.len() != f.input_words() {
            return Err(format!("{}: takes {} words, got {}", model.c_name(f), f.input_words(), words.len()));
        }
        Ok(interp::evaluate(f, bits, words))
    } else {
        evaluate(model, lowered, &model.kernels[at - lowered.len()], words)
    }
}

/// One random flat input of a function or a kernel. A function with derived
/// parameters (`s = a + b`) gets them computed in three inputs of four.
pub fn random_callable_input(model: &Model, lowered: &[Function], c: Callable, r: &mut SplitMix64) -> Vec<u64> {
    match c {
        Callable::Function(f) => {
            let bits = model.spec.types.iter().find(|t| t.name == f.elem).unwrap().bits;
            let mut w = rng::input(r, bits, f.input_words());
            if !f.derived.is_empty() && r.below(4) != 0 {
                interp::fill_derived(f, bits, &mut w);
            }
            w
        }
        Callable::Kernel(k) => random_input(model, lowered, k, r),
    }
}
