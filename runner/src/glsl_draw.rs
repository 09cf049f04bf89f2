//! How a GLSL ES 3.00 check module runs on a GL stack without compute
//! shaders (WebGL2, GLES 3.0): one vertex per case, the inputs read as exact
//! bits from an integer texture, the results returned as exact bits through
//! transform feedback of `flat` integer varyings, the rasteriser off. Every
//! GL executor (Mesa's GLES on llvmpipe, Chromium's WebGL2 on SwiftShader)
//! draws by this one plan, so they differ only in how they reach GL.
//!
//! The check module's `source` (`aether_generator::targets::glsl`) holds
//! everything but the `#version` line, the precisions and `main`; it
//! declares:
//!
//! ```glsl
//! uniform highp usampler2D aether_in;   // R32UI, TEX_WIDTH texels wide, unit 0
//! uniform highp uvec4 aether_params;    // (cases in the draw, 0, bits of 1.0, 0)
//! uniform highp uint aether_part;       // the PART_WORDS-word window returned
//! flat out highp uvec4 aether_o0;       // ... aether_o7: the window's words
//! ```
//!
//! Case `gl_VertexID` of a draw reads input words `[i*n_in, (i+1)*n_in)` of
//! the draw's texture (word k at texel `(k % TEX_WIDTH, k / TEX_WIDTH)`) and
//! returns result words `[part*PART_WORDS, (part+1)*PART_WORDS)` of its
//! `n_out` in `aether_o0..aether_o7` (captured interleaved, in that order;
//! words past `n_out` are 0). An entry with more than PART_WORDS result words
//! is drawn once per part. `params.y` is the guard's opaque zero (it must be
//! 0), `params.z` the opaque one of the opaque-one control.
//!
//! Bound words. A job (`crate::exec::Job`) may carry up to BOUND_WORDS
//! "bound words", the bits of 16 f32 values, for the probes that read the
//! same values from other provenances than the texture (the df64
//! loaded-low-word probes); ordinary jobs carry none. When a job's bound
//! words are not empty the executor pads them with zeros
//! to BOUND_WORDS ([`padded_bound`]) and binds them, bit-exactly as f32
//! values (no numeric conversion), to whichever of these the entry's program
//! has active (any subset; a probe entry uses exactly one):
//!
//! ```glsl
//! // PROBE_BLOCK: a uniform buffer of the 64 bytes, at uniform buffer
//! // binding point PROBE_BLOCK_BINDING (glUniformBlockBinding).
//! layout(std140) uniform aether_probe_block { highp vec4 aether_probe_b[4]; };
//! // PROBE_UNIFORM: glUniform4fv of the 16 floats (count 4).
//! uniform highp vec4 aether_probe_u[4];
//! // PROBE_ATTRIBUTES (GLSL ES 3.00 has no attribute arrays): per-vertex
//! // FLOAT streams of one ARRAY_BUFFER (stride 64 bytes, aether_probe_aI at
//! // byte 16*I, size 4, not normalised), the same 4 vec4 at every vertex of
//! // the draw; the arrays are disabled again after the job's draws.
//! in highp vec4 aether_probe_a0;   // ... aether_probe_a3
//! ```
//!
//! Float k of each (`aether_probe_b[k / 4][k % 4]`, `aether_probe_u[k /
//! 4][k % 4]`, component k % 4 of `aether_probe_a{k / 4}`) is
//! `uintBitsToFloat(bound word k)`. A job with bound words whose program has
//! none of the three active (block index GL_INVALID_INDEX, uniform location
//! -1, every attribute location -1) fails, naming the entry ("bound words
//! but the program declares no aether_probe_* binding"). The linker drops
//! the uniform and the attributes where the entry does not reach them, but a
//! `std140` block is active in every program whose source declares it, used
//! or not (GLES 3.0.6 section 2.12.6): as every entry's program holds the
//! whole module source, every entry of a module that declares the block has
//! it bound (harmlessly), and the check only catches the entries of modules
//! without it. For the same reason an active block is bound for every job,
//! to 64 zero bytes where the job has no bound words (WebGL2 refuses a draw
//! whose program has an active uniform block with no buffer bound:
//! INVALID_OPERATION); the uniform and the attributes are set only for a job
//! with bound words (else the uniform keeps its last value, 0 at link, and
//! the attributes read the generic (0, 0, 0, 1)). More than BOUND_WORDS
//! bound words fail `crate::exec::check_jobs`.

use aether_generator::targets::shared::check::CheckModule;

/// The width of the input texture in texels (one u32 word each).
pub const TEX_WIDTH: usize = 4096;
/// The most rows of the input texture in one draw (GLES 3.0 guarantees
/// textures of 2048 texels a side).
pub const TEX_MAX_ROWS: usize = 1024;
/// The result words one draw returns per case: 8 `uvec4` varyings (GLES 3.0
/// guarantees 64 interleaved components of transform feedback and 15
/// varying vectors).
pub const PART_WORDS: usize = 32;
/// The most cases (vertices) in one draw.
pub const MAX_DRAW_CASES: usize = 1 << 16;
/// The varyings captured by transform feedback, in order.
pub const VARYINGS: [&str; 8] = ["aether_o0", "aether_o1", "aether_o2", "aether_o3", "aether_o4", "aether_o5", "aether_o6", "aether_o7"];
/// The most bound words of a job: the bits of 16 f32 values (4 `vec4`).
pub const BOUND_WORDS: usize = 16;
/// The uniform block of the bound words (`std140`, one `vec4[4]` member,
/// `aether_probe_b`).
pub const PROBE_BLOCK: &str = "aether_probe_block";
/// The uniform buffer binding point the probe block is bound at.
pub const PROBE_BLOCK_BINDING: u32 = 0;
/// The plain uniform of the bound words (`vec4[4]`); its location is that of
/// `aether_probe_u[0]`.
pub const PROBE_UNIFORM: &str = "aether_probe_u";
/// The vertex attributes of the bound words (`vec4` each, 4 words apiece,
/// in order).
pub const PROBE_ATTRIBUTES: [&str; 4] = ["aether_probe_a0", "aether_probe_a1", "aether_probe_a2", "aether_probe_a3"];
/// The member of the probe block: `vec4[4]`.
pub const PROBE_BLOCK_MEMBER: &str = "aether_probe_b";

/// The GLSL ES declarations of the bound words' three sources, for a module
/// whose entries read them (the generated probes of `crate::df64`).
pub fn bound_declarations() -> String {
    let vecs = BOUND_WORDS / 4;
    let mut s = format!(
        "layout(std140) uniform {PROBE_BLOCK} {{\n    highp vec4 {PROBE_BLOCK_MEMBER}[{vecs}];\n}};\nuniform highp vec4 {PROBE_UNIFORM}[{vecs}];\n"
    );
    for a in PROBE_ATTRIBUTES {
        s.push_str(&format!("in highp vec4 {a};\n"));
    }
    s
}

/// The bytes of the bound words, and the stride of the attribute stream
/// (one vertex's 4 `vec4`).
pub const BOUND_BYTES: usize = BOUND_WORDS * 4;
/// The fragment shader every program links with (the rasteriser is off:
/// `RASTERIZER_DISCARD`).
pub const FRAGMENT: &str = "#version 300 es\nprecision highp float;\nout vec4 aether_color;\nvoid main() { aether_color = vec4(0.0); }\n";

/// The vertex shader of entry `entry` of a GLSL check module: the module's
/// source cut to the functions the entry reaches ([`reachable`]), and a
/// `main` that calls the entry and `aether_emit`.
pub fn vertex_source(module: &CheckModule, entry: usize) -> String {
    let name = &module.entries[entry].entry;
    format!(
        "#version 300 es\nprecision highp float;\nprecision highp int;\nprecision highp usampler2D;\n{}\nvoid main() {{\n    {name}();\n    aether_emit();\n    gl_Position = vec4(0.0, 0.0, 0.0, 1.0);\n    gl_PointSize = 1.0;\n}}\n",
        reachable(&module.source, &[name, "aether_emit"])
    )
}

/// The words that open a top-level line that is not a function's head.
const NOT_A_FUNCTION: [&str; 9] = ["struct", "uniform", "layout", "in", "out", "flat", "precision", "const", "return"];

/// The name of the function whose head opens top-level line `line`, if it
/// is one (`type name(...`, at column 0).
fn function_head(line: &str) -> Option<&str> {
    if line.starts_with(|c: char| !(c.is_ascii_alphabetic() || c == '_')) {
        return None;
    }
    let open = line.find('(')?;
    let words: Vec<&str> = line[..open].split_whitespace().collect();
    match words.as_slice() {
        [ty, .., name] if !NOT_A_FUNCTION.contains(ty) && words.len() <= 3 => Some(name),
        _ => None,
    }
}

/// `source` without the functions that none of `roots` reaches through
/// calls (a program per entry then compiles the entry's functions only: a
/// GL compiler parses and checks every function it is given, about 0.1 to
/// 0.7 s per program of the whole core on Mesa). Every other top-level line
/// (structs, globals, uniforms, varyings, comments, preprocessor lines) is
/// kept, and the kept functions stay in their order, so every name is still
/// declared before its use. A function is a head at column 0 (see
/// `function_head`) through the line where its braces close.
pub fn reachable(source: &str, roots: &[&str]) -> String {
    // Items: (function name or None, text).
    let mut items: Vec<(Option<&str>, String)> = Vec::new();
    let mut lines = source.lines();
    while let Some(l) = lines.next() {
        let Some(name) = function_head(l) else {
            items.push((None, format!("{l}\n")));
            continue;
        };
        let mut text = format!("{l}\n");
        let mut depth = l.matches('{').count() as i64 - l.matches('}').count() as i64;
        let mut opened = l.contains('{');
        while !opened || depth > 0 {
            let Some(b) = lines.next() else { break };
            depth += b.matches('{').count() as i64 - b.matches('}').count() as i64;
            opened |= b.contains('{');
            text.push_str(b);
            text.push('\n');
        }
        items.push((Some(name), text));
    }
    let defined: std::collections::HashSet<&str> = items.iter().filter_map(|(n, _)| *n).collect();
    let mut keep: std::collections::HashSet<&str> = roots.iter().copied().filter(|r| defined.contains(r)).collect();
    let mut todo: Vec<&str> = keep.iter().copied().collect();
    while let Some(f) = todo.pop() {
        for (_, text) in items.iter().filter(|(n, _)| *n == Some(f)) {
            for word in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
                if let Some(&d) = defined.get(word) {
                    if keep.insert(d) {
                        todo.push(d);
                    }
                }
            }
        }
    }
    items.into_iter().filter(|(n, _)| n.is_none_or(|n| keep.contains(n))).map(|(_, t)| t).collect()
}

/// The number of draws (parts) per chunk of cases of an entry with `n_out`
/// result words.
pub fn parts(n_out: usize) -> usize {
    n_out.div_ceil(PART_WORDS).max(1)
}

/// The chunks `(first case, cases)` that cover `count` cases of an entry of
/// `n_in` input words, each within MAX_DRAW_CASES and the texture's
/// TEX_WIDTH x TEX_MAX_ROWS words.
pub fn chunks(n_in: usize, count: usize) -> Vec<(usize, usize)> {
    let by_words = (TEX_WIDTH * TEX_MAX_ROWS) / n_in.max(1);
    let per = MAX_DRAW_CASES.min(by_words).max(1);
    let mut out = Vec::new();
    let mut first = 0;
    while first < count {
        let n = per.min(count - first);
        out.push((first, n));
        first += n;
    }
    out
}

/// The texture of a chunk's input words: its height in rows, and the words
/// padded with zeros to `TEX_WIDTH * rows`.
pub fn texture(words: &[u32]) -> (usize, Vec<u32>) {
    let rows = words.len().div_ceil(TEX_WIDTH).max(1);
    let mut t = words.to_vec();
    t.resize(rows * TEX_WIDTH, 0);
    (rows, t)
}

/// Puts one draw's captured words (`cases * PART_WORDS`, interleaved as
/// VARYINGS) into `out`, the entry's results (`n_out` words per case, from
/// case `first`), for part `part`.
pub fn scatter(captured: &[u32], first: usize, cases: usize, n_out: usize, part: usize, out: &mut [u64]) {
    let lo = part * PART_WORDS;
    let hi = (lo + PART_WORDS).min(n_out);
    for i in 0..cases {
        for k in lo..hi {
            out[(first + i) * n_out + k] = u64::from(captured[i * PART_WORDS + (k - lo)]);
        }
    }
}

/// The uniforms of a draw: `aether_params` (cases, opaque zero, bits of
/// 1.0, 0).
pub fn params(cases: usize) -> [u32; 4] {
    [cases as u32, 0, crate::exec::ONE_BITS, 0]
}

/// A job's bound words padded with zeros to BOUND_WORDS (more are cut: the
/// executors' `check_jobs` has rejected them).
pub fn padded_bound(bound: &[u32]) -> [u32; BOUND_WORDS] {
    let mut out = [0u32; BOUND_WORDS];
    for (o, &w) in out.iter_mut().zip(bound) {
        *o = w;
    }
    out
}

/// The attribute stream of a draw of `cases` vertices: the padded bound
/// words once per vertex.
pub fn bound_vertices(bound: &[u32], cases: usize) -> Vec<u32> {
    let one = padded_bound(bound);
    let mut out = Vec::with_capacity(cases * BOUND_WORDS);
    for _ in 0..cases {
        out.extend_from_slice(&one);
    }
    out
}

/// A check module written by hand in this convention, for the executors' own
/// tests (the generated one is `aether_generator::targets::glsl`'s): entry
/// `t_add` (2 words in, 1 out: the f32 sum of the two, bits), entry `t_wide`
/// (1 word in, 40 out: word k is the input plus k, so a second part is
/// needed), entry `t_bits` (2 in, 2 out: the words unchanged and XORed),
/// and the bound-word entries `t_bound_block`, `t_bound_uniform` and
/// `t_bound_attr` (0 in, 16 out: word k is the bits of float k of the probe
/// block, the probe uniform and the probe attributes).
pub fn toy_module() -> CheckModule {
    use aether_generator::targets::shared::check::CheckEntry;
    let entry = |name: &str, n_in: usize, n_out: usize| CheckEntry {
        entry: name.into(),
        c_name: name.into(),
        family: name.into(),
        shape: "scalar".into(),
        elem: "f32".into(),
        n_in,
        n_out,
        workgroup_size: 1,
        cases_per_workgroup: 1,
        random: true,
        max_random: None,
    };
    let source = r#"
uniform highp usampler2D aether_in;
uniform highp uvec4 aether_params;
uniform highp uint aether_part;
flat out highp uvec4 aether_o0;
flat out highp uvec4 aether_o1;
flat out highp uvec4 aether_o2;
flat out highp uvec4 aether_o3;
flat out highp uvec4 aether_o4;
flat out highp uvec4 aether_o5;
flat out highp uvec4 aether_o6;
flat out highp uvec4 aether_o7;
#ifndef AETHER_TOY_NO_BLOCK
layout(std140) uniform aether_probe_block { highp vec4 aether_probe_b[4]; };
#endif
uniform highp vec4 aether_probe_u[4];
in highp vec4 aether_probe_a0;
in highp vec4 aether_probe_a1;
in highp vec4 aether_probe_a2;
in highp vec4 aether_probe_a3;
uint aether_r[32];
uint aether_word(uint k) { return texelFetch(aether_in, ivec2(int(k % 4096u), int(k / 4096u)), 0).r; }
void aether_put(uint k, uint w) { uint lo = aether_part * 32u; if (k >= lo && k - lo < 32u) { aether_r[k - lo] = w; } }
void aether_emit() {
    aether_o0 = uvec4(aether_r[0], aether_r[1], aether_r[2], aether_r[3]);
    aether_o1 = uvec4(aether_r[4], aether_r[5], aether_r[6], aether_r[7]);
    aether_o2 = uvec4(aether_r[8], aether_r[9], aether_r[10], aether_r[11]);
    aether_o3 = uvec4(aether_r[12], aether_r[13], aether_r[14], aether_r[15]);
    aether_o4 = uvec4(aether_r[16], aether_r[17], aether_r[18], aether_r[19]);
    aether_o5 = uvec4(aether_r[20], aether_r[21], aether_r[22], aether_r[23]);
    aether_o6 = uvec4(aether_r[24], aether_r[25], aether_r[26], aether_r[27]);
    aether_o7 = uvec4(aether_r[28], aether_r[29], aether_r[30], aether_r[31]);
}
void t_add() {
    uint base = uint(gl_VertexID) * 2u;
    float a = uintBitsToFloat(aether_word(base));
    float b = uintBitsToFloat(aether_word(base + 1u));
    aether_put(0u, floatBitsToUint(a + b) ^ aether_params.y);
}
void t_wide() {
    uint x = aether_word(uint(gl_VertexID));
    for (uint k = 0u; k < 40u; k++) { aether_put(k, x + k); }
}
void t_bits() {
    uint base = uint(gl_VertexID) * 2u;
    uint a = aether_word(base);
    uint b = aether_word(base + 1u);
    aether_put(0u, a);
    aether_put(1u, a ^ b);
}
#ifndef AETHER_TOY_NO_BLOCK
void t_bound_block() {
    for (int k = 0; k < 16; k++) { aether_put(uint(k), floatBitsToUint(aether_probe_b[k / 4][k % 4])); }
}
#endif
void t_bound_uniform() {
    for (int k = 0; k < 16; k++) { aether_put(uint(k), floatBitsToUint(aether_probe_u[k / 4][k % 4])); }
}
void t_bound_attr() {
    uvec4 w0 = floatBitsToUint(aether_probe_a0);
    uvec4 w1 = floatBitsToUint(aether_probe_a1);
    uvec4 w2 = floatBitsToUint(aether_probe_a2);
    uvec4 w3 = floatBitsToUint(aether_probe_a3);
    for (int k = 0; k < 4; k++) {
        aether_put(uint(k), w0[k]);
        aether_put(uint(4 + k), w1[k]);
        aether_put(uint(8 + k), w2[k]);
        aether_put(uint(12 + k), w3[k]);
    }
}
"#;
    CheckModule {
        source: source.into(),
        entries: vec![
            entry("t_add", 2, 1),
            entry("t_wide", 1, 40),
            entry("t_bits", 2, 2),
            entry("t_bound_block", 0, BOUND_WORDS),
            entry("t_bound_uniform", 0, BOUND_WORDS),
            entry("t_bound_attr", 0, BOUND_WORDS),
        ],
    }
}

/// The toy module without the probe block (`AETHER_TOY_NO_BLOCK` defined):
/// its entries but `t_bound_block` (which does not compile there) have none
/// of the bound words' bindings active, as a `std140` block is active in
/// every program whose source declares it.
pub fn toy_module_without_block() -> CheckModule {
    let mut m = toy_module();
    m.source.insert_str(0, "#define AETHER_TOY_NO_BLOCK\n");
    m
}

/// The toy module's expected results for `job` (its entry, inputs, count and
/// bound words).
pub fn toy_expected(job: &crate::exec::Job) -> Vec<u64> {
    let inputs = &job.inputs;
    match job.entry {
        0 => inputs.chunks(2).map(|w| u64::from((f32::from_bits(w[0] as u32) + f32::from_bits(w[1] as u32)).to_bits())).collect(),
        1 => inputs.iter().flat_map(|&x| (0..40u64).map(move |k| u64::from((x as u32).wrapping_add(k as u32)))).collect(),
        2 => inputs.chunks(2).flat_map(|w| [w[0] & 0xffff_ffff, (w[0] ^ w[1]) & 0xffff_ffff]).collect(),
        _ => bound_vertices(&job.bound, job.count).into_iter().map(u64::from).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_every_case_once_within_the_texture() {
        for (n_in, count) in [(1usize, 0usize), (2, 1), (300, 100_000), (1, 10_000_000), (5000, 3)] {
            let c = chunks(n_in, count);
            let mut next = 0;
            for &(first, n) in &c {
                assert_eq!(first, next);
                assert!((1..=MAX_DRAW_CASES).contains(&n) && n * n_in <= TEX_WIDTH * TEX_MAX_ROWS);
                next += n;
            }
            assert_eq!(next, count);
        }
        assert_eq!(parts(1), 1);
        assert_eq!(parts(32), 1);
        assert_eq!(parts(33), 2);
        assert_eq!(parts(63), 2);
    }

    /// The cut keeps what the roots reach, through calls, and every line
    /// that is not a function; a head must open its line.
    #[test]
    fn reachable_keeps_the_called_functions_and_everything_else() {
        let src = "struct S {\n    float x;\n};\nuniform highp uint u;\n// a comment\nfloat leaf(float x) {\n    return x;\n}\nfloat unused(float x) {\n    return leaf(x);\n}\nfloat mid(float x) { return leaf(x) + 1.0; }\nvoid entry() {\n    float y = mid(2.0);\n}\nvoid other() {\n}\n";
        let cut = reachable(src, &["entry", "missing"]);
        assert_eq!(
            cut,
            "struct S {\n    float x;\n};\nuniform highp uint u;\n// a comment\nfloat leaf(float x) {\n    return x;\n}\nfloat mid(float x) { return leaf(x) + 1.0; }\nvoid entry() {\n    float y = mid(2.0);\n}\n"
        );
        assert_eq!(reachable(src, &["other"]).matches('(').count(), 1);
        assert_eq!(function_head("layout(std140) uniform aether_probe_block {"), None);
        assert_eq!(function_head("    float x = f(1.0);"), None);
        assert_eq!(function_head("aether_vec3f aether_vec3f_add(aether_vec3f a, aether_vec3f b) {"), Some("aether_vec3f_add"));
    }

    #[test]
    fn scatter_places_each_part() {
        let n_out = 40;
        let mut out = vec![0u64; 2 * n_out];
        let cap0: Vec<u32> = (0..64).collect();
        let cap1: Vec<u32> = (100..164).collect();
        scatter(&cap0, 0, 2, n_out, 0, &mut out);
        scatter(&cap1, 0, 2, n_out, 1, &mut out);
        assert_eq!(out[0], 0);
        assert_eq!(out[31], 31);
        assert_eq!(out[32], 100);
        assert_eq!(out[39], 107);
        assert_eq!(out[40], 32);
        assert_eq!(out[72], 132);
    }

    #[test]
    fn bound_words_are_padded_and_repeated_per_vertex() {
        assert_eq!(padded_bound(&[]), [0; BOUND_WORDS]);
        let p = padded_bound(&[7, 8, 9]);
        assert_eq!(&p[..4], &[7, 8, 9, 0]);
        assert!(p[3..].iter().all(|&w| w == 0));
        let words: Vec<u32> = (1..=16).collect();
        assert_eq!(padded_bound(&words).to_vec(), words);
        let v = bound_vertices(&[5, 6], 3);
        assert_eq!(v.len(), 3 * BOUND_WORDS);
        assert_eq!((v[0], v[1], v[2], v[16], v[17], v[33], v[47]), (5, 6, 0, 5, 6, 6, 0));
        assert!(bound_vertices(&[1], 0).is_empty());
        // Entries without input words: one draw chunk, a texture of one row.
        assert_eq!(chunks(0, 3), vec![(0, 3)]);
        assert_eq!(texture(&[]), (1, vec![0; TEX_WIDTH]));
        let m = toy_module();
        for (e, name) in [(3, "t_bound_block"), (4, "t_bound_uniform"), (5, "t_bound_attr")] {
            assert_eq!((m.entries[e].entry.as_str(), m.entries[e].n_in, m.entries[e].n_out), (name, 0, BOUND_WORDS));
            assert!(m.source.contains(&format!("void {name}()")));
        }
        let job = crate::exec::Job::without_inputs(4, 2).with_bound(vec![1, 2]);
        let want = toy_expected(&job);
        assert_eq!(want.len(), 2 * BOUND_WORDS);
        assert_eq!((want[0], want[1], want[2], want[16], want[17]), (1, 2, 0, 1, 2));
    }
}
