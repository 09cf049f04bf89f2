//! The elementary functions of the contract: [`sincos`], [`sin`], [`cos`],
//! [`tan`], [`atan`], [`atan2`], [`exp`], [`log`], [`exp2`], [`log2`], [`pow`], [`asin`], [`acos`],
//! and the rotations built on them, [`slerp`],
//! [`from_axis_angle`] and [`from_euler_xyz`]; and their nine polynomials on
//! their own, [`sin_poly`] to [`pow_poly`].
//!
//! Written from the contract's statement (the comment above
//! `[families.sincos]` in `spec/aether.toml` and `docs/numerics-contract.md`),
//! not from generated code: every step is one IEEE operation of the element
//! type, in the order the contract states, and Rust never fuses or reorders
//! them. The platform's `sin` and `cos` are never called.
//!
//! 1. Reduction by pi/2 (Cody-Waite in four parts): `k` is `a * (2/pi)`
//!    rounded to the nearest integer by adding and subtracting `1.5 * 2^p`;
//!    `k * P1`, `k * P2`, `k * P3` are exact on the domain, `k * P4` is
//!    rounded; two two-sums keep the roundings of the first two subtractions,
//!    so the reduced argument is `r + rl`.
//! 2. sin r = `r + (r u S(u) + rl)`, cos r = `w + ((u^2 C(u) - r rl) + lost)`
//!    with `u = r r`, `w = 1 - u/2` and `lost` the rounding of `w`, each
//!    polynomial in Horner form in `u`.
//! 3. The quadrant `q = k mod 4`, computed exactly, picks sin or cos of `r`
//!    and its sign.
//!
//! Outside `|a| <= DOMAIN` (and for infinities and NaN) both results are
//! NaN; `sin(-0)` is `-0`.

use crate::real::Real;
use crate::{Mat3, Quat, Vec2, Vec3};

/// The constants of one element type, each stated by its bit pattern.
pub trait Trig: Real {
    /// 2/pi rounded.
    const TWO_OVER_PI: Self;
    /// 1.5 * 2^p: adding and subtracting it rounds to an integer.
    const ROUNDER: Self;
    /// pi/2 in four parts, the first three short enough for exact products.
    const PIO2: [Self; 4];
    /// The largest |a| of the domain.
    const DOMAIN: Self;
    /// sin r = r + r u S(u): S's coefficients, constant term first.
    fn sin_coefficients() -> &'static [Self];
    /// cos r = 1 - u/2 + u^2 C(u): C's coefficients, constant term first.
    fn cos_coefficients() -> &'static [Self];
    /// atan's breakpoints 7/16, 11/16, 19/16, 39/16.
    const ATAN_BREAKS: [Self; 4];
    /// atan(1/2), pi/4, atan(3/2), pi/2 rounded, and each one's rounded rest.
    const ATAN_HI: [Self; 4];
    /// The rests of [`Trig::ATAN_HI`].
    const ATAN_LO: [Self; 4];
    /// atan t = t + t u P(u): P's coefficients, constant term first.
    fn atan_coefficients() -> &'static [Self];
    /// pi, pi - atan(1/2), 3pi/4, pi - atan(3/2), pi/2 rounded (atan2 for a
    /// negative x).
    const ATAN2_BEHIND_HI: [Self; 5];
    /// The rests of [`Trig::ATAN2_BEHIND_HI`].
    const ATAN2_BEHIND_LO: [Self; 5];
    /// atan2 scales both inputs by `1 / SCALE` from `SCALE` up, by `SCALE`
    /// below `1 / SCALE` (2^56 for f32, 2^100 for f64).
    const ATAN2_SCALE: Self;
    /// log2(e) rounded (exp's reduction).
    const LOG2_E: Self;
    /// ln 2 = C1 + C2, C1 short enough (16 / 42 significant bits) that `k * C1`
    /// is exact for every `k` of exp's and log's range.
    const LN2: [Self; 2];
    /// exp's range: inputs above `EXP_RANGE[1]` act as it, below `EXP_RANGE[0]`
    /// as it (89 and -104; f64 710 and -746).
    const EXP_RANGE: [Self; 2];
    /// exp(r) = 1 + r + r^2 P(r): P's coefficients, constant term first.
    fn exp_coefficients() -> &'static [Self];
    /// log(1 + f) = f - (h - s (h + z P(z))): P's coefficients, constant term first.
    fn log_coefficients() -> &'static [Self];
    /// tan's polynomial P(u), u = v v, tan v = v + (v u) P(u).
    fn tan_coefficients() -> &'static [Self];
    /// Where tan's argument becomes pi/4 - |r| (43/64, both types).
    const TAN_BREAK: Self;
    /// asin's polynomial P(z), z = t t, asin t = t + t (z P(z)).
    fn asin_coefficients() -> &'static [Self];
    /// Where asin's last form starts (31/32, both types).
    const ASIN_NEAR_ONE: Self;
    /// The bits of the exact power-of-two steps, largest first: 64 down to 1
    /// (f32), 512 down to 1 (f64); exp's scaling has one more, the top bit of
    /// `round(k/2) + POW2_OFFSET`.
    const POW2_STEPS: u32;
    /// exp's and exp2's offset of `round(k/2)`: 76 (f64 538), so it is whole
    /// and non-negative over their ranges.
    const POW2_OFFSET: i32;
    /// log's pre-scale of a subnormal input: its exponent (24, f64 54).
    const SUBNORMAL_SHIFT: i32;
    /// exp2's range (129 and -151; f64 1025 and -1076), as [`Trig::EXP_RANGE`].
    const EXP2_RANGE: [Self; 2];
    /// 1.5 * 2^12 (f64 1.5 * 2^26): adding and subtracting it puts r on
    /// exp2's grid of 2^-11 (2^-26).
    const EXP2_GRID: Self;
    /// ln 2 = C1 + C2 for exp2, C1 of 13 (27) significant bits.
    const EXP2_LN2: [Self; 2];
    /// 2^r = 1 + r ln 2 + r^2 P(r): P's coefficients, constant term first.
    fn exp2_coefficients() -> &'static [Self];
    /// 1 / ln 2 = I1 + I2, I1 of 12 (26) significant bits (log2).
    const INV_LN2: [Self; 2];
    /// Veltkamp's factor 2^12 + 1 (f64 2^27 + 1): log2's split.
    const VELTKAMP: Self;
    /// The least positive normal number.
    const MIN_NORMAL: Self;
    /// The largest finite number.
    const MAX: Self;
    /// sqrt 2 rounded (log's halving boundary).
    const SQRT_2: Self;
    /// pow's breakpoints 2^((2j - 1)/16) rounded, j = -3..4: `m` at or past
    /// the i-th takes `POW_C[i + 1]`.
    const POW_BREAKS: [Self; 8];
    /// pow's centres c_j = 2^(j/8) rounded, j = -4..4.
    const POW_C: [Self; 9];
    /// log c_j rounded, and the rest rounded: `log c_j = hi + lo` to twice the
    /// precision.
    const POW_LOG_C: [[Self; 9]; 2];
    /// ln 2 = L1 + L2 + L3, L1 and L2 of 16 (42) significant bits, so `k L1`
    /// and `k L2` are exact for every `k` of log's reduction.
    const POW_LN2: [Self; 3];
    /// log(m / c) = 2s + s z P(z), z = s s: P's coefficients, constant term first.
    fn pow_coefficients() -> &'static [Self];
    /// |y| beyond it acts as it (2^34, f64 2^64): y log x is then past exp's range
    /// for every x but 1.
    const POW_Y_LIMIT: Self;
    /// 2^(p-1) (2^23, f64 2^52): adding and subtracting it rounds a number
    /// below it to an integer; every number from it up is whole.
    const POW_WHOLE: Self;
    /// `2^e` for an exponent of the normal range, exactly.
    fn pow2(e: i32) -> Self;
    /// The whole number `n` (exact: the callers' `|n|` are below 2^11).
    fn whole(n: i32) -> Self;
}

const fn f(bits: u32) -> f32 {
    f32::from_bits(bits)
}

const fn d(bits: u64) -> f64 {
    f64::from_bits(bits)
}

const SIN_F32: [f32; 4] = [f(0xBE2A_AAAB), f(0x3C08_8887), f(0xB950_09D3), f(0x3636_DEE9)];
const COS_F32: [f32; 3] = [f(0x3D2A_AAAA), f(0xBAB6_0969), f(0x37CD_EC32)];
const SIN_F64: [f64; 7] = [
    d(0xBFC5_5555_5555_5555),
    d(0x3F81_1111_1111_1110),
    d(0xBF2A_01A0_1A01_9936),
    d(0x3EC7_1DE3_A546_05EE),
    d(0xBE5A_E645_4126_6378),
    d(0x3DE6_1217_EC01_749D),
    d(0xBD6A_B17A_7923_7A19),
];
const COS_F64: [f64; 6] = [
    d(0x3FA5_5555_5555_5555),
    d(0xBF56_C16C_16C1_6966),
    d(0x3EFA_01A0_19F4_E867),
    d(0xBE92_7E4F_A17A_41B4),
    d(0x3E21_EEB6_8B10_9173),
    d(0xBDA9_07D7_AEBD_5E3D),
];

const ATAN_F32: [f32; 5] = [f(0xBEAA_AAAA), f(0x3E4C_CB01), f(0xBE11_FCC2), f(0x3DDA_7D11), f(0xBD7E_9982)];
const ATAN_F64: [f64; 12] = [
    d(0xBFD5_5555_5555_5555),
    d(0x3FC9_9999_9999_98C5),
    d(0xBFC2_4924_9248_5503),
    d(0x3FBC_71C7_1BD2_B8BC),
    d(0xBFB7_45D1_54C8_4F7A),
    d(0x3FB3_B137_5CE5_BDC6),
    d(0xBFB1_10C9_CE7B_0572),
    d(0x3FAE_1708_00A4_6210),
    d(0xBFAA_B59B_417B_2D3F),
    d(0x3FA7_0018_16FD_063F),
    d(0xBFA0_F62B_BA6A_2558),
    d(0x3F8E_4167_464D_3DE8),
];

const EXP_F32: [f32; 6] = [f(0x3F00_0000), f(0x3E2A_AAAB), f(0x3D2A_AA72), f(0x3C08_8870), f(0x3AB6_A488), f(0x3950_951A)];
const EXP_F64: [f64; 11] = [
    d(0x3FE0_0000_0000_0000),
    d(0x3FC5_5555_5555_5557),
    d(0x3FA5_5555_5555_5556),
    d(0x3F81_1111_1110_FF8B),
    d(0x3F56_C16C_16C1_6214),
    d(0x3F2A_01A0_1AC9_DE9E),
    d(0x3EFA_01A0_1A74_077A),
    d(0x3EC7_1DDF_FF65_73D6),
    d(0x3E92_7E4D_A1E1_2FB1),
    d(0x3E5A_F528_2AAC_DB2E),
    d(0x3E21_F75A_3CAA_DFF5),
];
const EXP2_F32: [f32; 6] = [f(0x3E75_FDF0), f(0x3D63_5847), f(0x3C1D_952A), f(0x3AAE_C3E0), f(0x3922_09C5), f(0x3780_4510)];
const EXP2_F64: [f64; 11] = [
    d(0x3FCE_BFBD_FF82_C58F),
    d(0x3FAC_6B08_D704_A0C2),
    d(0x3F83_B2AB_6FBA_4E78),
    d(0x3F55_D87F_E78A_5276),
    d(0x3F24_3091_2F86_BF52),
    d(0x3EEF_FCBF_C670_DCD4),
    d(0x3EB6_2C02_2401_B97D),
    d(0x3E7B_524F_AE62_7834),
    d(0x3E3E_4CF1_CD08_D4B8),
    d(0x3DFE_9D3F_E395_2179),
    d(0x3DBC_48F7_69AD_2C46),
];
const EXP2_LN2_F64: [f64; 2] = [d(0x3FE6_2E43_0000_0000), d(0xBE20_5C61_0CA8_6C39)];
const INV_LN2_F32_LO: f32 = f(0xB938_9AD4);
const INV_LN2_F64: [f64; 2] = [d(0x3FF7_1547_6800_0000), d(0xBE46_A3E8_0F44_4178)];
const TAN_F32: [f32; 6] = [f(0x3EAA_AAAA), f(0x3E08_88FC), f(0x3D5C_DF9B), f(0x3CB6_7997), f(0x3BEC_9328), f(0x3BD4_86BD)];
const TAN_F64: [f64; 13] = [
    d(0x3FD5_5555_5555_5555),
    d(0x3FC1_1111_1111_101D),
    d(0x3FAB_A1BA_1BA3_925C),
    d(0x3F96_64F4_8779_29F1),
    d(0x3F82_26E3_7904_106F),
    d(0x3F6D_6D34_E10F_8291),
    d(0x3F57_DAD2_01D0_058C),
    d(0x3F43_4DC9_CA0D_6331),
    d(0x3F2F_DCE3_D882_BA60),
    d(0x3F16_5E88_F944_6A56),
    d(0x3F10_294F_16FB_4CA8),
    d(0xBEE6_B893_A850_A176),
    d(0x3EF8_5639_F6EF_242A),
];
const ASIN_F32: [f32; 6] = [f(0x3E2A_AAAA), f(0x3D99_9A18), f(0x3D36_ADDD), f(0x3CFE_C6D1), f(0x3C8C_7C8F), f(0x3D09_FF6A)];
const ASIN_F64: [f64; 13] = [
    d(0x3FC5_5555_5555_5556),
    d(0x3FB3_3333_3333_2ECA),
    d(0x3FA6_DB6D_B6E3_1F13),
    d(0x3F9F_1C71_C1DB_0623),
    d(0x3F96_E8BB_1C82_09A2),
    d(0x3F91_C4D3_5CF9_5421),
    d(0x3F8C_9CF0_7674_736A),
    d(0x3F87_8265_1CAA_6547),
    d(0x3F85_2420_B04B_37BE),
    d(0x3F76_5A9C_4DFC_F8B2),
    d(0x3F91_D189_4083_14EE),
    d(0xBF8E_6AAA_8A0A_04CC),
    d(0x3F9D_72B2_BC81_55F8),
];
const POW_F32: [f32; 2] = [f(0x3F2A_AAAB), f(0x3ECC_DE68)];
const POW_F64: [f64; 4] = [d(0x3FE5_5555_5555_5555), d(0x3FD9_9999_999A_E5F2), d(0x3FD2_4924_5C57_2371), d(0x3FCC_7761_95B7_CE48)];
const LOG_F32: [f32; 3] = [f(0x3F2A_AAAE), f(0x3ECC_BE08), f(0x3E97_75ED)];
const LOG_F64: [f64; 7] = [
    d(0x3FE5_5555_5555_5558),
    d(0x3FD9_9999_9999_51F5),
    d(0x3FD2_4924_92E0_B70C),
    d(0x3FCC_71C6_2C42_DB89),
    d(0x3FC7_462B_E245_EAE3),
    d(0x3FC3_9FD2_5D62_AB23),
    d(0x3FC2_B677_6A1B_F0B9),
];

/// Every polynomial's coefficients as this reference evaluates them, by table
/// name, as (width, bits) words: for a check that the spec states the same
/// bits for each (`tests/tests/coefficients.rs`), also where no input moves
/// the result by a coefficient's last bit (the high-order f64 terms).
pub fn polynomial_coefficients() -> Vec<(&'static str, u32, Vec<u64>)> {
    let w32 = |c: &[f32]| c.iter().map(|x| u64::from(x.to_bits())).collect::<Vec<_>>();
    let w64 = |c: &[f64]| c.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    vec![
        ("sin", 32, w32(&SIN_F32)),
        ("cos", 32, w32(&COS_F32)),
        ("atan", 32, w32(&ATAN_F32)),
        ("exp", 32, w32(&EXP_F32)),
        ("exp2", 32, w32(&EXP2_F32)),
        ("tan", 32, w32(&TAN_F32)),
        ("asin", 32, w32(&ASIN_F32)),
        ("pow", 32, w32(&POW_F32)),
        ("log", 32, w32(&LOG_F32)),
        ("sin", 64, w64(&SIN_F64)),
        ("cos", 64, w64(&COS_F64)),
        ("atan", 64, w64(&ATAN_F64)),
        ("exp", 64, w64(&EXP_F64)),
        ("exp2", 64, w64(&EXP2_F64)),
        ("tan", 64, w64(&TAN_F64)),
        ("asin", 64, w64(&ASIN_F64)),
        ("pow", 64, w64(&POW_F64)),
        ("log", 64, w64(&LOG_F64)),
    ]
}

impl Trig for f32 {
    const TWO_OVER_PI: f32 = f(0x3F22_F983);
    const ROUNDER: f32 = 12_582_912.0;
    const PIO2: [f32; 4] = [f(0x3FC9_0000), f(0x39FD_A000), f(0x33A2_2000), f(0x2C34_611A)];
    const DOMAIN: f32 = 8192.0;
    fn sin_coefficients() -> &'static [f32] {
        &SIN_F32
    }
    fn cos_coefficients() -> &'static [f32] {
        &COS_F32
    }
    const ATAN_BREAKS: [f32; 4] = [0.4375, 0.6875, 1.1875, 2.4375];
    const ATAN_HI: [f32; 4] = [f(0x3EED_6338), f(0x3F49_0FDB), f(0x3F7B_985F), f(0x3FC9_0FDB)];
    const ATAN_LO: [f32; 4] = [f(0x31AC_376A), f(0xB2BB_BD2E), f(0xB2D7_E096), f(0xB33B_BD2E)];
    fn atan_coefficients() -> &'static [f32] {
        &ATAN_F32
    }
    const ATAN2_BEHIND_HI: [f32; 5] = [f(0x4049_0FDB), f(0x402B_6374), f(0x4016_CBE4), f(0x400A_29C3), f(0x3FC9_0FDB)];
    const ATAN2_BEHIND_LO: [f32; 5] = [f(0xB3BB_BD2E), f(0xB3C6_80A5), f(0xB1CC_DE2E), f(0xB138_A11D), f(0xB33B_BD2E)];
    const ATAN2_SCALE: f32 = f(0x5B80_0000);
    const LOG2_E: f32 = f(0x3FB8_AA3B);
    const LN2: [f32; 2] = [f(0x3F31_7200), f(0x35BF_BE8E)];
    const EXP_RANGE: [f32; 2] = [-104.0, 89.0];
    fn exp_coefficients() -> &'static [f32] {
        &EXP_F32
    }
    fn log_coefficients() -> &'static [f32] {
        &LOG_F32
    }
    fn tan_coefficients() -> &'static [f32] {
        &TAN_F32
    }
    const TAN_BREAK: f32 = 0.671_875;
    fn asin_coefficients() -> &'static [f32] {
        &ASIN_F32
    }
    const ASIN_NEAR_ONE: f32 = 0.968_75;
    const EXP2_RANGE: [f32; 2] = [-151.0, 129.0];
    const EXP2_GRID: f32 = 6144.0;
    const EXP2_LN2: [f32; 2] = [f(0x3F31_7000), f(0x3805_FDF4)];
    fn exp2_coefficients() -> &'static [f32] {
        &EXP2_F32
    }
    const INV_LN2: [f32; 2] = [f(0x3FB8_B000), INV_LN2_F32_LO];
    const VELTKAMP: f32 = 4097.0;
    const POW2_STEPS: u32 = 7;
    const POW2_OFFSET: i32 = 76;
    const SUBNORMAL_SHIFT: i32 = 24;
    const MIN_NORMAL: f32 = f32::MIN_POSITIVE;
    const MAX: f32 = f32::MAX;
    const SQRT_2: f32 = f(0x3FB5_04F3);
    const POW_BREAKS: [f32; 8] =
        [f(0x3F3D_08A4), f(0x3F4E_248C), f(0x3F60_CCDF), f(0x3F75_257D), f(0x3F85_AAC3), f(0x3F91_C3D3), f(0x3F9E_F532), f(0x3FAD_583F)];
    const POW_C: [f32; 9] = [
        f(0x3F35_04F3),
        f(0x3F45_672A),
        f(0x3F57_44FD),
        f(0x3F6A_C0C7),
        1.0,
        f(0x3F8B_95C2),
        f(0x3F98_37F0),
        f(0x3FA5_FED7),
        f(0x3FB5_04F3),
    ];
    const POW_LOG_C: [[f32; 9]; 2] = [
        [
            f(0xBEB1_7219),
            f(0xBE85_1592),
            f(0xBE31_7217),
            f(0xBDB1_7217),
            0.0,
            f(0x3DB1_721A),
            f(0x3E31_7216),
            f(0x3E85_1593),
            f(0x3EB1_7217),
        ],
        [
            f(0x326A_5705),
            f(0xB19B_4653),
            f(0x2FA1_F661),
            f(0xB095_0444),
            0.0,
            f(0xB158_441F),
            f(0xB133_38CD),
            f(0x3002_5596),
            f(0x3249_9E43),
        ],
    ];
    const POW_LN2: [f32; 3] = [f(0x3F31_7200), f(0x35BF_BF00), f(0xAD63_0865)];
    fn pow_coefficients() -> &'static [f32] {
        &POW_F32
    }
    const POW_Y_LIMIT: f32 = f(0x5080_0000);
    const POW_WHOLE: f32 = 8_388_608.0;
    fn pow2(e: i32) -> f32 {
        assert!((-126..=127).contains(&e), "2^{e} is not a normal binary32 number");
        f32::from_bits(((e + 127) as u32) << 23)
    }
    fn whole(n: i32) -> f32 {
        assert!(n.unsigned_abs() < 1 << 24);
        n as f32
    }
}

impl Trig for f64 {
    const TWO_OVER_PI: f64 = d(0x3FE4_5F30_6DC9_C883);
    const ROUNDER: f64 = 6_755_399_441_055_744.0;
    const PIO2: [f64; 4] = [d(0x3FF9_21FB_5440_0000), d(0x3DD0_B461_1A60_0000), d(0x3BA3_198A_2E00_0000), d(0x397B_839A_2520_49C1)];
    const DOMAIN: f64 = 1_048_576.0;
    fn sin_coefficients() -> &'static [f64] {
        &SIN_F64
    }
    fn cos_coefficients() -> &'static [f64] {
        &COS_F64
    }
    const ATAN_BREAKS: [f64; 4] = [0.4375, 0.6875, 1.1875, 2.4375];
    const ATAN_HI: [f64; 4] = [d(0x3FDD_AC67_0561_BB4F), d(0x3FE9_21FB_5444_2D18), d(0x3FEF_730B_D281_F69B), d(0x3FF9_21FB_5444_2D18)];
    const ATAN_LO: [f64; 4] = [d(0x3C7A_2B7F_222F_65E2), d(0x3C81_A626_3314_5C07), d(0x3C70_0788_7AF0_CBBD), d(0x3C91_A626_3314_5C07)];
    fn atan_coefficients() -> &'static [f64] {
        &ATAN_F64
    }
    const ATAN2_BEHIND_HI: [f64; 5] =
        [d(0x4009_21FB_5444_2D18), d(0x4005_6C6E_7397_F5AE), d(0x4002_D97C_7F33_21D2), d(0x4001_4538_5FA3_AF71), d(0x3FF9_21FB_5444_2D18)];
    const ATAN2_BEHIND_LO: [f64; 5] =
        [d(0x3CA1_A626_3314_5C07), d(0x3CA6_60B6_4ECE_6F4B), d(0x3C9A_7939_4C9E_8A0A), d(0x3CAF_A535_23B6_428F), d(0x3C91_A626_3314_5C07)];
    const ATAN2_SCALE: f64 = d(0x4630_0000_0000_0000);
    const LOG2_E: f64 = d(0x3FF7_1547_652B_82FE);
    const LN2: [f64; 2] = [d(0x3FE6_2E42_FEFA_3800), d(0x3D2E_F357_93C7_6730)];
    const EXP_RANGE: [f64; 2] = [-746.0, 710.0];
    fn exp_coefficients() -> &'static [f64] {
        &EXP_F64
    }
    fn log_coefficients() -> &'static [f64] {
        &LOG_F64
    }
    fn tan_coefficients() -> &'static [f64] {
        &TAN_F64
    }
    const TAN_BREAK: f64 = 0.671_875;
    fn asin_coefficients() -> &'static [f64] {
        &ASIN_F64
    }
    const ASIN_NEAR_ONE: f64 = 0.968_75;
    const EXP2_RANGE: [f64; 2] = [-1076.0, 1025.0];
    const EXP2_GRID: f64 = 100_663_296.0;
    const EXP2_LN2: [f64; 2] = EXP2_LN2_F64;
    fn exp2_coefficients() -> &'static [f64] {
        &EXP2_F64
    }
    const INV_LN2: [f64; 2] = INV_LN2_F64;
    const VELTKAMP: f64 = 134_217_729.0;
    const POW2_STEPS: u32 = 10;
    const POW2_OFFSET: i32 = 538;
    const SUBNORMAL_SHIFT: i32 = 54;
    const MIN_NORMAL: f64 = f64::MIN_POSITIVE;
    const MAX: f64 = f64::MAX;
    const SQRT_2: f64 = d(0x3FF6_A09E_667F_3BCD);
    const POW_BREAKS: [f64; 8] = [
        d(0x3FE7_A114_73EB_0187),
        d(0x3FE9_C491_82A3_F090),
        d(0x3FEC_199B_DD85_529C),
        d(0x3FEE_A4AF_A2A4_90DA),
        d(0x3FF0_B558_6CF9_890F),
        d(0x3FF2_387A_6E75_6238),
        d(0x3FF3_DEA6_4C12_3422),
        d(0x3FF5_AB07_DD48_5429),
    ];
    const POW_C: [f64; 9] = [
        d(0x3FE6_A09E_667F_3BCD),
        d(0x3FE8_ACE5_422A_A0DB),
        d(0x3FEA_E89F_995A_D3AD),
        d(0x3FED_5818_DCFB_A487),
        1.0,
        d(0x3FF1_72B8_3C7D_517B),
        d(0x3FF3_06FE_0A31_B715),
        d(0x3FF4_BFDA_D536_2A27),
        d(0x3FF6_A09E_667F_3BCD),
    ];
    const POW_LOG_C: [[f64; 9]; 2] = [
        [
            d(0xBFD6_2E42_FEFA_39EE),
            d(0xBFD0_A2B2_3F3B_AB74),
            d(0xBFC6_2E42_FEFA_39F1),
            d(0xBFB6_2E42_FEFA_39F0),
            0.0,
            d(0x3FB6_2E42_FEFA_39F1),
            d(0x3FC6_2E42_FEFA_39EE),
            d(0x3FD0_A2B2_3F3B_AB73),
            d(0x3FD6_2E42_FEFA_39F0),
        ],
        [
            d(0x3C37_16FD_FDBC_882E),
            d(0xBC75_751A_DA17_6580),
            d(0x3C31_BE94_B9B3_8E2E),
            d(0xBC5F_EC65_B690_DEBD),
            0.0,
            d(0x3C4C_6DFC_E592_B4BA),
            d(0x3BF4_3CF3_6D08_A40C),
            d(0x3C4B_AF64_D5D7_033B),
            d(0x3C7C_2E0E_1B15_48C2),
        ],
    ];
    const POW_LN2: [f64; 3] = [d(0x3FE6_2E42_FEFA_3800), d(0x3D2E_F357_93C7_6800), d(0xBA59_FF03_4254_2FC3)];
    fn pow_coefficients() -> &'static [f64] {
        &POW_F64
    }
    const POW_Y_LIMIT: f64 = d(0x43F0_0000_0000_0000);
    const POW_WHOLE: f64 = 4_503_599_627_370_496.0;
    fn pow2(e: i32) -> f64 {
        assert!((-1022..=1023).contains(&e), "2^{e} is not a normal binary64 number");
        f64::from_bits(((e + 1023) as u64) << 52)
    }
    fn whole(n: i32) -> f64 {
        f64::from(n)
    }
}

/// Horner's rule in `u`, highest coefficient innermost: c0 + u (c1 + u (...)).
fn horner<T: Real>(c: &[T], u: T) -> T {
    let (last, rest) = c.split_last().expect("a polynomial has a coefficient");
    rest.iter().rev().fold(*last, |acc, &ci| ci + u * acc)
}

/// The nine polynomials, each also a function of the contract (its
/// `[families.<name>_poly]`): Horner's rule on the table, for any argument.
macro_rules! polynomials {
    ($($(#[$doc:meta])* $name:ident = $table:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name<T: Trig>(v: T) -> T {
            horner(T::$table(), v)
        }
    )*};
}

polynomials! {
    /// sin's S(u) in sincos, u = r r.
    sin_poly = sin_coefficients;
    /// cos's C(u) in sincos, u = r r.
    cos_poly = cos_coefficients;
    /// tan's P(u), u = v v.
    tan_poly = tan_coefficients;
    /// atan's and atan2's P(u), u = t t.
    atan_poly = atan_coefficients;
    /// asin's and acos's P(z).
    asin_poly = asin_coefficients;
    /// exp's and pow's P(r).
    exp_poly = exp_coefficients;
    /// exp2's P(r).
    exp2_poly = exp2_coefficients;
    /// log's and log2's P(z), z = s s.
    log_poly = log_coefficients;
    /// pow's own log's P(z), z = sh sh.
    pow_poly = pow_coefficients;
}

/// The error of `s = a - b` (Knuth's two-sum of a and -b, no magnitude test):
/// `(a - b) - s` exactly.
fn two_diff_err<T: Real>(a: T, b: T, s: T) -> T {
    let v = s - a;
    (a - (s - v)) - (b + v)
}

/// The reduction by pi/2 (the module doc's step 1): `(k, r, rl)` with `a =
/// k pi/2 + r + rl` inside the domain.
fn reduce_by_half_pi<T: Trig>(a: T) -> (T, T, T) {
    let [p1, p2, p3, p4] = T::PIO2;
    let k = round_whole(a * T::TWO_OVER_PI);
    let ra = a - k * p1;
    let rb = k * p2;
    let s1 = ra - rb;
    let e1 = two_diff_err(ra, rb, s1);
    let rc = k * p3;
    let s2 = s1 - rc;
    let e2 = two_diff_err(s1, rc, s2);
    let tl = (e1 + e2) - k * p4;
    let r = s2 + tl;
    let rl = tl - (r - s2);
    (k, r, rl)
}

/// The error of `s = a + b` (Knuth's two-sum, no magnitude test): `(a + b) -
/// s` exactly, as `(a - (s - v)) + (b - v)` with `v = s - a`.
fn two_sum_err<T: Real>(a: T, b: T, s: T) -> T {
    let v = s - a;
    (a - (s - v)) + (b - v)
}

/// `(sin a, cos a)` as the contract states it (module doc).
// Outside the domain the contract's NaN is `z / z` with `z = a - a`: the
// equal operands are the point.
#[allow(clippy::eq_op)]
pub fn sincos<T: Trig>(a: T) -> Vec2<T> {
    let (k, r, rl) = reduce_by_half_pi(a);
    let u = r * r;
    let sin_r = r + (r * u * sin_poly(u) + rl);
    let half_u = T::HALF * u;
    let w = T::ONE - half_u;
    let lost = (T::ONE - w) - half_u;
    let cos_r = w + ((u * u * cos_poly(u) - r * rl) + lost);
    let four = T::TWO + T::TWO;
    let quarter = T::HALF * T::HALF;
    let three_eighths = quarter + quarter * T::HALF;
    let q = k - four * round_whole(k * quarter - three_eighths);
    let neg = |x: T| x * T::NEG_ONE;
    let (s, c) = if q == T::ZERO {
        (sin_r, cos_r)
    } else if q == T::ONE {
        (cos_r, neg(sin_r))
    } else if q == T::TWO {
        (neg(sin_r), neg(cos_r))
    } else {
        (neg(cos_r), sin_r)
    };
    let s = if a == T::ZERO { a } else { s };
    if a.abs() <= T::DOMAIN {
        Vec2::new(s, c)
    } else {
        let z = a - a;
        Vec2::new(z / z, z / z)
    }
}

/// `sin a`: [`sincos`]'s first result.
pub fn sin<T: Trig>(a: T) -> T {
    sincos(a).x
}

/// `cos a`: [`sincos`]'s second result.
pub fn cos<T: Trig>(a: T) -> T {
    sincos(a).y
}

/// `atan x` as the contract states it: on `a = |x|`, the interval of the
/// breakpoints 7/16, 11/16, 19/16, 39/16 picks `t` (one division, its
/// numerator exact) and the constant `ch + cl` added back:
///
/// ```text
/// a < 7/16   t = a / 1                   c = 0
/// a < 11/16  t = (2a - 1) / (2 + a)      c = atan(1/2)
/// a < 19/16  t = (a - 1) / (a + 1)       c = pi/4
/// a < 39/16  t = (a - 1.5) / (1 + 1.5a)  c = atan(3/2)
/// else       t = -1 / a                  c = pi/2
/// ```
///
/// then `r = ch + (t + ((t u) P(u) + cl))` with `u = t t`; the result is `r`,
/// `r * -1` for a negative `x`, and `x` itself for a zero `x`.
pub fn atan<T: Trig>(x: T) -> T {
    let a = x.abs();
    let one = T::ONE;
    let three_halves = one + T::HALF;
    let (num, den, ch, cl) = match T::ATAN_BREAKS.iter().position(|&b| a < b) {
        Some(0) => (a, one, T::ZERO, T::ZERO),
        Some(1) => (T::TWO * a - one, T::TWO + a, T::ATAN_HI[0], T::ATAN_LO[0]),
        Some(2) => (a - one, a + one, T::ATAN_HI[1], T::ATAN_LO[1]),
        Some(3) => (a - three_halves, one + three_halves * a, T::ATAN_HI[2], T::ATAN_LO[2]),
        // Past the last breakpoint, and NaN (no comparison holds).
        _ => (T::NEG_ONE, a, T::ATAN_HI[3], T::ATAN_LO[3]),
    };
    let t = num / den;
    let u = t * t;
    let p = t * u * atan_poly(u);
    let r = ch + (t + (p + cl));
    if x == T::ZERO {
        x
    } else if x < T::ZERO {
        r * T::NEG_ONE
    } else {
        r
    }
}

/// Whether `v` is negative or `-0`: `v < 0 || (v == 0 && 1 / v < 0)`.
fn negative_or_minus_zero<T: Real>(v: T) -> bool {
    v < T::ZERO || (v == T::ZERO && T::ONE / v < T::ZERO)
}

/// `atan2(y, x)` as the contract states it: atan's reduction on `a = |y|`,
/// `b = |x|` (both scaled by a power of two near the ends of the range, both
/// 1 when both are infinite), each interval's `t` a ratio with an exact
/// numerator (the fourth's rounded once, 1.5 b carried as a Fast2Sum), the constants `pi - c` for a negative (or `-0`) `x`, then the
/// zero `y` and the sign of `y`.
pub fn atan2<T: Trig>(y: T, x: T) -> T {
    atan2_steps(y, x, true)
}

/// atan2's steps; with `carried` false the ratio's roundings are dropped (tk
/// = 0: the unit tests' negative control).
fn atan2_steps<T: Trig>(y: T, x: T, carried: bool) -> T {
    let (a0, b0) = (y.abs(), x.abs());
    let m0 = a0.fmax(b0);
    let big = T::ATAN2_SCALE;
    let small = T::ONE / big;
    let sc = if m0 >= big {
        small
    } else if m0 < small {
        big
    } else {
        T::ONE
    };
    let both_infinite = a0 == b0 && !a0.is_finite();
    let (a, b) = if both_infinite { (T::ONE, T::ONE) } else { (a0 * sc, b0 * sc) };
    let interval = T::ATAN_BREAKS.iter().position(|&k| a < k * b).unwrap_or(4);
    // The numerator (exact but the fourth's, whose rounding is nl) and the
    // denominator as dx + dy (rounded once; dl its rounding).
    let (num, nl, dx, dy, dy_lost) = match interval {
        0 => (a, T::ZERO, b, T::ZERO, T::ZERO),
        1 => (T::TWO * a - b, T::ZERO, T::TWO * b, a, T::ZERO),
        2 => (a - b, T::ZERO, a, b, T::ZERO),
        3 => {
            // 1.5 b exactly as s15 + e15 (Fast2Sum of b and b/2); 1.5 a
            // rounded as c15 = a + a/2, its rounding by Fast2Sum.
            let hb = T::HALF * b;
            let s15 = b + hb;
            let e15 = hb - (s15 - b);
            let nd = a - s15;
            let n = nd - e15;
            let c15 = a + T::HALF * a;
            (n, two_diff_err(nd, e15, n), b, c15, T::HALF * a - (c15 - a))
        }
        _ => (b * T::NEG_ONE, T::ZERO, a, T::ZERO, T::ZERO),
    };
    let den = dx + dy;
    let dl = dy_lost + two_sum_err(dx, dy, den);
    let t = num / den;
    let u = t * t;
    let p = t * u * atan_poly(u);
    // The rest of the exact ratio, (num + nl) / (den + dl) - t, to first order.
    let tl = if t == T::ZERO || !carried {
        T::ZERO
    } else {
        let (ph, pn) = exact_product(t, den);
        ((nl - t * dl) + ((num - ph) + pn)) / den
    };
    let tk = tl - tl * u;
    let x_negative = negative_or_minus_zero(x);
    let m = if x_negative {
        T::ATAN2_BEHIND_HI[interval] - (t + (p + (tk - T::ATAN2_BEHIND_LO[interval])))
    } else if interval == 0 {
        T::ZERO + (t + (p + (T::ZERO + tk)))
    } else {
        T::ATAN_HI[interval - 1] + (t + (p + (T::ATAN_LO[interval - 1] + tk)))
    };
    // x is not NaN: `isfinite(b0) || isfinite(1 / b0)`.
    let x_number = b0.is_finite() || (T::ONE / b0).is_finite();
    let m = if a0 == T::ZERO && x_number {
        if x_negative {
            T::ATAN2_BEHIND_HI[0]
        } else {
            T::ZERO
        }
    } else {
        m
    };
    if negative_or_minus_zero(y) {
        m * T::NEG_ONE
    } else {
        m
    }
}

/// Rounds `t` to the nearest integer, ties to even, by adding and subtracting
/// `1.5 * 2^p` (valid for `|t| < 2^(p-1)`).
fn round_whole<T: Trig>(t: T) -> T {
    (t + T::ROUNDER) - T::ROUNDER
}

/// `x` clamped to `[lo, hi]` by two comparisons (a NaN passes both and stays).
fn clamp<T: Real>(x: T, [lo, hi]: [T; 2]) -> T {
    if x > hi {
        hi
    } else if x < lo {
        lo
    } else {
        x
    }
}

/// `e 2^k` for a whole `k` of exp's range with one rounding, as the contract's
/// exp step 4 states: `(e w) (w 2^d)` with `w = 2^round(k/2)` exact and `d = k -
/// 2 round(k/2)`; `w` from the bits of `j = round(k/2) + OFFSET`, each bit by
/// exact floors, each factor `1 + b C` (1 or a power of two), no branch.
fn times_pow2<T: Trig>(e: T, k: T) -> T {
    let ka = round_whole(k * T::HALF);
    let d = k - T::TWO * ka;
    let off = T::POW2_OFFSET;
    let j = ka + T::whole(off);
    // q_i = floor(j / 2^i), i = 0..=top, by rounding j 2^-i - (1/2 - 2^-(i+1)).
    let top = T::POW2_STEPS;
    let q: Vec<T> = (0..=top as i32).map(|i| if i == 0 { j } else { round_whole(j * T::pow2(-i) - (T::HALF - T::pow2(-i - 1))) }).collect();
    let bit = |i: usize| q[i] - T::TWO * q[i + 1];
    // s0 = 2^-off + b_top 2^(2^top - off), then the factors for bits top-1 down to 0.
    let s0 = T::pow2(-off) + q[top as usize] * T::pow2((1 << top) - off);
    let w = (0..top as usize).rev().fold(s0, |w, i| {
        // C_i = 2^(2^i) - 1 rounded; 1 + b C_i is then 1 or exactly 2^(2^i).
        let c = T::pow2(1 << i) - T::ONE;
        w * (T::ONE + bit(i) * c)
    });
    let quarter = T::HALF * T::HALF;
    let two_d = T::ONE + d * ((T::HALF + quarter) + quarter * d);
    (e * w) * (w * two_d)
}

/// `exp x` as the contract states it: the range clamp, `k = round(x log2 e)`,
/// `r + rl = x - k (C1 + C2)` (the first product and difference exact, the
/// second's rounding kept by a two-sum), `e = hi + (lo + ((r r) P(r) + rl))`
/// with `hi + lo = 1 + r` exactly, then `e 2^k` by [`times_pow2`].
pub fn exp<T: Trig>(x: T) -> T {
    let xc = clamp(x, T::EXP_RANGE);
    let [c1, c2] = T::LN2;
    let k = round_whole(xc * T::LOG2_E);
    let s = xc - k * c1;
    let rd = k * c2;
    let r = s - rd;
    let rl = two_diff_err(s, rd, r);
    exp_finish(k, r, rl)
}

/// exp's steps 3 and 4 on the reduced argument `r + rl` (what exp and pow
/// share): `e = hi + (lo + ((r r) P(r) + rl))` with `hi + lo = 1 + r`
/// exactly, then `e 2^k` by [`times_pow2`].
fn exp_finish<T: Trig>(k: T, r: T, rl: T) -> T {
    let p = r * r * exp_poly(r);
    let hi = T::ONE + r;
    let lo = (T::ONE - hi) + r;
    times_pow2(hi + (lo + (p + rl)), k)
}

/// `2^x` as the contract states it: the range clamp, `k = round(x)`, `r = x -
/// k` exact, `r = rh + rl` with `rh` on a grid of `2^-11` (f64 `2^-26`),
/// `2^r = hi + (lo + (rl C1 + (r C2 + (r r) P(r))))` with `hi + lo = 1 + rh
/// C1` exactly (ln 2 = C1 + C2, C1 short), then `2^r 2^k` by [`times_pow2`].
pub fn exp2<T: Trig>(x: T) -> T {
    let xc = clamp(x, T::EXP2_RANGE);
    let k = round_whole(xc);
    let r = xc - k;
    let grid = T::EXP2_GRID;
    let rh = (r + grid) - grid;
    let rl = r - rh;
    let [c1, c2] = T::EXP2_LN2;
    let p = r * r * exp2_poly(r);
    let t = rh * c1;
    let hi = T::ONE + t;
    let lo = (T::ONE - hi) + t;
    times_pow2(hi + (lo + (rl * c1 + (r * c2 + p))), k)
}

/// What log and log2 share (the contract's log steps 1 and 2): `x = m 2^k`
/// taken apart exactly (a subnormal pre-scaled, then one greedy step per
/// bit, each multiplying by an exact power of two), `m` halved above sqrt 2,
/// and `(k, f, h, s, rz)` with `f = m - 1`, `h = (0.5 f) f`, `s = f / (2 +
/// f)`, `rz = z P(z)`, `z = s s`, so that `log(1 + f) = f - (h - s (h +
/// rz))`. For a positive finite `x`.
fn log_parts<T: Trig>(x: T) -> [T; 5] {
    let (k, m) = log_reduce(x);
    let f = m - T::ONE;
    let h = T::HALF * f * f;
    let s = f / (T::TWO + f);
    let z = s * s;
    [k, f, h, s, z * log_poly(z)]
}

/// log's step 1: `(k, m)` with `x = m 2^k` exactly, `m` in [sqrt 1/2, sqrt 2]
/// (rounded), for a positive finite `x`.
fn log_reduce<T: Trig>(x: T) -> (T, T) {
    let shift = T::SUBNORMAL_SHIFT;
    let (mut m, mut k) = if x < T::MIN_NORMAL { (x * T::pow2(shift), T::whole(-shift)) } else { (x, T::ZERO) };
    for b in (0..T::POW2_STEPS).rev() {
        let bit = 1i32 << b;
        if m >= T::pow2(bit) {
            m = m * T::pow2(-bit);
            k = k + T::whole(bit);
        } else if m < T::pow2(1 - bit) {
            m = m * T::pow2(bit);
            k = k - T::whole(bit);
        }
    }
    if m > T::SQRT_2 {
        m = m * T::HALF;
        k = k + T::ONE;
    }
    (k, m)
}

/// log's and log2's special values: NaN below zero (`z0 / z0`, `z0 = x -
/// x`), -inf at +-0, +inf at +inf; `None` for a positive finite `x` (and NaN,
/// which the steps carry).
// The contract's NaN is `z0 / z0`: the equal operands are the point.
#[allow(clippy::eq_op)]
fn log_special<T: Trig>(x: T) -> Option<T> {
    let z0 = x - x;
    if x < T::ZERO {
        Some(z0 / z0)
    } else if x == T::ZERO {
        Some(T::NEG_ONE / (x * x))
    } else if x > T::MAX {
        Some(x)
    } else {
        None
    }
}

/// `log x` as the contract states it: [`log_parts`], then `k C1 + (f - (h -
/// (s (h + rz) + k C2)))`; the special values by [`log_special`].
pub fn log<T: Trig>(x: T) -> T {
    if let Some(v) = log_special(x) {
        return v;
    }
    let [k, f, h, s, rz] = log_parts(x);
    let [c1, c2] = T::LN2;
    k * c1 + (f - (h - (s * (h + rz) + k * c2)))
}

/// `log2 x` as the contract states it: [`log_parts`], then `h0 = f - h`
/// split by Veltkamp into its leading part `hi`, `lo = ((f - hi) - h) + s (h
/// + rz)`, `vh = hi I1` (exact), `vl = (lo + hi) I2 + lo I1` (1 / ln 2 = I1 +
/// I2), `w = k + vh` and `w + (vl + ((k - w) + vh))`; the special values by
/// [`log_special`].
pub fn log2<T: Trig>(x: T) -> T {
    if let Some(v) = log_special(x) {
        return v;
    }
    let [k, f, h, s, rz] = log_parts(x);
    let h0 = f - h;
    let hc = h0 * T::VELTKAMP;
    let hi = hc - (hc - h0);
    let lo = ((f - hi) - h) + s * (h + rz);
    let [i1, i2] = T::INV_LN2;
    let vh = hi * i1;
    let vl = (lo + hi) * i2 + lo * i1;
    let w = k + vh;
    w + (vl + ((k - w) + vh))
}

/// `log x` in two parts for pow, `(lh, ll)` with `lh + ll = log x` to about
/// twice the precision, for a positive finite `x`: log's exponent `x = m
/// 2^k`, then `m` against the nearest centre `c` of nine (`POW_C`, picked by
/// the breakpoints), `s = (m - c) / (m + c)` in two parts (`m - c` exact by
/// Sterbenz, `m + c` as a two-sum, `sl` from the exact product `sh (m + c)`),
/// `log(m / c) = 2 atanh(s) = 2s + s z P(z)` (`z = sh sh`), and `k ln 2 +
/// log c` in parts (`k L1`, `k L2` exact): `t1 = k L1 + hi(c)`, `t2 = t1 + 2
/// sh` (each a Fast2Sum), the rest summed as `lo = (k L2 + (e1 + e2)) + ((t
/// + 2 sl) + (lo(c) + k L3))`, and `lh + ll = t2 + lo` by Fast2Sum.
fn pow_log<T: Trig>(x: T) -> (T, T) {
    let (k, m) = log_reduce(x);
    let j = T::POW_BREAKS.iter().filter(|&&b| m >= b).count();
    let (c, ch, cl) = (T::POW_C[j], T::POW_LOG_C[0][j], T::POW_LOG_C[1][j]);
    let d = m - c;
    let sh0 = m + c;
    let sl0 = two_sum_err(m, c, sh0);
    let sh = d / sh0;
    let (ph, pn) = exact_product(sh, sh0);
    let sl = (((d - ph) + pn) - sh * sl0) / sh0;
    let z = sh * sh;
    let t = sh * z * pow_poly(z);
    let [l1, l2, l3] = T::POW_LN2;
    let a1 = k * l1;
    let t1 = a1 + ch;
    let e1 = ch - (t1 - a1);
    let lh2 = T::TWO * sh;
    let t2 = t1 + lh2;
    let e2 = lh2 - (t2 - t1);
    let lo = (k * l2 + (e1 + e2)) + ((t + T::TWO * sl) + (cl + k * l3));
    let lh = t2 + lo;
    (lh, lo - (lh - t2))
}

/// `pow(x, y)` (`x^y`) as the contract states it: for a finite nonzero `x`
/// and finite `y`, `exp(y log |x|)` with `log |x| = lh + ll` by [`pow_log`],
/// `y` clamped to `+-POW_Y_LIMIT`, `y lh` by Dekker's exact product and
/// `y ll` added (`wh + wl` by Fast2Sum), then exp's steps on `wh` with `wl`
/// taken into the reduced argument by a two-sum (`wl` dropped when `wh` is
/// clamped); the sign of a negative `x` to an odd `y`. C99's special
/// values: `pow(x, +-0) = pow(1, y) = 1` (NaN too), NaN otherwise from NaN
/// (`x + y`), `y = +-inf` by `|x|` against 1 (`pow(-1, +-inf) = 1`), `x =
/// +-0` and `+-inf` by the sign of `y` (and `-0`/`-inf` to an odd `y`
/// signed), and NaN for a negative finite `x` to a non-integer `y`.
// The contract's NaN is `z0 / z0` with `z0 = |x| - |x|`, and its NaN test `v !=
// v`: the equal operands are the point.
#[allow(clippy::eq_op)]
pub fn pow<T: Trig>(x: T, y: T) -> T {
    let ax = x.abs();
    let ay = y.abs();
    let nearest = |v: T| if v >= T::POW_WHOLE { v } else { (v + T::POW_WHOLE) - T::POW_WHOLE };
    let yr = nearest(ay);
    let whole = yr == ay;
    let hy = yr * T::HALF;
    let odd = whole && hy != nearest(hy);
    let rx = T::ONE / x;
    let xneg = x < T::ZERO || (x == T::ZERO && rx < T::ZERO);
    if y == T::ZERO || x == T::ONE {
        return T::ONE;
    }
    if x != x || y != y {
        return x + y;
    }
    if ay > T::MAX {
        let grows = (ax < T::ONE && y < T::ZERO) || (ax > T::ONE && y > T::ZERO);
        return if ax == T::ONE {
            T::ONE
        } else if grows {
            ay
        } else {
            T::ZERO
        };
    }
    let mag = if ax == T::ZERO || ax > T::MAX {
        if y < T::ZERO {
            rx.abs()
        } else {
            ax
        }
    } else if x < T::ZERO && !whole {
        let z0 = ax - ax;
        return z0 / z0;
    } else {
        pow_finite(ax, y, true, true)
    };
    if xneg && odd {
        mag * T::NEG_ONE
    } else {
        mag
    }
}

/// `|x|^y` for a positive finite `x` and a finite `y` (the steps of
/// [`pow`]'s doc). The unit tests' negative controls take the protections
/// away: `carried` false drops log's low part `ll`, `clamped` false uses `y`
/// unclamped.
fn pow_finite<T: Trig>(ax: T, y: T, carried: bool, clamped: bool) -> T {
    let (lh, ll) = pow_log(ax);
    let ll = if carried { ll } else { T::ZERO };
    let lim = T::POW_Y_LIMIT;
    let yc = if clamped { clamp(y, [lim * T::NEG_ONE, lim]) } else { y };
    let (ph, pn) = exact_product(yc, lh);
    let yl = yc * ll - pn;
    let wh = ph + yl;
    let wl = yl - (wh - ph);
    let xc = clamp(wh, T::EXP_RANGE);
    let [c1, c2] = T::LN2;
    let k = round_whole(xc * T::LOG2_E);
    let s = xc - k * c1;
    let rd = k * c2;
    let r0 = s - rd;
    let rl0 = two_diff_err(s, rd, r0);
    let q = if xc == wh { rl0 + wl } else { rl0 };
    let r = r0 + q;
    exp_finish(k, r, two_sum_err(r0, q, r))
}

/// `tan a` as the contract states it, on sincos's reduction `(k, r, rl)`:
/// the argument `v` (+ `vl`) is `r` (+ `rl`), or `pi/4 - |r|` carried in two
/// parts when `|r| >= 43/64`; `te = v + lo` with `lo = (v u) P(u) + (vl + vl
/// tq^2)`, `tq = v + (v u) P(u)`. For even `k`: `te`, or `1 - 2 te / (1 +
/// te)` past 43/64 (negated for `r < 0`); for odd `k`: `-1 / (te + e)` with
/// the division's rounding corrected through Dekker's exact product, or
/// `-(1 + 2 te / (1 - te))` past 43/64 (negated for `r < 0`). `tan(+-0) =
/// +-0`; NaN outside the domain.
// Outside the domain the contract's NaN is `z / z` with `z = a - a`.
#[allow(clippy::eq_op)]
pub fn tan<T: Trig>(a: T) -> T {
    tan_steps(a, T::TAN_BREAK, true)
}

/// tan's steps with the switch to `pi/4 - |r|` at `break_at` and, when
/// `corrected` is false, a plain `-1 / te` on odd quadrants (the unit tests'
/// negative controls take the protections away one at a time).
#[allow(clippy::eq_op)]
fn tan_steps<T: Trig>(a: T, break_at: T, corrected: bool) -> T {
    let (k, r, rl) = reduce_by_half_pi(a);
    let (ar, al) = if r < T::ZERO { (r.abs(), rl * T::NEG_ONE) } else { (r.abs(), rl) };
    let big = ar >= break_at;
    let (v, vl) = if big {
        let yh = T::ATAN_HI[1] - ar;
        let yl = T::ATAN_LO[1] - al;
        let y = yh + yl;
        (y, yl - (y - yh))
    } else {
        (r, rl)
    };
    let u = v * v;
    let pt = v * u * tan_poly(u);
    let tq = v + pt;
    let lo = pt + (vl + vl * (tq * tq));
    let te = v + lo;
    let even = k - T::TWO * round_whole(k * T::HALF - T::HALF * T::HALF) == T::ZERO;
    let res = if big {
        let m = if even { T::ONE - T::TWO * te / (T::ONE + te) } else { (T::ONE + T::TWO * te / (T::ONE - te)) * T::NEG_ONE };
        if r < T::ZERO {
            m * T::NEG_ONE
        } else {
            m
        }
    } else if even {
        te
    } else if !corrected {
        T::NEG_ONE / te
    } else {
        let e = lo - (te - v);
        let q = T::NEG_ONE / te;
        let (ph, pn) = exact_product(q, te);
        q + q * (((T::ONE + ph) - pn) + q * e)
    };
    let res = if a == T::ZERO { a } else { res };
    if a.abs() <= T::DOMAIN {
        res
    } else {
        let z = a - a;
        z / z
    }
}

/// Dekker's product: `(p, n)` with `p = x y` rounded and `p - n = x y`
/// exactly (Veltkamp halves), the error term as the contract states it, a
/// chain of exact subtractions: `n = (((p - xh yh) - xh yl) - xl yh) - xl yl`.
fn exact_product<T: Trig>(x: T, y: T) -> (T, T) {
    let half = |z: T| {
        let c = z * T::VELTKAMP;
        let h = c - (c - z);
        (h, z - h)
    };
    let ((xh, xl), (yh, yl)) = (half(x), half(y));
    let p = x * y;
    (p, (((p - xh * yh) - xh * yl) - xl * yh) - xl * yl)
}

/// The steps asin and acos share, on `a = |x|`: whether `a < 1/2`, then `z`
/// (`a a`, or `(1 - a) / 2` past 1/2), `s = sqrt z`, `w = z P(z)`, the leading
/// half `sh` of `s` (Veltkamp) and `c = (z - sh sh) / (s + sh)`, the part of
/// `sqrt z` beyond `sh` (0 when `s` is 0).
struct AsinParts<T> {
    small: bool,
    s: T,
    w: T,
    sh: T,
    c: T,
}

fn asin_parts<T: Trig>(a: T) -> AsinParts<T> {
    let small = a < T::HALF;
    let z = if small { a * a } else { (T::ONE - a) * T::HALF };
    let s = z.sqrt();
    let w = z * asin_poly(z);
    let hc = s * T::VELTKAMP;
    let sh = hc - (hc - s);
    let c = if s == T::ZERO { T::ZERO } else { (z - sh * sh) / (s + sh) };
    AsinParts { small, s, w, sh, c }
}

/// `asin x` as the contract states it: `a + a w` below 1/2; past it pi/2 -
/// 2 asin(s) with the square root's rounding carried,
/// `q4 - ((2 (s w) - (p2l - 2 c)) - (q4 - 2 sh))` with pi/2 = p2h + p2l and
/// q4 = p2h / 2, and from 31/32 on `p2h - (2 (s + s w) - p2l)`; then the sign
/// of `x` (a zero `x` is returned as it is). NaN outside [-1, 1].
pub fn asin<T: Trig>(x: T) -> T {
    let a = x.abs();
    let AsinParts { small, s, w, sh, c } = asin_parts(a);
    let (p2h, p2l) = (T::ATAN_HI[3], T::ATAN_LO[3]);
    let r = if small {
        a + a * w
    } else if a < T::ASIN_NEAR_ONE {
        let q4 = p2h * T::HALF;
        let q = q4 - T::TWO * sh;
        let p = T::TWO * (s * w) - (p2l - T::TWO * c);
        q4 - (p - q)
    } else {
        p2h - (T::TWO * (s + s * w) - p2l)
    };
    if x == T::ZERO {
        x
    } else if x < T::ZERO {
        r * T::NEG_ONE
    } else {
        r
    }
}

/// `acos x` as the contract states it, on asin's steps: `p2h - (x - (p2l - x
/// w))` below 1/2 in magnitude; `pi - 2 (s + (s w - p2l))` (pi = 2 p2h) for
/// negative `x` past it; `2 (sh + (s w + c))` for positive `x` past it. NaN
/// outside [-1, 1].
pub fn acos<T: Trig>(x: T) -> T {
    let AsinParts { small, s, w, sh, c } = asin_parts(x.abs());
    let (p2h, p2l) = (T::ATAN_HI[3], T::ATAN_LO[3]);
    if small {
        p2h - (x - (p2l - x * w))
    } else if x < T::ZERO {
        p2h * T::TWO - T::TWO * (s + (s * w - p2l))
    } else {
        T::TWO * (sh + (s * w + c))
    }
}

/// `from_axis_angle`: the rotation by `angle` about `axis` (used as given, not
/// normalised): with `(s, c) = sincos(angle * 0.5)`, the quaternion
/// `(c, axis.x * s, axis.y * s, axis.z * s)`.
pub fn from_axis_angle<T: Trig>(axis: Vec3<T>, angle: T) -> Quat<T> {
    let sc = sincos(angle * T::HALF);
    Quat::new(sc.y, axis.x * sc.x, axis.y * sc.x, axis.z * sc.x)
}

/// `slerp`: from `a` (t = 0) to `b` (t = 1) along the shorter arc. With
/// `d0 = dot(a, b)` (the contract's fold over `w, x, y, z`), `b` is negated
/// (`c = b * -1`, `d = d0 * -1`) when `d0 < 0`. When `d > 1 - 2^-11` the
/// result is `normalize(lerp(a, c, t))`; otherwise, with `th = acos(d)`,
/// component `i` is `(a[i] sin(th (1 - t)) + c[i] sin(th t)) * (1 / sin th)`.
pub fn slerp<T: Trig>(a: Quat<T>, b: Quat<T>, t: T) -> Quat<T> {
    let (qa, qb) = (a.to_array(), b.to_array());
    let d0 = crate::arrays::dot(qa, qb);
    let sg = if d0 < T::ZERO { T::NEG_ONE } else { T::ONE };
    let c = crate::arrays::scale(qb, sg);
    let d = d0 * sg;
    if d > T::ONE - T::pow2(-11) {
        return Quat::from_array(crate::arrays::normalize(crate::arrays::lerp(qa, c, t)));
    }
    let th = acos(d);
    let (s1, s2) = (sin(th * (T::ONE - t)), sin(th * t));
    let r = T::ONE / sin(th);
    Quat::from_array(std::array::from_fn(|i| (qa[i] * s1 + c[i] * s2) * r))
}

/// `from_euler_xyz`: `Rx(ax) Ry(ay) Rz(az)` written out, each entry's products
/// left to right and each negation a product by -1:
///
/// ```text
/// [ cy cz               (cy sz) * -1          sy           ]
/// [ (sx sy) cz + cx sz  cx cz - (sx sy) sz    (sx cy) * -1 ]
/// [ sx sz - (cx sy) cz  (cx sy) sz + sx cz    cx cy        ]
/// ```
pub fn from_euler_xyz<T: Trig>(ax: T, ay: T, az: T) -> Mat3<T> {
    let (x, y, z) = (sincos(ax), sincos(ay), sincos(az));
    let (sx, cx, sy, cy, sz, cz) = (x.x, x.y, y.x, y.y, z.x, z.y);
    let m1 = T::NEG_ONE;
    Mat3::from_rows([
        [cy * cz, (cy * sz) * m1, sy],
        [(sx * sy) * cz + cx * sz, cx * cz - (sx * sy) * sz, (sx * cy) * m1],
        [sx * sz - (cx * sy) * cz, (cx * sy) * sz + sx * cz, cx * cy],
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stated constants are what their names say, to their widths.
    #[test]
    fn constants_are_pi_over_two_in_parts() {
        let p: f64 = f32::PIO2.iter().map(|&x| f64::from(x)).sum();
        assert!((p - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
        for (x, bits) in f32::PIO2[..3].iter().zip([8, 11, 11]) {
            assert_eq!(x.to_bits() & ((1 << (24 - bits)) - 1), 0, "{x} has at most {bits} significant bits");
        }
        for x in &f64::PIO2[..3] {
            assert_eq!(x.to_bits() & ((1 << 20) - 1), 0, "{x} has at most 33 significant bits");
        }
    }

    /// Against the platform's libm on a grid: within 1 ulp (f32) and 2 ulp
    /// (f64) inside the domain, NaN outside. The full measurement is
    /// `docs/reports/elementary-functions.md`.
    #[test]
    fn close_to_the_platform_inside_the_domain_and_nan_outside() {
        for i in -20000..=20000 {
            let x = i as f32 * 0.4096;
            let ulp =
                |y: f32, r: f64| ((f64::from(y) - r).abs() / f64::from(f32::EPSILON) / r.abs().max(f64::from(f32::MIN_POSITIVE))).max(0.0);
            let v = sincos(x);
            assert!(ulp(v.x, f64::from(x).sin()) < 2.0 * 1.01, "sin {x}");
            assert!(ulp(v.y, f64::from(x).cos()) < 2.0 * 1.01, "cos {x}");
        }
        assert!(sin(8192.001f32).is_nan() && cos(f32::INFINITY).is_nan() && sin(f64::NAN).is_nan());
        assert!(sin(1_048_577.0f64).is_nan());
        assert_eq!(sin(-0.0f32).to_bits(), (-0.0f32).to_bits());
        assert_eq!(cos(-0.0f64), 1.0);
    }

    /// The rotations are rotations: from_euler_xyz is the product of the three
    /// single-axis matrices (to rounding), and from_axis_angle rotates as the
    /// matrix of the same rotation does.
    #[test]
    fn rotations_agree_with_their_definitions() {
        let (ax, ay, az) = (0.3f64, -1.1f64, 2.2f64);
        let m = from_euler_xyz(ax, ay, az);
        let rx = |a: f64| [[1.0, 0.0, 0.0], [0.0, a.cos(), -a.sin()], [0.0, a.sin(), a.cos()]];
        let ry = |a: f64| [[a.cos(), 0.0, a.sin()], [0.0, 1.0, 0.0], [-a.sin(), 0.0, a.cos()]];
        let rz = |a: f64| [[a.cos(), -a.sin(), 0.0], [a.sin(), a.cos(), 0.0], [0.0, 0.0, 1.0]];
        let mul = |a: [[f64; 3]; 3], b: [[f64; 3]; 3]| -> [[f64; 3]; 3] {
            std::array::from_fn(|r| std::array::from_fn(|j| (0..3).map(|k| a[r][k] * b[k][j]).sum()))
        };
        let want = mul(mul(rx(ax), ry(ay)), rz(az));
        for (r, (got, want)) in m.rows.iter().zip(want).enumerate() {
            for (c, (g, w)) in got.iter().zip(want).enumerate() {
                assert!((g - w).abs() < 1e-15, "({r}, {c})");
            }
        }
        // About z by 2.2: the quaternion (cos 1.1, 0, 0, sin 1.1).
        let q = from_axis_angle(Vec3::new(0.0, 0.0, 1.0), 2.2f64);
        assert!((q.w - 1.1f64.cos()).abs() < 1e-16 && (q.z - 1.1f64.sin()).abs() < 1e-16);
        assert_eq!((q.x, q.y), (0.0, 0.0));
        assert!(from_axis_angle(Vec3::new(1.0f32, 0.0, 0.0), 16384.002).w.is_nan());
        assert!(from_euler_xyz(0.1f32, f32::INFINITY, 0.0).rows[0][0].is_nan());
    }

    /// atan is close to the platform's everywhere, odd, and right at its
    /// special values.
    #[test]
    fn atan_close_to_the_platform() {
        for i in -40000..=40000 {
            let x = (i as f64 * 1e-4).powi(3);
            let (y, want) = (atan(x), x.atan());
            assert!((y - want).abs() <= 2.0 * f64::EPSILON * want.abs(), "f64 {x}: {y} against {want}");
            let xf = x as f32;
            let (yf, wantf) = (f64::from(atan(xf)), f64::from(xf).atan());
            assert!((yf - wantf).abs() <= 2.0 * f64::from(f32::EPSILON) * wantf.abs(), "f32 {xf}: {yf} against {wantf}");
            assert_eq!(atan(-x).to_bits(), (-atan(x)).to_bits());
        }
        assert_eq!(atan(-0.0f32).to_bits(), (-0.0f32).to_bits());
        assert_eq!(atan(f32::INFINITY), std::f32::consts::FRAC_PI_2);
        assert_eq!(atan(f64::NEG_INFINITY), -std::f64::consts::FRAC_PI_2);
        assert_eq!(atan(1.0f64), std::f64::consts::FRAC_PI_4);
        assert!(atan(f32::NAN).is_nan());
    }

    /// atan2 is close to the platform's in every quadrant and gives C99's
    /// special values.
    #[test]
    fn atan2_close_to_the_platform_and_its_special_values() {
        let mut r = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200_000 {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            let e = ((r >> 8) % 80) as i32 - 40;
            let y = f64::from((r >> 40) as u32) / 16_777_216.0 * 2f64.powi(e) * if r & 1 == 0 { 1.0 } else { -1.0 };
            let x = f64::from((r >> 16) as u32 & 0xff_ffff) / 16_777_216.0 * if r & 2 == 0 { 1.0 } else { -1.0 };
            let (got, want) = (atan2(y, x), y.atan2(x));
            assert!((got - want).abs() <= 2.0 * f64::EPSILON * want.abs(), "f64 ({y}, {x}): {got} against {want}");
            let (yf, xf) = (y as f32, x as f32);
            let (gotf, wantf) = (f64::from(atan2(yf, xf)), f64::from(yf).atan2(f64::from(xf)));
            assert!((gotf - wantf).abs() <= 2.0 * f64::from(f32::EPSILON) * wantf.abs(), "f32 ({yf}, {xf}): {gotf} against {wantf}");
        }
        let pi = std::f32::consts::PI;
        let inf = f32::INFINITY;
        for (y, x, want) in [
            (0.0, 0.0, 0.0),
            (-0.0, 0.0, -0.0),
            (0.0, -0.0, pi),
            (-0.0, -0.0, -pi),
            (0.0, -3.0, pi),
            (-0.0, 3.0, -0.0),
            (5.0, -0.0, pi / 2.0),
            (-5.0, 0.0, -pi / 2.0),
            (inf, inf, pi / 4.0),
            (-inf, -inf, -3.0 * pi / 4.0),
            (1.0, -inf, pi),
            (-1.0, inf, -0.0),
            (f32::MAX, f32::MAX / 2.0, 2f32.atan()),
        ] {
            assert_eq!(atan2(y, x).to_bits(), want.to_bits(), "atan2({y}, {x})");
        }
        assert!(atan2(0.0f32, f32::NAN).is_nan() && atan2(f64::NAN, 1.0).is_nan());
        // The carried roundings of the ratio are needed: without them atan2
        // misses 1 ulp (1.43 here, the accuracy report's worst pair before
        // they were carried); with them it is within 0.7.
        let ulps32 = |v: f32, r: f64| (f64::from(v) - r).abs() / 2f64.powf(r.abs().log2().floor() - 23.0);
        let (y, x) = (f32::from_bits(0x3E44_BA10), f32::from_bits(0x3FC4_39DE));
        let want = f64::from(y).atan2(f64::from(x));
        assert!(
            ulps32(atan2(y, x), want) < 0.7 && ulps32(atan2_steps(y, x, false), want) > 1.0,
            "{} {}",
            ulps32(atan2(y, x), want),
            ulps32(atan2_steps(y, x, false), want)
        );
    }
    /// exp and log are close to the platform's (binary64 evaluation of the
    /// f32 input, and the f64 libm), over their whole ranges, and give the
    /// stated special values; the scaling rounds into the subnormals once.
    #[test]
    fn exp_and_log_close_to_the_platform_and_their_special_values() {
        let ulps32 = |y: f32, r: f64| {
            let u = f64::from(f32::EPSILON) * (r.abs().max(f64::from(f32::MIN_POSITIVE)));
            (f64::from(y) - r).abs() / u
        };
        let ulps64 = |y: f64, r: f64| (y - r).abs() / (f64::EPSILON * r.abs().max(f64::MIN_POSITIVE));
        let mut bits = 0x3f80_0000u32;
        for _ in 0..300_000 {
            bits = bits.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
            let x = f32::from_bits(bits);
            if !x.is_finite() {
                continue;
            }
            let want = f64::from(x).exp();
            if want < f64::from(f32::MAX) && want > 1e-37 {
                assert!(ulps32(exp(x), want) < 1.0, "exp f32 {x:e}: {:e} against {want:e}", exp(x));
            }
            if x > 0.0 {
                let want = f64::from(x).ln();
                assert!(ulps32(log(x), want) < 1.0, "log f32 {x:e}: {:e} against {want:e}", log(x));
            }
            let xd = f64::from(bits) / 4_294_967_296.0 * 1400.0 - 700.0;
            assert!(ulps64(exp(xd), xd.exp()) < 2.0, "exp f64 {xd:e}");
            let yd = f64::from_bits(u64::from(bits) << 31 | 1);
            if yd > 0.0 && yd.is_finite() {
                assert!(ulps64(log(yd), yd.ln()) < 2.0, "log f64 {yd:e}");
            }
        }
        // exp: the ends of the range, one rounding into the subnormals.
        assert_eq!(exp(0.0f32), 1.0);
        assert_eq!(exp(-0.0f64), 1.0);
        assert_eq!(exp(88.7229f32), f32::INFINITY);
        assert_eq!(exp(f32::MAX), f32::INFINITY);
        assert_eq!(exp(f64::NEG_INFINITY).to_bits(), 0);
        assert_eq!(exp(-104.0f32).to_bits(), 0);
        assert_eq!(exp(-745.2f64).to_bits(), 0);
        assert!(exp(-103.0f32) > 0.0 && exp(-103.0f32) < f32::MIN_POSITIVE);
        assert_eq!(exp(709.782_712_893_384f64), f64::from_bits(0x7FEF_FFFF_FFFF_FF2A));
        assert!(exp(f32::NAN).is_nan());
        // log: the special values, and exactly zero at one.
        assert_eq!(log(1.0f32).to_bits(), 0);
        assert_eq!(log(0.0f32), f32::NEG_INFINITY);
        assert_eq!(log(-0.0f64), f64::NEG_INFINITY);
        assert!(log(-1.0f32).is_nan() && log(f64::NEG_INFINITY).is_nan() && log(f32::NAN).is_nan());
        assert_eq!(log(f64::INFINITY), f64::INFINITY);
        assert_eq!(log(2.0f64), std::f64::consts::LN_2);
        assert!((f64::from(log(f32::from_bits(1))) - (-149.0 * std::f64::consts::LN_2)).abs() < 1e-5);
        assert!((log(f64::from_bits(1)) - (-1074.0 * std::f64::consts::LN_2)).abs() < 1e-12);
    }
    /// exp2 and log2 are close to the platform's, exact at whole numbers and
    /// powers of two, and give the stated special values.
    #[test]
    fn exp2_and_log2_close_to_the_platform_exact_where_stated() {
        let ulps32 = |y: f32, r: f64| (f64::from(y) - r).abs() / (f64::from(f32::EPSILON) * r.abs().max(f64::from(f32::MIN_POSITIVE)));
        let ulps64 = |y: f64, r: f64| (y - r).abs() / (f64::EPSILON * r.abs().max(f64::MIN_POSITIVE));
        let mut bits = 0x4000_0000u32;
        for _ in 0..300_000 {
            bits = bits.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
            let x = f32::from_bits(bits);
            let want = f64::from(x).exp2();
            if x.is_finite() && want < f64::from(f32::MAX) && want > 1e-37 {
                assert!(ulps32(exp2(x), want) < 1.0, "exp2 f32 {x:e}");
            }
            if x > 0.0 && x.is_finite() {
                assert!(ulps32(log2(x), f64::from(x).log2()) < 1.0, "log2 f32 {x:e}");
            }
            let xd = f64::from(bits) / 4_294_967_296.0 * 2000.0 - 1000.0;
            assert!(ulps64(exp2(xd), xd.exp2()) < 2.0, "exp2 f64 {xd:e}");
            let yd = f64::from_bits(u64::from(bits) << 31 | 1);
            if yd > 0.0 && yd.is_finite() {
                assert!(ulps64(log2(yd), yd.log2()) < 2.0, "log2 f64 {yd:e}");
            }
        }
        for n in -149..128 {
            let p = 2f64.powi(n) as f32;
            assert_eq!(exp2(n as f32), p, "exp2({n})");
            assert_eq!(log2(p), n as f32, "log2(2^{n})");
        }
        for n in -1074i32..1024 {
            let p = if n >= -1022 { f64::from_bits(((n + 1023) as u64) << 52) } else { f64::from_bits(1 << (n + 1074)) };
            assert_eq!(exp2(f64::from(n)), p, "exp2({n})");
            assert_eq!(log2(p), f64::from(n), "log2(2^{n})");
        }
        assert_eq!(exp2(128.0f32), f32::INFINITY);
        assert_eq!(exp2(-150.0f32).to_bits(), 0);
        assert_eq!(exp2(1024.0f64), f64::INFINITY);
        assert_eq!(exp2(-1075.0f64).to_bits(), 0);
        assert_eq!(exp2(f32::NEG_INFINITY).to_bits(), 0);
        assert!(exp2(f64::NAN).is_nan() && log2(f32::NAN).is_nan() && log2(-1.0f64).is_nan());
        assert_eq!(log2(0.0f32), f32::NEG_INFINITY);
        assert_eq!(log2(f64::INFINITY), f64::INFINITY);
    }

    /// pow is close to the platform's (f32: within 1 ulp of the binary64
    /// result; f64: within 2 ulps of glibc's, itself within 1), gives C99's
    /// special values (as glibc's powf and pow do, bit for bit), and needs its
    /// protections: without log's low part it misses by many ulps, and
    /// without the clamp of y the split of a huge y overflows into NaN.
    #[test]
    fn pow_close_to_the_platform_its_special_values_and_its_protections() {
        let ulps32 = |v: f32, r: f64| (f64::from(v) - r).abs() / (f64::from(f32::EPSILON) * r.abs().max(f64::from(f32::MIN_POSITIVE)));
        let ulps64 = |v: f64, r: f64| (v - r).abs() / (f64::EPSILON * r.abs().max(f64::MIN_POSITIVE));
        let mut r = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            (r >> 11) as f64 / (1u64 << 53) as f64
        };
        let (mut worst_plain, mut worst) = (0.0f64, 0.0f64);
        for i in 0..200_000 {
            // x over every binade, y with |y log x| up to 100 (f32: past
            // overflow at 88.7 and into the subnormals) or up to 8.
            let x = 2f64.powf((2.0 * next() - 1.0) * 140.0) as f32;
            let reach = if i % 2 == 0 { 100.0 / f64::from(x).ln().abs().max(1e-9) } else { 8.0 };
            let y = ((2.0 * next() - 1.0) * reach) as f32;
            let want = f64::from(x).powf(f64::from(y));
            if want > f64::from(f32::MAX) {
                assert_eq!(pow(x, y), f32::INFINITY, "pow f32 {x:e} {y:e}");
                continue;
            }
            let e = ulps32(pow(x, y), want);
            assert!(e < 1.0, "pow f32 {x:e} {y:e}: {e} ulp");
            worst = worst.max(e);
            worst_plain = worst_plain.max(ulps32(pow_finite(x, y, false, true), want));
            let xd = 2f64.powf((2.0 * next() - 1.0) * 1000.0);
            let yd = (2.0 * next() - 1.0) * if i % 2 == 0 { 700.0 / xd.ln().abs().max(1e-300) } else { 8.0 };
            let wd = xd.powf(yd);
            if wd.is_finite() && wd > 0.0 {
                assert!(ulps64(pow(xd, yd), wd) < 2.0, "pow f64 {xd:e} {yd:e}");
            }
        }
        assert!(worst < 1.0 && worst_plain > 8.0, "with log's low part {worst} ulp, without {worst_plain}");
        let big = 3e38f32;
        assert_eq!(pow(1.000_000_1f32, big), f32::INFINITY);
        assert!(pow_finite(1.000_000_1f32, big, true, false).is_nan(), "the split of an unclamped y overflows");
        let v64 = [
            0.0f64,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -0.5,
            2.0,
            -2.0,
            3.0,
            -3.0,
            2.5,
            -2.5,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1e300,
            -1e300,
            1e-300,
            -1e-310,
            5e-324,
            4_503_599_627_370_497.0,
            -9_007_199_254_740_991.0,
            1e20,
            -1e20,
        ];
        let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        for &x in &v64 {
            for &y in &v64 {
                let want = x.powf(y);
                // The special values, and the results that are powers of two
                // (exact), where no rounding can differ.
                if !want.is_finite() || want == 0.0 || want.to_bits() & 0x000f_ffff_ffff_ffff == 0 {
                    assert!(same(pow(x, y), want), "pow f64 ({x:e}, {y:e}): {:e} against {want:e}", pow(x, y));
                }
                let (xf, yf) = (x as f32, y as f32);
                let want = xf.powf(yf);
                if !want.is_finite() || want == 0.0 || want.to_bits() & 0x007f_ffff == 0 {
                    assert!(same(f64::from(pow(xf, yf)), f64::from(want)), "pow f32 ({xf:e}, {yf:e}): {:e} against {want:e}", pow(xf, yf));
                }
            }
        }
        assert_eq!(pow(-8.0f32, 16_777_215.0).to_bits(), f32::NEG_INFINITY.to_bits());
        assert_eq!(pow(-1.000_000_1f32, 16_777_216.0), 1.000_000_1f32.powf(16_777_216.0));
    }

    /// asin and acos are close to the platform's over [-1, 1] (f32: within 1
    /// ulp, f64: 2), give the stated special values, and need the carried
    /// rounding of the square root: without it asin misses 1 ulp.
    #[test]
    fn asin_and_acos_close_to_the_platform_and_their_special_values() {
        let ulps32 = |y: f32, r: f64| (f64::from(y) - r).abs() / (f64::from(f32::EPSILON) * r.abs().max(f64::from(f32::MIN_POSITIVE)));
        let ulps64 = |y: f64, r: f64| (y - r).abs() / (f64::EPSILON * r.abs().max(f64::MIN_POSITIVE));
        let mut bits = 0x3f00_0000u32;
        for _ in 0..300_000 {
            bits = bits.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
            // Every sign and exponent up to 1 in magnitude, and the binade
            // [1/2, 1) as often as all the others together.
            let x = f32::from_bits(if bits & 1 == 0 { bits % 0x3f80_0001 } else { 0x3f00_0000 | (bits >> 9) } | (bits & 0x8000_0000));
            assert!(ulps32(asin(x), f64::from(x).asin()) < 1.0, "asin f32 {x:e}");
            assert!(ulps32(acos(x), f64::from(x).acos()) < 1.0, "acos f32 {x:e}");
            let xd = f64::from_bits(u64::from(bits) << 31 | 1);
            let xd = if xd.is_finite() { xd % 1.0 } else { 0.75 };
            assert!(ulps64(asin(xd), xd.asin()) < 2.0, "asin f64 {xd:e}");
            assert!(ulps64(acos(xd), xd.acos()) < 2.0, "acos f64 {xd:e}");
        }
        let half_pi = std::f32::consts::FRAC_PI_2;
        assert_eq!((asin(1.0f32), asin(-1.0f32), acos(1.0f32), acos(-1.0f32)), (half_pi, -half_pi, 0.0, std::f32::consts::PI));
        assert_eq!(
            (asin(1.0f64), acos(-1.0f64), acos(0.0f64)),
            (std::f64::consts::FRAC_PI_2, std::f64::consts::PI, std::f64::consts::FRAC_PI_2)
        );
        assert_eq!(asin(-0.0f32).to_bits(), (-0.0f32).to_bits());
        assert_eq!(acos(1.0f64).to_bits(), 0);
        assert_eq!(asin(f32::from_bits(1)), f32::from_bits(1));
        for v in [1.000_000_1f32, -2.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN] {
            assert!(asin(v).is_nan() && acos(v).is_nan() && asin(f64::from(v)).is_nan() && acos(f64::from(v)).is_nan(), "{v}");
        }
        // The negative control: pi/2 - 2 (s + s w) with s rounded, no carry
        // (2.35 ulp here, its worst case; over 1 ulp on 1.7 million inputs).
        let x = 0.501_873_7f32;
        let AsinParts { s, w, .. } = asin_parts(x);
        let plain = std::f32::consts::FRAC_PI_2 - 2.0 * (s + s * w);
        let want = f64::from(x).asin();
        assert!(ulps32(asin(x), want) < 1.0 && ulps32(plain, want) > 1.0, "{} {}", ulps32(asin(x), want), ulps32(plain, want));
    }

    /// slerp follows the great arc: against a binary64 evaluation of the
    /// same formula it is within a few ulps, it keeps unit length, ends at a
    /// and at b (or -b, the shorter arc), and the near-parallel form is
    /// needed: the arc formula alone gives NaN for equal inputs.
    #[test]
    fn slerp_follows_the_arc_and_needs_its_near_parallel_form() {
        let unit = |v: [f64; 4]| {
            let n = v.iter().map(|c| c * c).sum::<f64>().sqrt();
            Quat::from_array(v.map(|c| c / n))
        };
        let narrow = |q: Quat<f64>| Quat::from_array(q.to_array().map(|c| c as f32));
        let mut bits = 0x1234_5678u32;
        let mut next = || {
            bits = bits.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
            f64::from(bits) / 4_294_967_296.0 * 2.0 - 1.0
        };
        for _ in 0..20_000 {
            let (a, b) = (unit([next(), next(), next(), next()]), unit([next(), next(), next(), next()]));
            let t = next() * 0.5 + 0.5;
            let (a32, b32) = (narrow(a), narrow(b));
            let (a64, b64) = (Quat::from_array(a32.to_array().map(f64::from)), Quat::from_array(b32.to_array().map(f64::from)));
            let got = slerp(a32, b32, t as f32).to_array();
            let want = slerp(a64, b64, f64::from(t as f32)).to_array();
            for (g, w) in got.iter().zip(want) {
                assert!((f64::from(*g) - w).abs() < 1e-5, "{a32:?} {b32:?} {t}: {got:?} against {want:?}");
            }
            let n: f64 = got.iter().map(|&c| f64::from(c) * f64::from(c)).sum();
            assert!((n - 1.0).abs() < 1e-5, "unit length {n}");
            let end = slerp(a, b, 1.0).to_array();
            let sign = if crate::arrays::dot(a.to_array(), b.to_array()) < 0.0 { -1.0 } else { 1.0 };
            for (e, bi) in end.iter().zip(b.to_array()) {
                assert!((e - sign * bi).abs() < 1e-14, "t = 1 ends at b (or -b)");
            }
        }
        let a = Quat::new(0.5f32, 0.5, 0.5, 0.5);
        assert_eq!(slerp(a, a, 0.7), a);
        assert_eq!(slerp(a, Quat::new(-0.5, -0.5, -0.5, -0.5), 0.3), a);
        // The negative control: the arc formula at dot 1 divides 0 by 0.
        let th = acos(1.0f32);
        assert!(((0.5 * sin(th * 0.3) + 0.5 * sin(th * 0.7)) * (1.0 / sin(th))).is_nan());
        assert!(slerp(Quat::new(f32::NAN, 0.0, 0.0, 0.0), a, 0.5).to_array().iter().all(|c| c.is_nan()));
    }

    /// tan is within 1 ulp of the platform's (f32, every 61st input of the
    /// domain's positive half and its negation) and 2 (f64), gives the stated
    /// special values, and needs both protections: without the switch to
    /// pi/4 - |r| or without the corrected division on odd quadrants it
    /// misses 1 ulp.
    #[test]
    fn tan_close_to_the_platform_and_needs_its_protections() {
        // In ulps of the result's binade (a relative measure would halve the
        // error of a result just above a power of two).
        let ulps32 = |y: f32, r: f64| (f64::from(y) - r).abs() / 2f64.powf(r.abs().max(1e-38).log2().floor() - 23.0);
        let ulps64 = |y: f64, r: f64| (y - r).abs() / (f64::EPSILON * r.abs().max(f64::MIN_POSITIVE));
        let (mut worst_plain, mut worst_uncorrected) = (0.0f64, 0.0f64);
        for b in (0..=0x4600_0000u32).step_by(61) {
            let x = f32::from_bits(b);
            let want = f64::from(x).tan();
            assert!(ulps32(tan(x), want) < 1.0, "tan f32 {x:e}");
            assert_eq!(tan(-x).to_bits(), (-tan(x)).to_bits(), "tan is odd at {x:e}");
            worst_plain = worst_plain.max(ulps32(tan_steps(x, f32::INFINITY, true), want));
            worst_uncorrected = worst_uncorrected.max(ulps32(tan_steps(x, 0.671_875, false), want));
        }
        assert!(worst_plain > 1.0 && worst_uncorrected > 1.0, "{worst_plain} {worst_uncorrected}");
        let mut bits = 0x3f80_0000u32;
        for _ in 0..200_000 {
            bits = bits.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
            let xd = (f64::from(bits) / 4_294_967_296.0 - 0.5) * 2e4;
            assert!(ulps64(tan(xd), xd.tan()) < 2.0, "tan f64 {xd:e}");
        }
        assert_eq!(tan(-0.0f32).to_bits(), (-0.0f32).to_bits());
        assert_eq!(tan(f64::from_bits(1)), f64::from_bits(1));
        assert!(tan(8192.001f32).is_nan() && tan(f64::INFINITY).is_nan() && tan(f32::NAN).is_nan() && tan(2_097_154.0f64).is_nan());
    }
}
