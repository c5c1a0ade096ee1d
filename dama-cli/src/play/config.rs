//! The level the player chose last, kept in the user's configuration directory.
//!
//! The file is `level` in `$DAMA_CONFIG_DIR`, else `$XDG_CONFIG_HOME/dama`, else
//! `~/.config/dama`; it holds the level's name. A missing or unreadable file means Normal.

use std::path::PathBuf;

use dama_search::Level;

/// The directory of dama's configuration, if one can be named.
fn dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(d) = var("DAMA_CONFIG_DIR") {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = var("XDG_CONFIG_HOME") {
        return Some(PathBuf::from(d).join("dama"));
    }
    var("HOME").map(|h| PathBuf::from(h).join(".config").join("dama"))
}

/// The remembered level; Normal when there is none or the file is not a level.
pub fn load_level() -> Level {
    let Some(path) = dir().map(|d| d.join("level")) else {
        return Level::Normal;
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => text.trim().parse().unwrap_or_else(|_| {
            tracing::warn!("{} is not a level; playing at Normal", path.display());
            Level::Normal
        }),
        Err(_) => Level::Normal,
    }
}

/// Remembers `level` for the next game; a failure is logged, never fatal.
pub fn save_level(level: Level) {
    let Some(dir) = dir() else {
        return;
    };
    let written = std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(dir.join("level"), format!("{}\n", level.name())));
    if let Err(err) = written {
        tracing::warn!("cannot remember the level in {}: {err}", dir.display());
    }
}
