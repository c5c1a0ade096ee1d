//! `dama play`: the full-screen view of the [`Model`], with crossterm.
//!
//! The view draws the model and turns keys and clicks into model calls; the computer thinks
//! on a worker thread and its move comes back through a channel, so the screen stays live.
//! The terminal is restored on `q`, Ctrl-C, an error or a panic.

use std::io::{self, IsTerminal, Write};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event, KeyCode, KeyEvent, KeyEventKind,
    KeyModifiers, MouseButton, MouseEventKind,
};
use crossterm::style::{
    Attribute, Color as Tc, Print, ResetColor, SetAttribute, SetBackgroundColor, SetForegroundColor,
};
use crossterm::terminal::{self, Clear, ClearType};
use crossterm::{cursor, execute, queue};
use dama_rules::{Color, Game, Move, Role, Square};
use dama_search::{Level, Signals};

use super::computer::Computer;
use super::config;
use super::model::{title, Model};
use crate::error::CliError;
use crate::exit::Status;

/// Left column and top row of the board on the screen.
const BOARD_X: u16 = 2;
const BOARD_Y: u16 = 2;
/// A square's width and height in character cells.
const CELL_W: u16 = 6;
const CELL_H: u16 = 2;
/// Left column of the side panel.
const PANEL_X: u16 = BOARD_X + 8 * CELL_W + 3;

/// Runs the full-screen game until the player quits.
pub fn run(model: Model, computer: Computer) -> Result<Status, CliError> {
    if !io::stdout().is_terminal() || !io::stdin().is_terminal() {
        return Err(CliError::NotATerminal);
    }
    let worker = Worker::spawn(computer);
    let guard = Screen::enter().map_err(CliError::Terminal)?;
    let mut app = App {
        model,
        cursor: Square::new(22).expect("22 is a square"),
        entry: None,
        thinking: false,
        generation: 0,
        quit: false,
    };
    let result = app.event_loop(&worker);
    drop(guard);
    worker.finish();
    result.map(|()| Status::Ok).map_err(CliError::Terminal)
}

/// Raw mode, the alternate screen and mouse reports while alive; restores the terminal when
/// dropped and, through a panic hook, on a panic.
struct Screen;

impl Screen {
    fn enter() -> io::Result<Screen> {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
        terminal::enable_raw_mode()?;
        let screen = Screen;
        execute!(
            io::stdout(),
            terminal::EnterAlternateScreen,
            EnableMouseCapture,
            cursor::Hide,
            Clear(ClearType::All)
        )?;
        Ok(screen)
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        restore();
    }
}

fn restore() {
    let _ = execute!(
        io::stdout(),
        ResetColor,
        DisableMouseCapture,
        cursor::Show,
        terminal::LeaveAlternateScreen
    );
    let _ = terminal::disable_raw_mode();
}

/// A search request: the game, the level, whether a new game started, and the game's number.
struct Request {
    game: Game,
    level: Level,
    new_game: bool,
    generation: u64,
}

/// The computer on its own thread.
struct Worker {
    requests: Sender<Request>,
    replies: Receiver<(u64, Option<Move>)>,
    signals: Signals,
    thread: JoinHandle<()>,
}

impl Worker {
    fn spawn(mut computer: Computer) -> Worker {
        let (requests, inbox) = mpsc::channel::<Request>();
        let (outbox, replies) = mpsc::channel();
        let signals = Signals::default();
        let flags = signals.clone();
        let thread = std::thread::spawn(move || {
            for r in inbox {
                flags.stop.store(false, Ordering::Relaxed);
                if r.new_game {
                    computer.new_game();
                }
                let m = computer.reply(&r.game, r.level, &flags);
                if outbox.send((r.generation, m)).is_err() {
                    break;
                }
            }
        });
        Worker {
            requests,
            replies,
            signals,
            thread,
        }
    }

    fn stop(&self) {
        self.signals.stop.store(true, Ordering::Relaxed);
    }

    fn finish(self) {
        self.stop();
        drop(self.requests);
        let _ = self.thread.join();
    }
}

/// The view's own state around the model.
struct App {
    model: Model,
    /// The keyboard cursor.
    cursor: Square,
    /// Text typed after `:` (a square number or a move), while typing.
    entry: Option<String>,
    thinking: bool,
    /// Counts new games, so that a reply for an abandoned game is dropped.
    generation: u64,
    quit: bool,
}

impl App {
    fn event_loop(&mut self, worker: &Worker) -> io::Result<()> {
        let mut new_game = true;
        let mut frame = 0u32;
        while !self.quit {
            if self.model.computer_to_move() && !self.thinking {
                let request = Request {
                    game: self.model.game().clone(),
                    level: self.model.level(),
                    new_game: std::mem::take(&mut new_game),
                    generation: self.generation,
                };
                self.thinking = worker.requests.send(request).is_ok();
            }
            self.draw(frame)?;
            frame = frame.wrapping_add(1);
            if event::poll(Duration::from_millis(120))? {
                let before = self.generation;
                self.handle(event::read()?);
                if self.generation != before {
                    worker.stop();
                    self.thinking = false;
                    new_game = true;
                }
            }
            while let Ok((generation, m)) = worker.replies.try_recv() {
                if generation != self.generation {
                    continue;
                }
                self.thinking = false;
                if let Some(m) = m {
                    if let Err(err) = self.model.computer_moved(m) {
                        return Err(io::Error::other(err.to_string()));
                    }
                }
            }
        }
        Ok(())
    }

    fn new_game(&mut self) {
        self.model.new_game();
        self.generation += 1;
        self.entry = None;
    }

    fn handle(&mut self, ev: Event) {
        match ev {
            Event::Key(key) if key.kind != KeyEventKind::Release => self.key(key),
            Event::Mouse(m) if m.kind == MouseEventKind::Down(MouseButton::Left) => {
                if let Some(sq) = square_at(m.column, m.row) {
                    self.cursor = sq;
                    self.choose(sq);
                }
            }
            _ => {}
        }
    }

    fn key(&mut self, key: KeyEvent) {
        let ctrl_c =
            key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c');
        if ctrl_c {
            self.quit = true;
            return;
        }
        if let Some(entry) = &mut self.entry {
            match key.code {
                KeyCode::Char(c) if c.is_ascii_alphanumeric() || c == '-' => entry.push(c),
                KeyCode::Backspace => {
                    entry.pop();
                }
                KeyCode::Esc => self.entry = None,
                KeyCode::Enter => {
                    let text = self.entry.take().unwrap_or_default();
                    self.submit(text.trim());
                }
                _ => {}
            }
            return;
        }
        match key.code {
            KeyCode::Char('q') | KeyCode::Char('Q') => self.quit = true,
            KeyCode::Char(c @ '1'..='5') => {
                let level = Level::from_number(u32::from(c as u8 - b'0')).unwrap_or_default();
                self.model.set_level(level);
                config::save_level(level);
            }
            _ if self.model.outcome().is_some() => self.new_game(),
            KeyCode::Char('n') | KeyCode::Char('N') => self.new_game(),
            KeyCode::Char(':' | '/' | 'm') | KeyCode::Tab => self.entry = Some(String::new()),
            KeyCode::Enter | KeyCode::Char(' ') => self.choose(self.cursor),
            KeyCode::Left => self.step(0, -2),
            KeyCode::Right => self.step(0, 2),
            KeyCode::Up => self.step(-1, -1),
            KeyCode::Down => self.step(1, 1),
            _ => {}
        }
    }

    /// Moves the cursor by rows and columns, staying on the dark squares of the board.
    fn step(&mut self, rows: i8, cols: i8) {
        let (r, c) = (self.cursor.row() as i8, self.cursor.column() as i8);
        let tries = [(r + rows, c + cols), (r + rows, c - cols)];
        for (r, c) in tries {
            if (0..8).contains(&r) && (0..8).contains(&c) {
                if let Some(sq) = Square::from_coords(r as u8, c as u8) {
                    self.cursor = sq;
                    return;
                }
            }
        }
    }

    fn choose(&mut self, sq: Square) {
        if self.model.outcome().is_some() {
            return;
        }
        self.model.choose_square(sq);
    }

    /// A typed square number or move.
    fn submit(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        match text.parse::<u8>().ok().and_then(Square::new) {
            Some(sq) => {
                self.cursor = sq;
                self.choose(sq);
            }
            None => {
                let _ = self.model.type_move(text);
            }
        }
    }

    fn draw(&self, frame: u32) -> io::Result<()> {
        let mut out = Vec::with_capacity(16 * 1024);
        queue!(out, cursor::MoveTo(0, 0), ResetColor)?;
        let header = format!(
            " dama — {} draughts against the computer",
            title_case(self.model.game().variant().name())
        );
        line(&mut out, 0, &header)?;
        line(&mut out, 1, "")?;
        for row in 0..8u8 {
            for part in 0..CELL_H {
                let y = BOARD_Y + u16::from(row) * CELL_H + part;
                queue!(
                    out,
                    cursor::MoveTo(0, y),
                    Print(" ".repeat(BOARD_X as usize))
                )?;
                for col in 0..8u8 {
                    self.cell(&mut out, row, col, part)?;
                }
                queue!(out, ResetColor, Clear(ClearType::UntilNewLine))?;
            }
        }
        self.panel(&mut out)?;
        let y = BOARD_Y + 8 * CELL_H + 1;
        line(&mut out, y - 1, "")?;
        line(&mut out, y, &format!(" {}", self.status(frame)))?;
        let entry = match &self.entry {
            Some(text) => format!(" Square or move: {text}_   (Enter to play, Esc to cancel)"),
            None => String::new(),
        };
        line(&mut out, y + 1, &entry)?;
        line(
            &mut out,
            y + 2,
            " Arrows+Enter or click: select · : type a square or a move · 1-5 level · \
             n new game · q quit",
        )?;
        queue!(out, Clear(ClearType::FromCursorDown))?;
        let mut stdout = io::stdout().lock();
        stdout.write_all(&out)?;
        stdout.flush()
    }

    fn status(&self, frame: u32) -> String {
        if let Some(verdict) = self.model.verdict() {
            return format!(
                "Game over: {verdict} ({})  Score: {} points.  Press any key for a new game, \
                 q to quit.",
                self.model.result_text().unwrap_or("*"),
                self.model.score()
            );
        }
        if !self.model.message().is_empty() {
            return self.model.message().to_string();
        }
        if self.thinking {
            let dots = ".".repeat((frame / 3 % 4) as usize);
            return format!("The computer is thinking{dots}");
        }
        "Your move: select a piece.".to_string()
    }

    fn panel(&self, out: &mut Vec<u8>) -> io::Result<()> {
        let level = self.model.level();
        let last = self
            .model
            .last_computer_move()
            .map_or("-".to_string(), |m| m.to_string());
        let to_move = if self.model.outcome().is_some() {
            "Game over".to_string()
        } else if self.model.human_to_move() {
            "Your move".to_string()
        } else {
            "Computer's move".to_string()
        };
        let rows = [
            format!("Level {}: {}", level.number(), title(level)),
            "(keys 1-5: Novice..Hard)".to_string(),
            String::new(),
            format!("You: {} (bottom)", self.model.human()),
            format!("Computer's last move: {last}"),
            format!("Moves played: {}", self.model.game().moves().len()),
            format!("Score so far: {}", self.model.score()),
            format!(
                "A win adds {} (level {})",
                100 + 50 * self.model.scored_level().number(),
                self.model.scored_level().number()
            ),
            String::new(),
            to_move,
        ];
        for (i, text) in rows.iter().enumerate() {
            let y = BOARD_Y + i as u16;
            queue!(
                out,
                cursor::MoveTo(PANEL_X, y),
                ResetColor,
                Print(text),
                Clear(ClearType::UntilNewLine)
            )?;
        }
        if let Some(verdict) = self.model.verdict() {
            let text = format!("  {verdict}  Score {}  ", self.model.score());
            let width = text.chars().count() as u16;
            let x = BOARD_X + (8 * CELL_W).saturating_sub(width) / 2;
            let y = BOARD_Y + 4 * CELL_H - 1;
            queue!(
                out,
                cursor::MoveTo(x, y),
                SetBackgroundColor(Tc::DarkBlue),
                SetForegroundColor(Tc::White),
                SetAttribute(Attribute::Bold),
                Print(&text),
                SetAttribute(Attribute::Reset),
                ResetColor
            )?;
        }
        Ok(())
    }

    /// One character row (`part`) of the square at `row`, `col`.
    fn cell(&self, out: &mut Vec<u8>, row: u8, col: u8, part: u16) -> io::Result<()> {
        let Some(sq) = Square::from_coords(row, col) else {
            return queue!(
                out,
                SetBackgroundColor(Tc::Grey),
                Print(" ".repeat(CELL_W as usize))
            );
        };
        let pos = self.model.game().position();
        let last = self.model.last_computer_move();
        let in_last = last.is_some_and(|m| m.from() == sq || m.to() == sq);
        let captured_last = last.is_some_and(|m| m.captured().contains(sq));
        let bg = if self.model.selected() == Some(sq) || self.model.path().contains(&sq) {
            Tc::Blue
        } else if self.model.targets().contains(sq) {
            Tc::Green
        } else if self.model.marked().contains(sq) {
            Tc::Red
        } else if in_last || captured_last {
            Tc::DarkYellow
        } else {
            Tc::DarkGreen
        };
        queue!(out, SetBackgroundColor(bg))?;
        let is_cursor = sq == self.cursor && self.model.outcome().is_none();
        if part == 0 {
            let number = format!("{:<w$}", sq.number(), w = CELL_W as usize);
            return queue!(out, SetForegroundColor(Tc::Black), Print(number));
        }
        let (left, right) = if is_cursor { ("[", "]") } else { (" ", " ") };
        queue!(out, SetForegroundColor(Tc::Yellow), Print(left))?;
        let (fg, text) = match pos.piece_at(sq) {
            Some(p) => {
                let fg = if p.color == Color::White {
                    Tc::White
                } else {
                    Tc::Black
                };
                let glyph = match (p.color, p.role) {
                    (Color::White, Role::Man) => " ○  ",
                    (Color::White, Role::King) => " ♔  ",
                    (Color::Black, Role::Man) => " ●  ",
                    (Color::Black, Role::King) => " ♚  ",
                };
                (fg, glyph)
            }
            None if self.model.targets().contains(sq) => (Tc::Black, " +  "),
            None if captured_last => (Tc::Black, " ×  "),
            None => (Tc::Black, "    "),
        };
        queue!(
            out,
            SetForegroundColor(fg),
            SetAttribute(Attribute::Bold),
            Print(text),
            SetAttribute(Attribute::Reset),
            SetBackgroundColor(bg),
            SetForegroundColor(Tc::Yellow),
            Print(right)
        )
    }
}

/// Writes `text` on row `y`, clearing the rest of the row.
fn line(out: &mut Vec<u8>, y: u16, text: &str) -> io::Result<()> {
    queue!(
        out,
        cursor::MoveTo(0, y),
        ResetColor,
        Print(text),
        Clear(ClearType::UntilNewLine)
    )
}

/// The square under the screen cell at `x`, `y`, if any.
fn square_at(x: u16, y: u16) -> Option<Square> {
    if x < BOARD_X || y < BOARD_Y {
        return None;
    }
    let col = (x - BOARD_X) / CELL_W;
    let row = (y - BOARD_Y) / CELL_H;
    if col >= 8 || row >= 8 {
        return None;
    }
    Square::from_coords(row as u8, col as u8)
}

fn title_case(name: &str) -> String {
    let mut chars = name.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clicks_map_to_squares() {
        let at = |n: u8| Square::new(n).unwrap();
        // Square 1 is the top-left dark square.
        assert_eq!(square_at(BOARD_X, BOARD_Y), Some(at(1)));
        assert_eq!(square_at(BOARD_X + CELL_W - 1, BOARD_Y + 1), Some(at(1)));
        assert_eq!(square_at(BOARD_X + CELL_W, BOARD_Y), None);
        assert_eq!(square_at(BOARD_X + CELL_W, BOARD_Y + CELL_H), Some(at(5)));
        assert_eq!(square_at(0, 0), None);
        assert_eq!(square_at(BOARD_X + 8 * CELL_W, BOARD_Y), None);
    }
}
