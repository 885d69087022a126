// offline_odata.hpp: a header-only C++17 wrapper of the C interface (offline_odata.h).
//
// What it adds to the C functions, and nothing more:
//   * RAII: ood::Options, ood::Store, ood::Result, ood::Subscription and ood::Call own their C
//     handle and release it with its own function; they move, and never copy. A moved-from object
//     holds no handle: using it throws ood::Error with OOD_MISUSE (the C functions' answer to NULL).
//   * Failures throw ood::Error, carrying the status, the library's message, the character offset
//     of a fault in text input, and the HTTP status and headers of a refusal by the service.
//   * Text goes in as std::string_view (copied, since the C functions take NUL-terminated text).
//   * Progress and event callbacks are std::function; asynchronous requests answer a std::future.
//
// Link with libofflineodata (pkg-config offlineodata, or CMake's OfflineOData::offlineodata) as
// for C. The rules of offline_odata.h hold: threads, ownership, callbacks on library threads.
#ifndef OFFLINE_ODATA_HPP
#define OFFLINE_ODATA_HPP

#include "offline_odata.h"

#include <cstring>
#include <exception>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ood {

/// A failed call: its status, the library's message, and where known the offset of the fault in
/// text input and the HTTP status and headers of the service's refusal.
class Error : public std::runtime_error {
public:
    /// The headers of a refusal that Error keeps (the C state they come from is per call).
    static constexpr const char *kept_headers[] = {"ETag", "Location", "Retry-After", "Content-Type"};

    Error(ood_status status, std::string message, long offset = -1, int http_status = 0,
          std::map<std::string, std::string> headers = {})
        : std::runtime_error(message + " (" + ood_status_name(status) + ")"), status_(status),
          message_(std::move(message)), offset_(offset), http_status_(http_status), headers_(std::move(headers)) {}

    /// The error the most recent call on this thread left (call it right after that call).
    static Error from_this_thread(ood_status status) {
        std::map<std::string, std::string> headers;
        for (const char *name : kept_headers) {
            if (const char *value = ood_error_header(name)) headers.emplace(lowercased(name), value);
        }
        return Error(status, ood_error_message(), ood_error_offset(), ood_error_http_status(), std::move(headers));
    }

    ood_status status() const noexcept { return status_; }
    /// The library's message, without the status name that what() adds.
    const std::string &message() const noexcept { return message_; }
    /// The 0-based character offset of the fault in a URL, a $filter or a document; -1 otherwise.
    long offset() const noexcept { return offset_; }
    /// The HTTP status the service refused the request with (404, 412, ...); 0 otherwise.
    int http_status() const noexcept { return http_status_; }
    /// A header of the service's refusal, among kept_headers, compared without case.
    std::optional<std::string> header(std::string_view name) const {
        auto found = headers_.find(lowercased(name));
        if (found == headers_.end()) return std::nullopt;
        return found->second;
    }

private:
    /// Header names are ASCII and compared without case.
    static std::string lowercased(std::string_view name) {
        std::string lower(name);
        for (char &c : lower) {
            if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        }
        return lower;
    }

    ood_status status_;
    std::string message_;
    long offset_;
    int http_status_;
    std::map<std::string, std::string> headers_;
};

/// Throws the error of this thread's last call unless `status` is OOD_OK.
inline void check(ood_status status) {
    if (status != OOD_OK) throw Error::from_this_thread(status);
}

namespace detail {

/// A NUL-terminated copy of a string_view, for the C functions.
inline std::string c_text(std::string_view text) { return std::string(text); }

/// Takes an owned C string (char **out) into a std::string and frees it with the library.
inline std::string take(char *owned) {
    std::unique_ptr<char, void (*)(char *)> guard(owned, ood_string_free);
    return owned != nullptr ? std::string(owned) : std::string();
}

/// An optional body as the C functions take it: NUL-terminated text, or NULL for none.
class Body {
public:
    explicit Body(std::optional<std::string_view> body) : present_(body.has_value()), text_(body.value_or("")) {}
    const char *get() const { return present_ ? text_.c_str() : nullptr; }

private:
    bool present_;
    std::string text_;
};

/// "Name: value" lines as the NULL-terminated array the C functions take; `lines` owns the text.
class HeaderArray {
public:
    explicit HeaderArray(const std::vector<std::string_view> &headers) {
        lines_.reserve(headers.size());
        for (std::string_view header : headers) lines_.emplace_back(header);
        for (const std::string &line : lines_) pointers_.push_back(line.c_str());
        pointers_.push_back(nullptr);
    }
    const char *const *get() const { return lines_.empty() ? nullptr : pointers_.data(); }

private:
    std::vector<std::string> lines_;
    std::vector<const char *> pointers_;
};

/// A progress callback during one blocking call: an exception it throws stops the operation and is
/// thrown again from the call, never across the C library.
struct ProgressContext {
    const std::function<bool(long done, long total)> *function;
    std::exception_ptr thrown;

    static int trampoline(long done, long total, void *payload) {
        auto *context = static_cast<ProgressContext *>(payload);
        try {
            return (*context->function)(done, total) ? 1 : 0;
        } catch (...) {
            context->thrown = std::current_exception();
            return 1;
        }
    }
};

/// Runs a C call that takes a progress callback; rethrows what the callback threw, else checks.
template <typename Call>
void with_progress(const std::function<bool(long, long)> &progress, Call call) {
    ProgressContext context{&progress, nullptr};
    ood_status status = progress ? call(&ProgressContext::trampoline, static_cast<void *>(&context))
                                 : call(nullptr, nullptr);
    if (context.thrown) std::rethrow_exception(context.thrown);
    check(status);
}

}  // namespace detail

/// The answer to a request: HTTP status, headers, body. Move-only; released with ood_result_free.
class Result {
public:
    explicit Result(ood_result *handle) noexcept : handle_(handle, ood_result_free) {}

    int status() const noexcept { return ood_result_status(handle_.get()); }
    /// The body (OData JSON, or text for $count); valid as long as this Result.
    std::string_view body() const noexcept {
        size_t length = 0;
        const char *text = ood_result_body(handle_.get(), &length);
        return std::string_view(text, length);
    }
    std::string_view content_type() const noexcept { return ood_result_content_type(handle_.get()); }
    /// A header by name, compared without case; valid as long as this Result.
    std::optional<std::string_view> header(std::string_view name) const {
        const char *value = ood_result_header(handle_.get(), detail::c_text(name).c_str());
        if (value == nullptr) return std::nullopt;
        return std::string_view(value);
    }
    /// The entity's version, for If-Match: the ETag of a read by key or of a service's answer.
    std::optional<std::string_view> etag() const { return header("ETag"); }
    /// A created entity's address.
    std::optional<std::string_view> location() const { return header("Location"); }
    /// The link to the next page of Store::request_page(); nullopt on the last page.
    std::optional<std::string_view> next_link() const noexcept {
        const char *link = ood_result_next_link(handle_.get());
        if (link == nullptr) return std::nullopt;
        return std::string_view(link);
    }
    /// What the answer holds (a collection, an entity, a property, a count, a raw value), as the
    /// store understood the request; a next link's page is OOD_ANSWER_OTHER.
    ood_answer_kind kind() const noexcept { return ood_result_kind(handle_.get()); }
    /// The entity set of the answer's entities; nullopt when it names none.
    std::optional<std::string_view> entity_set() const noexcept { return optional_text(ood_result_entity_set(handle_.get())); }
    /// The qualified entity type of the answer's entities; nullopt when unknown.
    std::optional<std::string_view> entity_type() const noexcept { return optional_text(ood_result_entity_type(handle_.get())); }
    /// The property path of a property or $value answer ("Address/City"); nullopt for others.
    std::optional<std::string_view> property() const noexcept {
        return optional_text(ood_result_property(handle_.get(), nullptr));
    }
    /// The EDM type of a property or $value answer ("Edm.String"); nullopt for others.
    std::optional<std::string_view> property_type() const noexcept {
        const char *type = nullptr;
        ood_result_property(handle_.get(), &type);
        return optional_text(type);
    }
    const ood_result *get() const noexcept { return handle_.get(); }

private:
    static std::optional<std::string_view> optional_text(const char *text) noexcept {
        if (text == nullptr) return std::nullopt;
        return std::string_view(text);
    }

    std::unique_ptr<ood_result, void (*)(ood_result *)> handle_;
};

/// Settings for opening a store (ood_options). Each setter returns *this, so they chain.
class Options {
public:
    Options() : handle_(nullptr, ood_options_free) {
        ood_options *raw = nullptr;
        check(ood_options_new(&raw));
        handle_.reset(raw);
    }

    Options &path(std::string_view path) { return set(ood_options_set_path(get(), detail::c_text(path).c_str())); }
    Options &service_root(std::string_view root) {
        return set(ood_options_set_service_root(get(), detail::c_text(root).c_str()));
    }
    Options &service_root_saved(bool saved) { return set(ood_options_set_service_root_saved(get(), saved ? 1 : 0)); }
    Options &metadata(std::string_view document) {
        return set(ood_options_set_metadata(get(), detail::c_text(document).c_str()));
    }
    Options &defining_request(std::string_view name, std::string_view url) {
        return set(ood_options_add_defining_request(get(), detail::c_text(name).c_str(), detail::c_text(url).c_str()));
    }
    /// A defining request whose media entities' streams are downloaded too (docs/MEDIA.md).
    Options &defining_request_streams(std::string_view name, std::string_view url) {
        return set(ood_options_add_defining_request_streams(get(), detail::c_text(name).c_str(), detail::c_text(url).c_str()));
    }
    /// The largest stream and the stream folder's room, in bytes (0 keeps a default).
    Options &stream_limits(long long max_stream_size, long long max_folder_size) {
        return set(ood_options_set_stream_limits(get(), max_stream_size, max_folder_size));
    }
    Options &index(std::string_view entity_set, std::string_view properties) {
        return set(ood_options_add_index(get(), detail::c_text(entity_set).c_str(), detail::c_text(properties).c_str()));
    }
    Options &mode(ood_mode mode) { return set(ood_options_set_mode(get(), mode)); }
    Options &basic_auth(std::string_view user, std::string_view password) {
        return set(ood_options_set_basic_auth(get(), detail::c_text(user).c_str(), detail::c_text(password).c_str()));
    }
    Options &bearer_token(std::string_view token) {
        return set(ood_options_set_bearer_token(get(), detail::c_text(token).c_str()));
    }
    Options &header(std::string_view name, std::string_view value) {
        return set(ood_options_add_header(get(), detail::c_text(name).c_str(), detail::c_text(value).c_str()));
    }
    Options &cookie(std::string_view name, std::string_view value) {
        return set(ood_options_add_cookie(get(), detail::c_text(name).c_str(), detail::c_text(value).c_str()));
    }
    Options &timeouts(double connect_seconds, double request_seconds) {
        return set(ood_options_set_timeouts(get(), connect_seconds, request_seconds));
    }
    /// TLS verification with a CA file and/or folder (empty: the system's).
    Options &tls(bool verify, std::string_view ca_file = {}, std::string_view ca_path = {}) {
        std::string file(ca_file), folder(ca_path);
        return set(ood_options_set_tls(get(), verify ? 1 : 0, file.empty() ? nullptr : file.c_str(),
                                       folder.empty() ? nullptr : folder.c_str()));
    }
    Options &limit(ood_limit limit, long long value) { return set(ood_options_set_limit(get(), limit, value)); }
    Options &accept_empty_file(bool accept) { return set(ood_options_set_accept_empty_file(get(), accept ? 1 : 0)); }
    Options &page_size(int size) { return set(ood_options_set_page_size(get(), size)); }
    /// The store's raw key (32 bytes) or passphrase (docs/ENCRYPTION.md).
    Options &key(const unsigned char *bytes, size_t length) { return set(ood_options_set_key(get(), bytes, length)); }
    Options &passphrase(std::string_view text) { return set(ood_options_set_passphrase(get(), detail::c_text(text).c_str())); }
    /// The user the store is opened for (docs/SHARED-DEVICE.md); another user's store throws OOD_OTHER_USER.
    Options &user(std::string_view name) { return set(ood_options_set_user(get(), detail::c_text(name).c_str())); }
    Options &batch(int batch_size, bool group_by_transaction = false) {
        return set(ood_options_set_batch(get(), batch_size, group_by_transaction ? 1 : 0));
    }

    ood_options *get() const noexcept { return handle_.get(); }

private:
    Options &set(ood_status status) {
        check(status);
        return *this;
    }
    std::unique_ptr<ood_options, void (*)(ood_options *)> handle_;
};

/// A subscription to a store's events; ends when destroyed. Move-only.
class Subscription {
public:
    /// What the C callback reaches: the handler, and whether it may still be called. It lives as
    /// long as the subscription and its store (a late event may arrive after ood_subscription_free).
    struct State {
        std::recursive_mutex lock;
        bool active = true;
        std::function<void(int kind, std::string_view details_json)> handler;

        static void trampoline(int kind, const char *details, void *payload) {
            auto *state = static_cast<State *>(payload);
            std::lock_guard<std::recursive_mutex> guard(state->lock);
            if (!state->active) return;
            try {
                state->handler(kind, details != nullptr ? std::string_view(details) : std::string_view());
            } catch (...) {
                // An exception cannot cross the C library; the event handler's own failure is dropped.
            }
        }
    };

    Subscription(ood_subscription *handle, std::shared_ptr<State> state) noexcept
        : handle_(handle), state_(std::move(state)) {}
    Subscription(Subscription &&other) noexcept
        : handle_(std::exchange(other.handle_, nullptr)), state_(std::move(other.state_)) {}
    Subscription &operator=(Subscription &&other) noexcept {
        if (this != &other) {
            end();
            handle_ = std::exchange(other.handle_, nullptr);
            state_ = std::move(other.state_);
        }
        return *this;
    }
    Subscription(const Subscription &) = delete;
    Subscription &operator=(const Subscription &) = delete;
    ~Subscription() { end(); }

    /// Stops the events: after it returns, the handler is not called again.
    void end() noexcept {
        if (state_) {
            std::lock_guard<std::recursive_mutex> guard(state_->lock);
            state_->active = false;
        }
        ood_subscription_free(std::exchange(handle_, nullptr));
        state_.reset();
    }

private:
    ood_subscription *handle_;
    std::shared_ptr<State> state_;
};

/// A watched read (ood_watch): the handler gets the current answer, then each new one, on the
/// store's live-query thread, until the Watch is stopped or destroyed. Move-only. Do not destroy
/// or stop a Watch from inside its own handler (stop it from another thread, or let the store close).
class Watch {
public:
    /// What the C callback reaches: the handler. Freed only after ood_watch_stop() returned, after
    /// which the library calls it no more.
    struct State {
        std::function<void(ood_status status, std::string_view body)> handler;

        static void trampoline(ood_status status, const char *body, size_t length, void *payload) {
            auto *state = static_cast<State *>(payload);
            try {
                state->handler(status, body != nullptr ? std::string_view(body, length) : std::string_view());
            } catch (...) {
                // An exception cannot cross the C library; the handler's own failure is dropped.
            }
        }
    };

    Watch(ood_watcher *handle, std::unique_ptr<State> state) noexcept : handle_(handle), state_(std::move(state)) {}
    Watch(Watch &&other) noexcept : handle_(std::exchange(other.handle_, nullptr)), state_(std::move(other.state_)) {}
    Watch &operator=(Watch &&other) noexcept {
        if (this != &other) {
            stop();
            handle_ = std::exchange(other.handle_, nullptr);
            state_ = std::move(other.state_);
        }
        return *this;
    }
    Watch(const Watch &) = delete;
    Watch &operator=(const Watch &) = delete;
    ~Watch() { stop(); }

    /// Stops the answers: after it returns, the handler is not called again.
    void stop() noexcept {
        ood_watch_stop(std::exchange(handle_, nullptr));
        state_.reset();
    }

    /// How often the read ran, and how many answers were delivered (see ood_watch_counts).
    std::pair<long long, long long> counts() const {
        ood_int64 runs = 0, deliveries = 0;
        if (handle_ != nullptr) check(ood_watch_counts(handle_, &runs, &deliveries));
        return {runs, deliveries};
    }

private:
    ood_watcher *handle_;
    std::unique_ptr<State> state_;
};

/// A started asynchronous request: its answer to come, and cancelling it. Move-only.
class Call {
public:
    Call(std::future<Result> result, ood_call *handle) noexcept : result(std::move(result)), handle_(handle, ood_call_free) {}

    /// The answer: get() waits and returns it, or throws its Error (OOD_ABORTED when cancelled).
    std::future<Result> result;

    /// Asks the request to stop (see ood_call_cancel); harmless after it completed.
    void cancel() { check(ood_call_cancel(handle_.get())); }

private:
    std::unique_ptr<ood_call, void (*)(ood_call *)> handle_;
};

/// An open store: requests, download, upload, events, questions, however it was opened (one kind
/// of handle). Closed when destroyed. Move-only; a handle may be shared by threads as the C rules say.
/// Changes the key of the closed store file at `path` from `from`'s key to `to`'s (nullptr: a
/// plain file); see ood_store_rekey().
inline void rekey(std::string_view path, const Options *from, const Options *to) {
    check(ood_store_rekey(detail::c_text(path).c_str(), from != nullptr ? from->get() : nullptr,
                          to != nullptr ? to->get() : nullptr));
}

/// Gives the closed store file at `path` to `new_user` (docs/SHARED-DEVICE.md): `choice` is
/// "upload-first" (with `previous`'s credentials), "discard" or "keep-apart" (to `kept_path`, empty:
/// "<path>.<user>"); `previous` holds the store's key now, `next` the new user's (nullptr: none).
/// Returns the outcome as JSON; see ood_store_hand_over().
inline std::string hand_over(std::string_view path, const Options *previous, std::string_view new_user,
                             const Options *next, std::string_view choice, std::string_view kept_path = {}) {
    char *json = nullptr;
    std::string kept(kept_path);
    check(ood_store_hand_over(detail::c_text(path).c_str(), previous != nullptr ? previous->get() : nullptr,
                              detail::c_text(new_user).c_str(), next != nullptr ? next->get() : nullptr,
                              detail::c_text(choice).c_str(), kept.empty() ? nullptr : kept.c_str(), &json));
    return detail::take(json);
}

/// The user the closed store file at `path` is bound to; nothing when it belongs to nobody (ood_store_user).
inline std::optional<std::string> store_user(std::string_view path, const Options *key = nullptr) {
    char *name = nullptr;
    check(ood_store_user(detail::c_text(path).c_str(), key != nullptr ? key->get() : nullptr, &name));
    if (name == nullptr) return std::nullopt;
    return detail::take(name);
}

class Store {
public:
    /// Opens a store as `options` say and waits until it is open (ood_store_open_with).
    static Store open(const Options &options) {
        auto subscriptions = std::make_unique<SubscriptionStates>();  // before the handle: nothing to leak
        ood_store *raw = nullptr;
        check(ood_store_open_with(options.get(), &raw));
        return Store(raw, std::move(subscriptions));
    }

    /// Opens the store at `path` as its file describes it (ood_store_open): its saved model,
    /// defining requests and service root; a new file is made, answering the file-level questions
    /// until it is opened with options giving its $metadata or a service root.
    static Store open(std::string_view path) {
        auto subscriptions = std::make_unique<SubscriptionStates>();
        ood_store *raw = nullptr;
        check(ood_store_open(detail::c_text(path).c_str(), &raw));
        return Store(raw, std::move(subscriptions));
    }

    /// Opens the encrypted store at `path` as its file describes it, with the key of `key`
    /// (Options::key or Options::passphrase; its other settings are not used) (ood_store_open_keyed).
    static Store open(std::string_view path, const Options &key) {
        auto subscriptions = std::make_unique<SubscriptionStates>();
        ood_store *raw = nullptr;
        check(ood_store_open_keyed(detail::c_text(path).c_str(), key.get(), &raw));
        return Store(raw, std::move(subscriptions));
    }

    Store(Store &&other) noexcept
        : handle_(std::exchange(other.handle_, nullptr)), subscriptions_(std::move(other.subscriptions_)) {}
    Store &operator=(Store &&other) noexcept {
        if (this != &other) {
            close_quietly();
            handle_ = std::exchange(other.handle_, nullptr);
            subscriptions_ = std::move(other.subscriptions_);
        }
        return *this;
    }
    Store(const Store &) = delete;
    Store &operator=(const Store &) = delete;
    ~Store() { close_quietly(); }

    /// Closes the store now (the destructor does it otherwise).
    void close() { close_quietly(); }

    /// One OData request, waited for: GET, POST, PUT, PATCH, MERGE or DELETE, with an optional
    /// JSON body and "Name: value" headers.
    Result request(std::string_view method, std::string_view url, std::optional<std::string_view> body = std::nullopt,
                   const std::vector<std::string_view> &headers = {}) {
        detail::Body body_text(body);
        detail::HeaderArray header_array(headers);
        ood_result *raw = nullptr;
        check(ood_request_with_headers(handle_, detail::c_text(method).c_str(), detail::c_text(url).c_str(),
                                       body_text.get(), header_array.get(), &raw));
        return Result(raw);
    }
    Result get(std::string_view url) { return request("GET", url); }

    /// A write that belongs to the transaction `transaction_id` (see ood_request_in_transaction).
    Result request_in_transaction(std::string_view transaction_id, std::string_view method, std::string_view url,
                                  std::optional<std::string_view> body = std::nullopt,
                                  const std::vector<std::string_view> &headers = {}) {
        detail::Body body_text(body);
        detail::HeaderArray header_array(headers);
        ood_result *raw = nullptr;
        check(ood_request_in_transaction(handle_, detail::c_text(transaction_id).c_str(), detail::c_text(method).c_str(),
                                         detail::c_text(url).c_str(), body_text.get(),
                                         header_array.get(), &raw));
        return Result(raw);
    }

    /// One page of a collection; pass Result::next_link() back as `url` until it is empty.
    Result request_page(std::string_view url, const std::vector<std::string_view> &headers = {}) {
        detail::HeaderArray header_array(headers);
        ood_result *raw = nullptr;
        check(ood_request_page(handle_, detail::c_text(url).c_str(), header_array.get(), &raw));
        return Result(raw);
    }

    /// Starts a request and returns at once: Call::result answers it, Call::cancel() stops it.
    Call start(std::string_view method, std::string_view url, std::optional<std::string_view> body = std::nullopt,
               const std::vector<std::string_view> &headers = {}) {
        auto promise = std::make_unique<std::promise<Result>>();
        std::future<Result> future = promise->get_future();
        detail::Body body_text(body);
        detail::HeaderArray header_array(headers);
        ood_call *call = nullptr;
        check(ood_request_start(handle_, detail::c_text(method).c_str(), detail::c_text(url).c_str(),
                                body_text.get(), header_array.get(), &Store::complete,
                                promise.get(), &call));
        promise.release();  // the completion owns it now: the library calls it exactly once
        return Call(std::move(future), call);
    }

    /// Starts a request; the future answers it (get() throws its Error).
    std::future<Result> request_async(std::string_view method, std::string_view url,
                                      std::optional<std::string_view> body = std::nullopt,
                                      const std::vector<std::string_view> &headers = {}) {
        return std::move(start(method, url, body, headers).result);
    }

    /// Where `method` on `url` would go, as JSON: {"destination","reason","coveringRequests"}.
    std::string route(std::string_view method, std::string_view url) {
        char *json = nullptr;
        check(ood_route_json(handle_, detail::c_text(method).c_str(), detail::c_text(url).c_str(), &json));
        return detail::take(json);
    }

    /// Downloads every defining request (or the named ones; `full` ignores delta links). `progress`
    /// gets the entities so far and the total (-1 unknown), and returns true to stop. Answers what
    /// it did as JSON (ood_download_json): {"downloads":[{"definingRequest","entities","pages","bytes",
    /// "expectedEntities","delta","fetchedPages"[,"resumedAtPage"]}]}.
    std::string download(const std::function<bool(long done, long total)> &progress = {}) {
        return download({}, false, progress);
    }
    std::string download(const std::vector<std::string_view> &subset, bool full,
                         const std::function<bool(long done, long total)> &progress = {}) {
        detail::HeaderArray names(subset);  // the same NULL-terminated array of strings
        char *json = nullptr;
        detail::with_progress(progress, [&](ood_progress function, void *payload) {
            return ood_download_json(handle_, subset.empty() ? nullptr : names.get(), full ? 1 : 0, function, payload, &json);
        });
        return detail::take(json);
    }
    /// As download(subset, full, progress), with ood_download_flags()'s flags: OOD_DOWNLOAD_FULL,
    /// OOD_DOWNLOAD_NO_MODEL_CHECK (skip the check of the service's $metadata that every download makes first).
    std::string download_flags(const std::vector<std::string_view> &subset, int flags,
                               const std::function<bool(long done, long total)> &progress = {}) {
        detail::HeaderArray names(subset);
        char *json = nullptr;
        detail::with_progress(progress, [&](ood_progress function, void *payload) {
            return ood_download_flags(handle_, subset.empty() ? nullptr : names.get(), flags, function, payload, &json);
        });
        return detail::take(json);
    }

    /// What an upload did.
    struct UploadCounts {
        long sent;
        long archived;
    };
    /// Uploads the request queue. `progress` gets the requests answered and the queue's length,
    /// and returns true to stop.
    UploadCounts upload(const std::function<bool(long done, long total)> &progress = {}) {
        UploadCounts counts{0, 0};
        detail::with_progress(progress, [&](ood_progress function, void *payload) {
            return ood_upload(handle_, function, payload, &counts.sent, &counts.archived);
        });
        return counts;
    }

    // Conflict policies (docs/CONFLICTS.md).

    /// What a conflict resolver answers: one of the policies, or (OOD_CONFLICT_MERGED_BODY) the
    /// JSON object `merged_body` to send as an update on the service's current version.
    struct ConflictAnswer {
        ood_conflict_answer answer = OOD_CONFLICT_ARCHIVE;
        std::string merged_body;
    };
    /// Decides one conflict from its versions as JSON (see ood_conflict_resolver for the shape).
    using ConflictResolver = std::function<ConflictAnswer(std::string_view versions_json)>;

    /// Keeps `policy` ("archive", "serverWins", "clientWins", "mergeChangedFields") as the
    /// store's default, or `entity_set`'s; later uploads follow it.
    void set_conflict_policy(std::string_view policy, std::optional<std::string_view> entity_set = std::nullopt) {
        detail::Body set(entity_set);
        check(ood_store_set_conflict_policy(handle_, set.get(), detail::c_text(policy).c_str()));
    }
    /// The store's policies: {"default": POLICY, "entitySets": {SET: POLICY}}.
    std::string conflict_policies() { return ask0(ood_store_conflict_policies); }
    /// Uploads with `policy` for every set (nullopt: the store's) and `resolver` (empty: none)
    /// deciding each conflict; the outcome {"sent","archived","inDoubt","discarded","compacted"}.
    /// An exception the resolver throws archives that conflict and the later ones (nothing is
    /// lost) and is thrown from here once the upload has ended; so is a merged body longer than
    /// the C limit (64 KiB).
    std::string upload_resolving(std::optional<std::string_view> policy = std::nullopt, const ConflictResolver &resolver = {}) {
        detail::Body policy_text(policy);
        ResolverContext context{&resolver, nullptr};
        char *json = nullptr;
        ood_status status = ood_upload_resolving(handle_, policy_text.get(), resolver ? &ResolverContext::trampoline : nullptr,
                                                  resolver ? static_cast<void *>(&context) : nullptr, &json);
        std::string outcome = detail::take(json);
        if (context.thrown) std::rethrow_exception(context.thrown);
        check(status);
        return outcome;
    }
    /// Declares `properties` ("name,country") unique per entity in `entity_set`: a create there
    /// whose answer was lost is read back by them (see ood_store_set_alternate_key); "" forgets it.
    void set_alternate_key(std::string_view entity_set, std::string_view properties) {
        check(ood_store_set_alternate_key(handle_, detail::c_text(entity_set).c_str(), detail::c_text(properties).c_str()));
    }
    /// Each set's alternate keys, the app's before the model's: {SET: [[PROPERTY, ...]]}.
    std::string alternate_keys() { return ask0(ood_store_alternate_keys); }
    /// The local changes a policy discarded (server wins), oldest first, as a JSON array.
    std::string discarded_changes() { return ask0(ood_discarded_changes); }
    /// Forgets the record of discarded changes; answers how many were forgotten.
    long clear_discarded_changes() {
        long cleared = 0;
        check(ood_discarded_changes_clear(handle_, &cleared));
        return cleared;
    }

    /// Calls `handler` with each event (an ood_event_kind and its JSON details) on the store's
    /// event thread until the Subscription ends.
    Subscription subscribe(std::function<void(int kind, std::string_view details_json)> handler) {
        auto state = std::make_shared<Subscription::State>();
        state->handler = std::move(handler);
        ood_subscription *raw = nullptr;
        check(ood_subscribe(handle_, &Subscription::State::trampoline, state.get(), &raw));
        {
            std::lock_guard<std::mutex> guard(subscriptions_->lock);
            subscriptions_->states.push_back(state);
        }
        return Subscription(raw, std::move(state));
    }

    /// Watches the local read `url` (see ood_watch): `handler` gets each answer's status and body
    /// until the Watch ends. A negative interval is the default (0.03 s).
    Watch watch(std::string_view url, std::function<void(ood_status status, std::string_view body)> handler,
                double interval_seconds = -1) {
        auto state = std::make_unique<Watch::State>();
        state->handler = std::move(handler);
        ood_watcher *raw = nullptr;
        check(ood_watch(handle_, std::string(url).c_str(), interval_seconds, &Watch::State::trampoline, state.get(), &raw));
        return Watch(raw, std::move(state));
    }

    // Questions, answered as JSON text (see offline_odata.h for each shape).
    std::string explain(std::string_view url) { return ask(ood_explain, url); }
    std::string status() { return ask0(ood_store_status); }
    std::string check_store(bool quick = false) {
        char *json = nullptr;
        check(ood_store_check(handle_, quick ? 1 : 0, &json));
        return detail::take(json);
    }
    /// The sync log, newest first; a negative limit gives every entry.
    std::string sync_log(long long limit = -1) {
        char *json = nullptr;
        check(ood_store_sync_log(handle_, limit, &json));
        return detail::take(json);
    }
    std::string error_archive() { return ask0(ood_error_archive); }
    std::string request_queue() { return ask0(ood_request_queue); }
    /// What upload() would send now, in order; nothing is sent (see ood_upload_preview).
    std::string upload_preview() { return ask0(ood_upload_preview); }
    std::string metadata() { return ask0(ood_metadata); }
    std::string undo(std::string_view url) { return ask(ood_undo, url); }
    std::string redownload(std::string_view url) { return ask(ood_redownload, url); }
    /// Changes the key of this open store to `to`'s (nullptr, or options without a key: decrypt
    /// it); see ood_rekey().
    void rekey(const Options *to) { check(ood_rekey(handle_, to != nullptr ? to->get() : nullptr)); }
    /// Whether the service's $metadata changed, and how (see ood_check_service).
    std::string check_service() { return ask0(ood_check_service); }
    /// Adopts the service's changed model: "uploadFirst", "rebuild" or "archiveRefused" (see
    /// ood_adopt_service_model).
    std::string adopt_service_model(std::string_view choice = "uploadFirst") { return ask(ood_adopt_service_model, choice); }
    /// Makes the automatic indexes the reads so far call for, now; the indexes made as JSON (see
    /// ood_create_automatic_indexes).
    std::string create_automatic_indexes() { return ask0(ood_create_automatic_indexes); }

    /// Discards archived request `id` (all with a negative id); answers how many requests went.
    long discard_archived(long long id) {
        long deleted = 0;
        check(ood_error_archive_delete(handle_, id, &deleted));
        return deleted;
    }
    /// Sends archived request `id` again, with a corrected body or as it was.
    long requeue_archived(long long id, std::optional<std::string_view> body = std::nullopt) {
        detail::Body body_text(body);
        long requeued = 0;
        check(ood_error_archive_requeue(handle_, id, body_text.get(), &requeued));
        return requeued;
    }

    /// Where a media entity's stream is, as the offline store has it (see ood_stream_file): read
    /// the file in place; the store never loads it into memory.
    struct StreamFile {
        std::string path;
        long long length = 0;
        std::string content_type;
    };
    StreamFile stream_file(std::string_view url) {
        char *path = nullptr;
        char *content_type = nullptr;
        ood_int64 length = 0;
        check(ood_stream_file(handle_, detail::c_text(url).c_str(), &path, &length, &content_type));
        StreamFile file;
        file.path = detail::take(path);
        file.content_type = detail::take(content_type);
        file.length = length;
        return file;
    }
    /// Creates a media entity offline from the file at `file_path` (see ood_stream_create);
    /// `properties` is its JSON without the key.
    Result create_media(std::string_view entity_set, std::string_view file_path, std::string_view content_type,
                        std::optional<std::string_view> properties = std::nullopt) {
        detail::Body body_text(properties);
        ood_result *raw = nullptr;
        check(ood_stream_create(handle_, detail::c_text(entity_set).c_str(), detail::c_text(file_path).c_str(),
                                detail::c_text(content_type).c_str(), body_text.get(), &raw));
        return Result(raw);
    }
    /// Replaces a media entity's stream offline with the file at `file_path` (see ood_stream_replace).
    void replace_stream(std::string_view url, std::string_view file_path, std::string_view content_type) {
        check(ood_stream_replace(handle_, detail::c_text(url).c_str(), detail::c_text(file_path).c_str(),
                                 detail::c_text(content_type).c_str()));
    }

    /// The store file's format version (see ood_store_format_version).
    int format_version() {
        int version = 0;
        check(ood_store_format_version(handle_, &version));
        return version;
    }
    /// The path the store file was opened with.
    std::string path() {
        char *text = nullptr;
        check(ood_store_path(handle_, &text));
        return detail::take(text);
    }

    ood_store *get() const noexcept { return handle_; }

private:
    struct SubscriptionStates;
    Store(ood_store *handle, std::unique_ptr<SubscriptionStates> subscriptions) noexcept
        : handle_(handle), subscriptions_(std::move(subscriptions)) {}

    void close_quietly() noexcept {
        ood_store_close(std::exchange(handle_, nullptr));
        // After the close no event is delivered any more: the handlers' states may go.
        if (subscriptions_) {
            std::lock_guard<std::mutex> guard(subscriptions_->lock);
            subscriptions_->states.clear();
        }
    }

    static void complete(ood_status status, ood_result *result, void *payload) {
        std::unique_ptr<std::promise<Result>> promise(static_cast<std::promise<Result> *>(payload));
        if (status == OOD_OK) {
            promise->set_value(Result(result));
            return;
        }
        ood_result_free(result);
        try {
            promise->set_exception(std::make_exception_ptr(Error::from_this_thread(status)));
        } catch (...) {
            promise->set_exception(std::current_exception());  // no memory for the error: that, not a crash
        }
    }

    /// A resolver during one upload: what it throws is kept (the conflict archived meanwhile) and
    /// thrown again after the upload, never across the C library.
    struct ResolverContext {
        const ConflictResolver *resolver;
        std::exception_ptr thrown;

        static int trampoline(const char *versions_json, char *merged_body, size_t capacity, void *payload) {
            auto *context = static_cast<ResolverContext *>(payload);
            if (context->thrown) return OOD_CONFLICT_ARCHIVE;
            try {
                ConflictAnswer answer = (*context->resolver)(versions_json != nullptr ? versions_json : "");
                if (answer.answer != OOD_CONFLICT_MERGED_BODY) return answer.answer;
                if (answer.merged_body.size() + 1 > capacity) {
                    throw std::length_error("the merged body is longer than the C API takes");
                }
                std::memcpy(merged_body, answer.merged_body.c_str(), answer.merged_body.size() + 1);
                return OOD_CONFLICT_MERGED_BODY;
            } catch (...) {
                context->thrown = std::current_exception();
                return OOD_CONFLICT_ARCHIVE;
            }
        }
    };

    std::string ask(ood_status (*function)(ood_store *, const char *, char **), std::string_view url) {
        char *json = nullptr;
        check(function(handle_, detail::c_text(url).c_str(), &json));
        return detail::take(json);
    }
    std::string ask0(ood_status (*function)(ood_store *, char **)) {
        char *json = nullptr;
        check(function(handle_, &json));
        return detail::take(json);
    }

    ood_store *handle_;
    /// The states of this store's subscriptions, kept until it is closed (see Subscription::State);
    /// behind a lock, since threads sharing the store may subscribe at once.
    struct SubscriptionStates {
        std::mutex lock;
        std::vector<std::shared_ptr<Subscription::State>> states;
    };
    std::unique_ptr<SubscriptionStates> subscriptions_;
};

}  // namespace ood

#endif  // OFFLINE_ODATA_HPP
