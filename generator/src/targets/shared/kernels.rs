//! The kernels over arrays (`lanes`, `plane`, `resolve` schedules of
//! `crate::kernel`) as statement trees, built once and spelled by each
//! target: which step family runs on which element, in which order. The C
//! family prints them as the bodies of its kernel functions over
//! caller-owned arrays; WGSL prints the same trees over fixed local arrays
//! in its check entries (a plain WGSL function cannot take an array of any
//! length).

use crate::model::{Kernel, KernelKind, Model};
use crate::spec::ShapeKind;
use crate::targets::shared::c_family::{component_name, lane_term_with, type_name};
use crate::targets::shared::stmt::{Arr, Statements, Stmt, Var, VarTy};

/// The names a lanes kernel gives its own values (the spec's arrays are in
/// scope beside them, under the spec's names): the lane pairs, the first
/// global index, the element count and index, the lane the element goes to
/// and its term. The plane and resolve kernels print no spec name (a
/// term's components only as members), so theirs stay short.
pub const LANES: &str = "aether_lanes";
pub const FIRST: &str = "aether_first";
pub const COUNT: &str = "aether_n";
pub const ELEMENT: &str = "aether_j";
pub const LANE: &str = "aether_lane";
pub const TERM: &str = "aether_term";

fn step_name(model: &Model, k: &Kernel, family: &str) -> String {
    let f = model.functions.iter().find(|f| f.family == family && f.elem == k.elem).unwrap();
    model.c_name(f)
}

/// The body of a `lanes` kernel: for j in 0..n ascending, the term of
/// element j added to lane (first + j) by the reduction's step. `arr` names
/// the arrays (the kernel's array parameters and [`LANES`]).
pub fn lanes_body(model: &Model, k: &Kernel, sp: &dyn Statements, arr: &dyn Fn(&str) -> Arr) -> Vec<Stmt> {
    let red = model.spec.reduction.as_ref().expect("kernels need [rules.reduction]");
    let lanes = red.lanes;
    let lane = match red.assignment {
        crate::spec::Assignment::Strided => format!("({FIRST} + {ELEMENT}) % {}", sp.uint(lanes)),
        crate::spec::Assignment::Single => sp.uint(0),
    };
    let each = lanes_step(model, k, sp, arr, ELEMENT, &lane);
    vec![Stmt::decl(VarTy::Size, vec![Var::new(ELEMENT)]), Stmt::up(ELEMENT, "0", format!("{ELEMENT} < {COUNT}"), Stmt::Block(each))]
}

/// The statements of one element of a `lanes` kernel: the term of element
/// `element` (each array read there) added to lane `lane` by the
/// reduction's step. `lanes_body` runs it for j ascending; a target may
/// run it in another order that keeps every lane's elements ascending (the
/// Rust core's rounds of 32 elements from lane 0).
pub fn lanes_step(model: &Model, k: &Kernel, sp: &dyn Statements, arr: &dyn Fn(&str) -> Arr, element: &str, lane: &str) -> Vec<Stmt> {
    let KernelKind::Lanes { term, .. } = &k.kind else { unreachable!("a lanes kernel") };
    let elem = model.spec.types.iter().find(|t| t.name == k.elem).unwrap();
    let red = model.spec.reduction.as_ref().expect("kernels need [rules.reduction]");
    let step = step_name(model, k, &red.step);
    let mut each = lane_term_with(term, elem, &|p| sp.at(&arr(p), element), sp);
    each.push(Stmt::Alias { name: LANE.into(), ty: VarTy::Shape(red.pair.clone()), target: sp.at(&arr(LANES), lane) });
    let lane_value = sp.deref(LANE);
    each.push(Stmt::set(lane_value.clone(), format!("{step}({lane_value}, {TERM})")));
    each
}

/// The body of a `plane` kernel: the term's components added to the slots
/// of `element` by the reduction's step.
pub fn plane_body(model: &Model, k: &Kernel, sp: &dyn Statements, arr: &dyn Fn(&str) -> Arr) -> Vec<Stmt> {
    let KernelKind::Plane { width } = &k.kind else { unreachable!("a plane kernel") };
    let red = model.spec.reduction.as_ref().expect("kernels need [rules.reduction]");
    let step = step_name(model, k, &red.step);
    let shape = model.spec.shape(&k.shape).unwrap();
    let (hi, lo) = (component_name(model, &red.pair, 0), component_name(model, &red.pair, 1));
    let mut body = vec![Stmt::decl(VarTy::Shape(red.pair.clone()), vec![Var::new("p")])];
    let (value, comp) = (arr("value"), arr("comp"));
    for c in 0..*width {
        let comp_expr = match &shape.kind {
            ShapeKind::Vector(names) => format!("term.{}", names[c]),
            _ => "term".into(),
        };
        let slot = if *width == 1 { "element".to_string() } else { format!("element * {} + {}", sp.uint(*width), sp.uint(c)) };
        body.push(Stmt::set(format!("p.{hi}"), sp.at(&value, &slot)));
        body.push(Stmt::set(format!("p.{lo}"), sp.at(&comp, &slot)));
        body.push(Stmt::set("p", format!("{step}(p, {comp_expr})")));
        body.push(Stmt::set(sp.at(&value, &slot), format!("p.{hi}")));
        body.push(Stmt::set(sp.at(&comp, &slot), format!("p.{lo}")));
    }
    body
}

/// The body of a `resolve` kernel: every slot's value delivered in
/// ascending order.
pub fn resolve_body(model: &Model, k: &Kernel, sp: &dyn Statements, arr: &dyn Fn(&str) -> Arr) -> Vec<Stmt> {
    let red = model.spec.reduction.as_ref().expect("kernels need [rules.reduction]");
    let value_fn = step_name(model, k, &red.value);
    let (hi, lo) = (component_name(model, &red.pair, 0), component_name(model, &red.pair, 1));
    vec![
        Stmt::decl(VarTy::Shape(red.pair.clone()), vec![Var::new("p")]),
        Stmt::decl(VarTy::Size, vec![Var::new("i")]),
        Stmt::up(
            "i",
            "0",
            "i < n",
            Stmt::Block(vec![
                Stmt::set(format!("p.{hi}"), sp.at(&arr("value"), "i")),
                Stmt::set(format!("p.{lo}"), sp.at(&arr("comp"), "i")),
                Stmt::set(sp.at(&arr("out"), "i"), format!("{value_fn}(p)")),
            ]),
        ),
    ]
}

/// The type of a plane kernel's term (a shape of the spec).
pub fn term_type(model: &Model, k: &Kernel) -> String {
    let elem = model.spec.types.iter().find(|t| t.name == k.elem).unwrap();
    type_name(model, &k.shape, elem)
}
