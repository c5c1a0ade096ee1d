//! `dama play`: the full-screen view of the [`Model`], with crossterm.
//!
//! The view draws the model and turns keys and clicks into model calls; the computer thinks
//! on a worker thread and its move comes back through a channel, so the screen stays live.
//! The terminal is restored on `q`, Ctrl-C, an error or a panic. `n` and `q` in a game
//! the player has moved in ask first (`y` leaves it, any other key stays).
//!
//! The screen fits the terminal: [`layout`] picks the board's size and the panel's place for
//! it, and a resize redraws in the new layout, keeping the game, the selection, the typed text
//! and the message (they live in the model and the view's state, not in the layout).

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
use dama_rules::notation::pdn;
use dama_rules::{Color, Game, Move, Role, Square};
use dama_search::{Level, Signals};

use super::computer::Computer;
use super::config;
use super::layout::{self, clip, first_fitting, fit_rows, shown_coords, shown_square};
use super::layout::{Cells, Fit, Layout, Panel};
use super::model::{title, Model};
use crate::error::CliError;
use crate::exit::Status;

/// Runs the full-screen game until the player quits.
pub fn run(model: Model, computer: Computer) -> Result<Status, CliError> {
    if !io::stdout().is_terminal() || !io::stdin().is_terminal() {
        return Err(CliError::NotATerminal);
    }
    let worker = Worker::spawn(computer);
    let guard = Screen::enter().map_err(CliError::Terminal)?;
    let size = terminal::size().unwrap_or((80, 24));
    let mut app = App {
        cursor: home_square(model.human()),
        model,
        fit: layout::choose(size.0, size.1),
        size,
        clear: false,
        entry: None,
        thinking: false,
        generation: 0,
        asking: None,
        quit: false,
    };
    let result = app.event_loop(&worker);
    drop(guard);
    worker.finish();
    result.map(|()| Status::Ok).map_err(CliError::Terminal)
}

/// Where the keyboard cursor starts: a piece of the player's front row (22 for the light
/// pieces, 11 for the dark).
fn home_square(human: Color) -> Square {
    let n = if human == Color::White { 22 } else { 11 };
    Square::new(n).expect("22 and 11 are squares")
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
    /// The layout for the terminal's size (it changes on a resize).
    fit: Fit,
    /// The terminal's size (columns, rows).
    size: (u16, u16),
    /// Whether the next frame starts by clearing the screen (after a resize).
    clear: bool,
    /// The keyboard cursor.
    cursor: Square,
    /// Text typed after `:` (a square number or a move), while typing.
    entry: Option<String>,
    thinking: bool,
    /// Counts new games, so that a reply for an abandoned game is dropped.
    generation: u64,
    /// A game in progress would be left: the question asked, until the next key answers.
    asking: Option<Leave>,
    quit: bool,
}

/// How the player would leave a game in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Leave {
    NewGame,
    Quit,
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
            } else if let Ok(size) = terminal::size() {
                // A resize signalled before the event reader was listening (at start-up) is
                // never reported: the size itself is the truth.
                if size != self.size {
                    self.resize(size.0, size.1);
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

    /// Leaves the game at once when nothing would be lost (not over, the player has moved);
    /// else asks first.
    fn ask(&mut self, leave: Leave) {
        let in_progress = self.model.outcome().is_none() && !self.model.player_has_not_moved();
        if in_progress {
            self.asking = Some(leave);
        } else {
            self.leave(leave);
        }
    }

    fn leave(&mut self, leave: Leave) {
        match leave {
            Leave::NewGame => self.new_game(),
            Leave::Quit => self.quit = true,
        }
    }

    fn new_game(&mut self) {
        let human = self.model.human();
        self.new_game_as(human);
    }

    /// A new game with the player on side `human` (the computer moves first when it has the
    /// light pieces).
    fn new_game_as(&mut self, human: Color) {
        self.model.new_game_as(human);
        self.generation += 1;
        self.entry = None;
        self.cursor = home_square(human);
    }

    /// Whether the board is drawn turned round (the player has the dark pieces).
    fn turned(&self) -> bool {
        self.model.human() == Color::Black
    }

    /// The square drawn at `row`, `col` of the board.
    fn square_shown(&self, row: u8, col: u8) -> Option<Square> {
        shown_square(self.model.game().variant(), self.turned(), row, col)
    }

    fn handle(&mut self, ev: Event) {
        match ev {
            Event::Key(key) if key.kind != KeyEventKind::Release => self.key(key),
            Event::Resize(width, height) => self.resize(width, height),
            Event::Mouse(m) if m.kind == MouseEventKind::Down(MouseButton::Left) => {
                let Fit::Game(l) = self.fit else { return };
                let cell = l.cell_at(m.column, m.row);
                if let Some(sq) = cell.and_then(|(r, c)| self.square_shown(r, c)) {
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
        if let Some(leave) = self.asking.take() {
            if matches!(key.code, KeyCode::Char('y' | 'Y')) {
                self.leave(leave);
            }
            return;
        }
        match key.code {
            KeyCode::Char('q') | KeyCode::Char('Q') => self.ask(Leave::Quit),
            KeyCode::Char(c @ '1'..='5') => {
                let level = Level::from_number(u32::from(c as u8 - b'0')).unwrap_or_default();
                self.model.set_level(level);
                config::save_level(level);
            }
            KeyCode::Char('c') | KeyCode::Char('C') if self.model.player_has_not_moved() => {
                let other = !self.model.human();
                self.new_game_as(other);
            }
            _ if self.model.outcome().is_some() => self.new_game(),
            KeyCode::Char('n') | KeyCode::Char('N') => self.ask(Leave::NewGame),
            KeyCode::Char(':' | '/' | 'm') | KeyCode::Tab => self.entry = Some(String::new()),
            KeyCode::Enter | KeyCode::Char(' ') => self.choose(self.cursor),
            KeyCode::Left => self.step(0, -2),
            KeyCode::Right => self.step(0, 2),
            KeyCode::Up => self.step(-1, -1),
            KeyCode::Down => self.step(1, 1),
            _ => {}
        }
    }

    /// Moves the cursor by rows and columns of the board as drawn, staying on the dark
    /// squares.
    fn step(&mut self, rows: i8, cols: i8) {
        let (r, c) = shown_coords(self.model.game().variant(), self.turned(), self.cursor);
        let (r, c) = (r as i8, c as i8);
        let tries = [(r + rows, c + cols), (r + rows, c - cols)];
        for (r, c) in tries {
            if (0..8).contains(&r) && (0..8).contains(&c) {
                if let Some(sq) = self.square_shown(r as u8, c as u8) {
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

    /// A typed square or move, in the variant's square names.
    fn submit(&mut self, text: &str) {
        if text.is_empty() || self.model.outcome().is_some() {
            return;
        }
        if let Some(sq) = pdn::square_named(self.model.game().variant(), text) {
            self.cursor = sq;
        }
        self.model.enter(text);
    }

    fn resize(&mut self, width: u16, height: u16) {
        self.fit = layout::choose(width, height);
        self.size = (width, height);
        self.clear = true;
    }

    fn draw(&mut self, frame: u32) -> io::Result<()> {
        let mut out = Vec::with_capacity(16 * 1024);
        // After a resize the old frame may lie anywhere: start from a blank screen.
        if std::mem::take(&mut self.clear) {
            queue!(out, ResetColor, Clear(ClearType::All))?;
        }
        queue!(out, cursor::MoveTo(0, 0), ResetColor)?;
        match self.fit {
            Fit::TooSmall => {
                let (width, height) = (self.size.0.saturating_sub(1), self.size.1);
                let lines = layout::too_small_message(width);
                let n = (lines.len() as u16).min(height);
                let top = (height - n) / 2;
                queue!(out, Clear(ClearType::FromCursorDown))?;
                for (i, text) in lines.iter().take(usize::from(n)).enumerate() {
                    queue!(
                        out,
                        cursor::MoveTo(0, top + i as u16),
                        Print(clip(text, width))
                    )?;
                }
                queue!(out, Clear(ClearType::FromCursorDown))?;
            }
            Fit::Game(l) => self.draw_game(&mut out, &l, frame)?,
        }
        let mut stdout = io::stdout().lock();
        stdout.write_all(&out)?;
        stdout.flush()
    }

    /// One frame in layout `l`. Every row is written from its first column, at most
    /// `l.width` characters, the rest of it cleared; the frame ends with the help row and a
    /// clear of the screen below it.
    fn draw_game(&self, out: &mut Vec<u8>, l: &Layout, frame: u32) -> io::Result<()> {
        let mut painted = vec![false; usize::from(l.height)];
        let width = l.width;
        let put = |out: &mut Vec<u8>, painted: &mut [bool], y: u16, text: &str| {
            painted[usize::from(y)] = true;
            line(out, y, &clip(text, width))
        };
        if let Some(y) = l.header_y {
            let variant = title_case(self.model.game().variant().name());
            let forms = [
                format!(" dama — {variant} draughts against the computer"),
                format!(" dama — {variant} draughts"),
                " dama".to_string(),
            ];
            put(out, &mut painted, y, &first_fitting(&forms, l.width))?;
        }
        let (cw, ch) = (l.cells.width(), l.cells.height());
        let beside = match l.panel {
            Panel::Beside { x, width, rows } => Some((x, self.panel_lines(width, rows))),
            _ => None,
        };
        for row in 0..8u8 {
            for part in 0..ch {
                let y = l.board_y + u16::from(row) * ch + part;
                painted[usize::from(y)] = true;
                queue!(
                    out,
                    cursor::MoveTo(0, y),
                    Print(" ".repeat(usize::from(l.board_x)))
                )?;
                for col in 0..8u8 {
                    self.cell(out, l, row, col, part)?;
                }
                queue!(out, ResetColor)?;
                if l.cells.labels() > 0 {
                    let names: Vec<String> = (0..8)
                        .filter_map(|c| self.square_shown(row, c))
                        .map(|sq| self.model.name(sq))
                        .collect();
                    let first = names.first().cloned().unwrap_or_default();
                    let last = names.last().cloned().unwrap_or_default();
                    queue!(out, Print(format!(" {first:>2}-{last}")))?;
                }
                queue!(out, Clear(ClearType::UntilNewLine))?;
                if let Some((x, lines)) = &beside {
                    let i = usize::from(y - l.board_y);
                    if let Some(text) = lines.get(i) {
                        queue!(out, cursor::MoveTo(*x, y), Print(text))?;
                    }
                }
            }
        }
        if let Some(verdicts) = self.model.verdicts() {
            let board_w = 8 * cw;
            let text = overlay(&verdicts, self.model.score(), board_w);
            let width = text.chars().count() as u16;
            let x = l.board_x + board_w.saturating_sub(width) / 2;
            let y = l.board_y + 4 * ch - 1;
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
        match l.panel {
            Panel::Beside { .. } => {}
            Panel::Below { y, rows } => {
                let lines = self.panel_lines(l.width - l.board_x, rows);
                for (i, text) in lines.iter().enumerate() {
                    let pad = " ".repeat(usize::from(l.board_x));
                    put(out, &mut painted, y + i as u16, &format!("{pad}{text}"))?;
                }
            }
            Panel::Line { y } => put(out, &mut painted, y, &self.summary(l.width))?,
        }
        let status = fit_rows(&self.status(frame), l.width - 1, l.status_rows);
        for (i, text) in status.iter().enumerate() {
            put(
                out,
                &mut painted,
                l.status_y + i as u16,
                &format!(" {text}"),
            )?;
        }
        for y in 0..l.help_y {
            if !painted[usize::from(y)] {
                line(out, y, "")?;
            }
        }
        let help = self.help(l.width);
        queue!(
            out,
            cursor::MoveTo(0, l.help_y),
            ResetColor,
            Print(clip(&help, l.width)),
            Clear(ClearType::FromCursorDown)
        )
    }

    /// The key help, or the text being typed, in forms from the longest.
    fn help(&self, width: u16) -> String {
        if let Some(text) = &self.entry {
            let forms = [
                format!(" Square or move: {text}_   (Enter to play, Esc to cancel)"),
                format!(" Square or move: {text}_   (Enter, Esc)"),
                format!(" Move: {text}_ (Enter, Esc)"),
                format!(" Move: {text}_"),
            ];
            if let Some(f) = forms
                .iter()
                .find(|f| f.chars().count() <= usize::from(width))
            {
                return f.clone();
            }
            // A long entry shows its end, where the typing is.
            let room = usize::from(width).saturating_sub(" Move: _".len());
            let tail: String = {
                let chars: Vec<char> = text.chars().collect();
                chars[chars.len().saturating_sub(room)..].iter().collect()
            };
            return format!(" Move: {tail}_");
        }
        let mut forms = Vec::new();
        if self.model.player_has_not_moved() && self.model.outcome().is_none() {
            forms.push(
                " Arrows+Enter or click: select · : type a square or a move · 1-5 level · \
                 c other side · n new game · q quit"
                    .to_string(),
            );
            forms.push(
                " Arrows+Enter or click: select · : type a move · 1-5 level · c side · \
                 n new · q quit"
                    .to_string(),
            );
        }
        forms.extend([
            " Arrows+Enter or click: select · : type a square or a move · 1-5 level · \
             n new game · q quit"
                .to_string(),
            " Arrows+Enter or click: select · : type a move · 1-5 level · n new · q quit"
                .to_string(),
            " Arrows/click: select · : type · 1-5 level · n new · q quit".to_string(),
            " : type a move · 1-5 level · n new · q quit".to_string(),
            " : move · 1-5 level · n new · q quit".to_string(),
        ]);
        first_fitting(&forms, width)
    }

    /// The status in forms from the longest: the end of the game, the message, or whose
    /// move it is.
    fn status(&self, frame: u32) -> Vec<String> {
        if let Some(leave) = self.asking {
            let (long, short) = match leave {
                Leave::NewGame => ("Abandon this game for a new one?", "New game?"),
                Leave::Quit => ("Quit and abandon this game?", "Quit?"),
            };
            return vec![
                format!("{long} y: yes, any other key: no, play on."),
                format!("{long} y: yes, other key: no."),
                format!("{short} y: yes, other key: no."),
                format!("{short} y/n"),
            ];
        }
        if let Some(verdict) = self.model.verdict() {
            let result = self.model.result_text().unwrap_or("*");
            let score = self.model.score();
            return vec![
                format!(
                    "Game over: {verdict} ({result})  Score: {score} points.  Press any key \
                     for a new game, q to quit."
                ),
                format!("Game over: {verdict} ({result})  Score: {score}.  Any key: new game."),
                format!("{verdict} ({result}) Score {score}. Any key: new game."),
            ];
        }
        if !self.model.message().is_empty() {
            return vec![self.model.message().to_string()];
        }
        if self.thinking {
            let dots = ".".repeat((frame / 3 % 4) as usize);
            return vec![format!("The computer is thinking{dots}")];
        }
        if self.model.human_to_move() {
            return vec![self.model.prompt()];
        }
        vec!["The computer is to move.".to_string()]
    }

    /// The side panel: at most `rows` lines of at most `width` characters. Each item has a
    /// rank; when the rows are too few, the items of the highest rank go first (blank
    /// separators, then the key hint, then your colour...).
    fn panel_lines(&self, width: u16, rows: u16) -> Vec<String> {
        let level = self.model.level();
        let scored = self.model.scored_level().number();
        let last = self
            .model
            .last_computer_move()
            .map_or("-".to_string(), |m| self.model.move_text(m));
        let to_move = if self.model.outcome().is_some() {
            "Game over"
        } else if self.model.human_to_move() {
            "Your move"
        } else {
            "Computer's move"
        };
        let win = 100 + 50 * scored;
        let number = self.model.move_number();
        let score = self.model.score();
        let human = self.model.human();
        let side = if self.model.player_has_not_moved() && self.model.outcome().is_none() {
            vec![
                format!("You: {human} (bottom; c: other side)"),
                format!("You: {human} (c: switch)"),
                format!("You: {human}"),
            ]
        } else {
            vec![format!("You: {human} (bottom)"), format!("You: {human}")]
        };
        let mut items: Vec<(u8, Vec<String>)> = vec![(
            0,
            vec![
                format!("Level {}: {}", level.number(), title(level)),
                format!("L{}: {}", level.number(), title(level)),
            ],
        )];
        if self.model.level_note().is_some() {
            items.push((
                1,
                vec![
                    format!("A win counts at level {scored}, the lowest played"),
                    format!("Wins count at level {scored} (lowest played)"),
                    format!("Win counts at L{scored} (lowest played)"),
                    format!("Win counts at L{scored} (lowest)"),
                    format!("Win at L{scored} (lowest)"),
                ],
            ));
        }
        items.push((
            4,
            vec![
                "(keys 1-5: Novice..Hard)".to_string(),
                "(keys 1-5)".to_string(),
            ],
        ));
        items.push((5, vec![String::new()]));
        items.push((3, side));
        items.push((2, vec![last_move_line(&last, width)]));
        items.push((1, vec![format!("Move {number}")]));
        if let Some((moves, limit)) = self.model.no_progress() {
            items.push((
                1,
                vec![
                    format!("Moves without progress: {moves}/{limit}"),
                    format!("No progress: {moves}/{limit}"),
                    format!("Quiet: {moves}/{limit}"),
                ],
            ));
        }
        items.push((
            1,
            vec![format!("Score so far: {score}"), format!("Score: {score}")],
        ));
        items.push((
            2,
            vec![
                format!("A win adds {win} (level {scored})"),
                format!("A win adds {win}"),
                format!("Win: +{win}"),
            ],
        ));
        items.push((5, vec![String::new()]));
        items.push((0, vec![to_move.to_string()]));
        let rows = usize::from(rows);
        for rank in (1..=5).rev() {
            if items.len() <= rows {
                break;
            }
            let mut excess = items.len() - rows;
            items.retain(|(r, _)| {
                let drop = *r == rank && excess > 0;
                excess -= usize::from(drop);
                !drop
            });
        }
        items
            .iter()
            .take(rows)
            .map(|(_, forms)| first_fitting(forms, width))
            .collect()
    }

    /// The panel in one line, as much of it as fits `width`.
    fn summary(&self, width: u16) -> String {
        let level = self.model.level();
        let last = self
            .model
            .last_computer_move()
            .map_or("-".to_string(), |m| self.model.move_text(m));
        let mut items = vec![format!("L{} {}", level.number(), title(level))];
        if self.model.level_note().is_some() {
            items[0].push_str(&format!(" (wins L{})", self.model.scored_level().number()));
        }
        if let Some((moves, limit)) = self.model.no_progress() {
            items.push(format!("No progress {moves}/{limit}"));
        }
        items.extend([
            format!("Move {}", self.model.move_number()),
            format!("Score {}", self.model.score()),
            format!("Last {last}"),
            format!("You {}", self.model.human()),
        ]);
        let mut text = String::from(" ");
        for (i, item) in items.iter().enumerate() {
            let sep = if i == 0 { "" } else { " · " };
            if text.chars().count() + sep.chars().count() + item.chars().count()
                > usize::from(width)
            {
                break;
            }
            text.push_str(sep);
            text.push_str(item);
        }
        text
    }

    /// One character row (`part`) of the square at `row`, `col`.
    fn cell(&self, out: &mut Vec<u8>, l: &Layout, row: u8, col: u8, part: u16) -> io::Result<()> {
        let w = usize::from(l.cells.width());
        let Some(sq) = self.square_shown(row, col) else {
            return queue!(out, SetBackgroundColor(Tc::Grey), Print(" ".repeat(w)));
        };
        let pos = self.model.game().position();
        // A multi-jump under way: the piece is drawn where it has landed, not where it was.
        let piece_at = |sq: Square| match (self.model.selected(), self.model.path().last()) {
            (Some(from), Some(&at)) if sq == at => pos.piece_at(from),
            (Some(from), Some(_)) if sq == from => None,
            _ => pos.piece_at(sq),
        };
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
        let piece = piece_at(sq).map(|p| {
            let fg = if p.color == Color::White {
                Tc::White
            } else {
                Tc::Black
            };
            let glyph = match (p.color, p.role) {
                (Color::White, Role::Man) => '○',
                (Color::White, Role::King) => '♔',
                (Color::Black, Role::Man) => '●',
                (Color::Black, Role::King) => '♚',
            };
            (fg, glyph)
        });
        if l.cells == Cells::Compact && piece.is_none() {
            // An empty square shows its number; the cursor is drawn in reverse video.
            if is_cursor {
                queue!(out, SetAttribute(Attribute::Reverse))?;
            }
            return queue!(
                out,
                SetForegroundColor(Tc::Black),
                Print(format!("{:>2} ", self.model.name(sq))),
                SetAttribute(Attribute::Reset),
                SetBackgroundColor(bg)
            );
        }
        if part == 0 && l.cells != Cells::Compact {
            let number = format!("{:<w$}", self.model.name(sq));
            return queue!(out, SetForegroundColor(Tc::Black), Print(number));
        }
        let (left, right) = if is_cursor { ('[', ']') } else { (' ', ' ') };
        queue!(out, SetForegroundColor(Tc::Yellow), Print(left))?;
        let (fg, mark) = match piece {
            Some(p) => p,
            None if self.model.targets().contains(sq) => (Tc::Black, '+'),
            None if captured_last => (Tc::Black, '×'),
            None => (Tc::Black, ' '),
        };
        let mark = match l.cells {
            Cells::Large => format!(" {mark}  "),
            _ => mark.to_string(),
        };
        queue!(
            out,
            SetForegroundColor(fg),
            SetAttribute(Attribute::Bold),
            Print(mark),
            SetAttribute(Attribute::Reset),
            SetBackgroundColor(bg),
            SetForegroundColor(Tc::Yellow),
            Print(right)
        )?;
        if l.cells == Cells::Medium {
            queue!(out, Print(' '))?;
        }
        Ok(())
    }
}

/// The panel's line of the computer's last move: the label depends on the panel's `width`
/// alone, never on the move's length, so that it stays the same from move to move (a
/// capture longer than the room kept for it is cut).
fn last_move_line(last: &str, width: u16) -> String {
    /// Room kept for the move: a double capture, `10x19x14`.
    const MOVE_ROOM: usize = 8;
    let label = ["Computer's last move:", "Last move:"]
        .into_iter()
        .find(|l| l.chars().count() + 1 + MOVE_ROOM <= usize::from(width))
        .unwrap_or("Last:");
    format!("{label} {last}")
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

fn title_case(name: &str) -> String {
    let mut chars = name.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The end of the game written across the board (`width` columns): the longest form of the
/// verdict that fits, with the score when there is room.
fn overlay(verdicts: &[String], score: u32, width: u16) -> String {
    let forms: Vec<String> = verdicts
        .iter()
        .flat_map(|v| [format!("  {v}  Score {score}  "), format!(" {v} ")])
        .collect();
    first_fitting(&forms, width)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dama_rules::notation::fen;
    use dama_rules::Variant;

    #[test]
    fn the_last_move_label_depends_on_the_width_not_on_the_move() {
        for width in 10..60 {
            let label = |m: &str| last_move_line(m, width).replace(m, "");
            let short = label("22-18");
            assert_eq!(label("10x19x14"), short, "width {width}");
            assert_eq!(label("10x19x14x23x5x9"), short, "width {width}");
        }
        assert_eq!(last_move_line("22-18", 40), "Computer's last move: 22-18");
        assert_eq!(last_move_line("22-18", 26), "Last move: 22-18");
        assert_eq!(last_move_line("22-18", 12), "Last: 22-18");
    }

    #[test]
    fn the_no_progress_draw_fits_every_board_and_says_40_moves() {
        let mut model = Model::new(
            Variant::Italian,
            fen::parse("W:WK29:BK4").unwrap(),
            Level::Novice,
        );
        let shuffle = [(29, 25), (4, 8), (25, 29), (8, 4)];
        for i in 0..80 {
            let (a, b) = shuffle[i % 4];
            let m = *model
                .game()
                .legal_moves()
                .iter()
                .find(|m| m.from().number() == a && m.to().number() == b)
                .unwrap();
            if i % 2 == 0 {
                model.play_own(m).unwrap();
            } else {
                model.computer_moved(m).unwrap();
            }
        }
        let verdicts = model.verdicts().unwrap();
        for cells in [Cells::Large, Cells::Medium, Cells::Compact] {
            let width = 8 * cells.width();
            let text = overlay(&verdicts, model.score(), width);
            assert!(text.chars().count() <= usize::from(width), "{text:?}");
            assert!(text.contains("40 moves"), "{cells:?}: {text:?}");
            assert!(!text.contains("plies"), "{text:?}");
        }
    }
}
