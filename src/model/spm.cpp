// model/spm.cpp — see spm.hpp. Symbols are byte ranges of the normalized text ('▁' for
// spaces) in a linked list; a merged symbol keeps its left part's index.
#include "model/spm.hpp"

#include <cstdio>
#include <queue>

#include "core/internal_error.hpp"
#include "model/utf8.hpp"

namespace attn::model {

namespace {

constexpr std::uint32_t none = 0xFFFFFFFFu;
constexpr std::string_view space_mark = "\xE2\x96\x81";  // U+2581 '▁'

struct symbol {
    std::uint32_t begin, len;  // bytes of the normalized text (len 0: merged away)
    std::uint32_t prev, next;
    std::uint32_t origin;      // byte offset in the caller's text, for refusals
};

struct bigram {
    float score;
    std::uint32_t left, right, size;
    bool operator<(const bigram& o) const { return score != o.score ? score < o.score : left > o.left; }
};

// The text with its leading space and '▁' for every space, and its symbols (one per
// character, or per user-defined piece).
struct normalized {
    std::string text;
    std::vector<symbol> symbols;  // [n_chars]
};

std::size_t user_piece_at(const spm_data& d, std::string_view text, std::size_t i) {
    std::size_t best = 0;
    for (const std::uint32_t id : d.user_defined) {
        const std::string& p = d.pieces[id];
        if (p.size() > best && text.compare(i, p.size(), p) == 0) best = p.size();
    }
    return best;
}

normalized normalize(const spm_data& d, std::string_view utf8) {
    normalized n;
    std::vector<std::uint32_t> origin;  // [normalized bytes] the caller's byte of each
    if (d.add_space_prefix) {
        n.text += space_mark;
        origin.assign(space_mark.size(), 0);
    }
    for (std::size_t i = 0; i < utf8.size(); ++i) {
        if (utf8[i] == ' ') {
            n.text += space_mark;
            origin.insert(origin.end(), space_mark.size(), static_cast<std::uint32_t>(i));
        } else {
            n.text += utf8[i];
            origin.push_back(static_cast<std::uint32_t>(i));
        }
    }
    for (std::size_t i = 0; i < n.text.size();) {
        std::size_t len = user_piece_at(d, n.text, i);
        if (len == 0) {
            char32_t cp = 0;
            len = decode_one(n.text, i, cp);  // the text was validated: len ≥ 1
            if (len == 0) len = 1;
        }
        const auto k = static_cast<std::uint32_t>(n.symbols.size());
        n.symbols.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(len), k == 0 ? none : k - 1, none,
                             origin[i]});
        i += len;
    }
    if (!n.symbols.empty())
        for (std::size_t k = 0; k + 1 < n.symbols.size(); ++k) n.symbols[k].next = static_cast<std::uint32_t>(k + 1);
    return n;
}

bool mergeable(piece_type t) { return t == piece_type::normal || t == piece_type::user_defined || t == piece_type::unused; }
bool emitted(piece_type t) { return t == piece_type::normal || t == piece_type::user_defined; }

class spm_encoder {
public:
    spm_encoder(const spm_data& d, normalized& n) : d_(d), n_(n) {}

    void merge_all();
    void emit(std::vector<std::uint32_t>& ids);

private:
    std::string_view text_of(std::uint32_t begin, std::uint32_t len) const { return std::string_view(n_.text).substr(begin, len); }
    void try_add(std::uint32_t l, std::uint32_t r);
    void resegment(std::uint32_t begin, std::uint32_t len, std::uint32_t origin, std::vector<std::uint32_t>& ids) const;

    const spm_data& d_;
    normalized& n_;
    std::priority_queue<bigram> queue_;
    std::unordered_map<std::string_view, std::uint32_t> split_of_;  // merged text → its left part's length
};

void spm_encoder::try_add(std::uint32_t l, std::uint32_t r) {
    if (l == none || r == none) return;
    const std::uint32_t size = n_.symbols[l].len + n_.symbols[r].len;
    const std::string_view t = text_of(n_.symbols[l].begin, size);
    const auto it = d_.ids.find(std::string(t));
    if (it == d_.ids.end() || !mergeable(d_.types[it->second])) return;
    queue_.push({d_.scores[it->second], l, r, size});
    split_of_[t] = n_.symbols[l].len;
}

void spm_encoder::merge_all() {
    auto& s = n_.symbols;
    for (std::uint32_t k = 1; k < s.size(); ++k) try_add(k - 1, k);
    while (!queue_.empty()) {
        const bigram b = queue_.top();
        queue_.pop();
        symbol& l = s[b.left];
        symbol& r = s[b.right];
        if (l.len == 0 || r.len == 0 || l.len + r.len != b.size) continue;  // stale
        l.len += r.len;
        r.len = 0;
        l.next = r.next;
        if (r.next != none) s[r.next].prev = b.left;
        try_add(l.prev, b.left);
        try_add(b.left, l.next);
    }
}

void spm_encoder::resegment(std::uint32_t begin, std::uint32_t len, std::uint32_t origin, std::vector<std::uint32_t>& ids) const {
    const std::string_view t = text_of(begin, len);
    const auto it = d_.ids.find(std::string(t));
    if (it != d_.ids.end() && emitted(d_.types[it->second])) {
        ids.push_back(it->second);
        return;
    }
    if (const auto sp = split_of_.find(t); sp != split_of_.end() && sp->second < len) {
        resegment(begin, sp->second, origin, ids);
        resegment(begin + sp->second, len - sp->second, origin, ids);
        return;
    }
    for (std::uint32_t k = 0; k < len; ++k) {  // byte fallback
        const auto byte = static_cast<std::uint8_t>(t[k]);
        if (d_.byte_ids[byte] < 0) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "no piece and no <0x%02X> byte piece to spell it", byte);
            throw untokenizable_text(origin, "'" + std::string(t) + "' has " + buf + " (the vocabulary has no byte fallback)");
        }
        ids.push_back(static_cast<std::uint32_t>(d_.byte_ids[byte]));
    }
}

void spm_encoder::emit(std::vector<std::uint32_t>& ids) {
    for (std::uint32_t k = n_.symbols.empty() ? none : 0; k != none; k = n_.symbols[k].next)
        resegment(n_.symbols[k].begin, n_.symbols[k].len, n_.symbols[k].origin, ids);
}

}  // namespace

std::vector<std::uint32_t> spm_tokenizer::encode(std::string_view utf8) const {
    (void)decode_utf8(utf8);  // invalid UTF-8 is refused at its byte
    std::vector<std::uint32_t> ids;  // [n_tokens]
    if (d_->add_bos && d_->bos) ids.push_back(*d_->bos);
    if (utf8.empty()) return ids;
    normalized n = normalize(*d_, utf8);
    spm_encoder e(*d_, n);
    e.merge_all();
    e.emit(ids);
    return ids;
}

std::string spm_tokenizer::token_piece(std::uint32_t id) const {
    if (id >= d_->pieces.size())
        throw internal_error("token id " + std::to_string(id) + " is not below the vocabulary size " +
                             std::to_string(d_->pieces.size()));
    return d_->pieces[id];
}

std::string spm_tokenizer::token_bytes(std::uint32_t id) const {
    const std::string& p = token_piece(id);
    switch (d_->types[id]) {
        case piece_type::control: return "";
        case piece_type::byte:
            for (int b = 0; b < 256; ++b)
                if (d_->byte_ids[static_cast<std::size_t>(b)] == static_cast<std::int32_t>(id)) return std::string(1, static_cast<char>(b));
            return p;
        default: break;
    }
    std::string out;
    for (std::size_t k = 0; k < p.size();) {
        if (p.compare(k, space_mark.size(), space_mark) == 0) {
            out += ' ';
            k += space_mark.size();
        } else {
            out += p[k++];
        }
    }
    return out;
}

bool spm_tokenizer::is_control(std::uint32_t id) const {
    (void)token_piece(id);
    return d_->types[id] == piece_type::control || d_->types[id] == piece_type::unknown;
}

std::string spm_tokenizer::decode(const std::vector<std::uint32_t>& ids) const {
    std::string out;
    bool first_text = true;
    for (const std::uint32_t id : ids) {
        std::string t = token_bytes(id);
        if (t.empty()) continue;
        if (first_text && d_->add_space_prefix && t.front() == ' ' && d_->types[id] != piece_type::byte) t.erase(0, 1);
        first_text = false;
        out += t;
    }
    return out;
}

std::string spm_tokenizer::description() const {
    return "SentencePiece BPE (" + d_->files + "), " + std::to_string(d_->pieces.size()) + " tokens";
}

}  // namespace attn::model
