/*
 * svcint.h - service intervals: when was each node's service active, and did
 * two nodes' services ever run at once?
 *
 * The input is what the hooks stamp with their own CLOCK_MONOTONIC clock
 * (tests/harness/zke-mono), one line per stamp, appended by every node to one
 * file:
 *
 *     NODE start MONO EPOCH      at the start of the takeover hook
 *     NODE end MONO EPOCH        at the end of the stepdown hook
 *
 * MONO is milliseconds (up to 6 decimals), EPOCH a number or "-". Per node a
 * start opens an interval and the next end closes it; an interval still open
 * lasts to the end of the run. Any overlap of two different nodes' intervals
 * is a violation, except the part inside a frozen window (SIGSTOP .. SIGCONT)
 * of one of the two nodes, extended by a stated bound: a stopped process
 * cannot stop its service, and once resumed it has that long to notice.
 *
 * Used by zke-service-check (shell tests) and test_fault's "service" check.
 */
#ifndef SVCINT_H
#define SVCINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SVC_NODE_MAX 64                 /* longest node id + 1 */

struct svc_stamp {                      /* one line of the file */
    char node[SVC_NODE_MAX];
    int end;                            /* 0 start, 1 end */
    int64_t at_us;                      /* MONO in microseconds */
    int64_t epoch;                      /* -1: "-" */
    size_t line;                        /* line number, for the order of equal times */
};

struct svc_win {                        /* a frozen window of a node */
    char node[SVC_NODE_MAX];
    int64_t from_us, to_us;
};

struct svc {
    struct svc_stamp *st;               /* owned; svc_free() */
    size_t nst, cst;
    struct svc_win *win;                /* owned; svc_free() */
    size_t nwin, cwin;
    int64_t origin_us;                  /* > 0: times printed as "+S.sss s" after it */
};

struct svc_figures {
    int intervals;                      /* service intervals found */
    int overlaps;                       /* pairs of intervals that overlap */
    int violations;                     /* ... with a part outside the frozen allowance */
    int64_t longest_us;                 /* longest overlap */
    int64_t longest_outside_us;         /* longest part of one outside the allowance */
};

/* "12345.678" -> microseconds. 0, or -1 when S is not such a number. */
int svc_parse_ms(const char *s, int64_t *us);

/* Add one line (LINENO for messages). 0, or -1 with ERR set ("line N: why"). */
int svc_add_line(struct svc *s, const char *line, size_t lineno, char *err, size_t errlen);

/*
 * Read PATH: 0, or -1 with ERR set ("PATH:N: why" for a malformed line,
 * "PATH: strerror" when it cannot be read). A file that does not exist is
 * read as empty when MISSING_OK.
 */
int svc_load(struct svc *s, const char *path, int missing_ok, char *err, size_t errlen);

/* A frozen window [from, to] of NODE. 0, or -1 (out of memory). */
int svc_frozen(struct svc *s, const char *node, int64_t from_us, int64_t to_us);

/*
 * Build the intervals (open ones end at END_US), print every overlap to OUT
 * ("VIOLATION: ..." when a part of it is outside the frozen windows + BOUND_US,
 * "allowed: ..." otherwise; OUT may be NULL) and fill FIG. Returns the number
 * of violations, or -1 when out of memory.
 */
int svc_check(const struct svc *s, int64_t end_us, int64_t bound_us, FILE *out,
    struct svc_figures *fig);

/* "service: N intervals, longest overlap X ms (Y ms outside frozen windows)" */
void svc_summary(const struct svc_figures *fig, FILE *out);

void svc_free(struct svc *s);

#endif /* SVCINT_H */
