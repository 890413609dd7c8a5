"""Text helpers every rule shares, each linear in the text (or bounded around a position).

- `Prose` is a turn's text as the rules read it: fenced code, inline code, markup blocks
  (`<system-reminder>`, `<bash-stdout>`, ...), pasted log lines, markdown headings and link
  texts are blanked out (same length, so positions stay true), and sentence ends are found once.
- `quote` cuts the sentence around a span with a binary search over those ends, clipped to
  QUOTE_CHARS: the cost of a mention no longer grows with the length of the message.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from vyre.wording import ELLIPSIS, clip_around

QUOTE_CHARS = 160
LOOK_BACK = 80  # how far back a rule reads for a cue before a name

# a fence runs to the next three backticks, or to the end: what "```.*?(?:```|\Z)" (re.S)
# finds, read a run of other characters at a time instead of one character per step
_FENCE = re.compile(r"```[^`]*(?:`(?!``)[^`]*)*(?:```|\Z)")
_INLINE_CODE = re.compile(r"`[^`\n]{1,200}`")
_MARKUP = re.compile(r"<([a-z][\w-]{1,40})(?:\s[^<>\n]{0,200})?>.{0,20000}?</\1>", re.S)
_LOG_LINE = re.compile(
    r"^[ \t]*(?:\[?\d{4}-\d{2}-\d{2}[T ]\d|\[?\d{2}:\d{2}:\d{2}|(?:DEBUG|INFO|WARN|WARNING|ERROR"
    r"|FATAL|TRACE|CRITICAL)\b|Traceback \(|File \"|at [\w$.]+\(|\$ |>>> ).*$",
    re.M,
)
# a cheap first look: a line that starts like a log line, a traceback or a shell prompt (the
# first line, or one after a newline: a literal first character lets re skip to each newline)
_LOG_HEAD = (
    r"[ \t]*(?:\[?\d|DEBUG|INFO|WARN|ERROR|FATAL|TRACE|CRITICAL|Traceback|File |at |\$ |>>> )"
)
_LOG_FIRST = re.compile(_LOG_HEAD)
_LOG_START = re.compile("\n" + _LOG_HEAD)
# the marker of a quoted line ("> Best regards," in a forwarded email, a markdown quote): the
# words are still prose the person pasted, so only the marker is blanked ("> > " nests)
_QUOTE_MARK = re.compile(r"^[ \t]*(?:>(?!>>)[ \t]?)+", re.M)
# every quote mark is a line's first ">" after its blanks: a cheap first look, as for logs
_QUOTE_FIRST = re.compile(r"[ \t]*>")
_QUOTE_START = re.compile(r"\n[ \t]*>")
_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t].*$", re.M)
_LINK_TEXT = re.compile(r"\[([^\]\n]{1,200})\]\((?:https?://|www\.)[^)\s]{1,500}\)")
# a stop before a lowercase word ends an abbreviation, not a sentence: "Acme S.A. says", "e.g. the"
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)(?![ \t]+[a-z])|\n")


def _blank(match: re.Match) -> str:
    found = match.group(0)
    if "\n" not in found:
        return " " * len(found)
    return "\n".join(" " * len(line) for line in found.split("\n"))


class Prose:
    """One turn's readable text, with code and markup blanked and sentence ends indexed."""

    __slots__ = ("_code_lower", "_ends", "_lower", "text", "with_code")

    def __init__(self, raw: str):
        text = _FENCE.sub(_blank, raw) if "```" in raw else raw
        if ">" in text and (_QUOTE_FIRST.match(text) or _QUOTE_START.search(text)):
            text = _QUOTE_MARK.sub(_blank, text)
        if "<" in text:
            text = _MARKUP.sub(_blank, text)
        self.with_code = text  # inline code kept: repos and addresses are often in backticks
        if "`" in text:
            text = _INLINE_CODE.sub(_blank, text)
        if _LOG_FIRST.match(text) or _LOG_START.search(text):
            text = _LOG_LINE.sub(_blank, text)
        if "](" in text:  # a link's text is a page's title: "[How Acme Works](https://...)"
            text = _LINK_TEXT.sub(_blank, text)
        if "#" in text:
            text = _HEADING.sub(_blank, text)
        self.text = text
        self._ends: list[int] | None = None
        self._lower: str | None = None
        self._code_lower: str | None = None

    @property
    def lower(self) -> str:
        """`text.lower()`, made once for every rule that reads it."""
        if self._lower is None:
            self._lower = self.text.lower()
        return self._lower

    @property
    def code_lower(self) -> str:
        """`with_code.lower()`, made once (the same string as `lower` when no code was cut)."""
        if self._code_lower is None:
            same = self.with_code is self.text
            self._code_lower = self.lower if same else self.with_code.lower()
        return self._code_lower

    @property
    def ends(self) -> list[int]:
        """Where sentences end, found once and only when a rule quotes (most turns never do)."""
        if self._ends is None:
            self._ends = [m.start() for m in _SENTENCE_END.finditer(self.with_code)]
        return self._ends

    def quote(self, start: int, end: int) -> str:
        return quote(self.with_code, self.ends, start, end)

    def sentence(self, pos: int) -> tuple[int, int]:
        """The bounds of the sentence holding `pos`."""
        i = bisect_left(self.ends, pos)
        left = self.ends[i - 1] + 1 if i > 0 else 0
        right = self.ends[i] + 1 if i < len(self.ends) else len(self.text)
        return left, right


def quote(text: str, ends: list[int], start: int, end: int) -> str:
    """The sentence around [start, end), clipped to QUOTE_CHARS around the match at word
    boundaries, with an ellipsis where it was cut (`vyre.wording.clip_around`)."""
    i = bisect_left(ends, start)
    left = ends[i - 1] + 1 if i > 0 else 0
    j = bisect_left(ends, max(start, end - 1))  # the first sentence end at or after the span
    right = ends[j] + 1 if j < len(ends) else len(text)
    if right - left > QUOTE_CHARS:
        # only a bounded window is read: the cost stays flat however long the sentence
        lo = max(left, (start + end) // 2 - QUOTE_CHARS)
        hi = min(right, lo + 2 * QUOTE_CHARS)
        room = QUOTE_CHARS - (lo > left) - (hi < right)  # for the ellipses of the window
        clipped = clip_around(text[lo:hi], start - lo, end - lo, room)
        if lo > left and not clipped.startswith(ELLIPSIS):
            clipped = ELLIPSIS + clipped
        if hi < right and not clipped.endswith(ELLIPSIS):
            clipped += ELLIPSIS
        return clipped
    return " ".join(text[left:right].split())


def sentence_start(text: str, pos: int) -> bool:
    """Whether `pos` starts a sentence (only a bounded window before it is read)."""
    before = text[max(0, pos - LOOK_BACK) : pos].rstrip(" \t\"'“(*_-#>")
    if not before:
        return pos - LOOK_BACK <= 0 or not text[max(0, pos - LOOK_BACK) : pos].strip()
    return before[-1] in ".!?:\n"


def squash(text: str) -> str:
    return " ".join(text.split())
