// The correctly rounded square root the contract's `sqrt` is, in every build
// of the crate. `core` has no `f32::sqrt` (it lives in `std`), so the crate
// reaches the hardware's IEEE 754 square root itself: SSE's `sqrtss`/`sqrtsd`
// on x86_64 and on x86 with SSE2, `fsqrt` through NEON on aarch64, wasm's
// `f32x4.sqrt`/`f64x2.sqrt` where simd128 is enabled; `std`'s `sqrt` with the
// `std` feature on other targets; and the integer square root below
// everywhere else. Each of them is the correctly rounded result (IEEE 754
// section 5.4.1), so every build gives the same bits. x86 without SSE2 never
// takes `std`'s: that one runs on the x87 unit, whose rounding to 64-bit
// precision first and to the type second is not correctly rounded.

/// The square root of `x`, correctly rounded (IEEE 754 `squareRoot`):
/// `sqrt(-0) = -0`, `sqrt(+inf) = +inf`, NaN for a NaN or for any `x < 0`.
#[inline]
pub fn aether_sqrt_f32(x: f32) -> f32 {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_cvtss_f32, _mm_set_ss, _mm_sqrt_ss};
        // SAFETY: SSE is part of the x86_64 baseline; the intrinsics take no pointer.
        return unsafe { _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(x))) };
    }
    #[cfg(all(target_arch = "x86", target_feature = "sse2"))]
    {
        use core::arch::x86::{_mm_cvtss_f32, _mm_set_ss, _mm_sqrt_ss};
        // SAFETY: SSE2 (hence SSE) is enabled for this build; no pointer is taken.
        return unsafe { _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(x))) };
    }
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    {
        use core::arch::aarch64::{vdup_n_f32, vget_lane_f32, vsqrt_f32};
        // SAFETY: NEON is enabled for this build; no pointer is taken.
        return unsafe { vget_lane_f32::<0>(vsqrt_f32(vdup_n_f32(x))) };
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        use core::arch::wasm32::{f32x4_extract_lane, f32x4_splat, f32x4_sqrt};
        return f32x4_extract_lane::<0>(f32x4_sqrt(f32x4_splat(x)));
    }
    #[allow(unreachable_code)]
    {
        #[cfg(all(feature = "std", not(target_arch = "x86")))]
        {
            return x.sqrt();
        }
        #[allow(unreachable_code)]
        aether_sqrt_soft_f32(x)
    }
}

/// The square root of `x`, correctly rounded (see [`aether_sqrt_f32`]).
#[inline]
pub fn aether_sqrt_f64(x: f64) -> f64 {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_cvtsd_f64, _mm_set_sd, _mm_sqrt_sd};
        // SAFETY: SSE2 is part of the x86_64 baseline; the intrinsics take no pointer.
        return unsafe { _mm_cvtsd_f64(_mm_sqrt_sd(_mm_set_sd(x), _mm_set_sd(x))) };
    }
    #[cfg(all(target_arch = "x86", target_feature = "sse2"))]
    {
        use core::arch::x86::{_mm_cvtsd_f64, _mm_set_sd, _mm_sqrt_sd};
        // SAFETY: SSE2 is enabled for this build; no pointer is taken.
        return unsafe { _mm_cvtsd_f64(_mm_sqrt_sd(_mm_set_sd(x), _mm_set_sd(x))) };
    }
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    {
        use core::arch::aarch64::{vdup_n_f64, vget_lane_f64, vsqrt_f64};
        // SAFETY: NEON is enabled for this build; no pointer is taken.
        return unsafe { vget_lane_f64::<0>(vsqrt_f64(vdup_n_f64(x))) };
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        use core::arch::wasm32::{f64x2_extract_lane, f64x2_splat, f64x2_sqrt};
        return f64x2_extract_lane::<0>(f64x2_sqrt(f64x2_splat(x)));
    }
    #[allow(unreachable_code)]
    {
        #[cfg(all(feature = "std", not(target_arch = "x86")))]
        {
            return x.sqrt();
        }
        #[allow(unreachable_code)]
        aether_sqrt_soft_f64(x)
    }
}

/// The integer square root of `n` and its remainder `n - r * r`, digit by
/// digit (two bits of `n` per step).
#[inline]
fn isqrt_u128(n: u128) -> (u128, u128) {
    if n == 0 {
        return (0, 0);
    }
    let mut rem = n;
    let mut root: u128 = 0;
    let mut bit: u128 = 1 << ((127 - n.leading_zeros()) & !1);
    while bit != 0 {
        if rem >= root + bit {
            rem -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    (root, rem)
}

/// The correctly rounded square root in integer arithmetic only, for a target
/// without a hardware one. `bits`: the width of the format, `frac`: its
/// fraction bits. Returns the result's bits, or None for the special cases.
#[inline]
fn soft_sqrt_bits(bits: u64, width: u32, frac: u32) -> Option<u64> {
    let exp_mask = (1u64 << (width - 1 - frac)) - 1;
    let bias = (exp_mask >> 1) as i64;
    let sign = bits >> (width - 1);
    let field = (bits >> frac) & exp_mask;
    let mut m = bits & ((1u64 << frac) - 1);
    if field == exp_mask || (field == 0 && m == 0) || sign != 0 {
        return None;
    }
    // x = m * 2^(e - frac), m with its leading bit at `frac`.
    let mut e: i64;
    if field == 0 {
        let shift = m.leading_zeros() - (63 - frac);
        m <<= shift;
        e = 1 - bias - shift as i64;
    } else {
        m |= 1u64 << frac;
        e = field as i64 - bias;
    }
    // An even exponent: x = (m / 2^frac) * 2^e, m / 2^frac in [1, 4).
    if e & 1 != 0 {
        m <<= 1;
        e -= 1;
    }
    // sqrt(x) = sqrt(m * 2^frac) / 2^frac * 2^(e/2), the root of m * 2^frac
    // having frac + 1 bits. Round to nearest: up exactly when the remainder
    // exceeds the root (sqrt(M) > r + 1/2 iff M - r^2 > r for integers;
    // a tie cannot happen).
    let (mut r, rem) = isqrt_u128((m as u128) << frac);
    if rem > r {
        r += 1;
    }
    // r has its leading bit at `frac` (or is 2^(frac+1) after rounding, which
    // carries into the exponent by the addition).
    let biased = (e / 2 + bias - 1) as u64;
    Some((biased << frac) + r as u64)
}

/// The correctly rounded square root of `x` in integer arithmetic only: the
/// fallback of [`aether_sqrt_f32`], always compiled so that it can be
/// checked on every target.
pub fn aether_sqrt_soft_f32(x: f32) -> f32 {
    match soft_sqrt_bits(x.to_bits() as u64, 32, 23) {
        Some(b) => f32::from_bits(b as u32),
        None if x == 0.0 || x == f32::INFINITY => x,
        None if x.is_nan() => x + x,
        None => f32::NAN,
    }
}

/// The correctly rounded square root of `x` in integer arithmetic only: the
/// fallback of [`aether_sqrt_f64`].
pub fn aether_sqrt_soft_f64(x: f64) -> f64 {
    match soft_sqrt_bits(x.to_bits(), 64, 52) {
        Some(b) => f64::from_bits(b),
        None if x == 0.0 || x == f64::INFINITY => x,
        None if x.is_nan() => x + x,
        None => f64::NAN,
    }
}
