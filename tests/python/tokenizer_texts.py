"""tests/python/tokenizer_texts.py — the texts the tokenizer tests make, with a fixed seed:
English with contractions (either case), numbers of every length, code, whitespace runs
(spaces, tabs, CR/LF, NBSP, ideographic space), Latin/Greek/Cyrillic/Arabic/Hebrew,
CJK, kana, Hangul syllables, emoji (ZWJ sequences, flags, skin tones, VS16), random
assigned code points, and mixtures of all of these. Only code points assigned in the
Unicode version of Debian's Python (attn's tables come from it) are used."""
import random
import unicodedata

WORDS = ("the of and to in is was he for it with as his on be at by had are but from or have an they which one you "
         "were all we she there would their will when who him been has more if no out so what up said about than its "
         "into them only could new these two may first then do any like my now over such our man me even most made "
         "after also did many before must through back years where much your way well down should because each just "
         "those people how too little state good very make world still own see men work long get here between both "
         "life being under never day same another know while last might us great old year off come since against go "
         "came right used take three").split()
CONTRACTIONS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'T", "'RE", "'Ve", "'M", "'LL", "'D", "'x", "'"]
CODE = [
    "def f(x):\n    return x ** 2\n",
    "for (int i = 0; i < n; ++i) {\n\tsum += a[i];\n}\n",
    "if (a && b || !c) { return -1; }",
    '{"key": [1, 2, 3], "nested": {"a": null}}',
    "<div class=\"x\">Hello &amp; bye</div>",
    "x = [i*i for i in range(10) if i % 2 == 0]  # squares",
    "SELECT * FROM users WHERE id = 42;",
    "#include <stdio.h>\nint main(void) { printf(\"%d\\n\", 3); }\n",
    "fn main() -> Result<(), Box<dyn Error>> { Ok(()) }",
    "  \t  indented\r\n\r\n\tline",
]
SCRIPTS = [
    "café naïve résumé façade über straße Ørsted",
    "Ελληνικά γράμματα και λέξεις",
    "Русский текст с буквами ёЁ",
    "العربية نص قصير",
    "עברית טקסט קצר",
    "日本語の文章とカタカナ、ひらがな。",
    "中文字符和标点符号，以及数字123。",
    "한국어 문장입니다 안녕하세요",
    "Türkçe İstanbul ıi",
    "Tiếng Việt có dấu",
]
EMOJI = ["😀", "😂", "👍", "👍🏽", "❤️", "👨‍👩‍👧‍👦", "🇫🇷", "🇯🇵", "🏳️‍🌈", "🤖", "✨", "🔥", "🧑🏿‍💻", "☕", "🎉"]
SPACES = [" ", "  ", "   ", "\t", "\n", "\n\n", "\r\n", " \n ", "\u00a0", "\u3000", " \t\n", "\n   \n", "\r", "\u2009"]


def assigned(cp):
    return not (0xD800 <= cp <= 0xDFFF) and unicodedata.category(chr(cp)) not in ("Cn", "Cs", "Co", "Cc") and cp != 0


def random_char(rng):
    ranges = [(0x20, 0x7E), (0xA0, 0x24F), (0x370, 0x3FF), (0x400, 0x4FF), (0x590, 0x6FF), (0x3040, 0x30FF),
              (0x4E00, 0x9FFF), (0xAC00, 0xD7A3), (0x1F300, 0x1F6FF), (0x2000, 0x206F), (0xFF00, 0xFFEF),
              (0x10000, 0x1FFFF), (0x20000, 0x2A6DF)]
    while True:
        lo, hi = rng.choice(ranges)
        cp = rng.randint(lo, hi)
        if assigned(cp):
            return chr(cp)


def sentence(rng):
    out = []
    for _ in range(rng.randint(1, 12)):
        w = rng.choice(WORDS)
        r = rng.random()
        if r < 0.15:
            w = w.capitalize()
        elif r < 0.2:
            w = w.upper()
        if rng.random() < 0.15:
            w += rng.choice(CONTRACTIONS)
        out.append(w)
    s = " ".join(out)
    return s + rng.choice([".", "!", "?", ",", "", "...", ";", ":"])


def number(rng):
    n = rng.randint(1, 12)
    s = "".join(rng.choice("0123456789") for _ in range(n))
    return rng.choice([s, s + ".5", "$" + s, s + "%", "-" + s, s[:1] + "," + s, "3.14159", "1,000,000", "٣٤٥", "①②"])


def piece(rng):
    k = rng.random()
    if k < 0.3:
        return sentence(rng)
    if k < 0.4:
        return number(rng)
    if k < 0.5:
        return rng.choice(CODE)
    if k < 0.6:
        return rng.choice(SCRIPTS)
    if k < 0.7:
        return "".join(rng.choice(EMOJI) for _ in range(rng.randint(1, 4)))
    if k < 0.8:
        return "".join(rng.choice(SPACES) for _ in range(rng.randint(1, 4)))
    return "".join(random_char(rng) for _ in range(rng.randint(1, 8)))


def make_texts(count, seed, extra=()):
    """`count` texts (plus `extra` first), each of 1–5 pieces joined by nothing or a space."""
    rng = random.Random(seed)
    texts = list(extra)
    while len(texts) < count:
        parts = [piece(rng) for _ in range(rng.randint(1, 5))]
        texts.append(rng.choice(["", " ", "\n"]).join(parts))
    return texts
