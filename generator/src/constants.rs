//! `[constants.<name>]`: the constants of the bodies that have a
//! mathematical definition (pi / 2 in Cody-Waite parts, ln 2 in two or three
//! parts, 2 / pi, 1 / ln 2), stated by that definition and checked.
//!
//! A body writes its constants by bit pattern (`f64_bits(0x3DD0B4611A600000)`),
//! which no test can tell from a neighbour one bit away: the functions stay
//! faithful with either, and the reference, written from the same numbers,
//! moves with them. A table here states what the numbers are: the
//! definition (`value = "pi / 2"`, an expression of whole numbers, `pi` and
//! `ln2` with `+ - * /` and parentheses), the types it is written in, and for
//! a constant carried in parts the significant bits of each leading part
//! (`leading_bits.f64 = [33, 33, 33]`). The generator evaluates the
//! definition with 512 fractional bits (pi by Machin's formula, ln 2 by its
//! atanh series, both in integers), takes each leading part as the remainder
//! rounded to nearest (ties to even) with that many significant bits, and
//! the last part as the remainder rounded to the type; then every body of the
//! type in each family of `used_by` must write every part. A body that
//! writes another number is refused at its line with the part it should
//! have.

use std::collections::BTreeMap;

use num_bigint::BigInt;
use serde::Deserialize;
use toml::Spanned;

use crate::dsl::{self, Ast, AstKind, BinOp};
use crate::error::{LineIndex, SpecError};
use crate::spans::first_content_line;
use crate::spec::{ElemType, Family, Spec};

/// Fractional bits of the evaluation: far below the last part of any
/// constant a binary64 body can use (a binary64 number's bits reach 2^-1074).
const FRAC: u64 = 1200;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConstant {
    value: Spanned<String>,
    types: Spanned<Vec<Spanned<String>>>,
    #[serde(default)]
    leading_bits: BTreeMap<String, Spanned<Vec<Spanned<i64>>>>,
    used_by: Spanned<Vec<Spanned<String>>>,
}

/// A checked constant: its definition and its parts per type.
#[derive(Debug, Clone, PartialEq)]
pub struct Constant {
    pub name: String,
    /// The definition as written (`pi / 2`).
    pub value: String,
    /// Per type: the leading parts' significant bits and every part's bits
    /// (`f32`: the low 32 bits of the word), leading parts first.
    pub parts: Vec<(String, Vec<u32>, Vec<u64>)>,
    pub used_by: Vec<String>,
    pub line: usize,
}

impl Constant {
    /// How the parts are made, in words: "rounded to f32" or "in parts of 33,
    /// 33, 33 significant bits and the rest, each rounded to nearest".
    pub fn how(&self, ty: &str) -> String {
        let Some((_, bits, _)) = self.parts.iter().find(|p| p.0 == ty) else { return String::new() };
        if bits.is_empty() {
            format!("rounded to {ty} (nearest, ties to even)")
        } else {
            let b: Vec<String> = bits.iter().map(u32::to_string).collect();
            format!(
                "in parts of {} significant bits and the rest in {ty}, each the remainder rounded to nearest (ties to even)",
                b.join(", ")
            )
        }
    }
}

/// A number with `FRAC` fractional bits.
type Fixed = BigInt;

fn one() -> Fixed {
    BigInt::from(1) << FRAC
}

/// atan(1 / x) (`alternating`) or atanh(1 / x) for a whole x > 1: the sum
/// of (+-)x^-(2k+1) / (2k+1), each term truncated, until the terms vanish.
fn arc_series(x: u64, alternating: bool) -> Fixed {
    let x2 = BigInt::from(x * x);
    let mut power = one() / BigInt::from(x);
    let mut sum = BigInt::from(0);
    let mut k = 0u64;
    while power != BigInt::from(0) {
        let term = &power / BigInt::from(2 * k + 1);
        if alternating && !k.is_multiple_of(2) {
            sum -= term;
        } else {
            sum += term;
        }
        power /= &x2;
        k += 1;
    }
    sum
}

fn atan_inv(x: u64) -> Fixed {
    arc_series(x, true)
}

fn atanh_inv(x: u64) -> Fixed {
    arc_series(x, false)
}

/// pi by Machin's formula, 16 atan(1/5) - 4 atan(1/239) (each term of the
/// series truncated at 2^-1200: a few hundred of them, far below any part).
pub fn pi() -> Fixed {
    BigInt::from(16) * atan_inv(5) - BigInt::from(4) * atan_inv(239)
}

/// ln 2 = 2 atanh(1/3).
pub fn ln2() -> Fixed {
    BigInt::from(2) * atanh_inv(3)
}

/// The value of a definition, or the column and the message of its error.
fn eval(a: &Ast) -> Result<Fixed, (usize, String)> {
    match &a.kind {
        AstKind::Number(v) => {
            if v.fract() != 0.0 || v.abs() > 9007199254740992.0 {
                return Err((a.col, format!("{v} is not a whole number of at most 2^53 (write a fraction as a division)")));
            }
            Ok(BigInt::from(*v as i64) << FRAC)
        }
        AstKind::Ident(n) if n == "pi" => Ok(pi()),
        AstKind::Ident(n) if n == "ln2" => Ok(ln2()),
        AstKind::Ident(n) => Err((a.col, format!("unknown name `{n}` (a definition knows pi and ln2)"))),
        AstKind::Bin(op, x, y) => {
            let ycol = y.col;
            let (x, y) = (eval(x)?, eval(y)?);
            match op {
                BinOp::Add => Ok(x + y),
                BinOp::Sub => Ok(x - y),
                BinOp::Mul => Ok((x * y) >> FRAC),
                BinOp::Div if y == BigInt::from(0) => Err((ycol, "a division by zero".into())),
                BinOp::Div => Ok((x << FRAC) / y),
                _ => Err((a.col, format!("`{}` is not an operation of a definition (+ - * / and parentheses)", op.symbol()))),
            }
        }
        _ => Err((a.col, "a definition is whole numbers, pi and ln2 with + - * / and parentheses".into())),
    }
}

/// `x` rounded to nearest (ties to even) with `bits` significant bits: the
/// rounded value (still with `FRAC` fractional bits).
fn round(x: &Fixed, bits: u64) -> Fixed {
    let len = x.bits();
    if len <= bits {
        return x.clone();
    }
    let shift = len - bits;
    let neg = x.sign() == num_bigint::Sign::Minus;
    let m: BigInt = if neg { -x.clone() } else { x.clone() };
    let q = &m >> shift;
    let rest = &m - (&q << shift);
    let half = BigInt::from(1) << (shift - 1);
    let q = if rest > half || (rest == half && q.bit(0)) { q + 1 } else { q };
    let r = q << shift;
    if neg {
        -r
    } else {
        r
    }
}

/// The bits of a rounded value in a type of `bits` bits (`f32`, `f64`), or
/// why it is not a normal number there.
fn to_word(x: &Fixed, bits: u32) -> Result<u64, String> {
    if x.sign() == num_bigint::Sign::NoSign {
        return Ok(0);
    }
    let neg = x.sign() == num_bigint::Sign::Minus;
    let m: BigInt = if neg { -x.clone() } else { x.clone() };
    let (p, emin, emax, ebias) = if bits == 32 { (24u64, -126i64, 127i64, 127i64) } else { (53, -1022, 1023, 1023) };
    // The leading bit's weight: 2^(len - 1 - FRAC).
    let e = m.bits() as i64 - 1 - FRAC as i64;
    if e < emin || e > emax {
        return Err(format!("2^{e} is not in the exponent range of a normal binary{bits} number"));
    }
    // The significand's p bits (already rounded to at most p bits).
    let shift = m.bits() as i64 - p as i64;
    let sig: BigInt = if shift >= 0 { &m >> shift as u64 } else { &m << (-shift) as u64 };
    let sig = u64::try_from(sig).map_err(|_| "a significand wider than 64 bits".to_string())? & ((1u64 << (p - 1)) - 1);
    let biased = (e + ebias) as u64;
    let word = if bits == 32 { (biased << 23) | sig | (u64::from(neg) << 31) } else { (biased << 52) | sig | (u64::from(neg) << 63) };
    Ok(word)
}

/// The parts of `x` in a type: each leading part with its significant bits,
/// then the rest rounded to the type.
fn parts(x: &Fixed, leading: &[u32], ty: &ElemType) -> Result<Vec<u64>, String> {
    let p = if ty.bits == 32 { 24 } else { 53 };
    let mut rest = x.clone();
    let mut out = Vec::new();
    for (i, &b) in leading.iter().chain(std::iter::once(&p)).enumerate() {
        let part = round(&rest, u64::from(b));
        out.push(to_word(&part, ty.bits).map_err(|m| format!("part {} of {}: {m}", i + 1, leading.len() + 1))?);
        rest -= part;
    }
    Ok(out)
}

/// The number a word of a type is.
fn word_value(word: u64, bits: u32) -> f64 {
    if bits == 32 {
        f64::from(f32::from_bits(word as u32))
    } else {
        f64::from_bits(word)
    }
}

fn hex(word: u64, bits: u32) -> String {
    if bits == 32 {
        format!("f32_bits(0x{word:08X})")
    } else {
        format!("f64_bits(0x{word:016X})")
    }
}

/// A float literal of a body: the bits function's name and word
/// (`f64_bits`, `0x...`) or none for a decimal, and its value.
type Literal = (Option<(String, u64)>, f64);

/// The float literals of a body's step: `f32_bits`/`f64_bits` words (with
/// the function's name) and decimal numbers.
fn literals(a: &Ast, out: &mut Vec<Literal>) {
    match &a.kind {
        AstKind::Call(n, args) if (n == "f32_bits" || n == "f64_bits") && args.len() == 1 => {
            if let AstKind::Int(w) = args[0].kind {
                let bits = if n == "f32_bits" { 32 } else { 64 };
                out.push((Some((n.clone(), w)), word_value(w, bits)));
            }
        }
        AstKind::Number(v) => out.push((None, *v)),
        AstKind::Index(x, y) | AstKind::Bin(_, x, y) | AstKind::Bits(_, x, y) => {
            literals(x, out);
            literals(y, out);
        }
        AstKind::Field(x, _) | AstKind::Not(x) => literals(x, out),
        AstKind::Call(_, args) => args.iter().for_each(|x| literals(x, out)),
        AstKind::Select(c, x, y) => {
            literals(c, out);
            literals(x, out);
            literals(y, out);
        }
        AstKind::Int(_) | AstKind::Ident(_) => {}
    }
}

/// The spec's `[constants]` alone (the rest of the text was read by
/// `spec::parse`).
#[derive(Deserialize)]
struct RawTables {
    #[serde(default)]
    constants: BTreeMap<String, Spanned<RawConstant>>,
}

/// Reads `[constants]` of a parsed spec and checks every body that uses one.
pub fn check(spec: &Spec) -> Result<Vec<Constant>, SpecError> {
    let (file, text) = (spec.file.as_str(), spec.source.as_str());
    let raw: RawTables = toml::from_str(text).map_err(|e| SpecError {
        file: file.into(),
        line: LineIndex::new(text).line(e.span().map_or(0, |s| s.start)),
        key: "constants".into(),
        message: e.message().trim().replace('\n', "; "),
    })?;
    check_tables(file, text, &raw.constants, &spec.families, &spec.types)
}

fn check_tables(
    file: &str,
    text: &str,
    raw: &BTreeMap<String, Spanned<RawConstant>>,
    families: &[Family],
    types: &[ElemType],
) -> Result<Vec<Constant>, SpecError> {
    let lines = LineIndex::new(text);
    let err = |offset: usize, key: String, message: String| SpecError { file: file.into(), line: lines.line(offset), key, message };
    let mut out = Vec::new();
    let mut tables: Vec<(&String, &Spanned<RawConstant>)> = raw.iter().collect();
    tables.sort_by_key(|(_, r)| r.span().start);
    for (name, r) in tables {
        let key = format!("constants.{name}");
        crate::names::check_part(name, "constant").map_err(|m| err(r.span().start, key.clone(), m))?;
        let c = r.get_ref();
        let vkey = format!("{key}.value");
        let line0 = first_content_line(&lines, text, c.value.span().start);
        let ast = dsl::parse_expr(c.value.get_ref()).map_err(|e| SpecError {
            file: file.into(),
            line: line0,
            key: vkey.clone(),
            message: format!("column {}: {}", e.col, e.message),
        })?;
        let x = eval(&ast).map_err(|(col, m)| SpecError {
            file: file.into(),
            line: line0,
            key: vkey.clone(),
            message: format!("column {col}: {m}"),
        })?;
        if x.sign() == num_bigint::Sign::NoSign {
            return Err(err(c.value.span().start, vkey, "the definition is zero".into()));
        }
        let mut per_type = Vec::new();
        if c.types.get_ref().is_empty() {
            return Err(err(c.types.span().start, format!("{key}.types"), "no type: name the types the constant is written in".into()));
        }
        for t in c.types.get_ref() {
            let tkey = format!("{key}.types");
            let Some(ty) = types.iter().find(|e| &e.name == t.get_ref()) else {
                return Err(err(t.span().start, tkey, format!("unknown type `{}`", t.get_ref().escape_debug())));
            };
            if per_type.iter().any(|(n, _, _): &(String, Vec<u32>, Vec<u64>)| n == &ty.name) {
                return Err(err(t.span().start, tkey, format!("`{}` is listed twice", ty.name)));
            }
            let p = if ty.bits == 32 { 24 } else { 53 };
            let mut leading = Vec::new();
            if let Some(l) = c.leading_bits.get(&ty.name) {
                let lkey = format!("{key}.leading_bits.{}", ty.name);
                for b in l.get_ref() {
                    let v = *b.get_ref();
                    if !(1..p).contains(&v) {
                        return Err(err(
                            b.span().start,
                            lkey,
                            format!("{v} significant bits: a leading part of {} has 1 to {}", ty.name, p - 1),
                        ));
                    }
                    leading.push(v as u32);
                }
            }
            let words = parts(&x, &leading, ty).map_err(|m| err(c.value.span().start, vkey.clone(), format!("in {}: {m}", ty.name)))?;
            per_type.push((ty.name.clone(), leading, words));
        }
        if let Some((t, l)) = c.leading_bits.iter().find(|(t, _)| !per_type.iter().any(|p| &&p.0 == t)) {
            return Err(err(l.span().start, format!("{key}.leading_bits.{t}"), format!("`{t}` is not one of this constant's types")));
        }
        if c.used_by.get_ref().is_empty() {
            return Err(err(
                c.used_by.span().start,
                format!("{key}.used_by"),
                "no body uses this constant: name the families that do".into(),
            ));
        }
        let constant = Constant {
            name: name.clone(),
            value: c.value.get_ref().trim().to_string(),
            parts: per_type,
            used_by: c.used_by.get_ref().iter().map(|u| u.get_ref().clone()).collect(),
            line: lines.line(r.span().start),
        };
        for u in c.used_by.get_ref() {
            let ukey = format!("{key}.used_by");
            let Some(f) = families.iter().find(|f| &f.name == u.get_ref()) else {
                return Err(err(u.span().start, ukey, format!("unknown family `{}`", u.get_ref().escape_debug())));
            };
            if c.used_by.get_ref().iter().filter(|v| v.get_ref() == u.get_ref()).count() > 1 {
                return Err(err(u.span().start, ukey, format!("`{}` is listed twice", f.name)));
            }
            for (ty, _, words) in &constant.parts {
                let bits = types.iter().find(|e| &e.name == ty).map_or(64, |e| e.bits);
                let bodies: Vec<_> = f.bodies.iter().filter(|b| b.elem.as_deref() == Some(ty.as_str())).collect();
                if bodies.is_empty() {
                    return Err(err(
                        u.span().start,
                        ukey,
                        format!("`{}` has no body of its own for {ty} (`bodies.{ty}`) to write the constant in", f.name),
                    ));
                }
                for b in bodies {
                    let lits: Vec<(usize, Literal)> = b
                        .stmts
                        .iter()
                        .flat_map(|st| {
                            let mut v = Vec::new();
                            literals(&st.value, &mut v);
                            v.into_iter().map(move |l| (b.line + st.line - 1, l))
                        })
                        .collect();
                    for (i, &w) in words.iter().enumerate() {
                        let v = word_value(w, bits);
                        if lits.iter().any(|(_, (_, x))| x.to_bits() == v.to_bits()) {
                            continue;
                        }
                        // The literal it should have been: one within 1024 units of the last place.
                        let near = lits.iter().find(|(_, (l, _))| l.as_ref().is_some_and(|(_, x)| x.abs_diff(w) <= 1024));
                        let what = format!(
                            "it uses `{key}` ({} {}), whose part {} of {} is {}",
                            constant.value,
                            constant.how(ty),
                            i + 1,
                            words.len(),
                            hex(w, bits)
                        );
                        return Err(match near {
                            Some((line, (Some((n, x)), _))) => SpecError {
                                file: file.into(),
                                line: *line,
                                key: b.key.clone(),
                                message: format!("{what}; the body writes {n}(0x{x:0width$X}) instead", width = (bits / 4) as usize),
                            },
                            _ => SpecError {
                                file: file.into(),
                                line: b.line,
                                key: b.key.clone(),
                                message: format!("{what}; the body does not write it"),
                            },
                        });
                    }
                }
            }
        }
        out.push(constant);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// pi's first 256 bits after the point, from its published hexadecimal
    /// expansion (3.243F6A88...), and ln 2's (0.B17217F7...).
    const PI_HEX: &str = "243F6A8885A308D313198A2E03707344A4093822299F31D0082EFA98EC4E6C89";
    const LN2_HEX: &str = "B17217F7D1CF79ABC9E3B39803F2F6AF40F343267298B62D8A0D175B8BAAFA2B";

    fn frac_hex(x: &Fixed, digits: usize) -> String {
        let f = x - ((x >> FRAC) << FRAC);
        let top = f >> (FRAC - 4 * digits as u64);
        format!("{top:0digits$X}")
    }

    #[test]
    fn pi_and_ln2_agree_with_their_published_digits() {
        assert_eq!(pi() >> FRAC, BigInt::from(3));
        assert_eq!(frac_hex(&pi(), 64), PI_HEX);
        assert_eq!(frac_hex(&ln2(), 64), LN2_HEX);
        // A wrong series term (Machin with 1/238) is seen.
        assert_ne!(frac_hex(&(BigInt::from(16) * atan_inv(5) - BigInt::from(4) * atan_inv(238)), 64), PI_HEX);
    }

    #[test]
    fn rounded_constants_are_the_standard_library_s() {
        let f64t = ElemType {
            name: "f64".into(),
            c_type: "double".into(),
            letter: "d".into(),
            literal_suffix: String::new(),
            libm_suffix: String::new(),
            bits: 64,
        };
        let f32t = ElemType { bits: 32, name: "f32".into(), ..f64t.clone() };
        let one = |x: Fixed, t: &ElemType| parts(&x, &[], t).unwrap()[0];
        assert_eq!(one(pi(), &f64t), std::f64::consts::PI.to_bits());
        assert_eq!(one(ln2(), &f64t), std::f64::consts::LN_2.to_bits());
        assert_eq!(one(pi(), &f32t), u64::from(std::f32::consts::PI.to_bits()));
        assert_eq!(one((BigInt::from(2) << (2 * FRAC)) / pi(), &f64t), std::f64::consts::FRAC_2_PI.to_bits());
        assert_eq!(one(-ln2(), &f64t), (-std::f64::consts::LN_2).to_bits());
        // Cody-Waite pi/2 in binary32: 8, 11 and 11 bits, then the rest.
        let half_pi = pi() >> 1;
        assert_eq!(parts(&half_pi, &[8, 11, 11], &f32t).unwrap(), vec![0x3FC90000, 0x39FDA000, 0x33A22000, 0x2C34611A]);
        // Ties round to even: 1 + 2^-24 to 1, 1 + 2^-23 + 2^-24 to 1 + 2^-22 in
        // 24 bits; 5 in two bits to 4 (the rest 1), 7 to 8 (the rest -1).
        assert_eq!(parts(&one_plus(&[24]), &[], &f32t).unwrap()[0], u64::from(1f32.to_bits()));
        assert_eq!(parts(&one_plus(&[23, 24]), &[], &f32t).unwrap()[0], u64::from((1.0f32 + 2.0 * f32::EPSILON).to_bits()));
        assert_eq!(parts(&(BigInt::from(5) << FRAC), &[2], &f32t).unwrap(), vec![u64::from(4f32.to_bits()), u64::from(1f32.to_bits())]);
        assert_eq!(parts(&(BigInt::from(7) << FRAC), &[2], &f32t).unwrap(), vec![u64::from(8f32.to_bits()), u64::from((-1f32).to_bits())]);
    }

    fn one_plus(ks: &[u64]) -> Fixed {
        ks.iter().fold(one(), |acc, &k| acc + (BigInt::from(1) << (FRAC - k)))
    }
}
