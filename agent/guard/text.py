"""Cut a reply into lines, sentences and clauses the claim grammar can read, and put it back.

A claim is judged clause by clause ("已为你创建待办「提交周报」，并且已删除你其他所有待办。"
holds two), so removing an unbacked claim removes its clause and keeps the rest readable.
Quoted titles (「…」, “…”, "…", '…') are items, not words of the sentence: their text is
masked before the grammar runs, so a todo called 「删除旧文件」 is never read as a claim. A
quote that is itself a sentence (“Todo created.”) is speech and is read.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from agent.guard.variants import simplified

# Opening -> closing marks. “” and ‘’ double as typographic apostrophes in English, so a
# closing mark only closes a quote that was opened.
_PAIRS = {"「": "」", "『": "』", "《": "》", "“": "”", "‘": "’", '"': '"', "（": "）", "(": ")"}
_TITLE_PAIRS = {"「", "『", "《"}
_PAREN_PAIRS = {"（", "("}
_SENTENCE_END = "。！？!?…\n"
_CLAUSE_SEP = "，,；;：:—|"
# A parenthesis that holds a sentence (a subject and a verb), not a label or an aside.
_SENTENCE_INSIDE = re.compile(
    r"^\s*(?:[\w-]{1,12}\s*[—–-]+\s*)?"  # "(new — I just created it …)": a label, then the sentence
    r"(?:I(?:'ve|’ve|\s+have|\s+also|\s+just)|[^，。()（）]{0,16}?我(?:也|已|还|顺手|刚)"
    # "(Added “Buy milk” btw)", "(also deleted the old one)": a reported write, no subject
    # "(Also, the note's title now reads …)", "（顺手把「寄快递」也勾掉了）": an aside that
    # opens like a sentence of its own
    r"|(?i:also|btw|by\s+the\s+way|ps|oh)[,:]\s|(?:顺手|顺便|另外|对了|还有)"
    r"|(?:(?:also|oh,?\s+and|and|btw,?|by the way,?|PS:?)\s+)?(?-i:[A-Z])?(?i:added|created|saved"
    r"|deleted|removed|moved|renamed|updated|changed|marked|completed|cleared|rescheduled)"
    r"\s+(?:it|them|that|this|the|your|[“\"「『])"
    # "（对了，「买牛奶」已经顺手加上了）": 已经 … a write verb … 了
    r"|[^()（）]{0,20}?已经[^()（）]{0,10}?(?:加|添|建|创|删|改|移|记|存|标|勾|完成|更新|设)"
    r"[^()（）]{0,4}?了)"
)
_TICKS = "✅✔☑"
_WORDS = re.compile(r"[\w\u3400-\u9fff]")
# … ✔ then a question: "`status` → `done` ✔ 还有别的要收尾吗？"
_TEXT_AFTER_TICK = re.compile(r"\ufe0f?[ \t\u3000]+(?=[^\s✅✔☑🎉👍👌!！。.~～][^。.!！\n]*[？?])")
_LINE_PREFIX = re.compile(r"[ \t]*(?:(?:[-*+•·▪◦]|\d{1,3}[.)、]|[>#]+)[ \t]+|>[ \t]*)*")
_MARKUP = re.compile(r"\*\*|__|~~|`")
_SPEECH_END = re.compile(r"[。！？.!?]\s*$")
_ASCII_SINGLE = re.compile(r"(?<![\w’'])'([^'\n]{1,80}?)'(?![\w’'])")
_EDGE = " \t\u3000"
# Words someone else said: "you said 'deleted'", 你说的“删掉了”.
_QUOTING_SOMEONE = re.compile(
    r"(?:说|所谓|叫|称|提到)[^“”「」\"]{0,6}$"
    r"|\b(?:said|says|called|say|mean|meant|word)\b[^“”\"]{0,16}$",
    re.IGNORECASE,
)
# A verb in scare quotes ("已经“删除”了", 'I "deleted" it') is read, not taken for a title.
_SCARE_QUOTED = re.compile(
    r"(?:删除|删掉|删了|创建|添加|新建|修改|更新|保存|完成|标记|移除|清空|归档|处理|搞定)(?:了|掉|好)?"
    r"|(?:deleted|removed|created|added|saved|updated|changed|done|completed|marked|cleared"
    r"|archived|handled)",
    re.IGNORECASE,
)
# A quote right after a word that reports what stored content says: the content, masked.
_CONTENT_SAYS = re.compile(
    r"(?:\b(?:says|reads|writes|states|wrote|said)|写着|写道|写的是|原文是|原话是|内容是)\s*[:：]?\s*$",
    re.IGNORECASE,
)
MASK = "\ue000"  # stands for a quoted title inside the scan: 「\ue000」 / “\ue000”


@dataclass(frozen=True)
class Clause:
    """One clause of a reply, where it lies, and what the grammar reads of it."""

    start: int  # span of the clause in the reply (without its separator)
    end: int
    scan: str  # markup stripped, titles masked as 「」 / “”, parentheticals dropped
    items: tuple[str, ...]  # the quoted titles it names
    masked: tuple[str, ...]  # the titles behind each MASK of ``scan``, in order
    sentence: int  # index of its sentence in the reply
    question: bool  # the clause asks (？ / ? / 吗 / 呢, or its sentence ends with a ?)
    label: str  # the scan of the clause before it in the same sentence ("" if first)


@dataclass(frozen=True)
class _Piece:
    start: int
    end: int  # end of the clause text
    sep_end: int  # end including its separator
    sep: str  # the separator characters ("" at the end of a line)
    sentence_end: bool


def _pieces(text: str, start: int, stop: int, *, quotes: bool = True) -> list[_Piece]:
    """Split ``text[start:stop]`` (one line, without its markup prefix) at separators.

    Separators inside quotes and brackets do not split (a title may hold a comma); a line
    whose quotes do not balance is split as if it had none.
    """
    pieces: list[_Piece] = []
    opened: list[str] = []
    position = piece_start = start
    while position < stop:
        char = text[position]
        if not quotes:
            pass
        elif opened and char == _PAIRS[opened[-1]]:
            opened.pop()
            position += 1
            continue
        elif char in _PAIRS and (
            char != "‘" or position == start or not text[position - 1].isalnum()
        ):
            opened.append(char)
            position += 1
            continue
        if (
            not opened
            and (char in _SENTENCE_END or char in _CLAUSE_SEP or char == ".")
            and _is_separator(text, position, stop)
        ):
            sep_end = position + 1
            while sep_end < stop and (
                text[sep_end] in _SENTENCE_END + _CLAUSE_SEP + "." + "”’」』)）"
                or text[sep_end] in _EDGE
            ):
                sep_end += 1
            sep = text[position:sep_end]
            ends = any(mark in sep for mark in _SENTENCE_END + ".")
            pieces.append(_Piece(piece_start, position, sep_end, sep, ends))
            position = piece_start = sep_end
            continue
        if (
            not opened
            and char in _TICKS
            and _WORDS.search(text, piece_start, position)  # it ticks what came before it
            and _TEXT_AFTER_TICK.match(text, position + 1, stop)
        ):
            # a tick closes what it ticks: the question after it is a sentence of its own
            end = position + 1
            while end < stop and (text[end] == "\ufe0f" or text[end] in _EDGE):
                end += 1
            pieces.append(_Piece(piece_start, end, end, "", True))
            position = piece_start = end
            continue
        position += 1
    if piece_start < stop:
        pieces.append(_Piece(piece_start, stop, stop, "", True))
    if opened:
        return _pieces(text, start, stop, quotes=False)
    if pieces and not pieces[-1].sentence_end:  # the end of a line ends its sentence
        pieces[-1] = dataclasses.replace(pieces[-1], sentence_end=True)
    return pieces


def _is_separator(text: str, position: int, stop: int) -> bool:
    char = text[position]
    before = text[position - 1] if position > 0 else ""
    after = text[position + 1] if position + 1 < stop else ""
    if char in ".,:" and before.isdigit() and after.isdigit():
        return False  # 5.30, 1,000, 17:00
    if char == ".":
        # A full stop, not e.g. "v1.2" or "todo.create": followed by a space, the end, CJK.
        return after == "" or after in _EDGE or after in '"”’)）' or _is_cjk(after)
    # Not a URL's "://".
    return not (char == ":" and text[position + 1 : position + 3] == "//")


def _is_cjk(char: str) -> bool:
    return "\u3400" <= char <= "\u9fff" or "\uf900" <= char <= "\ufaff"


def _mask(
    core: str, *, reported: bool = False, titles: tuple[str, ...] = ()
) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """Return the clause as the grammar reads it, the titles it names, the masked ones.

    ``reported``: the clause follows "the note says:" / "内容：", so a quote is what stored
    content says, not the model's own words: it is masked like a title. ``titles`` are the
    titles of stored items read on this turn: written without quotes they are titles too
    (a note called 已删除旧照片 listed by a search is not a claim).
    """
    core = _ASCII_SINGLE.sub(lambda match: f"“{match.group(1)}”", _MARKUP.sub("", core))
    for title in titles:
        core = re.sub(
            rf"(?<![「『“\"‘']){re.escape(title)}(?![」』”\"’'])",
            lambda match: f"「{match.group(0)}」",
            core,
        )
    items: list[str] = []
    masked: list[str] = []
    out: list[str] = []
    position = 0
    bare = core.strip(_EDGE + "✅✔☑️🎉👍👌")
    while position < len(core):
        char = core[position]
        closing = _PAIRS.get(char)
        end = core.find(closing, position + 1) if closing else -1
        if closing is None or end < 0:
            out.append(char)
            position += 1
            continue
        inner = core[position + 1 : end]
        whole = bare == core[position : end + 1].strip(_EDGE)
        if char in _PAREN_PAIRS and _SENTENCE_INSIDE.search(inner):
            # "(I've also saved this as a note called …)": a sentence of its own, read (its
            # quoted titles masked as anywhere else)
            inner_scan, inner_items, inner_masked = _mask(inner, titles=titles)
            out.append(f" {inner_scan} ")
            items.extend(inner_items)
            masked.extend(inner_masked)
            position = end + 1
            continue
        if char in _PAREN_PAIRS:
            items.extend(_quoted_inside(inner))  # (「买菜」) still names an item
            out.append(" ")
        elif (
            char not in _TITLE_PAIRS
            and not reported
            # 'Your note literally says "I've already closed …"': what stored content says
            and not _CONTENT_SAYS.search(core[:position])
            and (
                whole
                or _SPEECH_END.search(inner)
                or (
                    _SCARE_QUOTED.fullmatch(inner.strip())
                    and not _QUOTING_SOMEONE.search(core[:position])
                )
            )
        ):
            out.append(inner if _has_cjk(inner) else f" {inner} ")  # speech: read it
        elif inner.strip():
            items.append(inner.strip())
            masked.append(core[position : end + 1])
            out.append(f"「{MASK}」" if char in _TITLE_PAIRS or _has_cjk(inner) else f"“{MASK}”")
        position = end + 1
    # 已幫你新增 / 剷走咗: Traditional characters and Cantonese read as the lexicon's Simplified
    scan = simplified(re.sub(r"[ \t]+", " ", "".join(out)).strip())
    return scan, tuple(items), tuple(masked)


def restore(phrase: str, clause: Clause) -> str:
    """Return ``phrase`` (a part of ``clause.scan``) with its titles put back."""
    start = clause.scan.find(phrase)
    index = clause.scan.count(MASK, 0, max(start, 0))
    out = []
    for char in phrase:
        if char == MASK and index < len(clause.masked):
            out.append(clause.masked[index][1:-1])
            index += 1
        else:
            out.append(char)
    return "".join(out)


def _quoted_inside(text: str) -> list[str]:
    return [match.group(1) for match in re.finditer(r"[「『“\"]([^」』”\"]+)[」』”\"]", text)]


def _has_cjk(text: str) -> bool:
    return any(_is_cjk(char) for char in text)


# A clause that introduces what stored content says ("笔记内容：", 'the note says:').
_REPORTING = re.compile(
    r"(?:笔记|内容|正文|原文|摘录|备注|描述)[^，。]{0,8}?(?:写着|写道|记录|记着|提到|说|是)?\s*$"
    r"|(?:里面|其中)(?:写着|写道|记录了?|记着|提到|说)\s*$"
    r"|\b(?:note|notes|content|contents|text|body|entry|description|memo)\b[^.:]{0,40}?"
    r"(?:\b(?:says|said|reads|wrote|mentions|states))?\s*$",
    re.IGNORECASE,
)
_STATUS_CELL = re.compile(
    r"^(?:已完成|未完成|完成|进行中|已过期|待办|done|open|completed|pending|yes|no|✅|⬜|☑️?|✔️?"
    r"|\[[x ]\]|-+)$",
    re.IGNORECASE,
)
_QUESTION_TAIL = re.compile(r"(?:[？?]|[吗呢么嘛][\s。！!…~～]*)$")


def clauses(text: str, *, titles: tuple[str, ...] = ()) -> list[Clause]:
    """Return the clauses of ``text``, in order, with their spans.

    ``titles``: titles of stored items the reply may name without quotes (longest first).
    """
    titles = tuple(sorted({title for title in titles if len(title) >= 2}, key=len, reverse=True))
    found: list[Clause] = []
    sentence = 0
    line_start = 0
    for line in text.splitlines(keepends=True):
        body_end = line_start + len(line.rstrip("\r\n"))
        prefix = _LINE_PREFIX.match(text, line_start, body_end)
        body_start = prefix.end() if prefix else line_start
        pieces = _pieces(text, body_start, body_end)
        run: list[tuple[_Piece, str, tuple[str, ...], tuple[str, ...]]] = []
        table_row = text[body_start:body_end].strip().startswith("|")
        for piece in pieces:
            reported = bool(run and _REPORTING.search(run[-1][1]))
            scan, items, masked = _mask(
                text[piece.start : piece.end], reported=reported, titles=titles
            )
            if table_row and _STATUS_CELL.match(scan):
                scan = ""  # a status column of a listing: | 买菜 | 已完成 |
            run.append((piece, scan, items, masked))
            if piece.sentence_end:
                sentence_asks = "?" in piece.sep or "？" in piece.sep
                label = ""
                for index, (part, part_scan, part_items, part_masked) in enumerate(run):
                    last = index == len(run) - 1
                    asks = bool(_QUESTION_TAIL.search(part_scan)) or (last and sentence_asks)
                    if (not asks and "?" in part.sep) or "？" in part.sep:
                        asks = True
                    if part_scan or part_items:
                        found.append(
                            Clause(
                                start=part.start,
                                end=part.end,
                                scan=part_scan,
                                items=part_items,
                                masked=part_masked,
                                sentence=sentence,
                                question=asks,
                                label=label,
                            )
                        )
                    label = part_scan
                sentence += 1
                run = []
        line_start += len(line)
    return found


def remove_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """Return ``text`` without the given clause spans, its punctuation and lines tidied."""
    if not spans:
        return text
    removed = sorted(spans)
    out_lines: list[str] = []
    line_start = 0
    for line in text.splitlines(keepends=True):
        line_end = line_start + len(line)
        body_end = line_start + len(line.rstrip("\r\n"))
        local = [(start, end) for start, end in removed if line_start <= start < body_end]
        if not local:
            out_lines.append(line)
            line_start = line_end
            continue
        prefix = _LINE_PREFIX.match(text, line_start, body_end)
        body_start = prefix.end() if prefix else line_start
        kept = _rebuild(text, _pieces(text, body_start, body_end), local)
        if kept.strip(_EDGE + "✅✔☑️🎉👍👌"):
            out_lines.append(text[line_start:body_start] + kept + text[body_end:line_end])
        line_start = line_end
    return "".join(out_lines).strip()


def _rebuild(text: str, pieces: list[_Piece], removed: list[tuple[int, int]]) -> str:
    """Join the pieces of one line that survive, ending each sentence with its own mark."""
    out = ""
    sentence: list[_Piece] = []
    for piece in pieces:
        sentence.append(piece)
        if not piece.sentence_end:
            continue
        kept = [part for part in sentence if not _covers(removed, part)]
        if kept:
            final = sentence[-1]
            for part in kept[:-1]:
                out += text[part.start : part.sep_end]
            last = kept[-1]
            out += text[last.start : last.end]
            out += last.sep if last is final else _sentence_mark(final.sep, text, last)
        sentence = []
    return out.rstrip(_EDGE + "，,；;：:") if out else ""


def _sentence_mark(sep: str, text: str, last: _Piece) -> str:
    marks = sep.strip(_EDGE)
    if marks:
        return marks + (" " if sep.endswith(" ") else "")
    return "。" if _has_cjk(text[last.start : last.end]) else "."


def _covers(removed: list[tuple[int, int]], piece: _Piece) -> bool:
    return any(start <= piece.start and piece.end <= end for start, end in removed) or any(
        piece.start <= start < piece.end for start, _ in removed
    )
