//! Rule sets: the [`Variant`] value chosen once at the top and the zero-sized [`Rules`] types
//! the generator is compiled for.

use std::fmt;
use std::str::FromStr;

use crate::Error;

/// How a side must choose among its capture sequences.
#[derive(Copy, Clone, Eq, PartialEq, Debug)]
pub enum Priority {
    /// Italian: most pieces; then by a king; then most kings; then kings met earliest.
    Italian,
    /// Spanish: most pieces, then most kings.
    Spanish,
    /// Czech: a king must capture if any king can; otherwise free.
    KingFirst,
    /// Brazilian: most pieces.
    MostPieces,
    /// English, Russian: free choice among complete sequences.
    Free,
}

/// One rule set, as a zero-sized type: the move generator is monomorphised for each, so no
/// rule is tested per node.
pub trait Rules: Copy + Default + Send + Sync + 'static {
    /// The matching [`Variant`] value.
    const VARIANT: Variant;
    /// Kings move and capture along whole diagonals.
    const KINGS_FLY: bool;
    /// Men capture backwards as well as forwards.
    const MEN_CAPTURE_BACKWARDS: bool;
    /// Men may capture kings.
    const MEN_CAPTURE_KINGS: bool;
    /// A man reaching the far row during a capture promotes and goes on capturing as a king.
    const PROMOTION_CONTINUES: bool;
    /// A man passing the far row during a capture stays a man; it promotes only if it ends there.
    const PROMOTION_AT_END_ONLY: bool;
    /// Which captures are compulsory among the complete sequences.
    const PRIORITY: Priority;
}

macro_rules! rules {
    ($(#[$doc:meta])* $name:ident, $variant:ident, fly: $fly:expr, back: $back:expr,
     take_kings: $tk:expr, promo_continues: $pc:expr, promo_end: $pe:expr, priority: $prio:ident) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Default, Debug, Eq, PartialEq)]
        pub struct $name;
        impl Rules for $name {
            const VARIANT: Variant = Variant::$variant;
            const KINGS_FLY: bool = $fly;
            const MEN_CAPTURE_BACKWARDS: bool = $back;
            const MEN_CAPTURE_KINGS: bool = $tk;
            const PROMOTION_CONTINUES: bool = $pc;
            const PROMOTION_AT_END_ONLY: bool = $pe;
            const PRIORITY: Priority = Priority::$prio;
        }
    };
}

rules!(
    /// Italian draughts (dama italiana): short kings, men never take kings, four priority tiers.
    Italian, Italian, fly: false, back: false, take_kings: false, promo_continues: false,
    promo_end: false, priority: Italian
);
rules!(
    /// Spanish draughts: flying kings, most pieces then most kings.
    Spanish, Spanish, fly: true, back: false, take_kings: true, promo_continues: false,
    promo_end: false, priority: Spanish
);
rules!(
    /// Czech draughts: flying kings, a king must capture if one can.
    Czech, Czech, fly: true, back: false, take_kings: true, promo_continues: false,
    promo_end: false, priority: KingFirst
);
rules!(
    /// English checkers: short kings, free choice of capture.
    English, English, fly: false, back: false, take_kings: true, promo_continues: false,
    promo_end: false, priority: Free
);
rules!(
    /// Russian draughts: flying kings, men capture backwards, promotion mid-capture continues.
    Russian, Russian, fly: true, back: true, take_kings: true, promo_continues: true,
    promo_end: false, priority: Free
);
rules!(
    /// Brazilian draughts: international rules on 8x8, most pieces compulsory.
    Brazilian, Brazilian, fly: true, back: true, take_kings: true, promo_continues: false,
    promo_end: true, priority: MostPieces
);

/// A variant of draughts, chosen once at the top; [`with_rules!`](crate::with_rules) turns it
/// into the matching [`Rules`] type.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Default)]
pub enum Variant {
    /// Italian draughts (the default).
    #[default]
    Italian,
    /// Spanish draughts.
    Spanish,
    /// Czech draughts.
    Czech,
    /// English checkers (draughts).
    English,
    /// Russian draughts.
    Russian,
    /// Brazilian draughts.
    Brazilian,
}

impl Variant {
    /// Every variant.
    pub const ALL: [Variant; 6] = [
        Variant::Italian,
        Variant::Spanish,
        Variant::Czech,
        Variant::English,
        Variant::Russian,
        Variant::Brazilian,
    ];

    /// The lower-case name used on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Italian => "italian",
            Variant::Spanish => "spanish",
            Variant::Czech => "czech",
            Variant::English => "english",
            Variant::Russian => "russian",
            Variant::Brazilian => "brazilian",
        }
    }

    /// The PDN `GameType` number.
    pub const fn game_type(self) -> u32 {
        match self {
            Variant::English => 21,
            Variant::Italian => 22,
            Variant::Spanish => 24,
            Variant::Russian => 25,
            Variant::Brazilian => 26,
            Variant::Czech => 29,
        }
    }

    /// The variant of a PDN `GameType` number, if dama plays it.
    pub const fn from_game_type(n: u32) -> Option<Variant> {
        match n {
            21 => Some(Variant::English),
            22 => Some(Variant::Italian),
            24 => Some(Variant::Spanish),
            25 => Some(Variant::Russian),
            26 => Some(Variant::Brazilian),
            29 => Some(Variant::Czech),
            _ => None,
        }
    }

    /// The full PDN `GameType` value, like `22,W,8,8,N2,1`.
    pub const fn game_type_long(self) -> &'static str {
        match self {
            Variant::English => "21,B,8,8,N1,0",
            Variant::Italian => "22,W,8,8,N2,1",
            Variant::Spanish => "24,W,8,8,N1,1",
            Variant::Russian => "25,W,8,8,A0,0",
            Variant::Brazilian => "26,W,8,8,A0,0",
            Variant::Czech => "29,W,8,8,A0,0",
        }
    }

    /// Which captures are compulsory.
    pub const fn priority(self) -> Priority {
        match self {
            Variant::Italian => Italian::PRIORITY,
            Variant::Spanish => Spanish::PRIORITY,
            Variant::Czech => Czech::PRIORITY,
            Variant::English => English::PRIORITY,
            Variant::Russian => Russian::PRIORITY,
            Variant::Brazilian => Brazilian::PRIORITY,
        }
    }
}

/// Calls `$body` with `$r` bound to the [`Rules`] type of `$variant`.
///
/// This is the one place where a [`Variant`] value turns into a type.
#[macro_export]
macro_rules! with_rules {
    ($variant:expr, $r:ident => $body:expr) => {
        match $variant {
            $crate::Variant::Italian => {
                type $r = $crate::variant::Italian;
                $body
            }
            $crate::Variant::Spanish => {
                type $r = $crate::variant::Spanish;
                $body
            }
            $crate::Variant::Czech => {
                type $r = $crate::variant::Czech;
                $body
            }
            $crate::Variant::English => {
                type $r = $crate::variant::English;
                $body
            }
            $crate::Variant::Russian => {
                type $r = $crate::variant::Russian;
                $body
            }
            $crate::Variant::Brazilian => {
                type $r = $crate::variant::Brazilian;
                $body
            }
        }
    };
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Variant {
    type Err = Error;

    fn from_str(s: &str) -> Result<Variant, Error> {
        let lower = s.trim().to_ascii_lowercase();
        Variant::ALL
            .into_iter()
            .find(|v| v.name() == lower)
            .ok_or_else(|| Error::UnknownVariant {
                name: s.to_string(),
            })
    }
}
