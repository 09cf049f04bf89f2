//! The project's own seeded generator and input distributions, so the corpus
//! and the random tests never move when a crate updates.

/// SplitMix64 (Steele, Lea, Flood 2014): small, fast, and fully specified here.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// A generator seeded from a name and a number, e.g. a function and a case.
    pub fn for_name(name: &str, n: u64) -> Self {
        // FNV-1a over the name, then mixed with n.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        SplitMix64(h ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0), by rejection so it has no bias.
    pub fn below(&mut self, n: u64) -> u64 {
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next_u64();
            if x < zone {
                return x % n;
            }
        }
    }
}

/// Special values of a width, as bit patterns, with a short name each.
pub fn specials(width: u32) -> Vec<(&'static str, u64)> {
    if width == 32 {
        vec![
            ("+0", 0x0000_0000),
            ("-0", 0x8000_0000),
            ("+inf", 0x7f80_0000),
            ("-inf", 0xff80_0000),
            ("qNaN", 0x7fc0_0000),
            ("-NaN payload", 0xffc0_1234),
            ("sNaN payload", 0x7fa0_0001),
            ("min subnormal", 0x0000_0001),
            ("-max subnormal", 0x807f_ffff),
            ("min normal", 0x0080_0000),
            ("max finite", 0x7f7f_ffff),
            ("-max finite", 0xff7f_ffff),
            ("+1", 0x3f80_0000),
            ("-1", 0xbf80_0000),
        ]
    } else {
        vec![
            ("+0", 0),
            ("-0", 0x8000_0000_0000_0000),
            ("+inf", 0x7ff0_0000_0000_0000),
            ("-inf", 0xfff0_0000_0000_0000),
            ("qNaN", 0x7ff8_0000_0000_0000),
            ("-NaN payload", 0xfff8_0000_0001_2345),
            ("sNaN payload", 0x7ff4_0000_0000_0001),
            ("min subnormal", 1),
            ("-max subnormal", 0x800f_ffff_ffff_ffff),
            ("min normal", 0x0010_0000_0000_0000),
            ("max finite", 0x7fef_ffff_ffff_ffff),
            ("-max finite", 0xffef_ffff_ffff_ffff),
            ("+1", 0x3ff0_0000_0000_0000),
            ("-1", 0xbff0_0000_0000_0000),
        ]
    }
}

/// How the words of one random input are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Magnitudes in [2^-4, 2^4), random signs and mantissas: rounding and
    /// cancellation differ between orders, fused and unfused products.
    Narrow,
    /// Any finite exponent, subnormals included.
    Wide,
    /// Only the special values.
    Specials,
    /// Signed zeros only: what tells a seeded fold from an unseeded one.
    Zeros,
    /// Small whole numbers (exact arithmetic, ties in comparisons).
    Ints,
    /// Each word from any of the modes above.
    Mixed,
}

pub const MODES: [Mode; 6] = [Mode::Narrow, Mode::Wide, Mode::Specials, Mode::Zeros, Mode::Ints, Mode::Mixed];

/// One random word of the given width in the given mode.
pub fn word(rng: &mut SplitMix64, width: u32, mode: Mode) -> u64 {
    let (mant_bits, exp_bits) = if width == 32 { (23u32, 8u32) } else { (52, 11) };
    let bias = (1u64 << (exp_bits - 1)) - 1;
    let sign = (rng.next_u64() & 1) << (width - 1);
    let mant = rng.next_u64() & ((1u64 << mant_bits) - 1);
    match mode {
        Mode::Narrow => {
            let e = bias - 4 + rng.below(8);
            sign | (e << mant_bits) | mant
        }
        Mode::Wide => {
            // Exponent field 0 (subnormal) .. max-1 (largest finite binade).
            let e = rng.below((1u64 << exp_bits) - 1);
            sign | (e << mant_bits) | mant
        }
        Mode::Specials => {
            let s = specials(width);
            s[rng.below(s.len() as u64) as usize].1
        }
        Mode::Zeros => sign,
        Mode::Ints => {
            let v = rng.below(9) as f64 - 4.0;
            if width == 32 {
                u64::from((v as f32).to_bits())
            } else {
                v.to_bits()
            }
        }
        Mode::Mixed => {
            let m = [Mode::Narrow, Mode::Narrow, Mode::Wide, Mode::Specials, Mode::Zeros, Mode::Ints];
            let pick = m[rng.below(m.len() as u64) as usize];
            word(rng, width, pick)
        }
    }
}

/// `n` words of one input, all drawn in one mode chosen at random.
pub fn input(rng: &mut SplitMix64, width: u32, n: usize) -> Vec<u64> {
    let mode = MODES[rng.below(MODES.len() as u64) as usize];
    (0..n).map(|_| word(rng, width, mode)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_its_published_first_outputs() {
        // First outputs of SplitMix64 seeded with 1234567 (the reference C code).
        let mut r = SplitMix64::new(1_234_567);
        assert_eq!(r.next_u64(), 6_457_827_717_110_365_317);
        assert_eq!(r.next_u64(), 3_203_168_211_198_807_973);
    }

    #[test]
    fn modes_stay_in_their_sets() {
        let mut r = SplitMix64::new(7);
        for _ in 0..10_000 {
            let n = f32::from_bits(word(&mut r, 32, Mode::Narrow) as u32).abs();
            assert!((0.0625..16.0).contains(&n));
            let w = f64::from_bits(word(&mut r, 64, Mode::Wide));
            assert!(w.is_finite());
            assert_eq!(word(&mut r, 64, Mode::Zeros) << 1, 0);
        }
    }
}
