"""Bring a time phrase into the one form the grammar and the libraries read.

Width (full-width digits and colons), case, spacing, traditional characters and Cantonese
day words, Chinese numerals, and the many ways to write a clock time (``8p.m.``, ``9.am``,
``8.30pm``, ``7h01``, ``20h``) all become one spelling first, so the readers downstream see
``8:30pm`` and ``明天20:30`` whatever the user typed.
"""

from __future__ import annotations

import re
import unicodedata

from lightnote.texts.hanzi import simplified

# Traditional characters (``lightnote.texts.hanzi``), then the two numerals that stand for two.
_NUMERALS = str.maketrans({"廿": "二十", "卅": "三十"})
_WORDS = (
    ("大后日", "大后天"),
    ("聽日", "明天"),
    ("听日", "明天"),
    ("尋日", "昨天"),
    ("寻日", "昨天"),
    ("今儿个", "今天"),
    ("今儿", "今天"),
    ("明儿个", "明天"),
    ("明儿", "明天"),
    ("后儿个", "后天"),
    ("昨儿个", "昨天"),
    ("昨儿", "昨天"),
    ("今日", "今天"),
    ("明日", "明天"),
    ("昨日", "昨天"),
    ("后日", "后天"),
    ("前日", "前天"),
    ("今个", "这"),
    ("呢个", "这"),
    ("礼拜日", "礼拜天"),
    # A holiday's number is part of its name, not a date: 五一劳动节 is 劳动节.
    ("三八国际妇女节", "妇女节"),
    ("三八妇女节", "妇女节"),
    ("国际妇女节", "妇女节"),
    ("五一国际劳动节", "劳动节"),
    ("五一劳动节", "劳动节"),
    ("国际劳动节", "劳动节"),
    ("五四青年节", "青年节"),
    ("六一国际儿童节", "儿童节"),
    ("六一儿童节", "儿童节"),
    ("国际儿童节", "儿童节"),
    ("七一建党节", "建党节"),
    ("八一建军节", "建军节"),
    ("十一国庆节", "国庆节"),
    ("阳历新年", "元旦"),
    ("圣瓦伦丁节", "情人节"),
)
_DIGITS = dict(zip("零〇一二两三四五六七八九", (0, 0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9), strict=True))
# A run of Chinese numerals; not the weekday after 周/期/拜 ("星期一" stays a weekday).
_CHINESE_NUMBER = re.compile(r"(?<![周期拜])[零〇一二两三四五六七八九十百千]+")
_SPACES = re.compile(r"\s+")
_SPACE_NEXT_TO_WIDE = re.compile(r" (?=[^\x00-\x7f])|(?<=[^\x00-\x7f]) ")
_MERIDIEM = re.compile(r"(?<![a-z])([ap])\s*\.?\s*m\b\.?")
_DOT_BEFORE_MERIDIEM = re.compile(r"(\d)\s*\.\s*(?=[ap]m\b)")
_DOTTED_CLOCK = re.compile(r"\b(\d{1,2})\.(\d{2})\s*(?=[ap]m\b)")
# "7h01", "16h00", "20h"; not "in 1h" or "2h" (hours of a duration).
_FRENCH_CLOCK = re.compile(r"(?<!in )\b(?:([01]?\d|2[0-4])h([0-5]\d)|([01]\d|2[0-4])h)\b")


def normalise(text: str) -> str:
    """Return ``text`` folded to one spelling (see the module docstring)."""
    folded = simplified(unicodedata.normalize("NFKC", text).lower()).translate(_NUMERALS)
    for word, plain in _WORDS:
        folded = folded.replace(word, plain)
    joined = _SPACE_NEXT_TO_WIDE.sub("", _SPACES.sub(" ", folded).strip())
    with_digits = _CHINESE_NUMBER.sub(lambda match: _chinese_number(match[0]), joined)
    meridiem = _MERIDIEM.sub(lambda match: match[1] + "m", with_digits)
    meridiem = _DOTTED_CLOCK.sub(r"\1:\2", _DOT_BEFORE_MERIDIEM.sub(r"\1", meridiem))
    # "7h01" is a 24-hour clock: written "07:01" so the grammar knows it is not 7 p.m.
    return _FRENCH_CLOCK.sub(
        lambda match: f"{int(match[1] or match[3]):02d}:{match[2] or '00'}", meridiem
    )


def _chinese_number(numeral: str) -> str:
    """Return the digits of a Chinese numeral ("二零一五" 2015, "二十五" 25, "一百" 100)."""
    if not any(unit in numeral for unit in "十百千"):
        return "".join(str(_DIGITS[character]) for character in numeral)  # a year: 二〇二六
    total, current = 0, 0
    for character in numeral:
        if character in _DIGITS:
            current = _DIGITS[character]
        else:
            unit = {"十": 10, "百": 100, "千": 1000}[character]
            total += (current or 1) * unit
            current = 0
    return str(total + current)
