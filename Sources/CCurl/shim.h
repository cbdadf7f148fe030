#ifndef GRAPH_ICS_CCURL_SHIM_H
#define GRAPH_ICS_CCURL_SHIM_H
// graph-ics talks to libcurl (Debian's libcurl4-openssl-dev) through this header only.
// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: the typed
// gics_curl_* helpers below wrap them, one per argument type.
#include <curl/curl.h>

// MARK: curl_easy_setopt, one helper per argument type

/// An option that takes a `long` (flags, timeouts in ms, enum values).
static inline CURLcode gics_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

/// An option that takes a NUL-terminated string; libcurl copies it (all string options since 7.17).
static inline CURLcode gics_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

/// An option that takes a pointer libcurl keeps without copying (callback data, POSTFIELDS).
static inline CURLcode gics_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

/// An option that takes a `curl_off_t` (the *_LARGE sizes).
static inline CURLcode gics_curl_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/// An option that takes a header list; libcurl keeps the pointer, so the list must outlive the transfer.
static inline CURLcode gics_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

/// CURLOPT_WRITEFUNCTION or CURLOPT_HEADERFUNCTION (both take the write-callback signature).
static inline CURLcode gics_curl_setopt_write_function(CURL *handle, CURLoption option,
                                                       curl_write_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

/// CURLOPT_XFERINFOFUNCTION.
static inline CURLcode gics_curl_setopt_xferinfo_function(CURL *handle, CURLoption option,
                                                          curl_xferinfo_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

// MARK: curl_easy_getinfo, one helper per result type

static inline CURLcode gics_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

/// The string stays owned by the handle: copy it before the next transfer.
static inline CURLcode gics_curl_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode gics_curl_getinfo_double(CURL *handle, CURLINFO info, double *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode gics_curl_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

#endif
