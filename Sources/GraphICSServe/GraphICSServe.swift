// GraphICSServe: what `graph-ics serve` and `graph-ics feed` run on (issue 15): the feed definitions in
// `feeds.json`, each feed's live copy of its calendar kept fresh from Graph and rendered once per change,
// and the HTTP server (GNU libmicrohttpd, zlib for gzip) that hands the rendered bodies to calendar apps.
