// model/param_storage.hpp — the storage of a parameter tensor (model/params.hpp): either
// its own memory, or a view of a checkpoint's mapped bytes when the file holds the tensor
// exactly as the forward reads it (model/checkpoint.cpp, model/gguf_checkpoint.cpp: F32
// read as float, F64 as double, not transposed, aligned), so reading GPT-2 small copies
// nothing and its 475 MiB are counted once, as the file's pages.
//
// A view keeps the mapping alive (a shared owner of it: no view outlives its bytes) and is
// read-only: const access reads the file's bytes; the first non-const access (a writer:
// the optimiser, --init's training, a patch) copies the tensor into memory of its own
// first, so nothing ever writes the mapping. A copy of a storage is always its own memory.
// Training calls own_params (model/params.hpp) before its threads start, so no copy is
// made lazily from two threads.
//
// It is an xtensor storage (the interface of xt::uvector) for xt::xtensor_container.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <utility>

#include <xtensor/xstorage.hpp>

namespace attn::model {

template <class T>
class param_storage {
public:
    using value_type = T;
    using reference = T&;
    using const_reference = const T&;
    using pointer = T*;
    using const_pointer = const T*;
    using size_type = std::size_t;
    using difference_type = std::ptrdiff_t;
    using iterator = T*;
    using const_iterator = const T*;
    using reverse_iterator = std::reverse_iterator<iterator>;
    using const_reverse_iterator = std::reverse_iterator<const_iterator>;
    using allocator_type = std::allocator<T>;

    param_storage() = default;
    explicit param_storage(size_type n) : own_(n) {}
    param_storage(size_type n, const T& value) : own_(n, value) {}
    template <class It>
    param_storage(It first, It last) : own_(first, last) {}
    param_storage(std::initializer_list<T> values) : own_(values) {}
    param_storage(const param_storage& other) : own_(other.cbegin(), other.cend()) {}
    param_storage(param_storage&& other) noexcept { swap(other); }
    param_storage& operator=(const param_storage& other) {
        if (this != &other) param_storage(other).swap(*this);
        return *this;
    }
    param_storage& operator=(param_storage&& other) noexcept {
        param_storage(std::move(other)).swap(*this);
        return *this;
    }

    // A view of n elements at `data`, alive as long as `owner` is (the mapped file).
    static param_storage view(std::shared_ptr<const void> owner, const T* data, size_type n) {
        param_storage s;
        s.owner_ = std::move(owner);
        s.view_ = data;
        s.view_size_ = n;
        return s;
    }
    // True while the elements are the checkpoint's mapped bytes.
    bool mapped() const { return view_ != nullptr; }
    // Copies a view into memory of its own (nothing for an owned storage).
    void own() {
        if (!view_) return;
        xt::uvector<T> copy(view_, view_ + view_size_);
        own_.swap(copy);
        view_ = nullptr, view_size_ = 0, owner_.reset();
    }

    size_type size() const { return view_ ? view_size_ : own_.size(); }
    bool empty() const { return size() == 0; }
    void resize(size_type n) {
        if (view_ && n == view_size_) return;
        own();
        own_.resize(n);
    }

    const T* data() const { return view_ ? view_ : own_.data(); }
    T* data() { return own(), own_.data(); }
    const_iterator begin() const { return data(); }
    const_iterator end() const { return data() + size(); }
    const_iterator cbegin() const { return begin(); }
    const_iterator cend() const { return end(); }
    iterator begin() { return data(); }
    iterator end() { return data() + size(); }
    const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }
    const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }
    const_reverse_iterator crbegin() const { return rbegin(); }
    const_reverse_iterator crend() const { return rend(); }
    reverse_iterator rbegin() { return reverse_iterator(end()); }
    reverse_iterator rend() { return reverse_iterator(begin()); }
    const T& operator[](size_type i) const { return data()[i]; }
    T& operator[](size_type i) { return data()[i]; }
    const T& front() const { return data()[0]; }
    T& front() { return data()[0]; }
    const T& back() const { return data()[size() - 1]; }
    T& back() { return data()[size() - 1]; }

    void swap(param_storage& other) noexcept {
        own_.swap(other.own_);
        std::swap(view_, other.view_);
        std::swap(view_size_, other.view_size_);
        owner_.swap(other.owner_);
    }

private:
    xt::uvector<T> own_;              // [n] the elements, when not a view
    const T* view_ = nullptr;         // [view_size_] the mapped elements, or nullptr
    size_type view_size_ = 0;
    std::shared_ptr<const void> owner_;  // keeps the mapping of view_ alive
};

template <class T>
bool operator==(const param_storage<T>& a, const param_storage<T>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!(a[i] == b[i])) return false;
    return true;
}
template <class T>
bool operator!=(const param_storage<T>& a, const param_storage<T>& b) {
    return !(a == b);
}
template <class T>
void swap(param_storage<T>& a, param_storage<T>& b) noexcept {
    a.swap(b);
}

}  // namespace attn::model
