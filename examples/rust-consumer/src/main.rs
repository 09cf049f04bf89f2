//! Prints a few results with their bits: the same line on every machine.

fn main() {
    let m = glam::Mat4::from_rotation_z(0.5) * glam::Mat4::from_translation(glam::Vec3::new(1.0, 2.0, 3.0));
    let p = aether_rust_consumer::transform_points(&m, &[glam::Vec3::new(0.25, -4.0, 9.5)])[0];
    let (s, c) = aether_rust_consumer::sin_cos(1.0e3);
    println!(
        "point {:08x} {:08x} {:08x}  sin {:08x} cos {:08x}  contract {}",
        p.x.to_bits(),
        p.y.to_bits(),
        p.z.to_bits(),
        s.to_bits(),
        c.to_bits(),
        aether_core::CONTRACT_ID
    );
}
