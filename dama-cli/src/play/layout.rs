//! Where each part of the `dama play` screen goes, for a terminal of a given size.
//!
//! Several layouts, tried in order, the first that fits winning:
//!
//! | cells | panel | needs (columns × rows) |
//! | --- | --- | --- |
//! | large (6×2: number above, piece below) | beside the board | 74 × 18 |
//! | large | below the board | 51 × 26 |
//! | medium (4×2) | beside | 57 × 18 |
//! | medium | below | 35 × 26 |
//! | compact (3×1: the piece, or the number of an empty square; each row's numbers at its right) | one summary line | 32 × 11 |
//!
//! Spare rows go to a second status row, the header and blank separators, in that order.
//! The last column of the terminal is never written: a character there leaves some terminals
//! waiting to wrap, and a clear of the line may then erase it; so nothing can wrap or scroll.
//! Below [`MIN_WIDTH`] × [`MIN_HEIGHT`] no layout fits and the screen says so in one line.

use dama_rules::notation::pdn;
use dama_rules::{Square, Variant};

/// The engine square drawn at `row`, `col` (0..8, from the top left) of `variant`'s board:
/// mirrored where the variant's players see it so ([`pdn::mirrored`]), and turned round when
/// `turned` (the dark pieces' side at the bottom).
pub fn shown_square(variant: Variant, turned: bool, row: u8, col: u8) -> Option<Square> {
    let (row, col) = if turned {
        (7 - row, 7 - col)
    } else {
        (row, col)
    };
    let col = if pdn::mirrored(variant) { 7 - col } else { col };
    Square::from_coords(row, col)
}

/// Where `sq` is drawn (row, column from the top left): the inverse of [`shown_square`].
pub fn shown_coords(variant: Variant, turned: bool, sq: Square) -> (u8, u8) {
    let (row, col) = (sq.row(), sq.column());
    let col = if pdn::mirrored(variant) { 7 - col } else { col };
    if turned {
        (7 - row, 7 - col)
    } else {
        (row, col)
    }
}

/// The smallest terminal a layout fits (the compact board with its summary line).
pub const MIN_WIDTH: u16 = 32;
/// See [`MIN_WIDTH`].
pub const MIN_HEIGHT: u16 = 11;

/// The narrowest side panel worth drawing beside the board.
const PANEL_MIN_WIDTH: u16 = 20;
/// Rows of the panel beside the board (with its blank separators) and below it (without).
const PANEL_ROWS_BESIDE: u16 = 12;
const PANEL_ROWS_BELOW: u16 = 8;

/// How big a square is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cells {
    /// 6 columns × 2 rows: the number above, the piece below.
    Large,
    /// 4 columns × 2 rows: the same, narrower.
    Medium,
    /// 3 columns × 1 row: the piece, or the number of an empty square; each board row's
    /// square numbers (`29-32`) at its right.
    Compact,
}

impl Cells {
    /// A square's width in columns.
    pub fn width(self) -> u16 {
        match self {
            Cells::Large => 6,
            Cells::Medium => 4,
            Cells::Compact => 3,
        }
    }

    /// A square's height in rows.
    pub fn height(self) -> u16 {
        match self {
            Cells::Large | Cells::Medium => 2,
            Cells::Compact => 1,
        }
    }

    /// Columns right of the board for each row's square numbers (compact only).
    pub fn labels(self) -> u16 {
        match self {
            Cells::Compact => 6,
            _ => 0,
        }
    }

    /// Left margin before the board.
    fn margin(self) -> u16 {
        match self {
            Cells::Compact => 1,
            _ => 2,
        }
    }
}

/// Where the side panel (level, last move, score...) goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Panel {
    /// Beside the board, from its top row: `rows` lines of at most `width` columns at `x`.
    Beside {
        /// Left column.
        x: u16,
        /// Columns available.
        width: u16,
        /// Rows available.
        rows: u16,
    },
    /// Below the board: `rows` lines from row `y`.
    Below {
        /// Top row.
        y: u16,
        /// Rows available.
        rows: u16,
    },
    /// A single summary line at row `y`.
    Line {
        /// The row.
        y: u16,
    },
}

/// The place of everything on a screen that a layout fits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Columns that may be written (the terminal's width less its last column).
    pub width: u16,
    /// The terminal's rows.
    pub height: u16,
    /// The squares' size.
    pub cells: Cells,
    /// Left column of the board.
    pub board_x: u16,
    /// Top row of the board.
    pub board_y: u16,
    /// The side panel.
    pub panel: Panel,
    /// The header's row, when there is room for one.
    pub header_y: Option<u16>,
    /// First row of the status (the message, or whose move it is).
    pub status_y: u16,
    /// Rows of the status (1 or 2).
    pub status_rows: u16,
    /// The row of the key help, or of the text being typed.
    pub help_y: u16,
}

/// What a terminal of some size gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    /// A layout.
    Game(Layout),
    /// No layout fits: the terminal should be at least [`MIN_WIDTH`] × [`MIN_HEIGHT`].
    TooSmall,
}

/// The message of a terminal too small for any layout, `make the terminal at least 32×11`:
/// one line, or broken at spaces into lines of at most `width` characters when the terminal is
/// narrower than that.
pub fn too_small_message(width: u16) -> Vec<String> {
    let (ask, size) = (
        "make the terminal",
        format!("at least {MIN_WIDTH}×{MIN_HEIGHT}"),
    );
    let whole = format!("{ask} {size}");
    if whole.chars().count() <= usize::from(width) {
        vec![whole]
    } else if ask.len().max(size.chars().count()) <= usize::from(width) {
        vec![ask.to_string(), size]
    } else {
        wrap(&whole, width)
    }
}

/// The first layout that fits a terminal of `width` columns and `height` rows.
pub fn choose(width: u16, height: u16) -> Fit {
    use PanelKind::*;
    let candidates = [
        (Cells::Large, Beside),
        (Cells::Large, Below),
        (Cells::Medium, Beside),
        (Cells::Medium, Below),
        (Cells::Compact, Line),
    ];
    candidates
        .into_iter()
        .find_map(|(cells, panel)| fit(cells, panel, width, height))
        .map_or(Fit::TooSmall, Fit::Game)
}

#[derive(Clone, Copy)]
enum PanelKind {
    Beside,
    Below,
    Line,
}

fn fit(cells: Cells, kind: PanelKind, width: u16, height: u16) -> Option<Layout> {
    let usable = width.saturating_sub(1);
    let board_x = cells.margin();
    let board_h = 8 * cells.height();
    let board_right = board_x + 8 * cells.width() + cells.labels();
    if board_right > usable {
        return None;
    }
    let gap = if cells == Cells::Large { 3 } else { 2 };
    let below_rows = match kind {
        PanelKind::Beside => {
            let x = board_right + gap;
            if usable < x + PANEL_MIN_WIDTH || board_h < PANEL_ROWS_BELOW {
                return None;
            }
            0
        }
        PanelKind::Below => PANEL_ROWS_BELOW,
        PanelKind::Line => 1,
    };
    // The board, the panel below, one status row and the help row.
    let core = board_h + below_rows + 2;
    let mut spare = height.checked_sub(core)?;
    let mut take = || {
        let got = spare > 0;
        spare = spare.saturating_sub(1);
        got
    };
    let status_rows = 1 + u16::from(take());
    let header = take();
    let header_gap = header && take();
    let status_gap = take();
    let below_gap = matches!(kind, PanelKind::Below) && take();

    let mut y = 0;
    let header_y = header.then_some(0);
    y += u16::from(header) + u16::from(header_gap);
    let board_y = y;
    y += board_h;
    let panel = match kind {
        PanelKind::Beside => {
            let x = board_right + gap;
            Panel::Beside {
                x,
                width: usable - x,
                rows: board_h.min(PANEL_ROWS_BESIDE),
            }
        }
        PanelKind::Below => {
            y += u16::from(below_gap);
            let p = Panel::Below {
                y,
                rows: below_rows,
            };
            y += below_rows;
            p
        }
        PanelKind::Line => {
            let p = Panel::Line { y };
            y += 1;
            p
        }
    };
    y += u16::from(status_gap);
    let status_y = y;
    y += status_rows;
    Some(Layout {
        width: usable,
        height,
        cells,
        board_x,
        board_y,
        panel,
        header_y,
        status_y,
        status_rows,
        help_y: y,
    })
}

impl Layout {
    /// The screen position (column, row) of the top-left corner of the square at `row`, `col`.
    #[cfg(test)]
    pub fn cell_origin(&self, row: u8, col: u8) -> (u16, u16) {
        (
            self.board_x + u16::from(col) * self.cells.width(),
            self.board_y + u16::from(row) * self.cells.height(),
        )
    }

    /// The square under the screen cell at `x`, `y`, if any, on the Italian board.
    #[cfg(test)]
    pub fn square_at(&self, x: u16, y: u16) -> Option<Square> {
        let (row, col) = self.cell_at(x, y)?;
        Square::from_coords(row, col)
    }

    /// The board cell (row, column from the top left) under the screen cell at `x`, `y`.
    pub fn cell_at(&self, x: u16, y: u16) -> Option<(u8, u8)> {
        if x < self.board_x || y < self.board_y {
            return None;
        }
        let col = (x - self.board_x) / self.cells.width();
        let row = (y - self.board_y) / self.cells.height();
        if col >= 8 || row >= 8 {
            return None;
        }
        Some((row as u8, col as u8))
    }

    /// The width of the board's rows, with the compact board's numbers.
    #[cfg(test)]
    pub fn board_width(&self) -> u16 {
        8 * self.cells.width() + self.cells.labels()
    }
}

/// `text` cut to `width` characters, its end replaced by `…` when cut.
pub fn clip(text: &str, width: u16) -> String {
    let width = usize::from(width);
    if text.chars().count() <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out: String = text.chars().take(width - 1).collect();
    out.push('…');
    out
}

/// The first of `forms` that fits `width` (the last one clipped when none does).
pub fn first_fitting(forms: &[String], width: u16) -> String {
    forms
        .iter()
        .find(|f| f.chars().count() <= usize::from(width))
        .cloned()
        .unwrap_or_else(|| clip(forms.last().map_or("", String::as_str), width))
}

/// `text` broken at spaces into lines of at most `width` characters (a longer word is cut).
pub fn wrap(text: &str, width: u16) -> Vec<String> {
    let width = usize::from(width.max(1));
    let mut lines = Vec::new();
    let mut current = String::new();
    for word in text.split(' ') {
        let len = current.chars().count();
        let wlen = word.chars().count();
        if len > 0 && len + 1 + wlen > width {
            lines.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        } else if word.is_empty() && !lines.is_empty() {
            // A run of spaces at a break is dropped.
            continue;
        }
        current.push_str(word);
        while current.chars().count() > width {
            let head: String = current.chars().take(width).collect();
            current = current.chars().skip(width).collect();
            lines.push(head);
        }
    }
    if !current.is_empty() || lines.is_empty() {
        lines.push(current);
    }
    lines
}

/// The first of `forms` that wraps into `rows` lines of `width`; else the last one, its
/// last line clipped.
pub fn fit_rows(forms: &[String], width: u16, rows: u16) -> Vec<String> {
    let rows = usize::from(rows.max(1));
    for form in forms {
        let lines = wrap(form, width);
        if lines.len() <= rows {
            return lines;
        }
    }
    let mut lines = wrap(forms.last().map_or("", String::as_str), width);
    if lines.len() > rows {
        lines.truncate(rows);
        let last = lines.pop().unwrap_or_default();
        lines.push(clip(&format!("{last}…"), width));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(w: u16, h: u16) -> Layout {
        match choose(w, h) {
            Fit::Game(l) => l,
            Fit::TooSmall => panic!("{w}×{h} fits no layout"),
        }
    }

    #[test]
    fn the_sizes_of_the_issue_get_the_expected_layouts() {
        let l = game(100, 36);
        assert_eq!(l.cells, Cells::Large);
        assert!(matches!(l.panel, Panel::Beside { .. }));
        assert_eq!(l.header_y, Some(0));
        let l = game(80, 24);
        assert_eq!(l.cells, Cells::Large);
        assert!(matches!(l.panel, Panel::Beside { width: 26, .. }));
        let l = game(60, 20);
        assert_eq!(l.cells, Cells::Medium);
        assert!(matches!(l.panel, Panel::Beside { .. }));
        let l = game(52, 40);
        assert_eq!(l.cells, Cells::Large);
        assert!(matches!(l.panel, Panel::Below { .. }));
        let l = game(40, 12);
        assert_eq!(l.cells, Cells::Compact);
        assert!(matches!(l.panel, Panel::Line { .. }));
        assert_ne!(choose(MIN_WIDTH, MIN_HEIGHT), Fit::TooSmall);
        assert_eq!(too_small_message(40), ["make the terminal at least 32×11"]);
        assert_eq!(
            too_small_message(24),
            ["make the terminal", "at least 32×11"]
        );
        assert!(too_small_message(5).iter().all(|l| l.chars().count() <= 5));
        assert_eq!(choose(MIN_WIDTH - 1, 40), Fit::TooSmall);
        assert_eq!(choose(200, MIN_HEIGHT - 1), Fit::TooSmall);
    }

    /// Every layout of every size up to 220×70 keeps its parts inside the writable area
    /// and apart from each other.
    #[test]
    fn every_layout_fits_its_terminal_and_nothing_overlaps() {
        for w in 0..220u16 {
            for h in 0..70u16 {
                let Fit::Game(l) = choose(w, h) else {
                    assert!(w < MIN_WIDTH || h < MIN_HEIGHT, "{w}×{h}");
                    continue;
                };
                assert!(l.width < w);
                let board_bottom = l.board_y + 8 * l.cells.height();
                assert!(l.board_x + l.board_width() <= l.width, "{w}×{h}: {l:?}");
                let mut rows: Vec<u16> = (l.board_y..board_bottom).collect();
                rows.extend(l.header_y);
                match l.panel {
                    Panel::Beside { x, width, rows: r } => {
                        assert!(x >= l.board_x + l.board_width() && x + width <= l.width);
                        assert!(width >= PANEL_MIN_WIDTH && r <= 8 * l.cells.height());
                    }
                    Panel::Below { y, rows: r } => rows.extend(y..y + r),
                    Panel::Line { y } => rows.push(y),
                }
                rows.extend(l.status_y..l.status_y + l.status_rows);
                rows.push(l.help_y);
                let n = rows.len();
                rows.sort();
                rows.dedup();
                assert_eq!(rows.len(), n, "{w}×{h}: overlapping rows in {l:?}");
                assert!(rows.iter().all(|&y| y < h), "{w}×{h}: {l:?}");
            }
        }
    }

    #[test]
    fn squares_are_found_under_their_cells() {
        for (w, h) in [(100, 36), (60, 20), (40, 12)] {
            let l = game(w, h);
            for n in 1..=32u8 {
                let sq = Square::new(n).unwrap();
                let (x, y) = l.cell_origin(sq.row(), sq.column());
                assert_eq!(l.square_at(x, y), Some(sq));
                let (x2, y2) = (x + l.cells.width() - 1, y + l.cells.height() - 1);
                assert_eq!(l.square_at(x2, y2), Some(sq));
            }
            assert_eq!(l.square_at(0, 0), None);
            assert_eq!(
                l.square_at(l.board_x + 8 * l.cells.width(), l.board_y),
                None
            );
        }
    }

    #[test]
    fn each_variant_and_side_draws_every_square_once() {
        for variant in Variant::ALL {
            for turned in [false, true] {
                let mut seen = Vec::new();
                for row in 0..8 {
                    for col in 0..8 {
                        if let Some(sq) = shown_square(variant, turned, row, col) {
                            assert_eq!(shown_coords(variant, turned, sq), (row, col));
                            seen.push(sq);
                        }
                    }
                }
                seen.sort();
                assert_eq!(seen, Square::ALL, "{variant:?} {turned}");
            }
        }
        // English and Russian boards have the dark corner at the bottom left, where the
        // engine's 32 (English 29, Russian a1) is; turned round, the engine's 1 is there.
        let sq = |n| Square::new(n).unwrap();
        assert_eq!(shown_square(Variant::English, false, 7, 0), Some(sq(32)));
        assert_eq!(shown_square(Variant::Russian, true, 7, 0), Some(sq(1)));
        assert_eq!(shown_square(Variant::Italian, false, 7, 0), None);
    }

    #[test]
    fn text_is_clipped_and_wrapped_to_the_width() {
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(clip("abc", 4), "abc");
        assert_eq!(clip("abc", 0), "");
        assert_eq!(wrap("one two three", 7), ["one two", "three"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        let forms = ["a long form of it".to_string(), "short".to_string()];
        assert_eq!(first_fitting(&forms, 8), "short");
        assert_eq!(first_fitting(&forms, 3), "sh…");
        assert_eq!(fit_rows(&forms, 9, 2), ["short"]);
        assert_eq!(fit_rows(&forms[..1], 9, 2), ["a long", "form of…"]);
        assert_eq!(fit_rows(&forms[..1], 7, 2), ["a long", "form o…"]);
        for text in [
            "",
            " ",
            "x  y",
            "Game over: You win! (1-0)  Score: 210 points.",
        ] {
            for width in 1..12 {
                for line in fit_rows(&[text.to_string()], width, 2) {
                    assert!(
                        line.chars().count() <= usize::from(width),
                        "{text:?} {width}"
                    );
                }
            }
        }
    }
}
