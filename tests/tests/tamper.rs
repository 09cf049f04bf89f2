//! Corpus integrity: changing any one byte of a part is caught, with a
//! message that names the part. Every part is tried at a spread of positions:
//! both fence lines, the body's first and last bytes, and evenly spaced bytes
//! in between.

use aether_generator::corpus;

/// Positions tried per part, besides the fences' and the body's ends.
const SPREAD: usize = 48;

#[test]
fn every_one_byte_change_of_a_part_is_caught_and_names_the_part() {
    let dir = aether_generator::default_root().join("corpus");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".h") && n != "aether_c_corpus.h")
        .collect();
    names.sort();
    assert!(names.len() > 100, "only {} parts", names.len());
    let (mut tried, mut missed) = (0usize, Vec::new());
    for name in &names {
        let text = std::fs::read(dir.join(name)).unwrap();
        corpus::parse_part(name, std::str::from_utf8(&text).unwrap()).unwrap_or_else(|e| panic!("the committed part does not parse: {e}"));
        let first_nl = text.iter().position(|&b| b == b'\n').unwrap();
        let last_start = text[..text.len() - 1].iter().rposition(|&b| b == b'\n').unwrap() + 1;
        let mut at: Vec<usize> =
            vec![0, first_nl / 2, first_nl - 1, first_nl + 1, last_start - 2, last_start, last_start + 20, text.len() - 5];
        at.extend((1..=SPREAD).map(|k| first_nl + 1 + k * (last_start - first_nl - 2) / (SPREAD + 1)));
        for pos in at {
            let mut bad = text.clone();
            // A different printable byte: the smallest change that keeps the
            // text valid UTF-8 and plausible C.
            bad[pos] = if bad[pos] == b'0' { b'1' } else { b'0' };
            tried += 1;
            match corpus::parse_part(name, &String::from_utf8_lossy(&bad)) {
                Err(e) if e.starts_with(&format!("{name}:")) => {}
                Err(e) => missed.push(format!("{name} byte {pos}: the message does not name the part: {e}")),
                Ok(_) => missed.push(format!("{name} byte {pos}: the change was not caught")),
            }
        }
    }
    println!("corpus tamper: {} parts, {tried} one-byte changes, {} not caught or not named", names.len(), missed.len());
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}
