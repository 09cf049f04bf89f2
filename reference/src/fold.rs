//! The contract's one fold and its combiners.
//!
//! Every reduction over the components of one item (sum, dot, squared norm,
//! norm, max norm, is-finite, a matrix-vector row, a matrix-product entry and
//! the Frobenius `mat_dot`) is [`fold`]: sequential, right-nested with the
//! highest index outermost, and unseeded,
//!
//! ```text
//! t[N-1] (+) (t[N-2] (+) (... (+) (t[1] (+) t[0])))
//! ```
//!
//! where each step's left operand is the new term and its right operand is the
//! folded rest.

use crate::real::Real;

/// Folds `terms` in the contract's order: `acc = t[0]`, then
/// `acc = combine(t[k], acc)` for `k = 1, 2, ..., N-1`, so the result is
/// `t[N-1] (+) (... (+) (t[1] (+) t[0]))`.
///
/// There is no seed: the innermost operand is `t[0]` itself (a sum of
/// `-0`s stays `-0`). The new term is always the *left* argument of
/// `combine`.
///
/// # Panics
///
/// If `terms` is empty; every item of the contract has at least two
/// components, so an empty fold is a bug of the caller.
pub fn fold<T, I, F>(terms: I, combine: F) -> T
where
    I: IntoIterator<Item = T>,
    F: Fn(T, T) -> T,
{
    let mut terms = terms.into_iter();
    let mut acc = terms.next().expect("aether_reference::fold: a contract fold has at least one term");
    for new in terms {
        acc = combine(new, acc);
    }
    acc
}

/// The `add` combiner: `new + acc` (one rounded addition).
pub fn add<T: Real>(new: T, acc: T) -> T {
    new + acc
}

/// The `max_select` combiner of `max_norm`: `new > acc ? new : acc`.
///
/// Against a NaN the comparison is false, so a NaN `acc` survives every later
/// term and a NaN `new` is skipped.
pub fn max_select<T: Real>(new: T, acc: T) -> T {
    if new > acc {
        new
    } else {
        acc
    }
}

/// The `all` combiner of `is_finite`: `new && acc`.
pub fn all(new: bool, acc: bool) -> bool {
    new && acc
}
