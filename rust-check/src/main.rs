//! The Rust core's runner: reads requests from stdin and answers each on
//! stdout, so that a host process holding the reference can check a build of
//! the core for any target (a qemu-user or WASI run has no reference of its
//! own to compare with, and needs none).
//!
//! A request is the callable's name (u32 length, then UTF-8 bytes) and its
//! input words (u32 count, then u64 words); the answer is a u32 count and
//! the result words, or `u32::MAX` when the words do not fit the callable
//! (its thunk's None) and `u32::MAX - 1` for an unknown name. Every integer
//! is little-endian. `--selftest` runs `aether_selftest()` instead (exit 1
//! when a check fails). A predicate's form is named `predicate:NAME:golden` or
//! `predicate:NAME:integer`, and answers one word, 1 or 0. A function's batched forms are
//! named `batch:aos:NAME` and `batch:soa:NAME`: the words are the item count, then every
//! item's input words; the answer every item's result words, in turn. The answers are
//! flushed whenever the runner would wait for input, so the host may send a whole batch
//! before it reads.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};

// Generated (one thunk per callable, as the spec lists them).
#[path = "../../rust_core/check/flat.rs"]
#[rustfmt::skip]
#[allow(clippy::all)]
mod flat;

/// A pipe end that waits where the stream is non-blocking: Node's WASI
/// hands the module its stdin and stdout as they are, and a read of an empty
/// pipe (or a write to a full one) answers "would block" there.
struct Patient<T>(T);

fn wait<R>(mut op: impl FnMut() -> std::io::Result<R>) -> std::io::Result<R> {
    loop {
        match op() {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => std::thread::sleep(std::time::Duration::from_micros(200)),
            other => return other,
        }
    }
}

impl<T: Read> Read for Patient<T> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        wait(|| self.0.read(buf))
    }
}

impl<T: Write> Write for Patient<T> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        wait(|| self.0.write(buf))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        wait(|| self.0.flush())
    }
}

/// How a request is answered: the result words, or None when the words do not fit.
type Answer = dyn Fn(&[u64]) -> Option<Vec<u64>>;

fn read_u32(r: &mut impl Read) -> std::io::Result<u32> {
    let mut b = [0u8; 4];
    r.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

fn main() -> std::io::Result<()> {
    let mut thunks: HashMap<String, Box<Answer>> = HashMap::new();
    for e in flat::ENTRIES {
        thunks.insert(e.0.to_string(), Box::new(e.4));
    }
    for &(name, arity, golden, integer) in flat::PREDICATES {
        for (form, f) in [("golden", golden), ("integer", integer)] {
            let answer = move |w: &[u64]| (w.len() == arity).then(|| vec![u64::from(f(w))]);
            thunks.insert(format!("predicate:{name}:{form}"), Box::new(answer));
        }
    }
    for &(name, per, batch) in flat::BATCHES {
        for (form, soa) in [("aos", false), ("soa", true)] {
            let answer = move |w: &[u64]| {
                let (&count, rest) = w.split_first()?;
                let count = usize::try_from(count).ok()?;
                if per.checked_mul(count)? != rest.len() {
                    return None;
                }
                let items: Vec<Vec<u64>> = (0..count).map(|i| rest[i * per..(i + 1) * per].to_vec()).collect();
                let (aos, soa_items) = batch(&items)?;
                Some(if soa { soa_items } else { aos }.concat())
            };
            thunks.insert(format!("batch:{form}:{name}"), Box::new(answer));
        }
    }
    if std::env::args().nth(1).as_deref() == Some("--selftest") {
        match aether_core::aether_selftest() {
            Ok(n) => println!("aether_selftest: {n} checks passed"),
            Err(e) => {
                println!("{e}");
                std::process::exit(1);
            }
        }
        return Ok(());
    }
    if std::env::args().nth(1).as_deref() == Some("--list") {
        for e in flat::ENTRIES {
            println!("{}", e.0);
        }
        return Ok(());
    }
    let mut input = BufReader::with_capacity(1 << 16, Patient(std::io::stdin().lock()));
    let mut output = BufWriter::with_capacity(1 << 16, Patient(std::io::stdout().lock()));
    let mut name = Vec::new();
    let mut words = Vec::new();
    loop {
        if input.buffer().is_empty() {
            output.flush()?;
            if input.fill_buf()?.is_empty() {
                return Ok(());
            }
        }
        let len = read_u32(&mut input)? as usize;
        name.resize(len, 0);
        input.read_exact(&mut name)?;
        let n = read_u32(&mut input)? as usize;
        words.clear();
        for _ in 0..n {
            let mut b = [0u8; 8];
            input.read_exact(&mut b)?;
            words.push(u64::from_le_bytes(b));
        }
        let thunk = std::str::from_utf8(&name).ok().and_then(|s| thunks.get(s));
        match thunk.map(|t| t(&words)) {
            None => output.write_all(&(u32::MAX - 1).to_le_bytes())?,
            Some(None) => output.write_all(&u32::MAX.to_le_bytes())?,
            Some(Some(out)) => {
                output.write_all(&(out.len() as u32).to_le_bytes())?;
                for w in out {
                    output.write_all(&w.to_le_bytes())?;
                }
            }
        }
    }
}
