"""PDN (Portable Draughts Notation) files: reading and writing games.

The reader is dama's Rust reader: it streams a file of any size, accepts what real files
contain (comments, variations, which it skips, ``$n``, move numbers, Latin-1 text), replays
every move by the rules, and stops at the first bad thing of a game with a ``PdnError``
naming the game, the line and the column, then goes on with the next game::

    for game in dama.pdn.read("games.pdn"):
        print(game.tag("White"), game.result, game.mainline_pdn())

The writer is dama's canonical PDN writer (the seven-tag roster first, lines under 80
columns, the short move form unless it is ambiguous).
"""

import os
from typing import IO, Iterable, Iterator, Optional, Union

from ._dama import Board, Game, PdnError, PdnReader

__all__ = ["Game", "PdnError", "read", "read_string", "write"]


def read(
    source: Union[str, "os.PathLike[str]", IO[str], IO[bytes]],
    variant: str = "italian",
    skip_errors: bool = False,
) -> PdnReader:
    """Games of a PDN file: an iterator of ``Game``.

    ``source`` is a path, or a file object opened in text or binary mode (read whole).
    Games without a ``GameType`` tag are played by ``variant``. A game that cannot be read
    raises ``PdnError`` (``.game``, ``.line``, ``.column``) from ``next()``; calling ``next()``
    again goes on with the following game. With ``skip_errors=True`` bad games are passed
    over and their errors collected in the iterator's ``errors``.
    """
    if hasattr(source, "read"):
        data = source.read()  # type: ignore[union-attr]
        if isinstance(data, str):
            data = data.encode("utf-8")
        return PdnReader(data=bytes(data), variant=str(variant), skip_errors=skip_errors)
    return PdnReader(path=os.fspath(source), variant=str(variant), skip_errors=skip_errors)


def read_string(text: str, variant: str = "italian", skip_errors: bool = False) -> PdnReader:
    """Games of PDN ``text`` (see ``read``); ``TypeError`` when it is not a ``str``."""
    if not isinstance(text, str):
        raise TypeError(f"expected PDN text (a str), got {type(text).__name__}")
    return PdnReader(data=text.encode("utf-8"), variant=str(variant), skip_errors=skip_errors)


def write(
    games: Union[Game, Board, Iterable[Union[Game, Board]]],
    file: Optional[Union[str, "os.PathLike[str]", IO[str]]] = None,
) -> str:
    """PDN text of one game or several (a ``Board`` is written from its start and moves),
    games separated by a blank line; also written to ``file`` (a path or a text file object)
    when given. Returns the text."""
    if isinstance(games, (Game, Board)):
        games = [games]
    parts = []
    for game in games:
        if isinstance(game, Board):
            game = Game(game)
        if not isinstance(game, Game):
            raise TypeError(f"expected a dama.pdn.Game or a dama.Board, got {type(game).__name__}")
        parts.append(game.pdn())
    text = "\n".join(parts)
    if file is not None:
        if hasattr(file, "write"):
            file.write(text)  # type: ignore[union-attr]
        else:
            with open(os.fspath(file), "w", encoding="utf-8") as f:  # type: ignore[arg-type]
                f.write(text)
    return text
