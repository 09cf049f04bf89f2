//! The web package's browser test cases (`scripts/web.sh`): inputs for a few
//! functions of the WGSL and GLSL ES cores and the reference's results, as
//! JSON on stdout. Every word is a u32 bit pattern (f32); a df64 value is two
//! words, hi then lo, split as `Df64::from_f64` does.
//!
//!   cargo run -q -p aether-reference --example web_cases > cases.json

use aether_reference::df64::{self, Df64};
use aether_reference::flat;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in [lo, hi).
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }
    /// An f32 of either sign, magnitude in [2^-e, 2^e): no zero, subnormal or non-finite.
    fn f32_wide(&mut self, e: i32) -> f32 {
        let m = self.uniform(1.0, 2.0);
        let k = (self.next() % (2 * e as u64)) as i32 - e;
        let s = if self.next() & 1 == 0 { 1.0 } else { -1.0 };
        (s * m * 2f64.powi(k)) as f32
    }
}

/// One function's cases: the core's name, the flat key, parameter and result
/// types (as the test page names them), the inputs and the reference's outputs.
struct Function {
    name: &'static str,
    core: &'static str,
    key: (&'static str, &'static str),
    params: &'static [&'static str],
    result: &'static str,
    inputs: Vec<Vec<u32>>,
    outputs: Vec<Vec<u32>>,
}

fn words(ty: &str) -> usize {
    match ty {
        "f32" => 1,
        "vec3f" => 3,
        "quatf" | "vec4f" => 4,
        "mat4f" => 16,
        "pairf" => 2,
        "pairf32" => 64,
        "df64" => 2,
        "vec2d" => 4,
        _ => panic!("web_cases: no type {ty}"),
    }
}

fn f32_function(
    name: &'static str,
    key: (&'static str, &'static str),
    params: &'static [&'static str],
    result: &'static str,
    inputs: Vec<Vec<u32>>,
) -> Function {
    let f = flat::lookup(key.0, key.1, "f32").unwrap_or_else(|| panic!("web_cases: no flat function {key:?}"));
    let outputs: Vec<Vec<u32>> = inputs
        .iter()
        .map(|i| {
            assert_eq!(i.len(), params.iter().map(|p| words(p)).sum::<usize>(), "{name}: input words");
            let w: Vec<u64> = i.iter().map(|&x| u64::from(x)).collect();
            let out: Vec<u32> = f(&w).into_iter().map(|x| u32::try_from(x).expect("an f32 word")).collect();
            assert_eq!(out.len(), words(result), "{name}: output words");
            out
        })
        .collect();
    Function { name, core: "core", key, params, result, inputs, outputs }
}

fn df64_words(d: Df64) -> [u32; 2] {
    [d.hi.to_bits(), d.lo.to_bits()]
}

fn df64_of(w: &[u32]) -> Df64 {
    Df64 { hi: f32::from_bits(w[0]), lo: f32::from_bits(w[1]) }
}

fn df64_function(name: &'static str, op: fn(Df64, Df64) -> Df64, rng: &mut Rng, n: usize) -> Function {
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    for _ in 0..n {
        // Magnitudes within the df64 domain, as a scene's coordinates: up to 2^30.
        let a = Df64::from_f64(rng.uniform(-1.0, 1.0) * 2f64.powi((rng.next() % 31) as i32));
        let b = Df64::from_f64(rng.uniform(-1.0, 1.0) * 2f64.powi((rng.next() % 31) as i32));
        let mut i = df64_words(a).to_vec();
        i.extend(df64_words(b));
        let r = op(df64_of(&i[0..2]), df64_of(&i[2..4]));
        inputs.push(i);
        outputs.push(df64_words(r).to_vec());
    }
    Function { name, core: "df64", key: (name, "df64"), params: &["df64", "df64"], result: "df64", inputs, outputs }
}

fn json_words(v: &[Vec<u32>]) -> String {
    let rows: Vec<String> = v.iter().map(|r| format!("[{}]", r.iter().map(|w| w.to_string()).collect::<Vec<_>>().join(","))).collect();
    format!("[{}]", rows.join(","))
}

fn main() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    const N: usize = 64;
    let mut gen = |k: usize, e: i32| -> Vec<Vec<u32>> { (0..N).map(|_| (0..k).map(|_| rng.f32_wide(e).to_bits()).collect()).collect() };
    let mut fs = vec![
        f32_function("aether_f32_fmin", ("fmin", "scalar"), &["f32", "f32"], "f32", gen(2, 8)),
        f32_function("aether_vec3f_dot", ("dot", "vec3"), &["vec3f", "vec3f"], "f32", gen(6, 8)),
        f32_function("aether_vec3f_cross", ("cross", "vec3"), &["vec3f", "vec3f"], "vec3f", gen(6, 8)),
        f32_function("aether_vec3f_normalize", ("normalize", "vec3"), &["vec3f"], "vec3f", gen(3, 8)),
        f32_function("aether_quatf_mul", ("quat_mul", "quat"), &["quatf", "quatf"], "quatf", gen(8, 4)),
        f32_function("aether_mat4f_mul", ("mat_mul", "mat4"), &["mat4f", "mat4f"], "mat4f", gen(32, 4)),
    ];
    // Compensated helpers (bit-exact under [bands.wgsl]): a pair whose comp is
    // below half an ulp of its hi, and an addend.
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let pair = |rng: &mut Rng| -> [u32; 2] {
        let hi = rng.f32_wide(10);
        let comp = (f64::from(hi) * rng.uniform(-1.0, 1.0) * 2f64.powi(-25)) as f32;
        [hi.to_bits(), comp.to_bits()]
    };
    let neumaier: Vec<Vec<u32>> = (0..N)
        .map(|_| {
            let p = pair(&mut rng);
            vec![p[0], p[1], rng.f32_wide(10).to_bits()]
        })
        .collect();
    fs.push(f32_function("aether_pairf_neumaier_add", ("neumaier_add", "pair"), &["pairf", "f32"], "pairf", neumaier));
    let lanes: Vec<Vec<u32>> = (0..N).map(|_| (0..32).flat_map(|_| pair(&mut rng)).collect()).collect();
    fs.push(f32_function("aether_pairf_reduce32", ("reduce32", "pair"), &["pairf32"], "pairf", lanes));
    // exp on [-20, 20]: no subnormal or infinite result.
    let exps: Vec<Vec<u32>> = (0..N).map(|_| vec![(rng.uniform(-20.0, 20.0) as f32).to_bits()]).collect();
    fs.push(f32_function("aether_f32_exp", ("exp", "scalar"), &["f32"], "f32", exps));
    let mut rng = Rng(0x5151_1234_dead_beef);
    fs.push(df64_function("aether_df64_add", df64::add, &mut rng, N));
    fs.push(df64_function("aether_df64_sub", df64::sub, &mut rng, N));
    fs.push(df64_function("aether_df64_mul", df64::mul, &mut rng, N));

    let mut out = String::from("{\"functions\": [\n");
    for (k, f) in fs.iter().enumerate() {
        let params: Vec<String> = f.params.iter().map(|p| format!("\"{p}\"")).collect();
        out.push_str(&format!(
            "{{\"name\": \"{}\", \"core\": \"{}\", \"reference\": \"{}/{}\", \"params\": [{}], \"result\": \"{}\",\n \"inputs\": {},\n \"outputs\": {}}}{}\n",
            f.name,
            f.core,
            f.key.0,
            f.key.1,
            params.join(", "),
            f.result,
            json_words(&f.inputs),
            json_words(&f.outputs),
            if k + 1 < fs.len() { "," } else { "" }
        ));
    }
    out.push_str("]}\n");
    print!("{out}");
}
