//! The OpenCL C target without a device: the check program's kernels and
//! word counts against the reference, and the text's guards (the pragma, the
//! refusals, every f64 line under AETHER_FP64). `aether-opencl` and
//! `scripts/opencl.sh` run it on PoCL.

use aether_generator::model::Callable;
use aether_generator::targets::opencl::{self, ClProgram};

fn program() -> (aether_generator::Model, ClProgram) {
    let model = aether_generator::load(&aether_generator::default_root()).unwrap();
    let lowered = model.lowered();
    let p = opencl::check_program(&model, &lowered, "/* test */", &[]).unwrap();
    (model, p)
}

#[test]
fn check_program_has_a_kernel_per_fixed_callable_with_reference_word_counts() {
    let (model, p) = program();
    let fixed: Vec<Callable> = model.callables().into_iter().filter(|c| opencl::fixed(*c)).collect();
    // Each butterfly also on one work group.
    let butterflies = model.kernels.iter().filter(|k| k.kind == aether_generator::model::KernelKind::Butterfly).count();
    assert_eq!(p.entries.len(), fixed.len() + butterflies);
    let group: Vec<_> = p.entries.iter().filter(|e| e.check.cases_per_workgroup == 1 && e.check.workgroup_size > 1).collect();
    assert_eq!(group.len(), butterflies);
    for e in &p.entries {
        let c = &e.check;
        assert!(p.source.contains(&format!("void {}(__global", c.entry)), "{}: no kernel", c.entry);
        let n_in = aether_reference::flat::input_words(&c.family, &c.shape, &c.elem);
        assert_eq!(n_in, Some(c.n_in), "{}: input words", c.entry);
        assert!(e.word_bits == 64 || (e.elem_bits == 32 && e.word_bits == 32), "{}: f64 words in uint", c.entry);
    }
}

#[test]
fn check_program_has_a_kernel_per_callable_over_arrays() {
    let (model, p) = program();
    let mut over_arrays: Vec<String> = model.callables().into_iter().filter(|c| !opencl::fixed(*c)).map(|c| c.c_name(&model)).collect();
    assert!(!over_arrays.is_empty());
    let mut names: Vec<String> = p.arrays.iter().map(|e| e.check.c_name.clone()).collect();
    over_arrays.sort();
    names.sort();
    assert_eq!(names, over_arrays);
    for e in &p.arrays {
        assert!(e.variable && e.word_bits == 64 && e.check.n_in == 0, "{}", e.check.entry);
        assert!(p.source.contains(&format!("__kernel void {}(__global const ulong *in, __global const ulong *at", e.check.entry)));
        // The thunk takes its scratch from the arena, never from a heap.
        let thunk = format!("aether_flat_call_{}(const uint64_t *in", e.check.c_name.trim_start_matches("aether_"));
        let at = p.source.find(&thunk).unwrap_or_else(|| panic!("{}: no thunk", e.check.entry));
        let body = &p.source[at..at + p.source[at..].find("\n}\n").unwrap()];
        assert!(body.contains("AETHER_ARENA;") && !body.contains("calloc("), "{}: scratch not from the arena", e.check.entry);
    }
    assert!(p.entries.iter().all(|e| !e.variable));
}

#[test]
fn core_is_guarded_and_every_double_is_under_fp64() {
    let (_, p) = program();
    let src = &p.source;
    let pragma = src.find("\n#pragma OPENCL FP_CONTRACT OFF").expect("the contraction pragma");
    assert!(src.find("\n#if defined(__FAST_RELAXED_MATH__)").expect("the relaxed-math refusal") < pragma);
    // Every line of code that names double lies inside an `#ifdef
    // AETHER_FP64` block, but the #define that makes a stray double an error.
    let code = strip_comments(src);
    assert!(!code.contains("sqrtf(") && !code.contains("fabsf("), "OpenCL C has only the overloaded math names");
    assert!(!code.contains("static const unsigned"), "no function-scope statics in OpenCL C 1.2");
    let mut stack: Vec<bool> = Vec::new();
    for (i, line) in code.lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with("#if") {
            stack.push(t == "#ifdef AETHER_FP64");
        } else if t.starts_with("#endif") {
            stack.pop();
        }
        let names_double = t.split(|ch: char| !ch.is_ascii_alphanumeric() && ch != '_').any(|w| w == "double");
        if names_double && !t.starts_with("#define double") {
            assert!(stack.iter().any(|f| *f), "line {}: double outside AETHER_FP64: {line}", i + 1);
        }
    }
}

/// The text with its /* */ comments blanked (newlines kept) and its string
/// literals left as they are (none holds a comment opener).
fn strip_comments(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let mut rest = src;
    while let Some(at) = rest.find("/*") {
        out.push_str(&rest[..at]);
        let end = rest[at..].find("*/").map_or(rest.len(), |e| at + e + 2);
        out.extend(rest[at..end].chars().filter(|c| *c == '\n'));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn core_has_the_cuda_cores_batches_as_kernels_over_global_arrays() {
    let (model, p) = program();
    let root = aether_generator::default_root();
    let core = std::fs::read_to_string(root.join("opencl_core/aether_core.cl")).unwrap();
    let cuda = std::fs::read_to_string(root.join("cuda_core/aether_batch.h")).unwrap();
    assert!(!p.batches.is_empty());
    // One per function, and the LU and Cholesky solves.
    let solves = p.batches.iter().filter(|b| b.what != aether_generator::targets::shared::soa::SoaWhat::Function).count();
    assert_eq!(p.batches.len() - solves, model.lowered().len());
    assert!(solves > 0);
    for b in &p.batches {
        let params: Vec<String> = b.arrays.iter().map(|a| a.param("__global ")).collect();
        let head = format!("__kernel void {}({}, ulong aether_n)", b.name, params.join(", "));
        assert!(core.contains(&head) && p.source.contains(&head), "{}: no kernel `{head}`", b.name);
        // The same batch, with the same arrays, in the CUDA core.
        let plain: Vec<String> = b.arrays.iter().map(|a| a.param("")).collect();
        assert!(
            cuda.contains(&format!("int {}({}, size_t aether_n, cudaStream_t aether_stream);", b.name, plain.join(", "))),
            "{}",
            b.name
        );
    }
}

#[test]
fn relaxed_band_is_derived_from_the_stated_accuracy_and_its_judgement_can_fail() {
    use aether_generator::bands;
    let model = aether_generator::load(&aether_generator::default_root()).unwrap();
    let callables = opencl::relaxed_callables(&model);
    let find = |name: &str| *callables.iter().find(|c| c.c_name(&model) == name).unwrap();
    // vec2 / scalar as r = 1 / s, then r * x: 2.5 + 0.5 ulp relative, 2R + 1.
    let div = find("aether_vec2f_div");
    let band = bands::band_on(&model, opencl::RELAXED, div);
    assert_eq!(band.summary(), "<= 7 ulp");
    // The same tree on WGSL (either-neighbour products): its own number.
    let wgsl = bands::band_on(&model, aether_generator::targets::wgsl::BANDS, div);
    assert_ne!(wgsl.metrics, band.metrics);
    // A function without division or sqrt keeps its bits on the relaxed path.
    assert_eq!(bands::band_on(&model, opencl::RELAXED, find("aether_vec3f_dot")).summary(), "bits");
    // 7 ulp off is within, 8 is outside (in the domain: normal inputs).
    let (x, y, s) = (3.0f32, 5.0f32, 7.0f32);
    let inputs = [u64::from(x.to_bits()), u64::from(y.to_bits()), u64::from(s.to_bits())];
    let expected = aether_reference::flat::lookup("div", "vec2", "f32").unwrap()(&inputs);
    let off = |k: u64| expected.iter().map(|w| w + k).collect::<Vec<u64>>();
    let j = bands::judge(&model, div, &band, &inputs, &expected, &off(7));
    assert!(j.in_domain && j.within, "{j:?}");
    let j = bands::judge(&model, div, &band, &inputs, &expected, &off(8));
    assert!(j.in_domain && !j.within, "{j:?}");
}
