/*
 * util.h - what the three bench programs (zkbench, zkbench-node and
 * zkbench-swarm) share: the clock of every figure and the parsing of a
 * numeric option. Header only: each program is built on its own.
 */
#ifndef ZKBENCH_UTIL_H
#define ZKBENCH_UTIL_H

#include <errno.h>
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
