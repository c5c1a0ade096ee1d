//! Building an opening book by drop-out expansion (Lincke, 2000): the [`Builder`] grows a tree
//! from the start position and hands back a [`Book`], the book that `dama-search` reads and
//! plays from (its file format, and how the build chooses what to expand, are in the
//! rustdoc of [`dama_search::book`]).
//!
//! ```
//! use dama_lab::book::Builder;
//! use dama_search::book::BuildConfig;
//!
//! let mut builder = Builder::new(BuildConfig { leaf_nodes: 200, ..BuildConfig::default() });
//! for _ in 0..2 {
//!     builder.expand_once().expect("something to expand");
//! }
//! let book = builder.book();
//! assert_eq!(book.len(), 2);
//! assert!(!book.moves(&dama_rules::Position::start()).is_empty());
//! ```

use std::collections::{HashMap, HashSet};

use dama_rules::{Color, Game, Move, Position};
use dama_search::book::{key, Book, BookMove, BuildConfig};
use dama_search::{Engine, Limits, Score, Signals};

/// One move of a position being built.
#[derive(Clone, Debug)]
struct Edge {
    mv: Move,
    /// The position after the move.
    child: u64,
    /// The value of the move's leaf search (for the side to move), or once it is inside the
    /// book, the last value read.
    leaf: i32,
    /// The strong-draw tie-break (higher first).
    shallow: i32,
    /// The game ends with this move: never expanded.
    terminal: bool,
}

#[derive(Clone, Debug)]
struct Node {
    pos: Position,
    edges: Vec<Edge>,
}

/// Values and priorities of a node, from a pass over the tree.
#[derive(Copy, Clone, Debug)]
struct Backed {
    value: i32,
    /// Expansion priority for White's and Black's book, in hundredths of a ply.
    prio: [i64; 2],
}

/// A priority beyond every real one: never expanded.
const NEVER: i64 = i64::MAX / 4;
/// Values beyond this (a won or lost position) are not expanded further.
const DECIDED: i32 = 2_000;

/// What one expansion did, for progress reports.
#[derive(Clone, Debug)]
pub struct Progress {
    /// Positions in the book now.
    pub positions: usize,
    /// Plies from the start to the position expanded.
    pub ply: usize,
    /// Whose priorities chose it.
    pub side: Color,
    /// The start position's value and best move.
    pub root: Option<BookMove>,
    /// Nodes searched in this expansion.
    pub nodes: u64,
}

/// Grows a book by drop-out expansion; see [`dama_search::book`] for how.
pub struct Builder {
    config: BuildConfig,
    nodes: HashMap<u64, Node>,
    root: Position,
    engine: Engine,
    expansions: u64,
}

impl Builder {
    /// A builder starting from nothing (the first expansion is the start position).
    pub fn new(config: BuildConfig) -> Builder {
        let mut engine = Engine::with_hash(8);
        engine.set_book(None);
        Builder {
            config,
            nodes: HashMap::new(),
            root: Position::start(),
            engine,
            expansions: 0,
        }
    }

    /// A builder going on from `book` (with its settings): its positions are found again
    /// from the start by its moves; a position no book move leads to is dropped.
    pub fn from_book(book: &Book) -> Builder {
        let mut b = Builder::new(book.config());
        let mut frontier = vec![Position::start()];
        while let Some(pos) = frontier.pop() {
            let k = key(&pos);
            if b.nodes.contains_key(&k) {
                continue;
            }
            let Some(stored) = book.stored(k) else {
                continue;
            };
            let legal = Game::from_position(book.config().variant, pos).sorted_legal_moves();
            let mut edges = Vec::new();
            for (rank, &(index, value)) in stored.iter().enumerate() {
                let Some(&mv) = legal.get(usize::from(index)) else {
                    continue;
                };
                let after = pos.after(mv);
                frontier.push(after);
                edges.push(Edge {
                    mv,
                    child: key(&after),
                    leaf: i32::from(value),
                    shallow: -(rank as i32),
                    terminal: Game::from_position(book.config().variant, after)
                        .legal_moves()
                        .is_empty(),
                });
            }
            // In the order of a fresh expansion, so that going on chooses as it would have.
            edges.sort_by_key(|e| e.mv);
            b.nodes.insert(k, Node { pos, edges });
        }
        b
    }

    /// Positions in the book so far.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether nothing is built yet.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Values and priorities of every node, by one pass from the root (a position met again
    /// on its own line, which the opening hardly allows, counts as a leaf there).
    fn back_up(&self) -> HashMap<u64, Backed> {
        let mut done = HashMap::with_capacity(self.nodes.len());
        let mut on_line = HashSet::new();
        self.visit(key(&self.root), &mut done, &mut on_line);
        done
    }

    fn visit(
        &self,
        k: u64,
        done: &mut HashMap<u64, Backed>,
        on_line: &mut HashSet<u64>,
    ) -> Option<Backed> {
        if let Some(b) = done.get(&k) {
            return Some(*b);
        }
        let node = self.nodes.get(&k)?;
        if !on_line.insert(k) {
            return None;
        }
        let mut values = Vec::with_capacity(node.edges.len());
        for e in &node.edges {
            values.push(self.edge_value(e, done, on_line));
        }
        let value = values
            .iter()
            .map(|v| v.0)
            .max()
            .unwrap_or(Score::loss_in(0).0);
        let me = node.pos.turn().index();
        let mut prio = [NEVER; 2];
        for (side, p) in prio.iter_mut().enumerate() {
            for &(v, child_prio) in &values {
                let mut cost = child_prio[side];
                if side == me {
                    cost = cost.saturating_add(self.dropout_cost(value - v));
                }
                *p = (*p).min(cost.saturating_add(100));
            }
            *p = (*p).min(NEVER);
        }
        on_line.remove(&k);
        let b = Backed { value, prio };
        done.insert(k, b);
        Some(b)
    }

    /// A move's value for the side to move and its child's priorities.
    fn edge_value(
        &self,
        e: &Edge,
        done: &mut HashMap<u64, Backed>,
        on_line: &mut HashSet<u64>,
    ) -> (i32, [i64; 2]) {
        if let Some(b) = self.visit(e.child, done, on_line) {
            return (-b.value, b.prio);
        }
        let open = !e.terminal && e.leaf.abs() < DECIDED && !self.nodes.contains_key(&e.child);
        (e.leaf, if open { [0; 2] } else { [NEVER; 2] })
    }

    fn dropout_cost(&self, delta: i32) -> i64 {
        i64::from(delta.max(0)) * 100 / i64::from(self.config.dropout.max(1))
    }

    /// The leaf to expand for `side`'s book: from the root down the cheapest moves.
    fn select(&self, side: usize, backed: &HashMap<u64, Backed>) -> Option<(Position, usize)> {
        let mut pos = self.root;
        let Some(root) = backed.get(&key(&pos)) else {
            return Some((pos, 0));
        };
        if root.prio[side] >= NEVER {
            return None;
        }
        for ply in 0..200 {
            let k = key(&pos);
            let Some(node) = self.nodes.get(&k) else {
                return Some((pos, ply));
            };
            let value = backed.get(&k)?.value;
            let me = node.pos.turn().index();
            let mut best: Option<(i64, &Edge)> = None;
            for e in &node.edges {
                let (v, prio) = match backed.get(&e.child) {
                    Some(b) if self.nodes.contains_key(&e.child) => (-b.value, b.prio[side]),
                    _ => {
                        let open = !e.terminal && e.leaf.abs() < DECIDED;
                        (e.leaf, if open { 0 } else { NEVER })
                    }
                };
                let mut cost = prio;
                if side == me {
                    cost = cost.saturating_add(self.dropout_cost(value - v));
                }
                if cost < NEVER && best.is_none_or(|(c, _)| cost < c) {
                    best = Some((cost, e));
                }
            }
            pos = pos.after(best?.1.mv);
        }
        None
    }

    /// Expands one leaf: every move of the position searched at the leaf budget. `None` when
    /// nothing is left to expand (every line decided).
    pub fn expand_once(&mut self) -> Option<Progress> {
        let side = (self.expansions % 2) as usize;
        self.expansions += 1;
        let backed = self.back_up();
        let (pos, ply) = self
            .select(side, &backed)
            .or_else(|| self.select(1 - side, &backed))?;
        let variant = self.config.variant;
        let legal = Game::from_position(variant, pos).sorted_legal_moves();
        let mut edges = Vec::with_capacity(legal.len());
        let mut nodes = 0;
        for &mv in legal.iter() {
            let after = pos.after(mv);
            let game = Game::from_position(variant, after);
            let terminal = game.legal_moves().is_empty();
            let (leaf, shallow) = if terminal {
                (Score::win_in(1).0, Score::win_in(1).0)
            } else {
                let signals = Signals::default();
                self.engine.clear();
                let limits = Limits::depth(u32::from(self.config.shallow_depth.max(1)));
                let s = self
                    .engine
                    .analyze_with(&game, &limits, &signals, &mut |_| {});
                self.engine.clear();
                let limits = Limits::nodes(u64::from(self.config.leaf_nodes.max(1)));
                let r = self
                    .engine
                    .analyze_with(&game, &limits, &signals, &mut |_| {});
                nodes += s.nodes + r.nodes;
                (-r.score.0, -s.score.0)
            };
            edges.push(Edge {
                mv,
                child: key(&after),
                leaf,
                shallow,
                terminal,
            });
        }
        if edges.is_empty() {
            return None;
        }
        self.nodes.insert(key(&pos), Node { pos, edges });
        Some(Progress {
            positions: self.nodes.len(),
            ply,
            side: Color::ALL[side],
            root: self.root_move(),
            nodes,
        })
    }

    /// The start position's best move and value now.
    fn root_move(&self) -> Option<BookMove> {
        let backed = self.back_up();
        let root = self.nodes.get(&key(&self.root))?;
        root.edges
            .iter()
            .map(|e| {
                let v = match backed.get(&e.child) {
                    Some(b) if self.nodes.contains_key(&e.child) => -b.value,
                    _ => e.leaf,
                };
                BookMove {
                    mv: e.mv,
                    score: Score(v),
                }
            })
            .max_by_key(|m| m.score)
    }

    /// The book built so far, values backed up, moves best first (ties: strong draw first).
    pub fn book(&self) -> Book {
        let backed = self.back_up();
        let mut keys: Vec<u64> = self.nodes.keys().copied().collect();
        keys.sort_unstable();
        let positions = self
            .nodes
            .iter()
            .map(|(&k, node)| {
                let legal = Game::from_position(self.config.variant, node.pos).sorted_legal_moves();
                let mut moves: Vec<(i32, i32, u8)> = node
                    .edges
                    .iter()
                    .map(|e| {
                        let v = match backed.get(&e.child) {
                            Some(b) if self.nodes.contains_key(&e.child) => -b.value,
                            _ => e.leaf,
                        };
                        let index = legal.iter().position(|&m| m == e.mv).unwrap_or(0);
                        (v, e.shallow, index as u8)
                    })
                    .collect();
                moves.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
                (k, moves.iter().map(|&(v, _, i)| (i, clamp16(v))).collect())
            })
            .collect();
        Book::from_stored(self.config, positions)
    }
}

fn clamp16(v: i32) -> i16 {
    v.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16
}

#[cfg(test)]
mod tests {
    use super::*;
    use dama_search::{ChaCha8Rng, SeedableRng};

    fn tiny() -> Book {
        let mut b = Builder::new(BuildConfig {
            leaf_nodes: 300,
            ..BuildConfig::default()
        });
        for _ in 0..6 {
            b.expand_once().expect("something to expand");
        }
        b.book()
    }

    #[test]
    fn a_book_round_trips_through_its_bytes() {
        let book = tiny();
        assert_eq!(book.len(), 6);
        let again = Book::from_bytes(&book.to_bytes()).unwrap();
        assert_eq!(again.to_bytes(), book.to_bytes());
        assert_eq!(again.config(), book.config());
        assert_eq!(book.stats().reachable, 6);
    }

    #[test]
    fn a_build_gives_the_same_book_as_before_it_moved_out_of_dama_search() {
        // The hashes of the file bytes that dama-search's builder wrote for these builds
        // (before the move to dama-lab): the building, the backing up and the order of the
        // moves are unchanged. The book's scores come from the embedded net: the hashes
        // were taken again when the net t5 replaced t4, t6 t5, t11e t6 and t12c t11e, the code
        // unchanged.
        use crate::matches::tests::fnv;
        let book = tiny();
        let bytes = book.to_bytes();
        let mut b = Builder::from_book(&book);
        b.expand_once().unwrap();
        assert_eq!(
            (bytes.len(), fnv(&bytes), fnv(&b.book().to_bytes())),
            (216, 2_817_580_053_333_073_312, 1_516_827_508_504_678_523)
        );
    }

    #[test]
    fn values_are_backed_up_by_minimax() {
        let book = tiny();
        let start = Position::start();
        let moves = book.moves(&start);
        assert_eq!(moves.len(), 7);
        for m in &moves {
            let child = book.moves(&start.after(m.mv));
            if let Some(best) = child.first() {
                assert_eq!(m.score, -best.score, "{}", m.mv);
            }
        }
    }

    #[test]
    fn an_extended_book_keeps_what_it_had() {
        let book = tiny();
        let mut b = Builder::from_book(&book);
        assert_eq!(b.len(), 6);
        b.expand_once().unwrap();
        let bigger = b.book();
        assert_eq!(bigger.len(), 7);
        assert!(book.keys().iter().all(|&k| bigger.stored(k).is_some()));
    }

    #[test]
    fn among_equal_values_the_strong_draw_comes_first() {
        let mut b = Builder::new(BuildConfig {
            leaf_nodes: 300,
            ..BuildConfig::default()
        });
        b.expand_once().unwrap();
        let root = key(&Position::start());
        let edges = &mut b.nodes.get_mut(&root).unwrap().edges;
        for (i, e) in edges.iter_mut().enumerate() {
            e.leaf = 0;
            e.shallow = if i == 3 { 50 } else { i as i32 };
        }
        let strong = edges[3].mv;
        let book = b.book();
        let moves = book.moves(&Position::start());
        assert!(moves.iter().all(|m| m.score == Score::DRAW));
        assert_eq!(moves[0].mv, strong);
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        assert_eq!(book.choose(&Game::new(), 0, &mut rng).unwrap().mv, strong);
    }
}
