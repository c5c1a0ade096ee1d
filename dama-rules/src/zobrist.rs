//! Zobrist keys for position hashing.

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

/// One key per piece index (white man, white king, black man, black king) and bit.
pub(crate) const PIECE_KEYS: [[u64; 36]; 4] = {
    let mut keys = [[0u64; 36]; 4];
    let mut state = 0x0DA3_A17A_11A2_0000u64;
    let mut p = 0;
    while p < 4 {
        let mut b = 0;
        while b < 36 {
            let (s, k) = splitmix(state);
            state = s;
            keys[p][b] = k;
            b += 1;
        }
        p += 1;
    }
    keys
};

/// Toggled when Black is to move.
pub(crate) const BLACK_TO_MOVE: u64 = splitmix(0x005E_ED0F_B1AC).1;
