//! The reference's results for the Python package's tests (`python/tests/test_reference.py`).
//!
//! Reads lines `family shape elem word...` (the input words in hex, the flat convention of
//! `aether_reference::flat`) from stdin and writes, for each, one line of the result words in
//! hex (NaN payloads as the reference leaves them: the tests accept any NaN for a NaN). A line
//! naming no function, or with the wrong number of words, stops the program with a message.
//!
//! `cargo run -q -p aether-reference --example py_ref < requests.txt > results.txt`

use std::io::{BufRead, BufWriter, Write};

fn main() {
    let stdin = std::io::stdin();
    let mut out = BufWriter::new(std::io::stdout().lock());
    for (k, line) in stdin.lock().lines().enumerate() {
        let line = line.expect("py_ref: stdin");
        let mut it = line.split_whitespace();
        let (Some(family), Some(shape), Some(elem)) = (it.next(), it.next(), it.next()) else {
            eprintln!("py_ref: line {}: expected `family shape elem word...`", k + 1);
            std::process::exit(2);
        };
        let words: Vec<u64> = it
            .map(|w| {
                u64::from_str_radix(w, 16).unwrap_or_else(|_| {
                    eprintln!("py_ref: line {}: bad word `{w}`", k + 1);
                    std::process::exit(2)
                })
            })
            .collect();
        let Some(f) = aether_reference::flat::lookup(family, shape, elem) else {
            eprintln!("py_ref: line {}: the reference has no {family} {shape} {elem}", k + 1);
            std::process::exit(2);
        };
        if aether_reference::flat::input_words(family, shape, elem) != Some(words.len()) {
            eprintln!("py_ref: line {}: {family} {shape} {elem} does not take {} words", k + 1, words.len());
            std::process::exit(2);
        }
        let result: Vec<String> = f(&words).iter().map(|w| format!("{w:x}")).collect();
        writeln!(out, "{}", result.join(" ")).expect("py_ref: stdout");
    }
    out.flush().expect("py_ref: stdout");
}
