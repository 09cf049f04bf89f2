//! The inputs of one entry: the committed corpus's cases of its callable,
//! then random inputs drawn with the project's generator
//! (`aether_generator::rng`), when the callable's flat words are plain floats.

use aether_generator::corpus::ParsedFunction;
use aether_generator::interp;
use aether_generator::model::Callable;
use aether_generator::rng::{self, Mode, SplitMix64};
use aether_generator::targets::shared::check::CheckEntry;

/// The seed of the random inputs unless `--seed` says otherwise.
pub const DEFAULT_SEED: u64 = 0x00ae_7e12_0000_0001;

/// The smallest and largest unbiased exponent of the moderate in-domain
/// words: products of a few and sums of many stay far from overflow and
/// from the subnormals.
pub const MODERATE_EXP: (i32, i32) = (-20, 20);

/// Draws one random input of an entry whose words are not all plain floats.
pub type Draw<'a> = dyn Fn(&mut SplitMix64) -> Vec<u64> + 'a;

/// Where an entry's inputs come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Corpus cases and random inputs.
    CorpusAndRandom,
    /// Corpus cases only: some of the callable's words are not plain floats
    /// (a kernel's counts, indices or lane number), or its word counts vary.
    CorpusOnly,
}

/// The inputs of one entry, `n_in` words per case (an f32 in the low 32 bits).
#[derive(Debug, Clone, PartialEq)]
pub struct Inputs {
    pub words: Vec<u64>,
    pub corpus: usize,
    /// Corpus cases of this callable whose word counts are not the entry's
    /// (a kernel's cases of other array sizes).
    pub corpus_skipped: usize,
    pub random: usize,
    pub source: Source,
}

impl Inputs {
    pub fn cases(&self) -> usize {
        self.corpus + self.random
    }
}

/// One f32 word of the moderate in-domain set: normal, random sign and
/// mantissa, unbiased exponent in [`MODERATE_EXP`].
pub fn moderate(r: &mut SplitMix64) -> u32 {
    let (lo, hi) = MODERATE_EXP;
    let e = (lo + r.below((hi - lo + 1) as u64) as i32 + 127) as u32;
    let sign = (r.next_u64() & 1) as u32;
    (sign << 31) | (e << 23) | (r.next_u64() as u32 & 0x7f_ffff)
}

/// Specials beyond `rng::specials`: huge finite values whose products
/// overflow, and tiny normal ones whose products go subnormal.
const EXTREMES: [u32; 4] = [0x7e00_0000, 0xfe12_3456, 0x0100_0000, 0x8180_0001];

/// One random input of `n` words. Of 100 inputs: 60 moderate, 20 narrow
/// (`Mode::Narrow`: magnitudes in [2^-4, 2^4), cancellation), 4 small whole
/// numbers (exact arithmetic, ties), 6 moderate with some words +0 or -0,
/// and 10 moderate with one or more words special (signed zeros, infinities,
/// NaNs, subnormals, huge or tiny values): the out-of-domain share is fixed,
/// whatever `n` is.
pub fn random_input(r: &mut SplitMix64, n: usize) -> Vec<u64> {
    let pick = r.below(100);
    let word = |r: &mut SplitMix64| -> u64 {
        match pick {
            60..=79 => rng::word(r, 32, Mode::Narrow),
            80..=83 => rng::word(r, 32, Mode::Ints),
            _ => u64::from(moderate(r)),
        }
    };
    let mut w: Vec<u64> = (0..n).map(|_| word(r)).collect();
    if n == 0 {
        return w;
    }
    match pick {
        84..=89 => {
            for _ in 0..=r.below(n as u64) {
                let i = r.below(n as u64) as usize;
                w[i] = rng::word(r, 32, Mode::Zeros);
            }
        }
        90..=99 => {
            let specials = rng::specials(32);
            for _ in 0..=r.below(2) {
                let i = r.below(n as u64) as usize;
                let k = r.below((specials.len() + EXTREMES.len()) as u64) as usize;
                w[i] = if k < specials.len() { specials[k].1 } else { u64::from(EXTREMES[k - specials.len()]) };
            }
        }
        _ => {}
    }
    w
}

/// Whether random inputs suit this callable on this entry: the entry says its
/// words are plain floats of fixed counts, and a function's counts are the
/// entry's.
pub fn random_suits(c: Callable, e: &CheckEntry) -> bool {
    e.random && e.n_in > 0 && (matches!(c, Callable::Kernel(_)) || c.fixed_words() == Some((e.n_in, e.n_out)))
}

/// The corpus cases of the entry's callable (those of the entry's word
/// counts), then `n_random` random inputs when they suit it, seeded from
/// `seed` and the C name so each function's inputs stand alone.
///
/// `linalg` draws one random input in place of `random_input`: one problem
/// of a linear-algebra routine (`aether_generator::linalg::random_single`;
/// a many-lane entry's case is its lanes' problems one after another), or a
/// kernel's input with its whole-number words.
pub fn for_entry(
    c: Callable,
    e: &CheckEntry,
    corpus: Option<&ParsedFunction>,
    n_random: usize,
    seed: u64,
    linalg: Option<&Draw<'_>>,
) -> Inputs {
    let mut words = Vec::new();
    let (mut n_corpus, mut skipped) = (0, 0);
    for case in corpus.map(|f| f.cases.as_slice()).unwrap_or(&[]) {
        if case.inputs.len() == e.n_in && case.expected.len() == e.n_out {
            words.extend_from_slice(&case.inputs);
            n_corpus += 1;
        } else {
            skipped += 1;
        }
    }
    // An entry without inputs has one case, which the corpus holds.
    let source = if random_suits(c, e) && e.n_in > 0 { Source::CorpusAndRandom } else { Source::CorpusOnly };
    let mut n = 0;
    let n_random = e.max_random.map_or(n_random, |m| n_random.min(m));
    if source == Source::CorpusAndRandom {
        let mut r = SplitMix64::for_name(&e.entry, seed);
        for _ in 0..n_random {
            if let Some(draw) = linalg {
                // The linear algebra's own inputs (matrix classes, real
                // factorisations, valid pivots), lane after lane.
                let mut w = Vec::with_capacity(e.n_in);
                while w.len() < e.n_in {
                    w.extend(draw(&mut r));
                }
                words.extend_from_slice(&w);
                continue;
            }
            let mut w = random_input(&mut r, e.n_in);
            // As the corpus does: derived parameters (`s = a + b`) computed in
            // three inputs of four, left random in the fourth.
            if let Callable::Function(f) = c {
                if !f.derived.is_empty() && r.below(4) != 0 {
                    interp::fill_derived(f, 32, &mut w);
                }
            }
            words.extend_from_slice(&w);
        }
        n = n_random;
    }
    Inputs { words, corpus: n_corpus, corpus_skipped: skipped, random: n, source }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moderate_words_are_normal_in_range() {
        let mut r = SplitMix64::new(3);
        for _ in 0..10_000 {
            let x = f32::from_bits(moderate(&mut r)).abs();
            assert!(x.is_normal() && (2f32.powi(-20)..2f32.powi(21)).contains(&x), "{x}");
        }
    }

    #[test]
    fn the_special_share_is_fixed_and_deterministic() {
        let mut r = SplitMix64::new(5);
        let mut special = 0;
        for _ in 0..10_000 {
            let w = random_input(&mut r, 16);
            let outside = |x: u64| {
                let v = f32::from_bits(x as u32).abs();
                v != 0.0 && !(2f32.powi(-20)..2f32.powi(21)).contains(&v)
            };
            if w.iter().any(|&x| outside(x)) {
                special += 1;
            }
        }
        // 10 of 100 inputs have a special word; some of those draw +-0 or +-1, inside the range.
        assert!((700..=1100).contains(&special), "{special}");
        let a = random_input(&mut SplitMix64::new(9), 8);
        assert_eq!(a, random_input(&mut SplitMix64::new(9), 8));
    }
}
