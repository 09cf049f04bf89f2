//! The comparison policy, applied the same way by every checker: bytes equal;
//! or both NaN (any payload, any sign); or, where the spec grants it, +0
//! against -0.

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
}
