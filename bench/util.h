/*
 * util.h - what the three bench programs (zkbench, zkbench-node and
 * zkbench-swarm) share: the clock of every figure, timed waits on that
 * clock, and the parsing of a numeric option. Header only: each program is
 * built on its own.
 */
#ifndef ZKBENCH_UTIL_H
#define ZKBENCH_UTIL_H

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* CLOCK_MONOTONIC in microseconds: one clock for every process here. */
static inline uint64_t
now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* A condition variable whose timed waits take CLOCK_MONOTONIC deadlines ... */
static inline void
cond_init_mono(pthread_cond_t *cv)
{
    pthread_condattr_t ca;

    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(cv, &ca);
    pthread_condattr_destroy(&ca);
}

/* ... such as US, a time of now_us(), for pthread_cond_timedwait(). */
static inline struct timespec
mono_at(uint64_t us)
{
    struct timespec ts;

    ts.tv_sec = (time_t)(us / 1000000u);
    ts.tv_nsec = (long)(us % 1000000u) * 1000L;
    return ts;
}

/* The value of option -OPT of PROG: an integer in [min, max], or a message
   naming the option and exit 2. */
static inline int
opt_num(const char *prog, int opt, const char *s, long min, long max)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max) {
        fprintf(stderr, "%s: -%c: expected an integer from %ld to %ld, got '%s'\n", prog, opt,
            min, max, s);
        exit(2);
    }
    return (int)v;
}

#endif
