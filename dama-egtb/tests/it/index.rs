//! The numbering is a bijection on every class: number → position → number.

use dama_egtb::{solve::build_order, Material, Placement};
use proptest::prelude::*;

fn classes() -> Vec<Material> {
    build_order(6)
        .into_iter()
        .flat_map(|m| [m, m.flip()])
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn number_to_position_to_number(class in 0usize..1000, frac in 0.0f64..1.0) {
        let all = classes();
        let m = all[class % all.len()];
        let i = ((m.len() as f64 * frac) as usize).min(m.len() - 1);
        if let Some(p) = m.placement(i) {
            prop_assert_eq!(p.material(), m);
            prop_assert_eq!(p.occupied().count_ones(), m.pieces());
            // No white man on Black's back row or black man on White's.
            prop_assert_eq!(p.white_men & 0xF, 0);
            prop_assert_eq!(p.black_men & 0xF000_0000, 0);
            prop_assert_eq!(m.index(&p), i);
            // Through a position of dama-rules and back.
            prop_assert_eq!(Placement::of(&p.position()), p);
        }
    }
}

#[test]
fn small_classes_are_numbered_densely_with_few_holes() {
    for m in build_order(4).into_iter().flat_map(|m| [m, m.flip()]) {
        let mut positions = 0usize;
        for i in 0..m.len() {
            if let Some(p) = m.placement(i) {
                assert_eq!(m.index(&p), i, "{m}");
                positions += 1;
            }
        }
        // Holes are where a white and a black man share a square.
        let holes = m.len() - positions;
        // (Most in MM-MM: 12 %, the 24 squares both sides' men may hold.)
        assert!(holes * 6 <= m.len(), "{m}: {holes} holes of {}", m.len());
    }
}
