//! The flat calling convention for checkers.
//!
//! Every function of the contract, instantiated for each shape and element
//! type the spec lists, is reachable as a [`FlatFn`] through [`lookup`]:
//!
//! * inputs: every parameter's components, in parameter order, each parameter
//!   in memory order (vector `x, y, z, w`; quaternion `w, x, y, z`; matrix
//!   row-major; scalar one word);
//! * every word is the raw IEEE bit pattern of one element (an `f32` in the
//!   low 32 bits, the high 32 bits zero);
//! * outputs likewise; a `bool` result is one word, `0` or `1`.
//!
//! Keys are the spec's: the family key (`"quat_mul"`, `"mat_dot"`, ...), the
//! shape (`"scalar"`, `"vec2"` ... `"mat4"`) and the element type (`"f32"`,
//! `"f64"`).
//!
//! The compensated-summation functions of [`crate::compensated`] are entries
//! too. A [`Pair`] (shape `"pair"`) is two words, `hi` then `comp`; the 32
//! lanes of an accumulator are 64 words, lane 0 first. The array kernels take
//! inputs of variable length, and some of their words are plain unsigned
//! integers rather than IEEE bit patterns (a lane index `first`, an element
//! count `S`, an element index):
//!
//! | family | shapes | input words | output words |
//! |---|---|---|---|
//! | `two_sum_err` | scalar | `a, b, s` | `e` |
//! | `two_sum` | scalar | `a, b` | `hi, comp` |
//! | `neumaier_add` | pair | `hi, comp, x` | `hi, comp` |
//! | `pair_combine` | pair | `a.hi, a.comp, b.hi, b.comp` | `hi, comp` |
//! | `pair_value` | pair | `hi, comp` | `v` |
//! | `reduce32` | pair | 64 lane words | `hi, comp` |
//! | `sum_array` | scalar | `x[0..n]`, any `n` | `value` |
//! | `dot_array` | scalar | `a[0..n], b[0..n]` | `value` |
//! | `lanes_sum` | scalar | 64 lane words, `first`, `x[0..n]` | 64 lane words |
//! | `lanes_dot` | scalar | 64 lane words, `first`, `a[0..n], b[0..n]` | 64 lane words |
//! | `plane_add` | scalar, vec2, vec3, vec4 | `S`, then records `elem, t[0..K]` | `value[0..S*K], comp[0..S*K]` |
//! | `plane_resolve` | scalar | `value[0..n], comp[0..n]` | `pair_value` of each slot |
//!
//! `lanes_sum` applies [`compensated::lanes_add`] to the given lanes and
//! `lanes_dot` [`compensated::lanes_dot`]. `plane_add` starts a plane of `S`
//! elements of `K` components (`K` = 1, 2, 3, 4 for the shape) at all `+0`
//! and applies the records in order with [`compensated::plane_add`]; every
//! `elem` must be below `S`.
//!
//! The steps of the Jacobi rotation are spec families of the `"scalar"`
//! shape: `jacobi_rotation` takes `app, aqq, apq` and gives the rotation
//! `c, s, t, tau`; `jacobi_update` takes `g, h, c, s, t, tau` and gives the
//! pair `x, y`; `jacobi_diag` takes `app, aqq, apq, c, s, t, tau` and gives
//! the new `app, aqq`.
//!
//! The per-lane linear algebra of [`crate::linalg`] is instantiated for the
//! shapes `"mat2"`, `"mat3"`, `"mat4"` (size `n` = 2, 3, 4). A matrix is `n²`
//! words (row-major), a vector `n` words; the pivot rows `ipiv` (1-based) and
//! `info` are plain unsigned integers (marked `#`):
//!
//! | family | input words | output words |
//! |---|---|---|
//! | `lu` | `A` | `LU`, `#ipiv[0..n]`, `#info` |
//! | `lu_solve` | `LU`, `#ipiv[0..n]`, `b` | `x` |
//! | `solve_lower`, `solve_lower_unit`, `solve_upper`, `solve_upper_unit` | `M`, `b` | `x` |
//! | `det_lu` | `A` | `d` |
//! | `inverse` | `A` | `X`, `#info` |
//! | `cholesky` | `A` | `L`, `#info` |
//! | `cholesky_solve` | `L`, `b` | `x` |
//! | `eigh` | `A` | `w[0..n]`, `V` |
//!
//! Every `lu_solve` pivot must satisfy `k + 1 <= ipiv[k] <= n`. Each of these
//! families also has a many-lane form, the family name with the suffix
//! `_lanes` (`"lu_lanes"`, ...), for the same shapes: its input is any number
//! (zero included) of single-form inputs one after another, and its output
//! the single-form outputs in the same order; a panic names the lane.

use std::sync::LazyLock;

use crate::compensated::{self, Pair, LANES};
use crate::elementary;
use crate::linalg::{self, Rotation};
use crate::real::Real;
use crate::scalar;
use crate::{Mat, Quat, Vec2, Vec3, Vec4};

/// A contract function on flat words: parameters' words in, result words out.
///
/// # Panics
///
/// On an input of the wrong length, or an `f32` word with high bits set; the
/// message names the function (`family/shape/elem`). Both are checker bugs.
pub type FlatFn = fn(&[u64]) -> Vec<u64>;

/// A value with a flat encoding: a fixed number of IEEE words in memory order.
pub trait Flat: Sized {
    /// The number of words.
    const WORDS: usize;
    /// Decodes from exactly [`Flat::WORDS`] words.
    ///
    /// # Panics
    ///
    /// If `words` has the wrong length or a word does not fit the element
    /// type.
    fn read(words: &[u64]) -> Self;
    /// Appends the [`Flat::WORDS`] words of `self` to `out`.
    fn write(&self, out: &mut Vec<u64>);
}

fn element<T: Real>(word: u64) -> T {
    T::from_word(word).unwrap_or_else(|| panic!("aether_reference::flat: word {word:#x} is not an {} bit pattern", T::NAME))
}

macro_rules! flat_scalar {
    ($($t:ident),+) => {$(
        impl Flat for $t {
            const WORDS: usize = 1;
            fn read(words: &[u64]) -> Self {
                let [w] = words else { panic!("a scalar is one word, got {}", words.len()) };
                element(*w)
            }
            fn write(&self, out: &mut Vec<u64>) {
                out.push(self.to_word());
            }
        }
    )+};
}
flat_scalar!(f32, f64);

impl Flat for bool {
    const WORDS: usize = 1;
    fn read(words: &[u64]) -> Self {
        match words {
            [0] => false,
            [1] => true,
            _ => panic!("a bool is one word 0 or 1, got {words:?}"),
        }
    }
    fn write(&self, out: &mut Vec<u64>) {
        out.push(u64::from(*self));
    }
}

fn read_array<T: Real, const N: usize>(words: &[u64]) -> [T; N] {
    assert_eq!(words.len(), N, "expected {N} words");
    std::array::from_fn(|i| element(words[i]))
}

fn write_all<T: Real>(elements: impl IntoIterator<Item = T>, out: &mut Vec<u64>) {
    out.extend(elements.into_iter().map(T::to_word));
}

macro_rules! flat_vector {
    ($($name:ident: $n:literal),+) => {$(
        impl<T: Real> Flat for $name<T> {
            const WORDS: usize = $n;
            fn read(words: &[u64]) -> Self {
                Self::from_array(read_array(words))
            }
            fn write(&self, out: &mut Vec<u64>) {
                write_all(self.to_array(), out);
            }
        }
    )+};
}
flat_vector!(Vec2: 2, Vec3: 3, Vec4: 4, Quat: 4);

impl<T: Real, const N: usize> Flat for Mat<T, N> {
    const WORDS: usize = N * N;
    fn read(words: &[u64]) -> Self {
        assert_eq!(words.len(), N * N, "expected {} words", N * N);
        Mat::from_fn(|r, c| element(words[r * N + c]))
    }
    fn write(&self, out: &mut Vec<u64>) {
        write_all(self.elements(), out);
    }
}

impl<T: Real> Flat for Rotation<T> {
    const WORDS: usize = 4;
    fn read(words: &[u64]) -> Self {
        let [c, s, t, tau] = read_array(words);
        Rotation { c, s, t, tau }
    }
    fn write(&self, out: &mut Vec<u64>) {
        write_all([self.c, self.s, self.t, self.tau], out);
    }
}

impl<T: Real> Flat for Pair<T> {
    const WORDS: usize = 2;
    fn read(words: &[u64]) -> Self {
        let [hi, comp] = read_array(words);
        Pair { hi, comp }
    }
    fn write(&self, out: &mut Vec<u64>) {
        write_all([self.hi, self.comp], out);
    }
}

/// An array of values, each in its own encoding, in index order (the 32
/// lanes of `reduce32` are `[Pair<T>; 32]`).
impl<P: Flat, const N: usize> Flat for [P; N] {
    const WORDS: usize = N * P::WORDS;
    fn read(words: &[u64]) -> Self {
        assert_eq!(words.len(), Self::WORDS, "expected {} words", Self::WORDS);
        std::array::from_fn(|i| P::read(&words[i * P::WORDS..(i + 1) * P::WORDS]))
    }
    fn write(&self, out: &mut Vec<u64>) {
        for p in self {
            p.write(out);
        }
    }
}

/// Reads the parameters of one call off its input words, in order.
struct Params<'a> {
    name: &'static str,
    words: &'a [u64],
}

impl<'a> Params<'a> {
    /// Checks the input of `name` (its length, and that every word is a bit
    /// pattern of the element type `T`) before anything is decoded.
    fn new<T: Real>(name: &'static str, words: &'a [u64], expected: usize) -> Self {
        assert!(words.len() == expected, "aether_reference::flat: {name} takes {expected} words, got {}", words.len());
        if let Some(bad) = words.iter().find(|&&w| T::from_word(w).is_none()) {
            panic!("aether_reference::flat: {name}: word {bad:#x} is not an {} bit pattern", T::NAME);
        }
        Self { name, words }
    }

    fn take<P: Flat>(&mut self) -> P {
        let (head, rest) = self.words.split_at(P::WORDS);
        self.words = rest;
        P::read(head)
    }

    fn finish(&mut self) {
        assert!(self.words.is_empty(), "{}: words left over", self.name);
    }
}

fn encode<R: Flat>(result: R) -> Vec<u64> {
    let mut out = Vec::with_capacity(R::WORDS);
    result.write(&mut out);
    out
}

/// The type of `self` for a shape key (`T` is the element type in scope).
macro_rules! self_type {
    (scalar) => { T };
    (vec2) => { Vec2<T> };
    (vec3) => { Vec3<T> };
    (vec4) => { Vec4<T> };
    (quat) => { Quat<T> };
    (mat2) => { Mat<T, 2> };
    (mat3) => { Mat<T, 3> };
    (mat4) => { Mat<T, 4> };
    (pair) => { Pair<T> };
}

/// The companion vector of a shape: the `v: vec3` of `rotate` for `quat`, the
/// column vector of `mul_vec` for a matrix.
macro_rules! vec_type {
    (quat) => { Vec3<T> };
    (mat2) => { Vec2<T> };
    (mat3) => { Vec3<T> };
    (mat4) => { Vec4<T> };
    ($other:ident) => { () };
}

/// One [`FlatFn`]: decodes the parameters, evaluates `$body`, encodes the
/// result. In `$params`, `T` is the element type, `S` the shape's own type
/// and `V` its companion vector.
macro_rules! adapter {
    ($family:ident, $shape:ident, $elem:ident, ($($p:ident: $pt:ty),*) => $body:expr) => {{
        #[allow(dead_code)]
        type T = $elem;
        #[allow(dead_code)]
        type S = self_type!($shape);
        #[allow(dead_code)]
        type V = vec_type!($shape);
        /// The input words: every parameter's.
        const WORDS: usize = 0 $(+ <$pt as Flat>::WORDS)*;
        fn adapter(input: &[u64]) -> Vec<u64> {
            const NAME: &str = concat!(
                stringify!($family), "/", stringify!($shape), "/", stringify!($elem)
            );
            let mut params = Params::new::<T>(NAME, input, WORDS);
            $(let $p: $pt = params.take();)*
            params.finish();
            encode($body)
        }
        (adapter as FlatFn, WORDS)
    }};
}

/// The table: one line per family, listing its shapes, its parameters and its
/// body; every (family, shape) is instantiated for `f32` and `f64`.
macro_rules! table {
    ($($family:ident [$($shape:ident),+] $params:tt => $body:expr;)*) => {
        vec![$($(
            {
                let (function, words) = adapter!($family, $shape, f32, $params => $body);
                (stringify!($family), stringify!($shape), "f32", function, Some(words))
            },
            {
                let (function, words) = adapter!($family, $shape, f64, $params => $body);
                (stringify!($family), stringify!($shape), "f64", function, Some(words))
            },
        )+)*]
    };
}

// ------------------------------------------------- variable-length kernels

/// The words of a lane accumulator: [`LANES`] pairs, 64 words.
const LANE_WORDS: usize = LANES * 2;

/// Decodes element words of the function `name`.
///
/// # Panics
///
/// If a word is not a bit pattern of `T`.
fn elements<T: Real>(name: &str, words: &[u64]) -> Vec<T> {
    words.iter().map(|&w| element_of(name, w)).collect()
}

/// Decodes one element word of the function `name`.
///
/// # Panics
///
/// If the word is not a bit pattern of `T`.
fn element_of<T: Real>(name: &str, word: u64) -> T {
    T::from_word(word).unwrap_or_else(|| panic!("aether_reference::flat: {name}: word {word:#x} is not an {} bit pattern", T::NAME))
}

/// Decodes an integer word (an index or a count) of the function `name`.
fn integer(name: &str, word: u64) -> usize {
    usize::try_from(word).unwrap_or_else(|_| panic!("aether_reference::flat: {name}: integer word {word} does not fit a usize"))
}

/// Splits the `part` of an input (`"words"`, or the `"a/b words"` after a
/// header) into its two halves, which must be of equal length.
fn halves<'a>(name: &str, part: &str, words: &'a [u64]) -> (&'a [u64], &'a [u64]) {
    let (a, b) = words.split_at(words.len() / 2);
    assert!(a.len() == b.len(), "aether_reference::flat: {name} takes an even number of {part}, got {}", words.len());
    (a, b)
}

/// Decodes the 64 lane words at the start of `words` and returns the rest.
fn read_lanes<'a, T: Real>(name: &str, words: &'a [u64]) -> ([Pair<T>; LANES], &'a [u64]) {
    assert!(words.len() > LANE_WORDS, "aether_reference::flat: {name} takes at least {} words, got {}", LANE_WORDS + 1, words.len());
    let (head, rest) = words.split_at(LANE_WORDS);
    let lane = elements::<T>(name, head);
    (std::array::from_fn(|i| Pair { hi: lane[2 * i], comp: lane[2 * i + 1] }), rest)
}

/// `sum_array`: `x[0..n]` -> `value`.
fn kernel_sum_array<T: Real>(name: &str, input: &[u64]) -> Vec<u64> {
    vec![compensated::sum_array(&elements::<T>(name, input)).to_word()]
}

/// `dot_array`: `a[0..n], b[0..n]` -> `value`.
fn kernel_dot_array<T: Real>(name: &str, input: &[u64]) -> Vec<u64> {
    let (a, b) = halves(name, "words", input);
    vec![compensated::dot_array(&elements::<T>(name, a), &elements::<T>(name, b)).to_word()]
}

/// `lanes_sum`: 64 lane words, `first`, `x[0..n]` -> 64 lane words.
fn kernel_lanes_sum<T: Real>(name: &str, input: &[u64]) -> Vec<u64> {
    let (mut lanes, rest) = read_lanes::<T>(name, input);
    let (&first, x) = rest.split_first().expect("read_lanes leaves the first word");
    compensated::lanes_add(&mut lanes, integer(name, first), &elements::<T>(name, x));
    encode(lanes)
}

/// `lanes_dot`: 64 lane words, `first`, `a[0..n], b[0..n]` -> 64 lane words.
fn kernel_lanes_dot<T: Real>(name: &str, input: &[u64]) -> Vec<u64> {
    let (mut lanes, rest) = read_lanes::<T>(name, input);
    let (&first, ab) = rest.split_first().expect("read_lanes leaves the first word");
    let (a, b) = halves(name, "a/b words", ab);
    compensated::lanes_dot(&mut lanes, integer(name, first), &elements::<T>(name, a), &elements::<T>(name, b));
    encode(lanes)
}

/// `plane_add` with `K` components per element: `S`, then records
/// `elem, t[0..K]` -> `value[0..S*K], comp[0..S*K]`.
fn kernel_plane_add<T: Real, const K: usize>(name: &str, input: &[u64]) -> Vec<u64> {
    let record = K + 1;
    let (&count, records) = input.split_first().unwrap_or_else(|| panic!("aether_reference::flat: {name} takes S first, got no words"));
    let records = records.chunks_exact(record);
    assert!(
        records.remainder().is_empty(),
        "aether_reference::flat: {name} takes S and records of {record} words, got {} words",
        input.len()
    );
    let count = integer(name, count);
    let records: Vec<(usize, Vec<T>)> = records
        .map(|r| {
            let elem = integer(name, r[0]);
            assert!(elem < count, "aether_reference::flat: {name}: element index {elem} is not below the element count {count}");
            (elem, elements::<T>(name, &r[1..]))
        })
        .collect();
    let slots = count
        .checked_mul(K)
        .unwrap_or_else(|| panic!("aether_reference::flat: {name}: {count} elements of {K} components overflow a usize"));
    let (mut value, mut comp) = (vec![T::ZERO; slots], vec![T::ZERO; slots]);
    for (elem, term) in &records {
        compensated::plane_add(&mut value, &mut comp, K, *elem, term);
    }
    let mut out = Vec::with_capacity(2 * slots);
    write_all(value, &mut out);
    write_all(comp, &mut out);
    out
}

/// `plane_resolve`: `value[0..n], comp[0..n]` -> `pair_value` of each slot.
fn kernel_plane_resolve<T: Real>(name: &str, input: &[u64]) -> Vec<u64> {
    let (value, comp) = halves(name, "words", input);
    let mut out = Vec::with_capacity(value.len());
    write_all(compensated::plane_resolve(&elements::<T>(name, value), &elements::<T>(name, comp)), &mut out);
    out
}

/// The kernel table: one line per (family, shape), naming a kernel
/// `fn(name, input) -> output` (in `$kernel`, `T` is the element type);
/// each line is instantiated for `f32` and `f64`. The kernel checks the
/// input itself, naming the function (`family/shape/elem`) when it panics.
macro_rules! kernels {
    ($($family:ident [$shape:ident] => $kernel:expr;)*) => {
        vec![$(
            (stringify!($family), stringify!($shape), "f32", kernel_adapter!($family, $shape, f32, $kernel), None),
            (stringify!($family), stringify!($shape), "f64", kernel_adapter!($family, $shape, f64, $kernel), None),
        )*]
    };
}

/// One [`FlatFn`] of the kernel table.
macro_rules! kernel_adapter {
    ($family:ident, $shape:ident, $elem:ident, $kernel:expr) => {{
        fn adapter(input: &[u64]) -> Vec<u64> {
            type T = $elem;
            const NAME: &str = concat!(stringify!($family), "/", stringify!($shape), "/", stringify!($elem));
            $kernel(NAME, input)
        }
        adapter as FlatFn
    }};
}

// ------------------------------------------------- per-lane linear algebra

/// A linear-algebra kernel: decodes the words of one problem (exactly its
/// input length), solves it and appends the result words. The `&str` names
/// the function (and the lane) in a panic message.
type LinalgKernel = fn(&str, &[u64], &mut Vec<u64>);

/// Decodes an `N x N` matrix from its `N * N` leading words.
fn read_matrix<T: Real, const N: usize>(name: &str, words: &[u64]) -> Mat<T, N> {
    Mat::from_fn(|r, c| element_of(name, words[r * N + c]))
}

/// Decodes an `N`-vector from its `N` leading words.
fn read_vector<T: Real, const N: usize>(name: &str, words: &[u64]) -> [T; N] {
    std::array::from_fn(|i| element_of(name, words[i]))
}

/// Appends plain unsigned integers (pivot rows, `info`).
fn write_integers(integers: impl IntoIterator<Item = usize>, out: &mut Vec<u64>) {
    out.extend(integers.into_iter().map(|i| i as u64));
}

/// `lu`: `A` -> `LU`, `#ipiv`, `#info`.
fn linalg_lu<T: Real, const N: usize>(name: &str, input: &[u64], out: &mut Vec<u64>) {
    let f = linalg::lu(read_matrix::<T, N>(name, input));
    f.lu.write(out);
    write_integers(f.ipiv, out);
    write_integers([f.info], out);
}

/// `lu_solve`: `LU`, `#ipiv`, `b` -> `x`.
fn linalg_lu_solve<T: Real, const N: usize>(name: &str, input: &[u64], out: &mut Vec<u64>) {
    let lu = read_matrix::<T, N>(name, input);
    let ipiv: [usize; N] = std::array::from_fn(|k| {
        let p = integer(name, input[N * N + k]);
        assert!(k < p && p <= N, "aether_reference::flat: {name}: ipiv[{k}] = {p} is outside {}..={N}", k + 1);
        p
    });
    let b = read_vector::<T, N>(name, &input[N * N + N..]);
    write_all(linalg::lu_solve(lu, ipiv, b), out);
}

/// A triangular solve (or `cholesky_solve`): `M`, `b` -> `x`.
fn solve_with<T: Real, const N: usize>(name: &str, input: &[u64], out: &mut Vec<u64>, solve: fn(Mat<T, N>, [T; N]) -> [T; N]) {
    write_all(solve(read_matrix(name, input), read_vector(name, &input[N * N..])), out);
}

/// `solve_lower`: `L`, `b` -> `x`.
fn linalg_solve_lower<T: Real, const N: usize>(name: &str, input: &[u64], out: &mut Vec<u64>) {
    solve_with::<T, N>(name, input, out, linalg::solve_lower);
}

/// `solve_lower_unit`: `L`, `b` -> `x`.
fn linalg_solve_lower_unit<T: Real, const N: usize>(name: &str, input: &[u64], out: &mut Vec<u64>) {
    solve_with::<T, N>(name, input, out, linalg::solve_lower_unit);
}

/// `solve_upper`: `U`, `b` -> `x`.
fn linalg_solve_upper<T: Real, const N: usize>(name: &str, input: &[u64], out: &mut Vec<u64>) {
    solve_with::<T, N>(name, input, out, linalg::solve_upper);
}

/// `solve_upper_unit`: `U`, `b` -> `x`.
fn linalg_solve_upper_unit<T: Real, const N: usize>(name: &str, input: &[u64], out: &mut Vec<u64>) {
    solve_with::<T, N>(name, input, out, linalg::solve_upper_unit);
}

/// `cholesky_solve`: `L`, `b` -> `x`.
fn linalg_cholesky_solve<T: Real, const N: usize>(name: &str, input: &[u64], out: &mut Vec<u64>) {
    solve_with::<T, N>(name, input, out, linalg::cholesky_solve);
}

/// `det_lu`: `A` -> `d`.
fn linalg_det_lu<T: Real, const N: usize>(name: &str, input: &[u64], out: &mut Vec<u64>) {
    write_all([linalg::det_lu(read_matrix::<T, N>(name, input))], out);
}

/// `inverse`: `A` -> `X`, `#info`.
fn linalg_inverse<T: Real, const N: usize>(name: &str, input: &[u64], out: &mut Vec<u64>) {
    let (x, info) = linalg::inverse(read_matrix::<T, N>(name, input));
    x.write(out);
    write_integers([info], out);
}

/// `cholesky`: `A` -> `L`, `#info`.
fn linalg_cholesky<T: Real, const N: usize>(name: &str, input: &[u64], out: &mut Vec<u64>) {
    let (l, info) = linalg::cholesky(read_matrix::<T, N>(name, input));
    l.write(out);
    write_integers([info], out);
}

/// `eigh`: `A` -> `w`, `V`.
fn linalg_eigh<T: Real, const N: usize>(name: &str, input: &[u64], out: &mut Vec<u64>) {
    let (w, v) = linalg::eigh(read_matrix::<T, N>(name, input));
    write_all(w, out);
    v.write(out);
}

/// The single form: exactly `words` input words, one problem.
fn linalg_single(name: &str, input: &[u64], words: usize, kernel: LinalgKernel) -> Vec<u64> {
    assert!(input.len() == words, "aether_reference::flat: {name} takes {words} words, got {}", input.len());
    let mut out = Vec::new();
    kernel(name, input, &mut out);
    out
}

/// The many-lane form: any number of problems of `words` words each, one
/// after another; the results one after another.
fn linalg_lanes(name: &str, input: &[u64], words: usize, kernel: LinalgKernel) -> Vec<u64> {
    let problems = input.chunks_exact(words);
    assert!(problems.remainder().is_empty(), "aether_reference::flat: {name} takes whole problems of {words} words, got {}", input.len());
    let mut out = Vec::new();
    for (lane, problem) in problems.enumerate() {
        kernel(&format!("{name} lane {lane}"), problem, &mut out);
    }
    out
}

/// The linear-algebra table: one line per family, with its input words per
/// problem in terms of the size `N`, and its kernel (generic over the element
/// type and `N`). Each line gives the single and the `_lanes` form for
/// `mat2`, `mat3`, `mat4` and `f32`, `f64`.
macro_rules! linalg {
    ($($family:ident ($words:expr) => $kernel:ident;)*) => {
        [$(
            linalg!(@one $family, mat2, 2, f32, $words, $kernel),
            linalg!(@one $family, mat2, 2, f64, $words, $kernel),
            linalg!(@one $family, mat3, 3, f32, $words, $kernel),
            linalg!(@one $family, mat3, 3, f64, $words, $kernel),
            linalg!(@one $family, mat4, 4, f32, $words, $kernel),
            linalg!(@one $family, mat4, 4, f64, $words, $kernel),
        )*]
        .into_iter()
        .flatten()
    };
    (@one $family:ident, $shape:ident, $n:literal, $elem:ident, $words:expr, $kernel:ident) => {{
        const WORDS: usize = {
            const N: usize = $n;
            $words
        };
        fn single(input: &[u64]) -> Vec<u64> {
            const N: usize = $n;
            const NAME: &str = concat!(stringify!($family), "/", stringify!($shape), "/", stringify!($elem));
            linalg_single(NAME, input, $words, $kernel::<$elem, N>)
        }
        fn lanes(input: &[u64]) -> Vec<u64> {
            const N: usize = $n;
            const NAME: &str = concat!(stringify!($family), "_lanes/", stringify!($shape), "/", stringify!($elem));
            linalg_lanes(NAME, input, $words, $kernel::<$elem, N>)
        }
        [
            (stringify!($family), stringify!($shape), stringify!($elem), single as FlatFn, Some(WORDS)),
            (concat!(stringify!($family), "_lanes"), stringify!($shape), stringify!($elem), lanes as FlatFn, None),
        ]
    }};
}

/// A function's keys, its flat form, and its input words when they are fixed
/// (`None` for the kernels over arrays and the many-lane forms).
type Entry = (&'static str, &'static str, &'static str, FlatFn, Option<usize>);

static TABLE: LazyLock<Vec<Entry>> = LazyLock::new(|| {
    table! {
        // scalar helpers
        fmin [scalar] (a: T, b: T) => scalar::fmin(a, b);
        fmax [scalar] (a: T, b: T) => scalar::fmax(a, b);
        sign [scalar] (a: T) => scalar::sign(a);
        // elementary functions
        sin_poly [scalar] (u: T) => elementary::sin_poly(u);
        cos_poly [scalar] (u: T) => elementary::cos_poly(u);
        tan_poly [scalar] (u: T) => elementary::tan_poly(u);
        atan_poly [scalar] (u: T) => elementary::atan_poly(u);
        asin_poly [scalar] (z: T) => elementary::asin_poly(z);
        exp_poly [scalar] (r: T) => elementary::exp_poly(r);
        exp2_poly [scalar] (r: T) => elementary::exp2_poly(r);
        log_poly [scalar] (z: T) => elementary::log_poly(z);
        pow_poly [scalar] (z: T) => elementary::pow_poly(z);
        sincos [scalar] (a: T) => elementary::sincos(a);
        sin [scalar] (a: T) => elementary::sin(a);
        cos [scalar] (a: T) => elementary::cos(a);
        tan [scalar] (a: T) => elementary::tan(a);
        atan [scalar] (x: T) => elementary::atan(x);
        atan2 [scalar] (y: T, x: T) => elementary::atan2(y, x);
        exp [scalar] (x: T) => elementary::exp(x);
        log [scalar] (x: T) => elementary::log(x);
        exp2 [scalar] (x: T) => elementary::exp2(x);
        log2 [scalar] (x: T) => elementary::log2(x);
        pow [scalar] (x: T, y: T) => elementary::pow(x, y);
        asin [scalar] (x: T) => elementary::asin(x);
        acos [scalar] (x: T) => elementary::acos(x);
        from_axis_angle [quat] (axis: V, angle: T) => elementary::from_axis_angle(axis, angle);
        slerp [quat] (a: S, b: S, t: T) => elementary::slerp(a, b, t);
        from_euler_xyz [mat3] (ax: T, ay: T, az: T) => elementary::from_euler_xyz(ax, ay, az);
        // componentwise
        add [vec2, vec3, vec4] (a: S, b: S) => a.add(b);
        sub [vec2, vec3, vec4] (a: S, b: S) => a.sub(b);
        mul [vec2, vec3, vec4] (a: S, b: S) => a.mul(b);
        scale [vec2, vec3, vec4] (a: S, s: T) => a.scale(s);
        div [vec2, vec3, vec4] (a: S, s: T) => a.div(s);
        neg [scalar] (a: T) => scalar::neg(a);
        neg [vec2, vec3, vec4] (a: S) => a.neg();
        abs [scalar] (a: T) => scalar::abs(a);
        abs [vec2, vec3, vec4] (a: S) => a.abs();
        min [vec2, vec3, vec4] (a: S, b: S) => a.min(b);
        max [vec2, vec3, vec4] (a: S, b: S) => a.max(b);
        lerp [vec2, vec3, vec4] (a: S, b: S, t: T) => a.lerp(b, t);
        // folds
        sum [vec2, vec3, vec4] (a: S) => a.sum();
        dot [vec2, vec3, vec4] (a: S, b: S) => a.dot(b);
        squared_norm [vec2, vec3, vec4] (a: S) => a.squared_norm();
        norm [vec2, vec3, vec4] (a: S) => a.norm();
        max_norm [vec2, vec3, vec4] (a: S) => a.max_norm();
        is_finite [vec2, vec3, vec4] (a: S) => a.is_finite();
        normalize [vec2, vec3, vec4, quat] (a: S) => a.normalize();
        cross [vec3] (a: S, b: S) => a.cross(b);
        reflect [vec3] (v: S, n: S) => v.reflect(n);
        // quaternions
        quat_mul [quat] (a: S, b: S) => a.mul(b);
        conjugate [quat] (a: S) => a.conjugate();
        rotate [quat] (q: S, v: V) => q.rotate(v);
        // matrices
        mul_vec [mat2, mat3, mat4] (m: S, v: V) => m.mul_vec(v);
        mat_mul [mat2, mat3, mat4] (a: S, b: S) => a.mul(b);
        transpose [mat2, mat3, mat4] (m: S) => m.transpose();
        identity [mat2, mat3, mat4] () => S::identity();
        mat_dot [mat2, mat3, mat4] (a: S, b: S) => a.dot(b);
        determinant [mat2, mat3, mat4] (m: S) => m.determinant();
        inverse_adjugate [mat2, mat3, mat4] (m: S) => m.inverse_adjugate();
        // compensated summation: fixed-size pairs
        two_sum_err [scalar] (a: T, b: T, s: T) => compensated::two_sum_err(a, b, s);
        two_sum [scalar] (a: T, b: T) => compensated::two_sum(a, b);
        neumaier_add [pair] (p: S, x: T) => compensated::neumaier_add(p, x);
        pair_combine [pair] (a: S, b: S) => compensated::pair_combine(a, b);
        pair_value [pair] (p: S) => compensated::pair_value(p);
        reduce32 [pair] (lanes: [S; LANES]) => compensated::reduce32(lanes);
        // the steps of the Jacobi rotation of eigh: rotation (c, s, t, tau), pair (x, y)
        jacobi_rotation [scalar] (app: T, aqq: T, apq: T) => linalg::jacobi_rotation(app, aqq, apq);
        jacobi_update [scalar] (g: T, h: T, r: Rotation<T>) => <[T; 2]>::from(linalg::jacobi_update(g, h, r));
        jacobi_diag [scalar] (app: T, aqq: T, apq: T, r: Rotation<T>) => <[T; 2]>::from(linalg::jacobi_diag(app, aqq, apq, r));
    }
    .into_iter()
    .chain(kernels! {
        // compensated summation: variable-length arrays, lanes and planes
        sum_array [scalar] => kernel_sum_array::<T>;
        dot_array [scalar] => kernel_dot_array::<T>;
        lanes_sum [scalar] => kernel_lanes_sum::<T>;
        lanes_dot [scalar] => kernel_lanes_dot::<T>;
        plane_add [scalar] => kernel_plane_add::<T, 1>;
        plane_add [vec2] => kernel_plane_add::<T, 2>;
        plane_add [vec3] => kernel_plane_add::<T, 3>;
        plane_add [vec4] => kernel_plane_add::<T, 4>;
        plane_resolve [scalar] => kernel_plane_resolve::<T>;
    })
    .chain(linalg! {
        lu (N * N) => linalg_lu;
        lu_solve (N * N + 2 * N) => linalg_lu_solve;
        solve_lower (N * N + N) => linalg_solve_lower;
        solve_lower_unit (N * N + N) => linalg_solve_lower_unit;
        solve_upper (N * N + N) => linalg_solve_upper;
        solve_upper_unit (N * N + N) => linalg_solve_upper_unit;
        det_lu (N * N) => linalg_det_lu;
        inverse (N * N) => linalg_inverse;
        cholesky (N * N) => linalg_cholesky;
        cholesky_solve (N * N + N) => linalg_cholesky_solve;
        eigh (N * N) => linalg_eigh;
    })
    .collect()
});

static KEYS: LazyLock<Vec<(&'static str, &'static str, &'static str)>> =
    LazyLock::new(|| TABLE.iter().map(|&(family, shape, elem, _, _)| (family, shape, elem)).collect());

/// The flat function for `(family, shape, elem)`, e.g. `("dot", "vec3",
/// "f32")`, `("fmin", "scalar", "f64")`, `("quat_mul", "quat", "f32")`,
/// `("mul_vec", "mat3", "f64")`, `("sum_array", "scalar", "f32")`,
/// `("reduce32", "pair", "f64")`, `("lu", "mat3", "f32")`,
/// `("eigh_lanes", "mat4", "f64")`; `None` when no such function exists.
pub fn lookup(family: &str, shape: &str, elem: &str) -> Option<FlatFn> {
    TABLE.iter().find(|&&(f, s, e, _, _)| (f, s, e) == (family, shape, elem)).map(|&(_, _, _, function, _)| function)
}

/// The number of input words the flat function for `(family, shape, elem)`
/// takes, when it is fixed: its parameters' words for a family of the spec,
/// the one problem's for a linear-algebra routine. `None` for the kernels over
/// arrays, the many-lane forms and functions that do not exist. A checker can
/// compare this with its own idea of the function before it calls it (the
/// flat function panics on any other length).
pub fn input_words(family: &str, shape: &str, elem: &str) -> Option<usize> {
    TABLE.iter().find(|&&(f, s, e, _, _)| (f, s, e) == (family, shape, elem)).and_then(|&(_, _, _, _, words)| words)
}

/// Every `(family, shape, elem)` implemented: each family of the spec for
/// each shape it lists, each compensated-summation function, and each
/// linear-algebra routine (single and `_lanes`, for `mat2`, `mat3`, `mat4`),
/// for `f32` and for `f64`. Read off the table [`lookup`] searches; the
/// generator refuses a spec that does not list every one of them.
pub fn entries() -> &'static [(&'static str, &'static str, &'static str)] {
    &KEYS
}
