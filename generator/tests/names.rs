//! The generator's own names never meet the spec's: a spec whose parameters,
//! body steps, shape components and kernel arrays take every name the
//! printers introduce in the code they write (an item index, a count, a
//! result, a loop counter, a temporary, a helper's parameter), and words that
//! are keywords in languages no target is written in, is accepted, and every
//! file it generates compiles wherever this machine has the compiler: the C
//! core, its batched forms, the thunks and the corpus runner through gcc's
//! and clang's front ends (C99, every warning an error; the batches also with
//! AVX2), the Rust core and its runner through `cargo check`, the
//! headers from C++, OpenCL C with clang's OpenCL front end (1.2 and 3.0),
//! WGSL with naga (the core files and the check modules the runner builds),
//! GLSL ES 3.00 with glslang (the core and its check module),
//! and the CUDA core, batches and checks with nvcc when one is found
//! (`common::nvcc`).
//!
//! A generated name is `aether_...` (the spec refuses names starting with
//! `aether`, `names::check_part`), or is built from the spec's name with a
//! prefix no spec name has (`p_<param>` in the thunks).

mod common;

use std::path::{Path, PathBuf};

use aether_generator::targets::shared::check::Guard;
use aether_generator::{output, spec};

const SPEC: &str = include_str!("../../spec/aether.toml");

/// Identifiers the printers put in function bodies and parameter lists, as
/// they were spelled before issue 45, each where it came from. Where a spec
/// name shares the scope (a function's body, the batches, the lanes kernels,
/// the check entries) they are now `aether_...`; the rest (the linear
/// algebra's helpers, the thunks, the butterfly, the plane and resolve
/// kernels) have no spec name in scope but members and the core's own
/// `aether_...` functions and types. Every one is given to a spec name in
/// [`RENAMES`] or [`COMPONENTS`], so a clash anywhere fails the compiles.
const GENERATED: &[(&str, &str)] = &[
    ("out", "shared/print.rs body's result; the batches' and thunks' result array; resolve kernels' array"),
    ("i", "the item index of the batches (C aether_batch.c, CUDA, OpenCL, soa.rs); kernel loops"),
    ("n", "the item count of the batches; the length of a kernel's arrays"),
    ("result", "soa.rs: the function's value of one item"),
    ("status", "soa.rs: a solve batch's factorisation result"),
    ("v_a", "soa.rs / c/batch.rs: the value of parameter `a` (v_<param>)"),
    ("v_b", "soa.rs / c/batch.rs: the value of parameter `b` (v_<param>)"),
    ("v_a_w0", "c/batch.rs aos_io_portable: the first loaded vector of v_a (<var>_w<k>)"),
    ("j", "shared/kernels.rs lanes_body: the element index; linalg loops"),
    ("first", "a lanes kernel's first global index"),
    ("lane", "shared/kernels.rs lanes_body: the lane pointer"),
    ("lanes", "lanes and array kernels: the lane array; WGSL check entries"),
    ("term", "lanes and plane kernels: one element's term"),
    ("value", "plane and resolve kernels: the value slots; WGSL check entries"),
    ("comp", "plane and resolve kernels: the companion slots"),
    ("element", "plane kernels: the element index"),
    ("p", "plane, resolve and CUDA warp kernels: the pair; linalg pivot"),
    ("stride", "CUDA batch kernels' grid stride"),
    ("stream", "CUDA batch launchers' stream"),
    ("len", "CUDA row batches' row length"),
    ("n_in", "c_family/flat.rs thunks' input count"),
    ("cap", "c_family/flat.rs thunks' result capacity"),
    ("o", "c_family/flat.rs thunks' result count; CUDA warp tree's partner pair"),
    ("r", "c_family/flat.rs thunks' result; butterfly round; linalg reciprocal"),
    ("e", "c_family/flat.rs read/write's element array; linalg eigenvalues"),
    ("k", "linalg loops; c/batch.rs lane loop"),
    ("acc", "shared/linalg.rs dot's accumulator"),
    ("best", "shared/linalg.rs pivot search"),
    ("m", "shared/linalg.rs pivot magnitude, sort minimum"),
    ("s", "shared/linalg.rs swaps and sums"),
    ("w", "shared/linalg.rs working matrix; butterfly's second lane array"),
    ("x", "shared/linalg.rs solution"),
    ("u", "shared/linalg.rs eigenvector swap"),
    ("v", "butterfly's lane values; linalg eigenvectors; CUDA rows batch's value"),
    ("gh", "shared/linalg.rs the rotated pair"),
    ("app", "shared/linalg.rs eigh's pivot entries"),
    ("apq", "shared/linalg.rs eigh's pivot entries"),
    ("sweep", "shared/linalg.rs eigh's sweeps"),
    ("bb", "shared/linalg.rs the right-hand side's array"),
    ("xx", "shared/linalg.rs the solution's array"),
    ("swaps", "shared/linalg.rs det_lu's interchanges"),
    ("inv", "shared/linalg.rs inverse's result"),
    ("a0", "shared/linalg.rs cholesky's copy"),
    ("lu", "shared/linalg.rs lu_solve's factors"),
    ("ipiv", "shared/linalg.rs and soa.rs pivots"),
    ("info", "shared/linalg.rs and soa.rs the factorisation's result"),
    ("count", "shared/linalg.rs the many-lane forms' count"),
    ("rounds", "the butterfly's round table"),
    ("bad", "WGSL predicates' self-test count"),
];

/// Words the spec accepts that are keywords or reserved type names in
/// languages no target is written in (Python, GLSL, CUDA's vector types,
/// OpenCL C's wider vector types): none is in a target's keywords.txt.
const FOREIGN: &[&str] = &["def", "lambda", "elif", "then", "end", "dim3", "uint2", "float8"];

/// `(table, from, to)`: every whole word `from` inside `table` becomes `to`
/// (a parameter in `params` and the body, a step, a kernel's array in
/// `arrays` and `term`). An index variable of a body is renamed out of the
/// way first where a parameter takes its name.
const RENAMES: &[(&str, &str, &str)] = &[
    ("[families.add]", "i", "ix"),
    ("[families.add]", "a", "i"),
    ("[families.add]", "b", "n"),
    ("[families.sub]", "b", "out"),
    ("[families.mul]", "a", "result"),
    ("[families.mul]", "b", "status"),
    ("[families.scale]", "a", "first"),
    ("[families.scale]", "s", "j"),
    ("[families.div]", "a", "lane"),
    ("[families.div]", "s", "lanes"),
    ("[families.div]", "r", "stride"),
    ("[families.neg]", "a", "def"),
    ("[families.abs]", "a", "lambda"),
    // (`in`, the C thunks' input words, is a Rust keyword: no spec can name it.)
    ("[families.min]", "b", "v_a"),
    ("[families.max]", "a", "v_b"),
    ("[families.lerp]", "b", "v_a_w0"),
    ("[families.lerp]", "t", "term"),
    ("[families.fmin]", "a", "n_in"),
    ("[families.fmin]", "b", "cap"),
    ("[families.fmax]", "a", "o"),
    ("[families.fmax]", "b", "e"),
    ("[families.sum]", "a", "value"),
    ("[families.dot]", "a", "comp"),
    ("[families.dot]", "b", "element"),
    ("[families.squared_norm]", "a", "p"),
    ("[families.norm]", "a", "k"),
    ("[families.max_norm]", "a", "acc"),
    ("[families.is_finite]", "a", "dim3"),
    ("[families.normalize]", "i", "ix"),
    ("[families.normalize]", "n", "i"),
    ("[families.normalize]", "d", "n"),
    ("[families.normalize]", "a", "uint2"),
    ("[families.cross]", "a", "r"),
    ("[families.cross]", "b", "u"),
    ("[families.quat_mul]", "a", "stride"),
    ("[families.quat_mul]", "b", "stream"),
    ("[families.conjugate]", "a", "float8"),
    ("[families.rotate]", "u", "term"),
    ("[families.rotate]", "t", "lane"),
    ("[families.rotate]", "q", "w"),
    ("[families.rotate]", "v", "gh"),
    ("[families.mul_vec]", "v", "sweep"),
    ("[families.mul_vec]", "m", "v"),
    ("[families.mat_mul]", "a", "bb"),
    ("[families.mat_mul]", "b", "xx"),
    ("[families.transpose]", "m", "inv"),
    ("[families.mat_dot]", "a", "a0"),
    ("[families.mat_dot]", "b", "lu"),
    ("[families.from_axis_angle]", "axis", "count"),
    ("[families.from_axis_angle]", "angle", "swaps"),
    ("[families.from_euler_xyz]", "ax", "best"),
    ("[families.from_euler_xyz]", "ay", "app"),
    ("[families.from_euler_xyz]", "az", "apq"),
    ("[families.slerp]", "i", "ix"),
    ("[families.slerp]", "r", "i"),
    ("[families.slerp]", "c", "n"),
    ("[families.slerp]", "th", "k"),
    ("[families.slerp]", "d", "p"),
    ("[families.two_sum_err]", "a", "then"),
    ("[families.two_sum_err]", "b", "elif"),
    ("[families.two_sum_err]", "s", "end"),
    ("[families.two_sum]", "a", "i"),
    ("[families.two_sum]", "b", "n"),
    ("[families.two_sum]", "x", "result"),
    ("[families.neumaier_add]", "p", "lane"),
    ("[families.neumaier_add]", "x", "term"),
    ("[families.neumaier_add]", "s", "first"),
    ("[families.neumaier_add]", "t", "j"),
    ("[families.pair_combine]", "s", "i"),
    ("[families.pair_combine]", "x", "lanes"),
    ("[families.pair_value]", "h", "rounds"),
    ("[families.jacobi_rotation]", "theta", "len"),
    ("[families.jacobi_rotation]", "s", "x"),
    ("[families.jacobi_rotation]", "c", "s"),
    ("[families.jacobi_rotation]", "r", "i"),
    ("[families.jacobi_rotation]", "tt", "n"),
    ("[families.jacobi_rotation]", "t0", "lanes"),
    ("[families.jacobi_update]", "g", "ipiv"),
    ("[families.jacobi_update]", "h", "info"),
    ("[families.jacobi_update]", "r", "m"),
    ("[families.jacobi_diag]", "app", "i"),
    ("[families.jacobi_diag]", "aqq", "n"),
    ("[families.jacobi_diag]", "apq", "out"),
    ("[families.jacobi_diag]", "r", "lane"),
    ("[kernels.lanes_sum]", "x", "n"),
    ("[kernels.lanes_dot]", "a", "first"),
    ("[kernels.lanes_dot]", "b", "lanes"),
    ("[int_functions.shr_rne]", "x", "n"),
    ("[int_functions.shr_rne]", "s", "i"),
    ("[int_functions.shr_rne]", "q", "result"),
    ("[int_functions.shr_rne]", "r", "j"),
    ("[predicates.angle_flag]", "dp", "i"),
    ("[predicates.angle_flag]", "om", "n"),
    ("[predicates.angle_flag]", "tm", "bad"),
    ("[df64_ops.two_sum]", "a", "i"),
    ("[df64_ops.two_sum]", "b", "n"),
    ("[df64_ops.two_sum]", "s", "result"),
    ("[df64_ops.add]", "a", "i"),
    ("[df64_ops.add]", "b", "n"),
    ("[df64_ops.add]", "c", "result"),
];

/// `(from, to)` over the whole spec: shape components, with every field
/// access of them. The rotation's t and tau take generated names (`.tau`
/// and `lane.t` are read only as those components). (The pair's are left:
/// `mutants.rs` writes its mutants' bodies with them.)
const COMPONENTS: &[(&str, &str)] = &[
    ("components = [\"c\", \"s\", \"t\", \"tau\"]", "components = [\"c\", \"s\", \"i\", \"out\"]"),
    (".tau", ".out"),
    ("lane.t *", "lane.i *"),
];

/// The spec with every rename applied.
fn names_spec() -> String {
    let mut text = SPEC.to_string();
    for (header, from, to) in RENAMES {
        text = common::rename_in_table(&text, header, from, to).unwrap_or_else(|| panic!("{header} has no word `{from}`"));
    }
    for (from, to) in COMPONENTS {
        assert!(text.contains(from), "the spec has no `{from}`");
        text = text.replace(from, to);
    }
    text
}

#[test]
fn every_generated_and_foreign_name_is_given_to_a_spec_name() {
    let given = |name: &str| RENAMES.iter().any(|(_, _, to)| *to == name) || COMPONENTS.iter().any(|(_, to)| to.contains(name));
    for (name, from) in GENERATED {
        assert!(given(name), "`{name}` ({from}) is given to no spec name");
        assert!(!aether_generator::names::is_reserved(name), "`{name}` is reserved by a target's keywords.txt");
    }
    for name in FOREIGN {
        assert!(given(name), "`{name}` is given to no spec name");
        assert!(!aether_generator::names::is_reserved(name), "`{name}` is reserved by a target's keywords.txt");
    }
}

/// Names a core does not introduce but uses where a spec's names are in
/// scope: a library type or function, or a target's built-in. A spec name
/// there would hide it, so a target's keywords.txt reserves it (a spec that
/// named a parameter `uint32_t`, `get_global_id` or `cudaGetLastError` gave
/// C, OpenCL C and CUDA that did not compile).
const USED_BESIDE_SPEC_NAMES: &[(&str, &[&str])] = &[
    ("size_t", &["c", "cuda", "opencl"]),
    ("int32_t", &["c", "cuda"]),
    ("int64_t", &["c", "cuda"]),
    ("uint32_t", &["c", "cuda"]),
    ("uint64_t", &["c", "cuda"]),
    ("cudaGetLastError", &["cuda"]),
    ("threadIdx", &["cuda"]),
    ("get_global_id", &["opencl"]),
    ("convert_float_rte", &["opencl"]),
    ("clz", &["opencl"]),
    ("bitcast", &["wgsl"]),
    ("u32", &["wgsl"]),
];

#[test]
fn names_the_cores_use_beside_spec_names_are_reserved() {
    for (name, targets) in USED_BESIDE_SPEC_NAMES {
        let reserving = aether_generator::names::reserving(name);
        for t in *targets {
            assert!(reserving.contains(t), "`{name}` is not reserved by {t} (it reserves: {reserving:?})");
        }
    }
}

#[test]
fn a_spec_of_generated_names_compiles_everywhere() {
    let text = names_spec();
    let s = spec::parse("spec/aether.toml", &text).unwrap_or_else(|e| panic!("the spec of generated names is refused: {e}"));
    let model = aether_generator::model(&s).unwrap_or_else(|e| panic!("{e}"));
    let outputs = output::generate(&model).unwrap_or_else(|e| panic!("{e}"));
    let dir = aether_generator::default_root().join("target/names-spec");
    common::write_tree(&dir, &outputs);
    // The check modules and program the runners build in memory.
    let lowered = model.lowered();
    let wgsl = dir.join("wgsl_check");
    std::fs::create_dir_all(&wgsl).unwrap();
    let modules = [
        ("check.wgsl", aether_generator::targets::wgsl::check_module(&model, &lowered, Guard::Bits).source),
        ("df64_check.wgsl", aether_generator::targets::wgsl::df64::check_module(&model, &lowered, Guard::Bits).source),
        ("predicate_check.wgsl", aether_generator::targets::wgsl::predicates::wgsl_check_module(&model).source),
    ];
    for (name, src) in &modules {
        std::fs::write(wgsl.join(name), src).unwrap();
    }

    let mut jobs = Vec::new();
    let mut compiled = Vec::new();
    // The front end only (-fsyntax-only): a clash of names is an error or a warning there, and
    // the C files' code generation is compiled elsewhere (tests/batches.rs, scripts/check-c.sh,
    // the compatibility matrix); the AVX2 and AOS_STEPS variants still take their own paths.
    let c99 = ["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-fsyntax-only", "-Ic_core", "-Ic_core/check", "-Icorpus"];
    std::fs::create_dir_all(dir.join("obj")).unwrap();
    for (cc, cxx) in [("gcc", "g++"), ("clang", "clang++")] {
        if !common::have(cc) {
            println!("names: no {cc} here");
            continue;
        }
        compiled.push(format!("{cc}, {cxx}"));
        let cc_path = PathBuf::from(cc);
        for (file, extra) in [
            ("c_core/aether_core.c", &[][..]),
            ("c_core/aether_batch.c", &[][..]),
            ("c_core/aether_batch.c", &["-mavx2"][..]),
            ("c_core/aether_batch.c", &["-DAETHER_BATCH_AOS_STEPS"][..]),
            ("c_core/aether_batch.c", &["-mavx2", "-DAETHER_BATCH_AOS_STEPS"][..]),
            ("c_core/check/aether_flat.c", &[][..]),
            ("c_core/check/aether_flat_batch.c", &[][..]),
            ("c_core/check/aether_predicate_flat.c", &[][..]),
            ("c_core/check/aether_check.c", &["-DAETHER_CHECK_BATCH"][..]),
        ] {
            let mut args: Vec<&str> = c99.to_vec();
            args.extend_from_slice(extra);
            args.push(file);
            jobs.push(common::job(format!("{cc} {} {file}", extra.join(" ")), &cc_path, &args, &dir));
        }
        let cpp = dir.join("obj").join(format!("include-{cxx}.cpp"));
        std::fs::create_dir_all(cpp.parent().unwrap()).unwrap();
        std::fs::write(
            &cpp,
            "#include \"aether_core.h\"\n#include \"aether_batch.h\"\n#include \"aether_predicate.h\"\nint main() { return 0; }\n",
        )
        .unwrap();
        let cpp = cpp.display().to_string();
        jobs.push(common::job(
            format!("{cxx} the headers"),
            Path::new(cxx),
            &["-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-Ic_core", &cpp],
            &dir,
        ));
    }
    if common::have("clang") {
        compiled.push("clang -x cl (OpenCL C 1.2, 3.0)".into());
        for std in ["CL1.2", "CL3.0"] {
            for file in [
                "opencl_core/aether_core.cl",
                "opencl_core/aether_predicate.cl",
                "opencl_core/check/aether_check.cl",
                "opencl_core/check/aether_predicate_check.cl",
            ] {
                let cl_std = format!("-cl-std={std}");
                let args = [
                    "-x",
                    "cl",
                    &cl_std,
                    "-Xclang",
                    "-finclude-default-header",
                    "-fsyntax-only",
                    "-Werror",
                    "-DAETHER_CHECK_WORDS=8192",
                    "-DAETHER_CHECK_OUT=256",
                    "-DAETHER_CHECK_SCRATCH=17152",
                    file,
                ];
                jobs.push(common::job(format!("clang -x cl {cl_std} {file}"), Path::new("clang"), &args, &dir));
            }
        }
    }
    if common::have("naga") {
        compiled.push("naga (WGSL)".into());
        for file in ["wgsl_core/aether_core.wgsl", "wgsl_core/aether_df64.wgsl", "wgsl_core/aether_predicate.wgsl"]
            .into_iter()
            .map(String::from)
            .chain(modules.iter().map(|(name, _)| format!("wgsl_check/{name}")))
        {
            jobs.push(common::job(format!("naga {file}"), Path::new("naga"), &[file.as_str()], &dir));
        }
    } else {
        println!("names: no naga here (cargo install naga-cli); the WGSL was not validated");
    }
    if common::have("glslangValidator") {
        compiled.push("glslang (GLSL ES 3.00)".into());
        // The core and the check module as vertex shaders, every entry called (the runner's
        // main calls one), and df64's: a spec name GLSL reserves (`out`, `in`) is renamed there.
        let glsl = dir.join("glsl_check");
        std::fs::create_dir_all(&glsl).unwrap();
        let module = aether_generator::targets::glsl::check_module(&model, &lowered, Guard::Bits);
        let mut calls: Vec<String> = module.entries.iter().map(|e| format!("    {}();", e.entry)).collect();
        calls.push("    aether_emit();".into());
        let head = "#version 300 es\nprecision highp float;\nprecision highp int;\nprecision highp usampler2D;\n";
        let core = std::fs::read_to_string(dir.join("glsl_core/aether_core.glsl")).unwrap();
        std::fs::write(glsl.join("core.vert"), format!("{head}{core}\nvoid main() {{ gl_Position = vec4(0.0); }}\n")).unwrap();
        std::fs::write(glsl.join("check.vert"), format!("{head}{}\nvoid main() {{\n{}\n}}\n", module.source, calls.join("\n"))).unwrap();
        // df64's core and check module (every entry called).
        let df = aether_generator::targets::glsl::df64::check_module(&model, &lowered, Guard::Bits);
        let mut df_calls: Vec<String> = df.entries.iter().map(|e| format!("    {}();", e.entry)).collect();
        df_calls.push("    aether_emit();".into());
        let df_core = std::fs::read_to_string(dir.join("glsl_core/aether_df64.glsl")).unwrap();
        std::fs::write(glsl.join("df64.vert"), format!("{head}{df_core}\nvoid main() {{ gl_Position = vec4(0.0); }}\n")).unwrap();
        std::fs::write(glsl.join("df64_check.vert"), format!("{head}{}\nvoid main() {{\n{}\n}}\n", df.source, df_calls.join("\n")))
            .unwrap();
        for file in ["glsl_check/core.vert", "glsl_check/check.vert", "glsl_check/df64.vert", "glsl_check/df64_check.vert"] {
            jobs.push(common::job(format!("glslangValidator {file}"), Path::new("glslangValidator"), &[file], &dir));
        }
    } else {
        println!("names: no glslangValidator here (apt-get install glslang-tools); the GLSL ES was not validated");
    }
    match common::nvcc() {
        Some(nvcc) => {
            compiled.push("nvcc (PTX, sm_90)".into());
            std::fs::write(
                dir.join("obj/ptx.cu"),
                "#include \"aether_core.cuh\"\n#include \"aether_cuda_flat.cuh\"\n\
                 extern \"C\" __global__ void aether_ptx_all(unsigned index, const uint64_t *in, size_t n_in, uint64_t *out, \
                 size_t cap, size_t *got)\n{\n    *got = aether_cuda_flat_call(index, in, n_in, out, cap);\n}\n",
            )
            .unwrap();
            let ptx = ["-Werror", "all-warnings", "-ptx", "-arch=sm_90", "-Icuda_core", "-Icuda_core/check", "-Ic_core/check", "-Icorpus"];
            for (file, out) in [
                ("obj/ptx.cu", "obj/core.ptx"),
                ("cuda_core/aether_batch.cu", "obj/batch.ptx"),
                ("cuda_core/check/aether_predicate_check.cu", "obj/predicate.ptx"),
            ] {
                let mut args = ptx.to_vec();
                args.extend(["-o", out, file]);
                jobs.push(common::job(format!("nvcc {file}"), &nvcc, &args, &dir));
            }
            // The benchmark and the corpus runner, as their Makefiles build them (host code with OpenMP).
            let bench =
                ["-Werror", "all-warnings", "-arch=sm_90", "-Icuda_core", "-c", "-o", "obj/bench.o", "cuda_core/check/aether_bench.cu"];
            jobs.push(common::job("nvcc cuda_core/check/aether_bench.cu", &nvcc, &bench, &dir));
            let check = [
                "-arch=sm_90",
                "-Xcompiler",
                "-Wall,-Wextra,-fopenmp",
                "-Icuda_core",
                "-Icuda_core/check",
                "-Ic_core/check",
                "-Icorpus",
                "-c",
                "-o",
                "obj/check.o",
                "cuda_core/check/aether_check.cu",
            ];
            jobs.push(common::job("nvcc cuda_core/check/aether_check.cu", &nvcc, &check, &dir));
        }
        None => println!("names: no nvcc here (scripts/cuda-toolchain.sh installs one); the CUDA core was not compiled"),
    }
    // The Rust core and its flat thunks (the runner crate over them), type-checked with warnings
    // denied (`cargo check`: names resolve there), in a workspace of their own.
    compiled.push("cargo (the Rust core and its runner)".into());
    std::fs::write(dir.join("Cargo.toml"), "[workspace]\nresolver = \"2\"\nmembers = [\"rust_core\", \"rust-check\"]\n").unwrap();
    let root = aether_generator::default_root();
    std::fs::create_dir_all(dir.join("rust-check/src")).unwrap();
    std::fs::copy(root.join("rust-check/src/main.rs"), dir.join("rust-check/src/main.rs")).unwrap();
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    std::fs::write(
        dir.join("rust-check/Cargo.toml"),
        "[package]\nname = \"aether-rust-check\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\naether-core = { path = \"../rust_core\" }\n",
    )
    .unwrap();
    // The nested build has a fresh target directory of its own, so its cargo
    // probes rustc, which reads the probe's source from /dev/null: where that
    // was an ordinary file holding an object the gcc jobs beside it wrote,
    // the probe failed (E0762) and so did this test (scripts/null-device.sh).
    let target = std::env::temp_dir().join(format!("aether-names-spec-rust-{}", std::process::id())).display().to_string();
    let mut cargo = common::job(
        "cargo check (rust_core, rust-check)",
        Path::new("cargo"),
        &["check", "-q", "--workspace", "--target-dir", &target],
        &dir,
    );
    cargo.cmd.env("RUSTFLAGS", "-D warnings");
    jobs.push(cargo);
    let count = jobs.len();
    let failures = common::run_jobs(jobs);
    let _ = std::fs::remove_dir_all(&target);
    assert!(failures.is_empty(), "{} of {count} compiles failed:\n\n{}", failures.len(), failures.join("\n\n"));
    println!("names: {} files generated from the spec of generated names; {count} compiles by {}", outputs.len(), compiled.join("; "));
}
