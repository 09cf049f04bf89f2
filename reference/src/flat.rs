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

use std::sync::LazyLock;

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
        fn adapter(input: &[u64]) -> Vec<u64> {
            #[allow(dead_code)]
            type T = $elem;
            #[allow(dead_code)]
            type S = self_type!($shape);
            #[allow(dead_code)]
            type V = vec_type!($shape);
            const NAME: &str = concat!(
                stringify!($family), "/", stringify!($shape), "/", stringify!($elem)
            );
            let mut params = Params::new::<T>(NAME, input, 0 $(+ <$pt as Flat>::WORDS)*);
            $(let $p: $pt = params.take();)*
            params.finish();
            encode($body)
        }
        adapter as FlatFn
    }};
}

/// The table: one line per family, listing its shapes, its parameters and its
/// body; every (family, shape) is instantiated for `f32` and `f64`.
macro_rules! table {
    ($($family:ident [$($shape:ident),+] $params:tt => $body:expr;)*) => {
        vec![$($(
            (stringify!($family), stringify!($shape), "f32",
                adapter!($family, $shape, f32, $params => $body)),
            (stringify!($family), stringify!($shape), "f64",
                adapter!($family, $shape, f64, $params => $body)),
        )+)*]
    };
}

type Entry = (&'static str, &'static str, &'static str, FlatFn);

static TABLE: LazyLock<Vec<Entry>> = LazyLock::new(|| {
    table! {
        // scalar helpers
        fmin [scalar] (a: T, b: T) => scalar::fmin(a, b);
        fmax [scalar] (a: T, b: T) => scalar::fmax(a, b);
        sign [scalar] (a: T) => scalar::sign(a);
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
    }
});

static KEYS: LazyLock<Vec<(&'static str, &'static str, &'static str)>> =
    LazyLock::new(|| TABLE.iter().map(|&(family, shape, elem, _)| (family, shape, elem)).collect());

/// The flat function for `(family, shape, elem)`, e.g. `("dot", "vec3",
/// "f32")`, `("fmin", "scalar", "f64")`, `("quat_mul", "quat", "f32")`,
/// `("mul_vec", "mat3", "f64")`; `None` when the spec does not list that
/// combination.
pub fn lookup(family: &str, shape: &str, elem: &str) -> Option<FlatFn> {
    TABLE.iter().find(|&&(f, s, e, _)| (f, s, e) == (family, shape, elem)).map(|&(_, _, _, function)| function)
}

/// Every `(family, shape, elem)` implemented: each family of the spec for
/// each shape it lists, for `f32` and for `f64`.
pub fn entries() -> &'static [(&'static str, &'static str, &'static str)] {
    &KEYS
}
