/*
 * log.c - zkelectd's log: stderr (with a timestamp) or syslog, at a level
 * that SIGHUP may change. One mutex serialises stderr lines; syslog(3) is
 * thread-safe on its own.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "config.h"                     /* src/daemon/config.h: ZKD_LOG_* */
#include "log.h"

#define LOG_LINE_MAX 2048               /* longest line logged (cut beyond) */

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static const char *log_ident = "zkelectd";
static int log_target = ZKD_LOG_STDERR;  /* log_mu */
static int log_level = LOG_INFO;        /* atomic: read without log_mu */
static int log_opened;                  /* openlog() called (log_mu) */

void
log_init(const char *ident, int target, int level)
{
    pthread_mutex_lock(&log_mu);
    log_ident = ident;
    pthread_mutex_unlock(&log_mu);
    log_settarget(target);
    log_setlevel(level);
}

void
log_settarget(int target)
{
    pthread_mutex_lock(&log_mu);
    if (target == ZKD_LOG_SYSLOG && !log_opened) {
        openlog(log_ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
        log_opened = 1;
    }
    log_target = target;
    pthread_mutex_unlock(&log_mu);
}

void
log_setlevel(int level)
{
    __atomic_store_n(&log_level, level, __ATOMIC_RELAXED);
}

int
log_getlevel(void)
{
    return __atomic_load_n(&log_level, __ATOMIC_RELAXED);
}

const char *
log_levelname(int level)
{
    switch (level) {
    case LOG_EMERG:
    case LOG_ALERT:
    case LOG_CRIT:
    case LOG_ERR:
        return "error";
    case LOG_WARNING:
        return "warning";
    case LOG_NOTICE:
        return "notice";
    case LOG_INFO:
        return "info";
    default:
        return "debug";
    }
}

void
log_vemit(int level, const char *fmt, va_list ap)
{
    char line[LOG_LINE_MAX], stamp[32];
    struct timespec ts;
    struct tm tm;
    int saved = errno;

    if (level > log_getlevel()) {
        errno = saved;
        return;
    }
    vsnprintf(line, sizeof(line), fmt, ap);
    pthread_mutex_lock(&log_mu);
    if (log_target == ZKD_LOG_SYSLOG) {
        syslog(level, "%s", line);
    } else {
        clock_gettime(CLOCK_REALTIME, &ts);
        localtime_r(&ts.tv_sec, &tm);
        strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
        fprintf(stderr, "%s.%03ld %s[%ld]: %s: %s\n", stamp, ts.tv_nsec / 1000000L,
            log_ident, (long)getpid(), log_levelname(level), line);
        fflush(stderr);
    }
    pthread_mutex_unlock(&log_mu);
    errno = saved;
}

void
log_emit(int level, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    log_vemit(level, fmt, ap);
    va_end(ap);
}

/* fmt followed by ": strerror(errno)". */
static void __attribute__((format(printf, 2, 0)))
log_verr(int level, const char *fmt, va_list ap)
{
    char buf[LOG_LINE_MAX];
    int saved = errno;

    vsnprintf(buf, sizeof(buf), fmt, ap);
    log_emit(level, "%s: %s", buf, strerror(saved));
    errno = saved;
}

void
log_warn(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    log_verr(LOG_WARNING, fmt, ap);
    va_end(ap);
}

void
log_warnx(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    log_vemit(LOG_WARNING, fmt, ap);
    va_end(ap);
}

void
log_notice(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    log_vemit(LOG_NOTICE, fmt, ap);
    va_end(ap);
}

void
log_info(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    log_vemit(LOG_INFO, fmt, ap);
    va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    log_vemit(LOG_DEBUG, fmt, ap);
    va_end(ap);
}

void
fatal(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    log_verr(LOG_ERR, fmt, ap);
    va_end(ap);
    exit(1);
}

void
fatalx(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    log_vemit(LOG_ERR, fmt, ap);
    va_end(ap);
    exit(1);
}

void
log_library(void *data, int level, const char *msg)
{
    (void)data;
    log_emit(level, "%s", msg);
}
