#ifndef GRAPH_ICS_CMICROHTTPD_SHIM_H
#define GRAPH_ICS_CMICROHTTPD_SHIM_H
// graph-ics serves its calendar feeds with GNU libmicrohttpd (Debian's libmicrohttpd-dev) through this
// header only. MHD_start_daemon, MHD_get_daemon_info and MHD_get_connection_info are variadic, which Swift
// cannot call: the typed helpers below (prefix gics_mhd_) call them, and gics_mhd_start passes every option
// as one MHD_OPTION_ARRAY.
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <microhttpd.h>

/// An anonymous in-memory file of `size` bytes (memfd_create(2), close-on-exec), -1 on failure. A body kept
/// in one is sent with sendfile(2), without copying it through the process on every response.
static inline int gics_memory_file(const char *name, size_t size) {
    int fd = (int)syscall(SYS_memfd_create, name, 1U /* MFD_CLOEXEC */);
    if (fd < 0) {
        return -1;
    }
    if (ftruncate(fd, (off_t)size) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/// Receives one line libmicrohttpd logged (MHD_USE_ERROR_LOG), already formatted, without its newline.
typedef void (*gics_mhd_log_function)(void *context, const char *line);

/// Everything gics_mhd_start turns into daemon flags and options. The caller keeps it (and every string and
/// address it points to) alive and unchanged until MHD_stop_daemon has returned: the logger reads it then.
struct gics_mhd_settings {
    /// MHD_USE_* flags; gics_mhd_start adds MHD_USE_ERROR_LOG, MHD_USE_IPv6 and MHD_USE_TLS as needed.
    unsigned int flags;
    /// A struct sockaddr_in or sockaddr_in6 (MHD_OPTION_SOCK_ADDR); its family decides MHD_USE_IPv6.
    const struct sockaddr *address;
    unsigned int thread_pool_size;
    unsigned int connection_limit;
    /// 0: no per-address limit.
    unsigned int per_address_connection_limit;
    /// Seconds of inactivity before a connection is closed.
    unsigned int connection_timeout;
    size_t connection_memory_limit;
    /// PEM text; both NULL: plain HTTP, both set: HTTPS (MHD_USE_TLS, GnuTLS).
    const char *tls_certificate_pem;
    const char *tls_key_pem;
    MHD_AccessHandlerCallback handler;
    MHD_RequestCompletedCallback completed;
    /// Told of every connection opened and closed (MHD_OPTION_NOTIFY_CONNECTION).
    MHD_NotifyConnectionCallback connection_notify;
    /// Handed to handler, completed and log.
    void *context;
    gics_mhd_log_function log;
};

/// MHD_LogCallback: formats the message and hands it to the settings' log function, leaving errno as it
/// was (gics_mhd_start reads errno after a failed start).
static inline void gics_mhd_log_formatted(void *cls, const char *format, va_list arguments) {
    struct gics_mhd_settings *settings = (struct gics_mhd_settings *)cls;
    int saved = errno;
    char line[512];
    int length = vsnprintf(line, sizeof line, format, arguments);
    if (length > 0) {
        size_t end = (size_t)length < sizeof line ? (size_t)length : sizeof line - 1;
        while (end > 0 && (line[end - 1] == '\n' || line[end - 1] == '\r')) {
            line[--end] = '\0';
        }
        if (settings->log != NULL) {
            settings->log(settings->context, line);
        }
    }
    errno = saved;
}

/// MHD_OPTION_UNESCAPE_CALLBACK that leaves the path as the client sent it (no percent-decoding).
static inline size_t gics_mhd_keep_escapes(void *cls, struct MHD_Connection *connection, char *text) {
    (void)cls;
    (void)connection;
    return strlen(text);
}

/// MHD_start_daemon with the settings as one MHD_OPTION_ARRAY. On failure returns NULL and sets
/// *error_number to errno as MHD_start_daemon left it (0 when it set none).
static inline struct MHD_Daemon *gics_mhd_start(const struct gics_mhd_settings *settings, int *error_number) {
    unsigned int flags = settings->flags | MHD_USE_ERROR_LOG;
    if (settings->address->sa_family == AF_INET6) {
        flags |= MHD_USE_IPv6;
    }
    int tls = settings->tls_certificate_pem != NULL && settings->tls_key_pem != NULL;
    if (tls) {
        flags |= MHD_USE_TLS;
    }
    struct MHD_OptionItem options[] = {
        {MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)gics_mhd_log_formatted, (void *)settings},
        {MHD_OPTION_SOCK_ADDR, 0, (void *)settings->address},
        {MHD_OPTION_THREAD_POOL_SIZE, (intptr_t)settings->thread_pool_size, NULL},
        {MHD_OPTION_CONNECTION_LIMIT, (intptr_t)settings->connection_limit, NULL},
        {MHD_OPTION_PER_IP_CONNECTION_LIMIT, (intptr_t)settings->per_address_connection_limit, NULL},
        {MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)settings->connection_timeout, NULL},
        {MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)settings->connection_memory_limit, NULL},
        {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)settings->completed, settings->context},
        {MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)settings->connection_notify, settings->context},
        {MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)gics_mhd_keep_escapes, NULL},
        // Without TLS the array ends here.
        {tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, (void *)settings->tls_certificate_pem},
        {MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)settings->tls_key_pem},
        {MHD_OPTION_END, 0, NULL},
    };
    errno = 0;
    struct MHD_Daemon *daemon = MHD_start_daemon(flags, 0, NULL, NULL, settings->handler, settings->context,
                                                 MHD_OPTION_ARRAY, options, MHD_OPTION_END);
    *error_number = daemon == NULL ? errno : 0;
    return daemon;
}

/// The port the daemon's listen socket is bound to (MHD_DAEMON_INFO_BIND_PORT), 0 when unknown.
static inline uint16_t gics_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// The connection's socket (MHD_CONNECTION_INFO_CONNECTION_FD), -1 when unknown.
static inline int gics_mhd_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// What the connection-notify callback stored for the connection (MHD_CONNECTION_INFO_SOCKET_CONTEXT).
static inline void *gics_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/// Writes the client's address as "127.0.0.1:54321" or "[::1]:54321" into buffer (at least 64 bytes;
/// MHD_CONNECTION_INFO_CLIENT_ADDRESS). Returns the length, 0 when the address is unknown.
static inline int gics_mhd_client_address(struct MHD_Connection *connection, char *buffer, size_t size) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL || size < 64) {
        return 0;
    }
    char host[INET6_ADDRSTRLEN];
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)address;
        if (inet_ntop(AF_INET, &v4->sin_addr, host, sizeof host) == NULL) {
            return 0;
        }
        return snprintf(buffer, size, "%s:%u", host, (unsigned)ntohs(v4->sin_port));
    }
    if (address->sa_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)address;
        if (inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof host) == NULL) {
            return 0;
        }
        return snprintf(buffer, size, "[%s]:%u", host, (unsigned)ntohs(v6->sin6_port));
    }
    return 0;
}

#endif
