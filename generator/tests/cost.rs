//! The generator's cost is linear in a body's length (issue 53, item 5): a
//! helper padded with unused integer steps up to the body bound (64 KiB of
//! text) costs the predicates' proof exactly its steps times the helper's
//! calls, counted (`predicate::STEPS_RUN`), not timed. Before each step read
//! its operands by slot, a lookup scanned the body's names: 2,000 unused steps
//! took 225 s of `generator --check` instead of 11 s. One test in its own
//! binary, so no other test moves the counter.

use std::sync::atomic::Ordering;

use aether_generator::{dsl, fuzzing, predicate, predicate_corpus};

const SPEC: &str = include_str!("../../spec/aether.toml");
const HELPER: &str = "body = \"out = 40 - clz(x)\"";

/// The spec with `[int_functions.exp24]` padded with `n` unused steps.
fn padded(n: usize) -> String {
    let steps: String = (0..n).map(|k| format!("w{k} = x & {k}\n")).collect();
    assert_eq!(SPEC.matches(HELPER).count(), 1);
    SPEC.replacen(HELPER, &format!("body = \"\"\"\n{steps}out = 40 - clz(x)\n\"\"\""), 1)
}

/// Steps the predicates' proof and corpus run on the spec padded with `n`.
fn work(n: usize) -> u64 {
    let model = fuzzing::build(&padded(n)).unwrap_or_else(|e| panic!("{n} steps: {e}"));
    let before = predicate::STEPS_RUN.load(Ordering::Relaxed);
    predicate_corpus::build(&model).unwrap_or_else(|e| panic!("{n} steps: {e}"));
    predicate::STEPS_RUN.load(Ordering::Relaxed) - before
}

/// The most steps the proof may run on a spec whose helper is padded to the
/// body bound: about 30 s of the release generator on this 2-core machine.
const BUDGET: u64 = 1_000_000_000;

#[test]
fn the_proof_s_work_is_linear_in_a_body_s_length() {
    // The longest padding under the body bound (64 KiB of text).
    let most = (1..).take_while(|&n| padded(n + 1).len() - SPEC.len() < dsl::MAX_BODY_BYTES - 64).last().unwrap() as u64;
    let (w0, w1, w2) = (work(0), work(250), work(500));
    assert_eq!((w1 - w0) % 250, 0, "the padding's work is not a whole number of calls");
    assert_eq!(w2 - w1, w1 - w0, "doubling the padding did not double its work");
    let calls = (w1 - w0) / 250;
    assert!(calls > 10_000, "the proof calls the helper {calls} times: the padding is not on its path");
    let at_bound = w0 + most * calls;
    println!("cost: {w0} steps on the spec, {w1} with 250 unused steps, {w2} with 500 ({calls} calls of the helper); {at_bound} at the body bound ({most} steps), budget {BUDGET}");
    assert!(at_bound <= BUDGET, "a helper at the body bound would cost the proof {at_bound} steps, over the budget of {BUDGET}");
}
