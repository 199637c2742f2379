"""A small expression tokenizer and recursive-descent parser.

Used by the golden tests of the window chunker: typical Python with
blank lines between top-level definitions and inside methods.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum, auto
from typing import Iterator


class Kind(Enum):
    NUMBER = auto()
    NAME = auto()
    OP = auto()
    LPAREN = auto()
    RPAREN = auto()
    END = auto()


@dataclass(frozen=True)
class Token:
    kind: Kind
    text: str
    pos: int


TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<number>\d+(?:\.\d+)?)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\*\*|[-+*/%^])
  | (?P<lparen>\()
  | (?P<rparen>\))
    """,
    re.VERBOSE,
)


class TokenizeError(ValueError):
    def __init__(self, message: str, pos: int) -> None:
        super().__init__(f"{message} at position {pos}")
        self.pos = pos


def tokenize(source: str) -> Iterator[Token]:
    pos = 0
    while pos < len(source):
        match = TOKEN_RE.match(source, pos)
        if match is None:
            raise TokenizeError(f"unexpected character {source[pos]!r}", pos)
        kind = match.lastgroup
        text = match.group()
        if kind == "number":
            yield Token(Kind.NUMBER, text, pos)
        elif kind == "name":
            yield Token(Kind.NAME, text, pos)
        elif kind == "op":
            yield Token(Kind.OP, text, pos)
        elif kind == "lparen":
            yield Token(Kind.LPAREN, text, pos)
        elif kind == "rparen":
            yield Token(Kind.RPAREN, text, pos)
        pos = match.end()
    yield Token(Kind.END, "", pos)


PRECEDENCE = {"+": 10, "-": 10, "*": 20, "/": 20, "%": 20, "**": 30, "^": 30}
RIGHT_ASSOC = {"**", "^"}


class Parser:
    """Pratt parser producing nested tuples: ("+", left, right)."""

    def __init__(self, source: str) -> None:
        self.tokens = list(tokenize(source))
        self.index = 0

    def peek(self) -> Token:
        return self.tokens[self.index]

    def advance(self) -> Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def parse(self) -> object:
        tree = self.expression(0)
        if self.peek().kind is not Kind.END:
            raise TokenizeError("trailing input", self.peek().pos)
        return tree

    def expression(self, min_prec: int) -> object:
        left = self.atom()
        while True:
            token = self.peek()
            prec = PRECEDENCE.get(token.text, -1) if token.kind is Kind.OP else -1
            if prec < min_prec:
                return left
            self.advance()
            next_min = prec if token.text in RIGHT_ASSOC else prec + 1
            right = self.expression(next_min)
            left = (token.text, left, right)

    def atom(self) -> object:
        token = self.advance()
        if token.kind is Kind.NUMBER:
            return float(token.text) if "." in token.text else int(token.text)
        if token.kind is Kind.NAME:
            return token.text
        if token.kind is Kind.OP and token.text == "-":
            return ("neg", self.atom())
        if token.kind is Kind.LPAREN:
            inner = self.expression(0)
            if self.advance().kind is not Kind.RPAREN:
                raise TokenizeError("expected ')'", token.pos)
            return inner
        raise TokenizeError(f"unexpected {token.text or 'end of input'}", token.pos)


def evaluate(tree: object, env: dict[str, float]) -> float:
    if isinstance(tree, (int, float)):
        return float(tree)
    if isinstance(tree, str):
        return env[tree]
    op, *args = tree  # type: ignore[misc]
    if op == "neg":
        return -evaluate(args[0], env)
    left, right = (evaluate(a, env) for a in args)
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    if op == "/":
        return left / right
    if op == "%":
        return left % right
    return left**right


if __name__ == "__main__":
    print(evaluate(Parser("2 ** 3 ** 2 - (x + 1) * 4").parse(), {"x": 2.5}))
