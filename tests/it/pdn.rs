//! PDN game files: the hand-written files under `tests/data/pdn/`, round trips, and property
//! tests (random legal games survive write → read; no input makes the reader panic).

use std::path::PathBuf;

use dama::rules::notation::fen;
use dama::rules::notation::pdn::{self, Comment, GameResult, PdnGame};
use dama::rules::{Color, Error, Illegal, Position, Variant};
use proptest::prelude::*;

fn data(name: &str) -> String {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "data", "pdn", name]
        .iter()
        .collect();
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn read(name: &str) -> Vec<Result<PdnGame, Error>> {
    pdn::read_str(&data(name), Variant::Italian)
}

fn good(name: &str) -> Vec<PdnGame> {
    read(name)
        .into_iter()
        .map(|g| g.unwrap_or_else(|e| panic!("{name}: {e}")))
        .collect()
}

fn last_fen(game: &PdnGame) -> String {
    game.positions().last().expect("the start at least").fen()
}

/// The movetext lines of a written game (after the blank line that ends the tags).
fn movetext(text: &str) -> &str {
    text.split_once("\n\n")
        .expect("tags, blank line, movetext")
        .1
}

#[test]
fn constructs_file_reads_every_game() {
    let games = good("constructs.pdn");
    assert_eq!(games.len(), 8);
    let g = &games[0];
    assert_eq!(g.variant, Variant::Italian);
    assert_eq!(g.tag("Black"), Some("Bianchi, \"Gigi\" Luca"));
    assert_eq!(g.tag("Annotator"), Some("Esposito"));
    assert_eq!(
        g.tag("Result"),
        None,
        "Result is read into the result field"
    );
    assert_eq!(g.moves.len(), 40);
    assert_eq!(g.result, GameResult::WhiteWins);
    assert_eq!(last_fen(g), "W:WK19,20,21,22,25,26:B5,8,13,14,K28");
    let comments: Vec<(usize, &str)> = g
        .comments
        .iter()
        .map(|c| (c.ply, c.text.as_str()))
        .collect();
    assert_eq!(
        comments,
        [
            (0, "Opening comment spread over two lines"),
            (4, "forced"),
            (22, "a comment to the end of the line"),
        ]
    );
    let results: Vec<GameResult> = games.iter().map(|g| g.result).collect();
    use GameResult::*;
    assert_eq!(
        results,
        [WhiteWins, WhiteWins, BlackWins, Draw, Unknown, Draw, Unknown, Unknown]
    );
    let plies: Vec<usize> = games.iter().map(|g| g.moves.len()).collect();
    assert_eq!(plies, [40, 5, 2, 2, 0, 1, 2, 1]);
    assert_eq!(games[7].tag("Event"), Some("Last"));
}

#[test]
fn short_form_capture_that_is_ambiguous_needs_its_path() {
    let games = read("ambiguous.pdn");
    assert_eq!(games.len(), 3);
    let first = games[0].as_ref().expect("landing path given");
    assert_eq!(first.moves[0].to_string(), "30x14x18x26");
    let err = games[1].as_ref().expect_err("short form is ambiguous");
    match err {
        Error::PdnMove {
            game: 2,
            line: 8,
            column: 4,
            number: 1,
            side: Color::White,
            text,
            reason,
        } => {
            assert_eq!(text, "30x14");
            assert!(matches!(**reason, Error::AmbiguousMove { count: 2, .. }));
        }
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().contains("30x14x18x26 30x14x19x27"), "{err}");
    let third = games[2].as_ref().expect("Hub captured squares given");
    assert_eq!(third.moves[0].to_string(), "30x14x19x27");
    // The writer gives each capture its own path, and the short form elsewhere.
    let text = pdn::write(first).unwrap();
    assert!(
        movetext(&text).replace('\n', " ").starts_with(
            "{30x14 could take 26 and 18 (via 21) or 27 and 19 (via 23).} 1. 30x21x14 6-10 \
             2. 31x15"
        ),
        "{text}"
    );
    let text = pdn::write(third).unwrap();
    assert_eq!(movetext(&text), "1. 30x23x14 *\n");
}

#[test]
fn bad_games_are_reported_and_the_good_ones_around_them_read() {
    let games = read("bad_between_good.pdn");
    let events: Vec<Result<&str, usize>> = games
        .iter()
        .enumerate()
        .map(|(i, g)| match g {
            Ok(g) => Ok(g.tag("Event").unwrap()),
            Err(_) => Err(i + 1),
        })
        .collect();
    assert_eq!(
        events,
        [
            Ok("good 1"),
            Err(2),
            Ok("good 2"),
            Err(4),
            Err(5),
            Err(6),
            Ok("good 3")
        ]
    );
    let messages: Vec<String> = games
        .iter()
        .filter_map(|g| g.as_ref().err())
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        messages[0],
        "game 2, line 5: move 2 (black) \"12-16\": a capture is compulsory and only the \
         pieces on 5, 6 can capture"
    );
    assert_eq!(
        messages[1],
        "game 4, line 11: the comment opened on line 11 is not closed: expected \"}\" before \
         the tag on line 14"
    );
    assert!(
        messages[2].starts_with("game 5, line 15: GameType \"20,W,10,10,N2,0\""),
        "{}",
        messages[2]
    );
    assert!(
        messages[3].starts_with("game 6, line 19: \")\" closes nothing"),
        "{}",
        messages[3]
    );
    match &games[1] {
        Err(Error::PdnMove { reason, .. }) => assert!(matches!(
            **reason,
            Error::IllegalMove {
                why: Illegal::MustCapture { .. },
                ..
            }
        )),
        other => panic!("{other:?}"),
    }
}

#[test]
fn game_from_a_fen_with_black_to_move() {
    let games = good("fen_start.pdn");
    let g = &games[0];
    assert_eq!(g.start.fen(), "B:WK19,21,22:B9,10,K28");
    assert_eq!(g.moves.len(), 6);
    assert_eq!(last_fen(g), "B:WK5,18,21:B17,K32");
    assert_eq!(g.comments[0].ply, 3);
    let text = pdn::write(g).unwrap();
    assert!(
        text.contains("[FEN \"B:WK19,21,22:B9,10,K28\"]\n"),
        "{text}"
    );
    assert_eq!(
        movetext(&text),
        "1... 28-32 2. 19-14 9-13 {the only way} 3. 14x5 13-17 4. 22-18 *\n"
    );
}

#[test]
fn game_type_selects_spanish_and_czech() {
    let games = good("variants.pdn");
    let variants: Vec<Variant> = games.iter().map(|g| g.variant).collect();
    use Variant::*;
    assert_eq!(variants, [Spanish, Spanish, Czech, Czech]);
    assert_eq!(last_fen(&games[1]), "W:WK14,K29:B10");
    assert_eq!(last_fen(&games[3]), "W:WK1:B26,K29");
    // The flying king of game 2 and the king-first capture of game 4 are not Italian: without
    // the GameType tags the Italian default rejects them, naming the move.
    let text: String = data("variants.pdn")
        .lines()
        .filter(|l| !l.starts_with("[GameType"))
        .map(|l| format!("{l}\n"))
        .collect();
    let italian = pdn::read_str(&text, Variant::Italian);
    for (i, text) in [(1, "29x8"), (3, "32x19")] {
        match &italian[i] {
            Err(Error::PdnMove {
                number: 1, text: t, ..
            }) => assert_eq!(t, text),
            other => panic!("game {}: {other:?}", i + 1),
        }
    }
    // The caller's default applies when the tag is absent.
    let czech = pdn::read_str(&text, Variant::Czech);
    assert!(czech[3].is_ok());
}

#[test]
fn written_files_read_back_to_the_same_games_and_rewrite_identically() {
    for name in [
        "constructs.pdn",
        "ambiguous.pdn",
        "bad_between_good.pdn",
        "fen_start.pdn",
        "variants.pdn",
    ] {
        let games: Vec<PdnGame> = read(name).into_iter().filter_map(Result::ok).collect();
        let text: String = games
            .iter()
            .map(|g| pdn::write(g).unwrap() + "\n")
            .collect();
        let again = pdn::read_str(&text, Variant::English);
        let again: Vec<PdnGame> = again
            .into_iter()
            .map(|g| g.unwrap_or_else(|e| panic!("{name}: {e}\n{text}")))
            .collect();
        assert_eq!(again, games, "{name}");
        let rewritten: String = again
            .iter()
            .map(|g| pdn::write(g).unwrap() + "\n")
            .collect();
        assert_eq!(rewritten, text, "{name}");
    }
}

#[test]
fn a_huge_comment_and_a_long_game_read_in_one_pass() {
    // A quadratic reader would take minutes here.
    let comment = "word ".repeat(200_000);
    let mut text = format!("{{{comment}}}\n");
    for _ in 0..2_000 {
        text.push_str("1. 22-18 (1. 21-17 {x} (1. 23-19)) $2 *\n");
    }
    let games = pdn::read_str(&text, Variant::Italian);
    assert_eq!(games.len(), 2_000);
    assert_eq!(games[0].as_ref().unwrap().comments[0].text.len(), 999_999);
}

/// A random legal game: `choices` pick the moves, the first `skip` of them only lead to the
/// start position.
fn random_game(
    variant: Variant,
    choices: &[u16],
    skip: usize,
    comments: &[(u16, String)],
) -> PdnGame {
    let mut pos = Position::start();
    let mut moves = Vec::new();
    for &c in choices {
        let legal = pos.legal_moves_for(variant);
        if legal.is_empty() {
            break;
        }
        let m = legal[usize::from(c) % legal.len()];
        pos.play_unchecked(m);
        moves.push(m);
    }
    let skip = skip.min(moves.len());
    let mut start = Position::start();
    for &m in &moves[..skip] {
        start.play_unchecked(m);
    }
    let mut game = PdnGame::new(variant, start);
    game.moves = moves.split_off(skip);
    let mut comments: Vec<Comment> = comments
        .iter()
        .map(|(ply, text)| Comment {
            ply: usize::from(*ply) % (game.moves.len() + 1),
            text: text.clone(),
        })
        .collect();
    comments.sort_by_key(|c| c.ply);
    game.comments = comments;
    game
}

fn any_variant() -> impl Strategy<Value = Variant> {
    prop::sample::select(Variant::ALL.to_vec())
}

fn any_result() -> impl Strategy<Value = GameResult> {
    prop::sample::select(vec![
        GameResult::WhiteWins,
        GameResult::BlackWins,
        GameResult::Draw,
        GameResult::Unknown,
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_legal_games_survive_write_then_read(
        variant in any_variant(),
        choices in prop::collection::vec(any::<u16>(), 0..160),
        skip in 0usize..20,
        comments in prop::collection::vec((any::<u16>(), "[a-z(){;%\\[\"!?*0-9 -]{1,30}"), 0..4),
        result in any_result(),
        white in "[ -~]{0,20}",
    ) {
        let comments: Vec<(u16, String)> = comments
            .into_iter()
            .map(|(p, t)| (p, t.split_whitespace().collect::<Vec<_>>().join(" ")))
            .filter(|(_, t)| !t.is_empty())
            .collect();
        let mut game = random_game(variant, &choices, skip, &comments);
        game.result = result;
        game.tags.push(("White".into(), white));
        game.tags.push(("Opening".into(), "random".into()));
        let text = pdn::write(&game).unwrap();
        // Read with another default: the GameType tag decides.
        let other = if variant == Variant::Italian { Variant::Czech } else { Variant::Italian };
        let back = pdn::read_str(&text, other);
        prop_assert_eq!(back.len(), 1, "{}", text);
        let back = back.into_iter().next().unwrap().map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(&back, &game, "{}", text);
        // Lines break before 80 columns, except before a comment word that would read as a
        // tag or an escape line at the start of a line.
        let long = text.lines().find(|l| l.chars().count() > 79 && !l.contains(['[', '%']));
        prop_assert_eq!(long, None);
        let start_fen = fen::write(&game.start);
        prop_assert_eq!(text.contains("[FEN "), game.start != pdn::file_start(variant), "{}", start_fen);
    }

    #[test]
    fn no_input_makes_the_reader_panic(text in "[\\[\\]{}()\"%;$*!?.x: \n0-9a-hWBK-]{0,300}") {
        for game in pdn::read_str(&text, Variant::Italian).into_iter().flatten() {
            let written = pdn::write(&game).unwrap();
            let back = pdn::read_str(&written, Variant::Italian).remove(0).unwrap();
            prop_assert_eq!(back, game);
        }
        let _ = pdn::read_str(&text, Variant::Russian);
    }

    #[test]
    fn invalid_utf8_is_read_without_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let _ = pdn::Reader::new(&bytes[..], Variant::Italian).count();
    }
}

#[test]
fn english_files_number_the_board_from_blacks_side_and_black_moves_first() {
    // A game as English checkers software writes it: Black (on 1-12) opens with 11-15, White's
    // 23x16 takes 19 and Black's 12x19 takes it back, all in English numbering.
    let text = "[GameType \"21\"]\n1. 11-15 24-20 2. 15-19 23x16 3. 12x19 *\n";
    let games = pdn::read_str(text, Variant::Italian);
    let game = games[0].as_ref().expect("a legal English game");
    assert_eq!(game.variant, Variant::English);
    assert_eq!(game.start.turn(), Color::Black);
    // In the engine's numbering each row runs the other way: English 11-15 is 10-14.
    assert_eq!(game.moves[0].to_string(), "10-14");
    assert_eq!(game.moves[3].to_string(), "22x13x18");
    // Written back in English numbering, with no FEN tag for the usual start.
    let written = pdn::write(game).expect("legal game");
    assert!(!written.contains("[FEN"), "{written}");
    assert!(
        written.contains("1. 11-15 24-20 2. 15-19 23x16 3. 12x19 *"),
        "{written}"
    );
    // Files without GameType read as English by choice work the same way.
    let plain = "1. 11-15 24-20 *\n";
    assert!(pdn::read_str(plain, Variant::English)[0].is_ok());
    // An English FEN tag is renumbered too: Black man on English 11 is the engine's 10.
    let fen = "[GameType \"21\"]\n[FEN \"B:W24:B11\"]\n1. 11-15 *\n";
    let game = pdn::read_str(fen, Variant::Italian)
        .remove(0)
        .expect("legal");
    assert_eq!(fen::write(&game.start), "B:W21:B10");
    assert!(pdn::write(&game)
        .expect("legal")
        .contains("[FEN \"B:W24:B11\"]"));
}

#[test]
fn a_closing_brace_in_a_line_comment_survives_a_round_trip() {
    // Found by the random-input property: `;}` is a comment holding `}`.
    let game = pdn::read_str(";}\n*", Variant::Italian)
        .remove(0)
        .expect("a game");
    let back = pdn::read_str(&pdn::write(&game).expect("writable"), Variant::Italian)
        .remove(0)
        .expect("reads back");
    assert_eq!(back, game);
}

#[test]
fn russian_games_are_written_with_algebraic_squares() {
    // The engine's 22-18 is e3-f4 in Russian notation (a dark a1 at White's left).
    let mut game = PdnGame::new(Variant::Russian, Position::start());
    let m = Position::start()
        .legal_moves_for(Variant::Russian)
        .iter()
        .copied()
        .find(|m| m.to_string() == "22-18")
        .expect("22-18 is legal");
    game.moves.push(m);
    let text = pdn::write(&game).expect("legal");
    assert!(text.contains("1. e3-f4 *"), "{text}");
    let back = pdn::read_str(&text, Variant::Italian)
        .remove(0)
        .expect("reads back");
    assert_eq!(back, game);
}
