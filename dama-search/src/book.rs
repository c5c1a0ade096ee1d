//! The opening book: positions of the opening with the value of each of their moves, built by
//! dama itself by drop-out expansion (the builder is `dama_lab::book::Builder`, in the
//! `dama-lab` crate), stored in a small checked file, read here and played from by the
//! levels.
//!
//! ```
//! use dama_rules::Game;
//! use dama_search::book::Book;
//!
//! let book = Book::embedded();
//! let moves = book.moves(Game::new().position());
//! assert!(!moves.is_empty());
//! // Best first: the moves of the start position with their backed-up values.
//! assert!(moves.windows(2).all(|w| w[0].score >= w[1].score));
//! ```
//!
//! # How it is built
//!
//! `dama_lab::book::Builder` grows a tree from the start position by drop-out expansion
//! (Lincke, 2000). Every position in the book has all its moves; a move whose position is not in the book (a leaf)
//! has the value of a search of a fixed node budget, one thread, table cleared (so that a
//! build is reproducible and independent of the machine's load); values are backed up by
//! minimax. Which leaf to expand next is decided by an expansion priority for each side: for
//! the side `P`, a move of `P`'s costs one ply plus its drop-out, the value it gives up
//! against `P`'s best move divided by the drop-out weight; a move of `P`'s opponent costs one
//! ply. Expansions alternate between White's and Black's priorities, so that both sides may
//! deviate from the best line, each only as far as the drop-out lets it. Among moves of equal
//! value the book keeps first the *strong draw*: the one that scores best on a shallow
//! search, which is the move played when the margin is zero.
//!
//! # File format (version 1)
//!
//! All integers little-endian.
//!
//! | bytes | field |
//! | --- | --- |
//! | 8 | magic `DAMABOOK` |
//! | 2 | format version (1) |
//! | 1 | variant, as its index in [`Variant::ALL`] |
//! | 1 | reserved (0) |
//! | 4 | leaf budget, nodes |
//! | 2 | drop-out weight, hundredths of a man per ply |
//! | 1 | shallow depth of the strong-draw tie-break |
//! | 1 | reserved (0) |
//! | 4 | positions |
//! | 4 | bytes of the body |
//! | 8 | checksum of the body (64-bit FNV-1a) |
//!
//! The body lists the positions in ascending order of [`key`]: the key (8 bytes), the number
//! of moves `n` (1 byte, at least 1), then `n` moves, best first, each the move's index in
//! the position's legal moves sorted as [`Game::sorted_legal_moves`] sorts them (1 byte) and
//! its value for the side to move in hundredths of a man (2 bytes, signed; wins as
//! [`Score`]). A file whose header, length, order or checksum is wrong is refused with an
//! [`BookError`] saying what is wrong.

use std::collections::HashSet;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use dama_rules::{Bitboard, Color, Game, Move, Position, Variant};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use crate::{Level, Score};

/// The book shipped with dama (Italian), embedded in the binary.
const EMBEDDED: &[u8] = include_bytes!("../data/italian.book");

const MAGIC: &[u8; 8] = b"DAMABOOK";
/// The version of the file format this code reads and writes.
pub const VERSION: u16 = 1;
const HEADER: usize = 36;

/// The margin Hard and Strong choose within by default, in hundredths of a man: moves whose
/// backed-up value is at most this much below the best may be played.
pub const DEFAULT_MARGIN: i32 = 5;
/// Normal's margin (its own, whatever `book-margin` says): more variety, still sound moves.
pub const NORMAL_MARGIN: i32 = 20;

/// Errors reading a book.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    /// The file could not be read or written.
    #[error("cannot {action} the book file \"{path}\": {source}")]
    Io {
        /// `read` or `write`.
        action: &'static str,
        /// The file.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// The bytes are not a dama book of a version this program reads.
    #[error("not a dama opening book: {what} (expected a file written by `dama book build`, format version {VERSION})")]
    Format {
        /// What is wrong, quoting what was found.
        what: String,
    },
    /// The body does not match its checksum: the file is damaged.
    #[error("the opening book is damaged: checksum {found:016x}, expected {expected:016x}")]
    Checksum {
        /// The checksum of the body read.
        found: u64,
        /// The checksum the header gives.
        expected: u64,
    },
}

/// A book move: the move and its backed-up value for the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The move.
    pub mv: Move,
    /// Its value for the side to move (hundredths of a man, wins as [`Score`]).
    pub score: Score,
}

/// The settings a book was built with.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BuildConfig {
    /// The rules.
    pub variant: Variant,
    /// The node budget of each leaf's search.
    pub leaf_nodes: u32,
    /// Hundredths of a man that cost as much as one ply in the expansion priority.
    pub dropout: u16,
    /// Depth of the shallow search that breaks ties between equal values.
    pub shallow_depth: u8,
}

impl Default for BuildConfig {
    fn default() -> BuildConfig {
        BuildConfig {
            variant: Variant::Italian,
            leaf_nodes: 100_000,
            dropout: 10,
            shallow_depth: 4,
        }
    }
}

/// An opening book: for each of its positions, every move with its value, best first.
#[derive(Clone, Debug)]
pub struct Book {
    config: BuildConfig,
    /// Position keys, ascending.
    keys: Vec<u64>,
    /// Where each position's moves start in `moves` (one more entry than `keys`).
    starts: Vec<u32>,
    /// (index in the sorted legal moves, value), best first per position.
    moves: Vec<(u8, i16)>,
}

/// Figures about a book.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BookStats {
    /// Positions with moves in the book.
    pub positions: usize,
    /// Moves in all.
    pub moves: usize,
    /// Positions reached from the start by book moves (all of them, for a sound book).
    pub reachable: usize,
    /// The longest line of book positions from the start, in plies.
    pub depth: usize,
    /// Stored moves of the reachable positions that are not legal there (0 for a sound
    /// book: every stored index names a legal move).
    pub illegal: usize,
    /// Bytes of the file.
    pub bytes: usize,
}

/// The key of a position in a book: a fixed mix of its men, kings and side to move (not the
/// search's Zobrist hash, so that a book stays valid when that changes).
pub fn key(pos: &Position) -> u64 {
    let mask = |b: Bitboard| -> u64 {
        b.iter()
            .fold(0u64, |m, sq| m | 1 << (u32::from(sq.number()) - 1))
    };
    let white = mask(pos.men(Color::White)) | mask(pos.kings(Color::White)) << 32;
    let black = mask(pos.men(Color::Black)) | mask(pos.kings(Color::Black)) << 32;
    let turn = if pos.turn() == Color::White { 0 } else { 1 };
    mix(mix(white ^ turn) ^ black)
}

/// SplitMix64's finaliser.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl Book {
    /// The book shipped with dama, parsed once. Should it not parse (it is checked by a
    /// test, so it does), it is an empty book and a warning is logged.
    pub fn embedded() -> Arc<Book> {
        static BOOK: OnceLock<Arc<Book>> = OnceLock::new();
        BOOK.get_or_init(|| {
            Arc::new(Book::from_bytes(EMBEDDED).unwrap_or_else(|e| {
                tracing::warn!("the embedded opening book is refused: {e}");
                Book::empty(BuildConfig::default())
            }))
        })
        .clone()
    }

    /// A book with no position.
    pub fn empty(config: BuildConfig) -> Book {
        Book {
            config,
            keys: Vec::new(),
            starts: vec![0],
            moves: Vec::new(),
        }
    }

    /// Reads a book file.
    ///
    /// # Errors
    /// [`BookError::Io`] when it cannot be read, else those of [`Book::from_bytes`].
    pub fn load(path: &Path) -> Result<Book, BookError> {
        let bytes = std::fs::read(path).map_err(|source| BookError::Io {
            action: "read",
            path: path.display().to_string(),
            source,
        })?;
        Book::from_bytes(&bytes)
    }

    /// Writes the book to `path` (through a temporary file renamed over it, so that an
    /// interrupted write leaves the old file).
    ///
    /// # Errors
    /// [`BookError::Io`] when the file cannot be written.
    pub fn save(&self, path: &Path) -> Result<(), BookError> {
        let io = |source| BookError::Io {
            action: "write",
            path: path.display().to_string(),
            source,
        };
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        std::fs::write(&tmp, self.to_bytes()).map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)
    }

    /// Parses a book from the bytes of its file.
    ///
    /// ```
    /// use dama_search::book::{Book, BookError};
    /// let mut bytes = Book::embedded().to_bytes();
    /// let last = bytes.len() - 1;
    /// bytes[last] ^= 1;
    /// assert!(matches!(Book::from_bytes(&bytes), Err(BookError::Checksum { .. })));
    /// assert!(matches!(Book::from_bytes(b"hello"), Err(BookError::Format { .. })));
    /// ```
    ///
    /// # Errors
    /// [`BookError::Format`] for a wrong magic, version, variant, length or order,
    /// [`BookError::Checksum`] for a damaged body.
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, BookError> {
        let bad = |what: String| BookError::Format { what };
        if bytes.len() < HEADER {
            return Err(bad(format!(
                "{} bytes, shorter than the {HEADER}-byte header",
                bytes.len()
            )));
        }
        if &bytes[..8] != MAGIC {
            return Err(bad(format!(
                "the file starts with {:?}, not \"DAMABOOK\"",
                String::from_utf8_lossy(&bytes[..8])
            )));
        }
        let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
        let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap_or([0; 4]));
        let version = u16_at(8);
        if version != VERSION {
            return Err(bad(format!("format version {version}")));
        }
        let variant = *Variant::ALL
            .get(usize::from(bytes[10]))
            .ok_or_else(|| bad(format!("variant number {}", bytes[10])))?;
        let config = BuildConfig {
            variant,
            leaf_nodes: u32_at(12),
            dropout: u16_at(16),
            shallow_depth: bytes[18],
        };
        let positions = u32_at(20) as usize;
        let body_len = u32_at(24) as usize;
        let expected = u64::from_le_bytes(bytes[28..36].try_into().unwrap_or([0; 8]));
        let body = &bytes[HEADER..];
        if body.len() != body_len {
            return Err(bad(format!(
                "the body has {} bytes where the header says {body_len}",
                body.len()
            )));
        }
        let found = fnv1a(body);
        if found != expected {
            return Err(BookError::Checksum { found, expected });
        }
        Book::parse_body(config, positions, body).ok_or_else(|| {
            bad(format!(
                "the body does not hold {positions} positions in ascending order, each with 1 to 255 moves"
            ))
        })
    }

    fn parse_body(config: BuildConfig, positions: usize, body: &[u8]) -> Option<Book> {
        let mut book = Book::empty(config);
        let mut at = 0;
        for _ in 0..positions {
            let k = u64::from_le_bytes(body.get(at..at + 8)?.try_into().ok()?);
            let n = usize::from(*body.get(at + 8)?);
            at += 9;
            if n == 0 || book.keys.last().is_some_and(|&last| last >= k) {
                return None;
            }
            for _ in 0..n {
                let m = body.get(at..at + 3)?;
                book.moves.push((m[0], i16::from_le_bytes([m[1], m[2]])));
                at += 3;
            }
            book.keys.push(k);
            book.starts.push(book.moves.len() as u32);
        }
        (at == body.len()).then_some(book)
    }

    /// The bytes of the book's file.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut body = Vec::with_capacity(self.keys.len() * 9 + self.moves.len() * 3);
        for (i, k) in self.keys.iter().enumerate() {
            let moves = self.raw(i);
            body.extend_from_slice(&k.to_le_bytes());
            body.push(moves.len() as u8);
            for &(index, value) in moves {
                body.push(index);
                body.extend_from_slice(&value.to_le_bytes());
            }
        }
        let mut out = Vec::with_capacity(HEADER + body.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        let variant = Variant::ALL
            .iter()
            .position(|&v| v == self.config.variant)
            .unwrap_or(0);
        out.push(variant as u8);
        out.push(0);
        out.extend_from_slice(&self.config.leaf_nodes.to_le_bytes());
        out.extend_from_slice(&self.config.dropout.to_le_bytes());
        out.push(self.config.shallow_depth);
        out.push(0);
        out.extend_from_slice(&(self.keys.len() as u32).to_le_bytes());
        out.extend_from_slice(&(body.len() as u32).to_le_bytes());
        out.extend_from_slice(&fnv1a(&body).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    /// A book of `positions`, each a [`key`] with its moves as the file stores them: the
    /// move's index in the position's legal moves sorted as [`Game::sorted_legal_moves`]
    /// sorts them, and its value for the side to move in hundredths of a man, best first.
    /// Positions are sorted by key here; a position without moves is left out, and of a key
    /// given twice the first is kept. This is how a builder (`dama_lab::book::Builder`)
    /// makes the book it has grown.
    pub fn from_stored(config: BuildConfig, mut positions: Vec<(u64, Vec<(u8, i16)>)>) -> Book {
        positions.sort_by_key(|(k, _)| *k);
        positions.dedup_by_key(|(k, _)| *k);
        let mut book = Book::empty(config);
        for (k, moves) in positions.into_iter().filter(|(_, m)| !m.is_empty()) {
            book.moves.extend(moves);
            book.keys.push(k);
            book.starts.push(book.moves.len() as u32);
        }
        book
    }

    /// The keys of the book's positions, ascending.
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// The moves stored for the position of key `key`, as [`Book::from_stored`] takes them
    /// (best first); `None` when the position is not in the book.
    pub fn stored(&self, key: u64) -> Option<&[(u8, i16)]> {
        let i = self.keys.binary_search(&key).ok()?;
        Some(self.raw(i))
    }

    fn raw(&self, i: usize) -> &[(u8, i16)] {
        &self.moves[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    /// The settings the book was built with (its variant among them).
    pub fn config(&self) -> BuildConfig {
        self.config
    }

    /// Positions in the book.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the book has no position.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The book moves of `pos`, best first (empty when it is not in the book). A stored
    /// index that is not a legal move (a book for other rules) is left out.
    pub fn moves(&self, pos: &Position) -> Vec<BookMove> {
        let Ok(i) = self.keys.binary_search(&key(pos)) else {
            return Vec::new();
        };
        let legal = Game::from_position(self.config.variant, *pos).sorted_legal_moves();
        self.raw(i)
            .iter()
            .filter_map(|&(index, value)| {
                legal.get(usize::from(index)).map(|&mv| BookMove {
                    mv,
                    score: Score(i32::from(value)),
                })
            })
            .collect()
    }

    /// The book's move in `game` for a player choosing within `margin` (hundredths of a
    /// man) of the best value: uniformly among those moves, drawn from `rng`; with a zero
    /// margin the first of the best (the strong draw). `None` out of the book, or for a game
    /// of other rules.
    pub fn choose(&self, game: &Game, margin: i32, rng: &mut ChaCha8Rng) -> Option<BookMove> {
        if game.variant() != self.config.variant {
            return None;
        }
        let moves = self.moves(game.position());
        let best = moves.first()?.score;
        let n = moves
            .iter()
            .take_while(|m| m.score.0 >= best.0 - margin.max(0))
            .count();
        if n <= 1 {
            return moves.first().copied();
        }
        moves.get(rng.random_range(0..n)).copied()
    }

    /// Counts and measures the book; `reachable` and `depth` follow book moves from the start.
    pub fn stats(&self) -> BookStats {
        let mut seen = HashSet::new();
        let mut frontier = vec![Position::start()];
        let mut depth = 0;
        let mut illegal = 0;
        while !frontier.is_empty() {
            let mut next = Vec::new();
            for pos in frontier {
                let k = key(&pos);
                if !seen.insert(k) {
                    continue;
                }
                if let Ok(i) = self.keys.binary_search(&k) {
                    illegal += self.raw(i).len() - self.moves(&pos).len();
                }
                for m in self.moves(&pos) {
                    let child = pos.after(m.mv);
                    if self.keys.binary_search(&key(&child)).is_ok() {
                        next.push(child);
                    }
                }
            }
            if !next.is_empty() {
                depth += 1;
            }
            frontier = next;
        }
        let reachable = seen
            .iter()
            .filter(|k| self.keys.binary_search(k).is_ok())
            .count();
        BookStats {
            positions: self.keys.len(),
            moves: self.moves.len(),
            reachable,
            depth,
            illegal,
            bytes: HEADER + self.keys.len() * 9 + self.moves.len() * 3,
        }
    }
}

/// How a level plays from the book: Hard and Strong within `margin`, Normal within
/// [`NORMAL_MARGIN`], Novice and Easy not at all (their strength is fitted to beginners, and
/// their own margins already vary their openings).
pub fn level_margin(level: Level, margin: i32) -> Option<i32> {
    match level {
        Level::Hard | Level::Strong => Some(margin),
        Level::Normal => Some(NORMAL_MARGIN),
        Level::Novice | Level::Easy => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn a_book_of_stored_positions_round_trips_through_its_bytes() {
        let embedded = Book::embedded();
        let positions = embedded
            .keys()
            .iter()
            .rev()
            .map(|&k| (k, embedded.stored(k).unwrap().to_vec()))
            .collect();
        let book = Book::from_stored(embedded.config(), positions);
        assert_eq!(book.to_bytes(), embedded.to_bytes());
        let again = Book::from_bytes(&book.to_bytes()).unwrap();
        assert_eq!(again.keys, book.keys);
        assert_eq!(again.moves, book.moves);
        assert_eq!(again.config(), book.config());
        assert_eq!(book.stored(key(&Position::start())).unwrap().len(), 7);
        assert_eq!(book.stored(1), None);
    }

    #[test]
    fn damaged_files_are_refused() {
        let bytes = Book::embedded().to_bytes();
        for cut in [0, 10, HEADER, bytes.len() - 1] {
            assert!(Book::from_bytes(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut flipped = bytes.clone();
        flipped[HEADER + 3] ^= 0x10;
        let e = Book::from_bytes(&flipped).unwrap_err();
        assert!(e.to_string().contains("damaged"), "{e}");
        let mut version = bytes.clone();
        version[8] = 9;
        let e = Book::from_bytes(&version).unwrap_err();
        assert!(e.to_string().contains("version 9"), "{e}");
    }

    #[test]
    fn a_zero_margin_plays_the_first_best_move() {
        let book = Book::embedded();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let game = Game::new();
        let first = book.moves(game.position())[0];
        for _ in 0..5 {
            assert_eq!(book.choose(&game, 0, &mut rng), Some(first));
        }
        let wide = book.choose(&game, 10_000, &mut rng).unwrap();
        assert!(game.legal_moves().contains(&wide.mv));
    }
}
