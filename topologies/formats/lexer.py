"""The DOT language split into tokens: names, numbers, quoted and HTML strings, keywords.

Graphviz's lexical rules (https://graphviz.org/doc/info/lang.html): keywords in any case,
``//``, ``/* */`` and ``#`` (at the start of a line) comments, quoted strings with escapes and
``\\``-newline continuations, HTML strings with nested ``<>``. The grammar on top is
:mod:`supermesh.topologies.formats.dot`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from supermesh.errors import InputFileError

__all__ = ["Token", "dot_tokens"]

_KEYWORDS = {"strict", "graph", "digraph", "node", "edge", "subgraph"}
_TOKEN = re.compile(
    r"""
    (?P<space>[ \t\r\f\v]+)
  | (?P<newline>\n)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<hash>\#[^\n]*)
  | (?P<edgeop>->|--)
  | (?P<number>-?(?:\.\d+|\d+(?:\.\d*)?))
  | (?P<name>[A-Za-z_\x80-\U0010ffff][A-Za-z_0-9\x80-\U0010ffff]*)
  | (?P<quote>")
  | (?P<html><)
  | (?P<punct>[{}\[\];,=:+])
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True)
class Token:
    """One token of a DOT file.

    Attributes
    ----------
    kind : str
        ``"id"`` (a name, number, quoted or HTML string), ``"kw"`` (a keyword, lower case),
        ``"edgeop"`` (``->`` or ``--``) or the punctuation itself (``{``, ``[``, ``=``, ...).
    value : str
        The text: a quoted string without its quotes (escapes other than ``\\"`` kept), an
        HTML string without its outer ``<>``.
    line : int
        The line it starts on (1 for the first).
    """

    kind: str
    value: str
    line: int


def _quoted(text: str, i: int, line: int, source: str) -> tuple[str, int, int]:
    """The string starting after the quote at ``text[i - 1]``: (value, end index, end line)."""
    out, start = [], line
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "\n":  # a line continuation
                line += 1
            else:
                out.append('"' if nxt == '"' else c + nxt)
            i += 2
            continue
        if c == '"':
            return "".join(out), i + 1, line
        if c == "\n":
            line += 1
        out.append(c)
        i += 1
    raise InputFileError(
        f"{source} line {start}: a quoted string is not closed", hint='close it with "'
    )


def _html(text: str, i: int, line: int, source: str) -> tuple[str, int, int]:
    depth, start = 1, i
    while i < len(text):
        c = text[i]
        depth += (c == "<") - (c == ">")
        line += c == "\n"
        if depth == 0:
            return text[start:i], i + 1, line
        i += 1
    raise InputFileError(f"{source} line {line}: an HTML string <...> is not closed")


def dot_tokens(text: str, source: str = "DOT") -> list[Token]:
    """The tokens of a DOT file, comments and white space dropped.

    Parameters
    ----------
    text : str
    source : str
        How errors name the file.

    Returns
    -------
    list of Token

    Raises
    ------
    InputFileError
        An unexpected character, a ``#`` line directive not at the start of a line, or a
        quoted or HTML string that is not closed, naming the line.

    Examples
    --------
    >>> toks = dot_tokens('Graph g { a -- "b c" } // done')
    >>> [t.kind for t in toks]
    ['kw', 'id', '{', 'id', 'edgeop', 'id', '}']
    >>> [t.value for t in toks]
    ['graph', 'g', '{', 'a', '--', 'b c', '}']
    """
    toks: list[Token] = []
    i, line = 0, 1
    at_line_start = True
    while i < len(text):
        m = _TOKEN.match(text, i)
        if m is None:
            raise InputFileError(
                f"{source} line {line}: unexpected character {text[i]!r}",
                hint="is this a DOT file (graph/digraph NAME { ... })?",
            )
        kind, value = m.lastgroup, m.group()
        i = m.end()
        if kind == "newline":
            line += 1
            at_line_start = True
            continue
        if kind == "hash" and not at_line_start:
            raise InputFileError(f"{source} line {line}: unexpected '#'")
        at_line_start = at_line_start and kind == "space"
        if kind in ("space", "hash"):
            continue
        if kind == "comment":
            line += value.count("\n")
        elif kind == "quote":
            start = line
            value, i, line = _quoted(text, i, line, source)
            toks.append(Token("id", value, start))
        elif kind == "html":
            start = line
            value, i, line = _html(text, i, line, source)
            toks.append(Token("id", value, start))
        elif kind == "name":
            low = value.lower()
            toks.append(Token("kw", low, line) if low in _KEYWORDS else Token("id", value, line))
        elif kind == "number":
            toks.append(Token("id", value, line))
        elif kind == "edgeop":
            toks.append(Token("edgeop", value, line))
        else:
            toks.append(Token(value, value, line))
    return toks
