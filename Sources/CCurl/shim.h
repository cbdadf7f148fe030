#ifndef GRAPH_ICS_CCURL_SHIM_H
#define GRAPH_ICS_CCURL_SHIM_H
// graph-ics talks to libcurl (Debian's libcurl4-openssl-dev) through this header only.
// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: the typed
// gics_curl_* helpers below wrap them, one per argument type.
#include <curl/curl.h>
#endif
