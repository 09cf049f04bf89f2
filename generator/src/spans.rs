//! Where things are in the spec's text: a table's entries in the order the
//! file states them, and the line a string value's content starts on. Used
//! by every reader of the spec's tables (`spec`, `predicate`, `df64`), below
//! all of them.

use std::collections::BTreeMap;

use toml::Spanned;

use crate::error::LineIndex;

/// Table entries in the order they appear in the file.
/// A table's entries in the order the file states them.
pub(crate) fn in_file_order<T>(map: &BTreeMap<String, Spanned<T>>) -> Vec<(&String, &Spanned<T>)> {
    let mut v: Vec<_> = map.iter().collect();
    v.sort_by_key(|(_, s)| s.span().start);
    v
}

/// The first line of a string value's content that starts at `offset`.
pub(crate) fn first_content_line(lines: &LineIndex, text: &str, offset: usize) -> usize {
    let line = lines.line(offset);
    let rest = &text[offset.min(text.len())..];
    if rest.starts_with("\"\"\"\n") || rest.starts_with("'''\n") {
        line + 1
    } else {
        line
    }
}
