//! The comparison policy, applied the same way by every checker: bytes equal;
//! or both NaN (any payload, any sign); or, where the spec grants it, +0
//! against -0.
//!
//! The corpus records one word per class the policy cannot tell apart: every
//! NaN of a float result as the canonical quiet NaN ([`canonical`]). The
//! reference's NaN payloads and signs are not part of the contract, and they
//! change with how the reference was compiled (which operand's NaN `a + b`
//! passes on, what constant folding leaves in the payload), so recording them
//! made the generated files depend on the generator's build profile.

/// True when `bits` is a NaN of the given width.
pub fn is_nan(bits: u64, width: u32) -> bool {
    if width == 32 {
        f32::from_bits(bits as u32).is_nan()
    } else {
        f64::from_bits(bits).is_nan()
    }
}

/// True when `bits` is +0 or -0 of the given width.
pub fn is_zero(bits: u64, width: u32) -> bool {
    let mask = if width == 32 { 0x7fff_ffff } else { 0x7fff_ffff_ffff_ffff };
    bits & mask == 0
}

/// The canonical quiet NaN of a width: positive, the quiet bit alone
/// (0x7fc00000 for f32, 0x7ff8000000000000 for f64; Rust's `f32::NAN` and
/// `f64::NAN`, WebAssembly's canonical NaN). The contract states no sign or
/// payload for a NaN result, so the plainest one.
pub fn canonical_nan(width: u32) -> u64 {
    if width == 32 {
        0x7fc0_0000
    } else {
        0x7ff8_0000_0000_0000
    }
}

/// The word the corpus records for a result word: for a float result
/// (`is_float`), a NaN of any sign, payload or kind (quiet or signalling) is
/// [`canonical_nan`], which matches it under [`word_matches`]; every other
/// word (numbers, infinities, either zero, truth values) is kept bit for bit.
/// The spec's only NaN policy is `any-nan` (spec.rs refuses any other): one
/// that told NaNs apart would have to keep their bits here.
pub fn canonical(word: u64, width: u32, is_float: bool) -> u64 {
    if is_float && is_nan(word, width) {
        canonical_nan(width)
    } else {
        word
    }
}

/// [`canonical`] of every word.
pub fn canonical_words(words: &[u64], width: u32, is_float: bool) -> Vec<u64> {
    words.iter().map(|w| canonical(*w, width, is_float)).collect()
}

/// Whether an actual result word matches the expected one.
/// `is_float` is false for truth-valued results (compared as bytes).
pub fn word_matches(expected: u64, actual: u64, width: u32, is_float: bool, either_zero: bool) -> bool {
    if expected == actual {
        return true;
    }
    if !is_float {
        return false;
    }
    if is_nan(expected, width) && is_nan(actual, width) {
        return true;
    }
    either_zero && is_zero(expected, width) && is_zero(actual, width)
}

/// Whether all result words match.
pub fn matches(expected: &[u64], actual: &[u64], width: u32, is_float: bool, either_zero: bool) -> bool {
    expected.len() == actual.len() && expected.iter().zip(actual).all(|(e, a)| word_matches(*e, *a, width, is_float, either_zero))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_cases() {
        // NaN payloads and signs are all one NaN.
        assert!(word_matches(0x7fc0_0000, 0xffc0_0001, 32, true, false));
        // +0 and -0 differ unless the function has either-zero slack.
        assert!(!word_matches(0x0000_0000, 0x8000_0000, 32, true, false));
        assert!(word_matches(0x0000_0000, 0x8000_0000, 32, true, true));
        // Slack is for zeros only, and a NaN never matches a number.
        assert!(!word_matches(0x3f80_0000, 0xbf80_0000, 32, true, true));
        assert!(!word_matches(0x7ff8_0000_0000_0000, 0, 64, true, true));
        // Truth values are bytes.
        assert!(!word_matches(1, 0, 32, false, true));
    }

    #[test]
    fn canonical_nans() {
        // Every NaN becomes the positive quiet NaN: a quiet one with a
        // payload, a negative one, a signalling one, the largest payloads.
        for w in [0x7fc0_0001, 0xffc0_1234, 0xffc0_0000, 0x7fa0_0001, 0x7f80_0001, 0xff80_0001, 0x7fff_ffff, 0xffff_ffff] {
            assert_eq!(canonical(w, 32, true), 0x7fc0_0000, "{w:#x}");
            assert!(word_matches(w, canonical(w, 32, true), 32, true, false));
        }
        for w in [
            0x7ff8_0000_0000_0001,
            0xfff8_0000_0001_2345,
            0xfff8_0000_0000_0000,
            0x7ff4_0000_0000_0001,
            0x7ff0_0000_0000_0001,
            0xfff0_0000_0000_0001,
            0x7fff_ffff_ffff_ffff,
            0xffff_ffff_ffff_ffff,
        ] {
            assert_eq!(canonical(w, 64, true), 0x7ff8_0000_0000_0000, "{w:#x}");
        }
        assert_eq!(canonical(0x7fc0_0000, 32, true), 0x7fc0_0000);
        assert_eq!(canonical(0x7ff8_0000_0000_0000, 64, true), 0x7ff8_0000_0000_0000);
        // Not NaN: infinities, both zeros (-0 above all), numbers, the largest
        // finite values and the subnormals are kept bit for bit.
        for w in [0x7f80_0000, 0xff80_0000, 0x8000_0000, 0, 0x3f80_0000, 0xbf80_0000, 0x7f7f_ffff, 0xff7f_ffff, 1, 0x807f_ffff] {
            assert_eq!(canonical(w, 32, true), w, "{w:#x}");
        }
        for w in [
            0x7ff0_0000_0000_0000,
            0xfff0_0000_0000_0000,
            0x8000_0000_0000_0000,
            0,
            0x3ff0_0000_0000_0000,
            0x7fef_ffff_ffff_ffff,
            0xffef_ffff_ffff_ffff,
            1,
            0x800f_ffff_ffff_ffff,
        ] {
            assert_eq!(canonical(w, 64, true), w, "{w:#x}");
        }
        // The width decides: an f32 NaN's bits are a subnormal f64.
        assert_eq!(canonical(0x7fc0_1234, 64, true), 0x7fc0_1234);
        // A truth value (or any word of a result that is not float) is bytes.
        assert_eq!(canonical(0x7fc0_0001, 32, false), 0x7fc0_0001);
        assert_eq!(canonical(0xfff8_0000_0001_2345, 64, false), 0xfff8_0000_0001_2345);
        assert_eq!(canonical_words(&[0xffc0_1234, 0x8000_0000, 0x7f80_0000], 32, true), [0x7fc0_0000, 0x8000_0000, 0x7f80_0000]);
    }
}
