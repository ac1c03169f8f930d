/*
 * log.h - zkelectd's log, OpenBSD style: log_warn() adds strerror(errno),
 * log_warnx() does not; fatal()/fatalx() log and exit 1.
 *
 * Lines go to standard error (with a timestamp) or to syslog(3), facility
 * LOG_DAEMON, at syslog levels. Every function is thread-safe: the library's
 * threads, ZooKeeper's and the daemon's own log through here. Messages are
 * one line; untrusted text must be escaped by the caller (zke_escape() of
 * src/common/zkecommon.h).
 */
#ifndef ZKD_LOG_H
#define ZKD_LOG_H

#include <stdarg.h>
#include <stddef.h>

/*
 * Start logging as ident to target (ZKD_LOG_STDERR or ZKD_LOG_SYSLOG from
 * config.h) at level (a syslog level: messages above it are dropped).
 * Before log_init() everything goes to stderr at LOG_INFO.
 */
void log_init(const char *ident, int target, int level);

/* Change the target or the level (SIGHUP). */
void log_settarget(int target);
void log_setlevel(int level);
int log_getlevel(void);

/* The level's name: "error", "warning", "notice", "info", "debug". */
const char *log_levelname(int level);

void log_emit(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void log_vemit(int level, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));
void fatalx(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

/* The library's log callback (zkelect_log_fn): data is unused. */
void log_library(void *data, int level, const char *msg);

#endif /* ZKD_LOG_H */
